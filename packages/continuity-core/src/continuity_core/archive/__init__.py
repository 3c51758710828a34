"""The recall archive: every session of every agent, searchable, kept after the agent deletes it.

One SQLite file, `~/.baker/archive.sqlite` (0600 in a 0700 folder), with an FTS5 table of
redacted text. Indexing is incremental: each source file's size, read offset and two short
hashes are remembered, so a grown transcript costs only its appended bytes and a shrunk or
rewritten one is read again from the start. Rows of a file that disappears stay, marked gone.

Hooks never touch the archive; only `baker recall` (and `baker doctor`'s retention check) do.

Each passage also carries tokens of its project folder and every folder above it (the `scope`
column), so scoping a search to a project is an index lookup, not a scan; a query matching
more than `MAX_RANKED` passages ranks the newest of them, which bounds its latency.
"""

from continuity_core.archive.extraction import Source
from continuity_core.archive.index import Archive, IndexStats, db_path, refresh
from continuity_core.archive.retention import Retention, retention_findings, retention_report
from continuity_core.archive.search import Hit

__all__ = [
    "Archive",
    "Hit",
    "IndexStats",
    "Retention",
    "Source",
    "db_path",
    "refresh",
    "retention_findings",
    "retention_report",
]
