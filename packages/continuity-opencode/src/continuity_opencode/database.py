"""OpenCode's SQLite database, opened read-only beside a live OpenCode.

OpenCode (1.18.33) keeps every session of every project in one database, `opencode.db` (or
`opencode-<channel>.db`) in its data folder, in WAL mode. Baker never writes it: it opens a
`file:…?mode=ro` URI, waits a short while on a busy database, and reads each session inside
one read transaction, so the tables it joins are one snapshot even while OpenCode writes.
A folder baker cannot write (the WAL index needs it) is read as immutable instead.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3

BUSY_TIMEOUT_S = 1.0
# A session's path as baker names it: the database, "#", the session id. One database holds
# every session, and core keys its cursors (and names the transcript in a brief) by path.
SEPARATOR = "#"


def session_path(db: str, session_id: str) -> str:
    return f"{db}{SEPARATOR}{session_id}"


def split_path(path: str) -> tuple[str, str]:
    """(database, session id) of a path `session_path` made; ("", "") for any other."""
    db, sep, sid = path.rpartition(SEPARATOR)
    if not sep or not sid.startswith("ses_") or not db.endswith(".db"):
        return "", ""
    return db, sid


def _uri(path: str) -> str:
    """The database as a `file:` URI. SQLite gives "?", "#" and "%" a meaning in one (and "//"
    leads a host): a path holding none is the URI as it is; pathlib quotes any other (its
    import, with `urllib.parse` and `ipaddress`, is 0.4 of a bare start on every handoff)."""
    real = os.path.realpath(path)
    if not any(c in real for c in "?#%") and not real.startswith("//"):
        return f"file:{real}"
    from pathlib import Path

    return Path(real).as_uri()


def connect(path: str) -> sqlite3.Connection:
    """A read-only connection; sqlite3.Error when the file is not an OpenCode database."""
    import sqlite3

    uri = _uri(path)
    try:
        conn = _open(f"{uri}?mode=ro")
    except sqlite3.OperationalError as e:
        text = str(e).lower()
        if "locked" in text or "busy" in text or not os.path.isfile(path):
            raise
        # No write access to the folder (the WAL index needs it): read the file as it is.
        conn = _open(f"{uri}?mode=ro&immutable=1")
    return conn


def _open(uri: str) -> sqlite3.Connection:
    import sqlite3

    conn = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.execute("SELECT id, directory, parent_id, time_updated FROM session LIMIT 1")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


class Snapshot:
    """`with Snapshot(conn):` one read transaction: every query inside sees the same state."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN")
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.execute("COMMIT")


def databases(data_dir: str) -> list[str]:
    """Every OpenCode database in a data folder: `opencode.db` and the channel databases
    (`opencode-<channel>.db`, written by dev and preview builds), newest first."""
    try:
        names = os.listdir(data_dir)
    except OSError:
        return []
    found = [
        os.path.join(data_dir, n)
        for n in names
        if n.startswith("opencode") and n.endswith(".db") and (n == "opencode.db" or "-" in n)
    ]
    return sorted(found, key=_mtime, reverse=True)


def _mtime(path: str) -> float:
    try:  # the WAL holds the newest writes until a checkpoint
        return max(os.stat(p).st_mtime for p in (path, path + "-wal") if os.path.exists(p))
    except (OSError, ValueError):
        return 0.0
