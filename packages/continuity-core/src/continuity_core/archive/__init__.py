"""The recall archive: every session of every agent, searchable, kept after the agent deletes it.

One SQLite file, `~/.baker/archive.sqlite` (0600 in a 0700 folder), with an FTS5 table of
redacted text. Indexing is incremental: each source file's size, read offset and two short
hashes are remembered, so a grown transcript costs only its appended bytes and a shrunk or
rewritten one is read again from the start. Rows of a file that disappears stay, marked gone.

Text extraction is vendor-neutral: each JSONL record is decoded and the string leaves under
text-like keys (`TEXT_KEYS`) are kept, so an adapter need not parse anything for the archive.
Hooks never touch the archive; only `baker recall` (and `baker doctor`'s retention check) do.

Each passage also carries tokens of its project folder and every folder above it (the `scope`
column), so scoping a search to a project is an index lookup, not a scan; a query matching
more than `MAX_RANKED` passages ranks the newest of them, which bounds its latency.

Transcripts come from each adapter's `all_sessions(accounts)` (every session of every
project); each agent's deletion policy from its `retention` ability.
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
