"""The SQLite FTS index: one database file, fed incrementally from each source's new bytes."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from continuity_core import stamps, trust
from continuity_core.adapters import Adapter
from continuity_core.archive.extraction import (
    Source,
    Texts,
    _cwd_of,
    _decode,
    extract,
    line_text,
    sources_for,
    strings,
)
from continuity_core.archive.search import Hit, scope_tokens
from continuity_core.archive.search import search as search_sessions
from continuity_core.errors import StoreError
from continuity_core.fs import ensure_private_dir
from continuity_core.jsonl import ForwardReader
from continuity_core.redact import redact
from continuity_core.schemas.config import GlobalConfig

DB_NAME = "archive.sqlite"
SCHEMA = 1
BUSY_TIMEOUT_MS = 5000
COMMIT_BYTES = 8 << 20  # commit (and let readers see progress) after this many bytes read
SIGNATURE_BYTES = 4096  # how much of a file's start (and of the bytes before the offset) to hash


@dataclass
class IndexStats:
    files: int = 0  # sources considered
    indexed: int = 0  # sources that had new bytes
    bytes: int = 0  # bytes read
    rows: int = 0  # rows added to the index
    reset: int = 0  # shrunk or rewritten sources read again from the start
    gone: int = 0  # sources whose file has disappeared (still searchable)
    seconds: float = 0.0
    skipped: list[str] = field(default_factory=list)  # why a source could not be read
    notice: str | None = None  # e.g. the database was rebuilt, or busy


# --- the database ------------------------------------------------------------------------

_SCHEMA_SQL = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sources(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    agent TEXT NOT NULL,
    account TEXT NOT NULL DEFAULT '',
    session_id TEXT NOT NULL,
    project TEXT,
    size INTEGER,  -- NULL after a partial save: the file is read on from `offset` next time
    mtime REAL,
    offset INTEGER NOT NULL DEFAULT 0,
    head TEXT NOT NULL DEFAULT '',
    edge TEXT NOT NULL DEFAULT '',
    first_ts TEXT,
    last_ts TEXT,
    gone INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS sources_session ON sources(session_id);
CREATE TABLE IF NOT EXISTS forgotten(session_id TEXT PRIMARY KEY, at TEXT NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks USING fts5(
    text, scope, source UNINDEXED, ts UNINDEXED,
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT OR IGNORE INTO meta VALUES ('schema', '{SCHEMA}');
"""  # noqa: S608 - a constant, no user input


def db_path() -> Path:
    return Path(trust.home_root(), DB_NAME)


def _is_busy(e: sqlite3.Error) -> bool:
    text = str(e).lower()
    return "locked" in text or "busy" in text


def _is_corrupt(e: sqlite3.Error) -> bool:
    """Damage that only a rebuild cures (not a permission problem or a full disk)."""
    text = str(e).lower()
    return any(
        k in text
        for k in ("not a database", "malformed", "corrupt", "no such table", "no such column")
    )


class Archive:
    """An open archive database. Use as a context manager, or call `close()`."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or db_path()
        self.notice: str | None = None  # set when a corrupt database was moved aside
        try:
            self.db = self._connect()
        except sqlite3.DatabaseError as e:
            if _is_busy(e):
                raise StoreError(
                    f"the recall archive {self.path} is locked by another process; retry in a "
                    "moment"
                ) from None
            if not _is_corrupt(e):
                raise StoreError(f"cannot open the recall archive {self.path}: {e}") from None
            self.db = self._rebuild(e)

    def _connect(self) -> sqlite3.Connection:
        if self.path == db_path():
            trust.home_path()  # 0700, checked; a looser folder of the user's is tightened
        else:
            ensure_private_dir(self.path.parent)
        os.close(trust.open_fd(self.path, os.O_WRONLY | os.O_CREAT, 0o600, home=True))
        db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        try:
            # WAL: a `recall` reading never waits on another one indexing, and vice versa.
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            try:
                version = int(
                    db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
                )
            except (sqlite3.OperationalError, TypeError):
                # A new (empty) file. Only this path writes, so opening to search never waits
                # for another process's write lock.
                db.executescript(_SCHEMA_SQL)
                version = SCHEMA
            if version > SCHEMA:
                raise StoreError(
                    f"the recall archive {self.path} was written by a newer baker (schema "
                    f"{version}); update baker (pip install -U continuity-cli)"
                )
            db.execute("SELECT count(*) FROM sources").fetchone()
            db.execute("SELECT rowid FROM chunks WHERE chunks MATCH 'x' LIMIT 1").fetchall()
        except BaseException:
            db.close()
            raise
        return db

    def _rebuild(self, error: sqlite3.Error) -> sqlite3.Connection:
        """Move a corrupt database aside and start a fresh one, saying so once."""
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamps.new_id('s')}")
        with contextlib.suppress(FileNotFoundError):
            os.replace(self.path, aside)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self.path}{suffix}")
        self.notice = (
            f"the recall archive was unreadable ({error}); moved it to {aside} and started a "
            "new one from the transcripts still on disk (sessions whose files were already "
            "deleted are only in the old file)"
        )
        return self._connect()

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- indexing -------------------------------------------------------------------------
    def pending(self, sources: Sequence[Source]) -> tuple[list[tuple[Source, int]], IndexStats]:
        """Sources whose file changed since it was indexed, with the bytes each will read.

        Also flags sources whose file is gone (they stay searchable) or came back.
        """
        stats = IndexStats(files=len(sources))
        known = {
            row[0]: (row[1], row[2])
            for row in self.db.execute("SELECT path, size, mtime FROM sources")
        }
        forgotten = {row[0] for row in self.db.execute("SELECT session_id FROM forgotten")}
        todo: list[tuple[Source, int]] = []
        present: set[str] = set()
        for src in sources:
            if src.session_id in forgotten:
                continue
            if src.records is not None:  # rows of a database: read again when its time moved
                present.add(src.path)
                if known.get(src.path, (None, None))[1] != src.mtime:
                    todo.append((src, 0))
                continue
            try:
                st = os.stat(src.path)
            except OSError:
                continue
            present.add(src.path)
            size_was, mtime_was = known.get(src.path, (None, None))
            if st.st_size != size_was or st.st_mtime != mtime_was:
                grown = st.st_size - size_was if size_was is not None else st.st_size
                todo.append((src, grown if grown > 0 else st.st_size))
        # Flag sources whose file no longer exists; a file that came back is live again.
        changes = []
        for sid, path, was_gone in self.db.execute("SELECT id, path, gone FROM sources"):
            exists = path in present or os.path.exists(path)
            stats.gone += not exists
            if bool(was_gone) == exists:
                changes.append((0 if exists else 1, sid))
        if changes:
            with self._write():
                self.db.executemany("UPDATE sources SET gone = ? WHERE id = ?", changes)
        return todo, stats

    @contextlib.contextmanager
    def _write(self) -> Iterator[None]:
        self.db.execute("BEGIN IMMEDIATE")
        with self.db:  # COMMIT, or ROLLBACK on any exception
            yield

    def index_pending(
        self,
        todo: Sequence[tuple[Source, int]],
        stats: IndexStats,
        progress: Callable[[int], None] | None = None,
    ) -> IndexStats:
        """Index the sources `pending` returned; `progress(n)` is told of every n bytes read."""
        start = time.perf_counter()
        for src, _ in todo:
            try:
                read, rows, reset = self.index_source(src, progress)
            except OSError as e:
                stats.skipped.append(f"{src.path}: {e.strerror or e}")
                continue
            stats.indexed += 1
            stats.bytes += read
            stats.rows += rows
            stats.reset += reset
        stats.seconds += time.perf_counter() - start
        stats.notice = self.notice
        return stats

    def index_source(
        self, src: Source, progress: Callable[[int], None] | None = None
    ) -> tuple[int, int, bool]:
        """Index one source's new bytes; returns (bytes read, rows added, whether it was reset)."""
        size, head = 0, ""
        if src.records is not None:
            texts = _record_texts(src.records, src.texts)  # read before taking the write lock
        else:
            before = os.stat(src.path)
            if not stat.S_ISREG(before.st_mode):  # a FIFO would block the open, a device not end
                raise OSError(errno.EINVAL, "not a regular file")
            size = before.st_size
            with open(src.path, "rb") as f:
                head = _digest(f.read(SIGNATURE_BYTES))
        # A session of records or a document is indexed whole; a transcript from its offset.
        whole = src.records is not None or src.kind != "transcript"
        # IMMEDIATE: a second indexer waits here, then sees this one's offset, so no text is
        # indexed twice. Long files commit every COMMIT_BYTES (see _index_jsonl).
        with self._write():
            row = self.db.execute(
                "SELECT id, offset, head, edge, project FROM sources WHERE path = ?",
                (src.path,),
            ).fetchone()
            reset = False
            if row is None:
                new = self.db.execute(
                    "INSERT INTO sources(path, kind, agent, account, session_id, project) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (src.path, src.kind, src.agent, src.account, src.session_id, src.project),
                )
                sid = new.lastrowid or 0
                offset, project = 0, src.project
            else:
                sid, offset, old_head, edge, project = row
                project = project or src.project
                if whole or size < offset or old_head != head or edge != _edge(src.path, offset):
                    # Shrunk, rewritten or indexed whole: its old text is replaced.
                    self.db.execute("DELETE FROM chunks WHERE source = ?", (sid,))
                    self.db.execute(
                        "UPDATE sources SET first_ts = NULL, last_ts = NULL WHERE id = ?", (sid,)
                    )
                    reset = offset > 0 and not whole
                    offset = 0
                self.db.execute(
                    "UPDATE sources SET agent = ?, account = ?, session_id = ?, gone = 0 "
                    "WHERE id = ?",
                    (src.agent, src.account, src.session_id, sid),
                )
            if src.records is not None:
                read, rows = self._index_records(texts, sid, project, src.mtime)
            elif src.kind == "transcript":
                read, rows = self._index_jsonl(src, sid, offset, project, before, progress)
            else:
                read, rows = self._index_document(src, sid, progress)
        return read, rows, reset

    def _index_jsonl(
        self,
        src: Source,
        sid: int,
        offset: int,
        project: str | None,
        before: os.stat_result,
        progress: Callable[[int], None] | None,
    ) -> tuple[int, int]:
        reader = ForwardReader(src.path, offset)
        batch: list[tuple[str, str | None]] = []  # (text, time)
        rows = 0
        first_ts: str | None = None
        last_ts: str | None = None
        recent: set[str] = set()  # agents often write the same text twice in a row
        reported = committed = offset

        def flush() -> None:
            # The project is often named a few records in: the scope is taken at flush time.
            self._add_chunks(sid, project, batch)
            batch.clear()

        def save(done: bool) -> None:
            # `before` is the file's stat from before reading: bytes appended while this ran
            # change size or mtime, so `pending` picks them up next time. A partial save leaves
            # size unknown, so an interrupted run resumes from the offset.
            flush()
            end = reader.offset
            size, mtime = (before.st_size, before.st_mtime) if done else (None, None)
            with open(src.path, "rb") as f:
                head = _digest(f.read(SIGNATURE_BYTES))
            self.db.execute(
                "UPDATE sources SET size = ?, mtime = ?, offset = ?, head = ?, edge = ?, "
                "project = ?, first_ts = coalesce(first_ts, ?), last_ts = coalesce(?, last_ts) "
                "WHERE id = ?",
                (size, mtime, end, head, _edge(src.path, end), project, first_ts, last_ts, sid),
            )

        for line in reader:
            text, ts, record = line_text(line, src.texts)
            if project is None:
                project = _cwd_of(record)
            last_ts = ts or last_ts
            first_ts = first_ts or last_ts
            if text and text not in recent:
                if len(recent) > 256:
                    recent.clear()
                recent.add(text)
                batch.append((text, last_ts))
                rows += 1
            if len(batch) >= 2048:
                flush()
            if reader.offset - committed >= COMMIT_BYTES:
                # Commit at a line boundary so readers and a crash both see a consistent offset.
                save(done=False)
                self.db.execute("COMMIT")
                self.db.execute("BEGIN IMMEDIATE")
                committed = reader.offset
            if progress is not None and reader.offset - reported >= 1 << 20:
                progress(reader.offset - reported)
                reported = reader.offset
        # A torn last line is not consumed: the next run reads it once it is complete.
        save(done=True)
        if progress is not None and reader.offset > reported:
            progress(reader.offset - reported)
        return reader.offset - offset, rows

    def _add_chunks(
        self, sid: int, project: str | None, rows: list[tuple[str, str | None]]
    ) -> None:
        """Rows of (text, time) of source `sid`, scoped to `project`: redacted here, the one
        way text enters the index."""
        scope = scope_tokens(project)
        self.db.executemany(
            "INSERT INTO chunks(text, scope, source, ts) VALUES (?, ?, ?, ?)",
            [(redact(text), scope, sid, ts) for text, ts in rows],
        )

    def _index_records(
        self, texts: list[tuple[str, str | None]], sid: int, project: str | None, mtime: float
    ) -> tuple[int, int]:
        """A session its adapter hands over as records (database rows), its (text, time)
        pairs; returns (characters of text kept, rows added)."""
        self._add_chunks(sid, project, texts)
        read = sum(len(text) for text, _ in texts)
        times = [ts for _, ts in texts if ts]
        first, last = min(times, default=None), max(times, default=None)
        self.db.execute(
            "UPDATE sources SET size = ?, mtime = ?, offset = ?, head = '', edge = '', "
            "project = ?, first_ts = ?, last_ts = ? WHERE id = ?",
            (read, mtime, read, project, first, last, sid),
        )
        return read, len(texts)

    def _index_document(
        self, src: Source, sid: int, progress: Callable[[int], None] | None
    ) -> tuple[int, int]:
        """A checkpoint (JSON) or a saved handoff (text), indexed whole."""
        st = os.stat(src.path)
        data = Path(src.path).read_bytes()
        ts: str | None = None
        agent, session_id = src.agent, src.session_id
        if src.path.endswith(".json"):
            try:
                record = _decode.decode(data)
            except msgspec.DecodeError:
                record = None
            found = strings(record)
            if isinstance(record, dict):
                created = record.get("created_at")
                ts = created if isinstance(created, str) else None
                inner = record.get("session")
                if isinstance(inner, dict):  # a checkpoint names the session it was taken of
                    agent = str(inner.get("agent") or agent)
                    session_id = str(inner.get("session_id") or session_id)
                    found += [r for r in inner.get("requests", []) if isinstance(r, str)]
            text = "\n".join(dict.fromkeys(found))  # each string once, in order
        else:
            text = data.decode(errors="replace")
        ts = ts or stamps.iso(st.st_mtime)
        forgotten = self.db.execute(
            "SELECT 1 FROM forgotten WHERE session_id = ?", (session_id,)
        ).fetchone()
        rows: list[tuple[str, str | None]] = [(text, ts)] if text.strip() and not forgotten else []
        self._add_chunks(sid, src.project, rows)
        head = _digest(data[:SIGNATURE_BYTES])
        self.db.execute(
            "UPDATE sources SET size = ?, mtime = ?, offset = ?, head = ?, edge = '', "
            "agent = ?, session_id = ?, first_ts = ?, last_ts = ? WHERE id = ?",
            (st.st_size, st.st_mtime, len(data), head, agent, session_id, ts, ts, sid),
        )
        if progress is not None:
            progress(len(data))
        return len(data), len(rows)

    # --- searching ------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        project: str | None = None,
        agent: str | None = None,
        limit: int = 10,
    ) -> list[Hit]:
        """Sessions matching `query`, best first (bm25), one hit per session."""
        try:
            return search_sessions(self.db, query, project, agent, limit)
        except sqlite3.OperationalError as e:
            if _is_busy(e):
                raise StoreError(f"the recall archive {self.path} is busy; retry") from None
            raise StoreError(f"cannot search for {query!r}: {e}") from None

    def show(self, session: str) -> list[tuple[str | None, str]]:
        """The archived text of one session (an id or a unique prefix), oldest first."""
        return self.db.execute(
            "SELECT c.ts, c.text FROM chunks c JOIN sources s ON s.id = c.source "
            "WHERE s.session_id = ? ORDER BY c.rowid",
            (self._one_session(session),),
        ).fetchall()

    def forget(self, session: str) -> tuple[str, int]:
        """Remove a session (an id or a unique prefix) for good; returns its id and row count."""
        sid = self._one_session(session)
        with self._write():
            rows = self.db.execute(
                "DELETE FROM chunks WHERE source IN (SELECT id FROM sources WHERE session_id = ?)",
                (sid,),
            ).rowcount
            self.db.execute("DELETE FROM sources WHERE session_id = ?", (sid,))
            # Remembered so a transcript still on disk is not indexed again.
            self.db.execute(
                "INSERT OR REPLACE INTO forgotten VALUES (?, ?)", (sid, stamps.now_iso())
            )
        return sid, rows

    def _one_session(self, session: str) -> str:
        found = [
            str(r[0])
            for r in self.db.execute(
                "SELECT DISTINCT session_id FROM sources"
                " WHERE substr(session_id, 1, ?) = ? LIMIT 6",
                (len(session), session),
            )
        ]
        if session in found:
            return session
        if not found:
            raise StoreError(f"no archived session matches {session!r} (see `baker recall`)")
        if len(found) > 1:
            raise StoreError(
                f"{session!r} matches several sessions ({', '.join(found[:5])}); "
                "give more of the id"
            )
        return found[0]

    def sessions(self) -> dict[str, int]:
        """Indexed transcript paths: path -> the bytes of it read."""
        return dict(self.db.execute("SELECT path, offset FROM sources WHERE kind = 'transcript'"))

    def counts(self) -> dict[str, int]:
        """Sources, gone sources, rows."""
        counts = self.db.execute(
            "SELECT count(*), coalesce(sum(gone), 0), (SELECT count(*) FROM chunks) FROM sources"
        ).fetchone()
        return dict(zip(("sources", "gone", "rows"), counts, strict=True))


def _record_texts(
    records: Callable[[], Iterator[tuple[str | None, object]]], texts: Texts
) -> list[tuple[str, str | None]]:
    """The (text, time) of each record, a record repeating the one before it left out."""
    try:
        got = list(records())
    except Exception as e:  # a busy or broken database: skipped this time, as a file is
        raise OSError(errno.EIO, f"could not be read: {e}") from e
    out: list[tuple[str, str | None]] = []
    for ts, record in got:
        text, own = extract(record, texts)
        if text and (not out or out[-1][0] != text):
            out.append((text, own or ts))
    return out


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def _edge(path: str, offset: int) -> str:
    """A hash of the bytes just before `offset`: they change when a file is rewritten."""
    start = max(0, offset - SIGNATURE_BYTES)
    try:
        with open(path, "rb") as f:
            f.seek(start)
            return _digest(f.read(offset - start))
    except OSError:
        return ""


# --- the whole operation, for the CLI and the benchmark ---------------------------------


def refresh(
    archive: Archive,
    project: Path | None,
    *,
    adapters: Mapping[str, Adapter] | None = None,
    config: GlobalConfig | None = None,
    progress: Callable[[list[tuple[Source, int]]], Callable[[int], None] | None] | None = None,
) -> IndexStats:
    """Index every installed adapter's sessions plus `project`'s checkpoints and handoffs.

    `progress(pending)` may return a callback that is told of the bytes read as they go.
    A database found corrupt on the way is moved aside and rebuilt once; a busy one is left
    to the other process, with a notice.
    """
    from continuity_core.adapters import load_all
    from continuity_core.config import load_config

    broken: dict[str, str] = {}
    if adapters is None:
        adapters, broken = load_all()
    sources, errors = sources_for(adapters, config or load_config(), project)
    for attempt in (1, 2):
        try:
            todo, stats = archive.pending(sources)
            tick = progress(todo) if progress is not None and todo else None
            stats = archive.index_pending(todo, stats, tick)
            break
        except sqlite3.DatabaseError as e:
            if _is_busy(e):
                notice = "another baker is indexing the archive; results may miss the newest turns"
                stats = IndexStats(files=len(sources), notice=notice)
                break
            if attempt == 2 or not _is_corrupt(e):
                raise StoreError(
                    f"the recall archive {archive.path} cannot be written: {e}"
                ) from None
            archive.db.close()
            archive.db = archive._rebuild(e)
    stats.skipped += [*broken.values(), *errors]
    return stats
