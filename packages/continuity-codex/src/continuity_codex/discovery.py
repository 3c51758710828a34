"""Finding Codex rollouts: every account's `sessions/` and `archived_sessions/`.

The thread index `state_N.sqlite` answers "which rollouts belong to this folder" without
touching the files. It is a projection Codex owns, so it is opened read-only, a lock, a WAL it
cannot read, an unknown schema generation, or an index that finds nothing for the project and
does not describe this home (a home copied or mounted elsewhere) only means falling back to a
scan of the folder names, with each rollout's head (thread id and cwd) from baker's own cache
of heads, read from disk only for rollouts it has not seen.
"""

from __future__ import annotations

import json
import os
import re
import time

from continuity_core import jsonl
from continuity_core.adapters import Account, kit
from continuity_core.adapters.kit import expand, unique_accounts
from continuity_core.fs import hexdigest
from continuity_core.schemas.session import SessionRef

TYPE_CHECKING = False
if TYPE_CHECKING:  # sqlite3 loads where a home has a thread index to read; no typing at run time
    import sqlite3
    from collections.abc import Iterable, Iterator, Sequence
    from os import PathLike

    from continuity_core.schemas.config import GlobalConfig

AGENT = "codex"
FOLDERS = ("sessions", "archived_sessions")
SUFFIXES = (".jsonl", ".jsonl.zst")
HEAD_BYTES = 8192  # session_meta puts id and cwd before the ~20 KB base instructions
_NAME = re.compile(
    r"^rollout-(\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2})-([0-9a-fA-F-]{36})\.jsonl(?:\.zst)?$"
)
SQLITE_TIMEOUT_S = 0.25


# --- accounts --------------------------------------------------------------------------------


def accounts(config: GlobalConfig) -> list[Account]:
    """CODEX_HOME, ~/.codex, `[transcripts] codex` and named Codex accounts, without repeats."""
    wanted: list[tuple[str, str]] = []
    env = os.environ.get("CODEX_HOME")
    if env:
        wanted.append(("CODEX_HOME", env))
    wanted.append(("~/.codex", "~/.codex"))
    wanted += [(d, d) for d in config.transcripts.get(AGENT, [])]
    wanted += [(name, acc.dir) for name, acc in config.accounts.items() if acc.agent == AGENT]
    found = [Account(agent=AGENT, name=name, dir=expand(raw)) for name, raw in wanted]
    return unique_accounts(found, config)


# --- one rollout's head ----------------------------------------------------------------------


def thread_id_of(path: str) -> str | None:
    m = _NAME.match(os.path.basename(path))
    return m.group(2) if m else None


def read_head(path: str, size: int = HEAD_BYTES) -> bytes:
    """The first `size` bytes of a rollout, decompressed when it is a .zst."""
    head = kit.read_head(path, size)  # no file object: a scan reads thousands of these
    return _zst_head(path, size) if head and path.endswith(".zst") else head


SUBAGENT = b'"thread_source":"subagent"'  # in a sub-agent's session_meta, before its cwd ends


def head_meta(path: str) -> tuple[str | None, str | None]:
    """(thread id, cwd) from the session_meta line, reading as little as possible. A
    sub-agent's own rollout (multi_agent_v2) has no cwd here: it is its parent's work, which
    the parent's rollout records, and no session of the project."""
    head = read_head(path)
    if b"session_meta" not in head[:200]:
        return thread_id_of(path), None
    if SUBAGENT in head.split(b"\n", 1)[0]:  # in the session_meta line, not a later one
        return _field(head, "id") or thread_id_of(path), None
    cwd = _field(head, "cwd")
    tid = _field(head, "id")
    if cwd is None:  # an unusual key order: decode the whole first line
        line = _first_line(path)
        try:
            payload = jsonl.loads(line)["payload"]
            cwd, tid = payload.get("cwd"), payload.get("id")
        except (ValueError, TypeError, AttributeError):
            pass  # no usable first line: the name's id, no cwd
    return (tid if isinstance(tid, str) else None) or thread_id_of(path), (
        cwd if isinstance(cwd, str) else None
    )


def parent_of(path: str) -> str | None:
    """The thread that spawned a sub-agent's rollout (`parent_thread_id`); None for any other."""
    try:
        first = read_head(path).split(b"\n", 1)[0]
    except OSError:
        return None
    return _field(first, "parent_thread_id") if SUBAGENT in first else None


def _field(head: bytes, name: str) -> str | None:
    found = jsonl.raw_string(head, name.encode())
    if found is None:
        return None
    raw = found.decode("utf-8", "replace")
    if "\\" not in raw:
        return raw
    try:
        value = jsonl.loads(f'"{raw}"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _first_line(path: str, limit: int = 4 << 20) -> bytes:
    if path.endswith(".zst"):
        return _zst_head(path, limit).split(b"\n", 1)[0]
    with open(path, "rb") as f:
        return f.readline(limit)


def within(cwd: str | None, roots: Sequence[str]) -> bool:
    if not cwd:
        return False
    cwd = os.path.normpath(cwd)
    return any(cwd == r or cwd.startswith(r.rstrip("/") + "/") for r in roots)


def project_roots(project: str | PathLike[str]) -> list[str]:
    """The project as written and as resolved: sessions record whichever Codex saw."""
    plain = os.path.normpath(os.path.abspath(project))
    real = os.path.realpath(plain)
    return [plain] if real == plain else [plain, real]


# --- the sqlite index ------------------------------------------------------------------------


def state_db(home: str) -> str | None:
    """The newest `state_N.sqlite` generation in `home`."""
    best: tuple[int, str] | None = None
    try:
        with os.scandir(home) as entries:
            for entry in entries:
                n = entry.name.removeprefix("state_").removesuffix(".sqlite")
                if (
                    len(n) + 13 == len(entry.name)
                    and n.isdecimal()
                    and (best is None or int(n) > best[0])
                ):
                    best = (int(n), entry.path)
    except OSError:
        pass  # no folder, or unreadable: no index
    return best[1] if best else None


def _index(home: str) -> sqlite3.Connection | None:
    """A read-only connection to `home`'s thread index; None when there is no usable one.
    When a WAL index cannot be set up read-only (no write access to the folder), the main file
    is read as immutable; a locked database is left alone, never read mid-write."""
    db = state_db(home)
    if db is None:
        return None
    import sqlite3
    from pathlib import Path

    uri = Path(db).resolve().as_uri()
    for mode in ("ro", "ro&immutable=1"):
        conn = None
        try:
            conn = sqlite3.connect(f"{uri}?mode={mode}", uri=True, timeout=SQLITE_TIMEOUT_S)
            conn.execute("SELECT 1 FROM threads LIMIT 1").fetchall()
            return conn
        except sqlite3.Error as e:
            if conn is not None:
                conn.close()
            if "locked" in str(e).lower() or "busy" in str(e).lower():
                return None
    return None


def index_rows(
    home: str, roots: Sequence[str] | None = None, thread_id: str | None = None
) -> list[tuple[str, str, str | None]] | None:
    """(id, rollout_path, cwd) rows of the thread index; None when there is no usable index."""
    conn = _index(home)
    if conn is None:
        return None
    import sqlite3  # here: a home without an index imports none

    try:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(threads)")}
        if not {"id", "rollout_path", "cwd"} <= columns:
            return None  # a schema generation this adapter does not know
        sql = "SELECT id, rollout_path, cwd FROM threads"
        args: list[str | int] = []
        if thread_id is not None:
            sql += " WHERE id = ?"
            args.append(thread_id)
        elif roots:
            # One index range per root (root itself up to root + "0", "0" being the character
            # after "/"), filtered exactly below: the (archived, cwd, …) index answers it,
            # where substr() made SQLite read every thread.
            where = "archived IN (0, 1) AND " if "archived" in columns else ""
            if "thread_source" in columns:  # a sub-agent's thread: see head_meta
                where += "thread_source IS NOT 'subagent' AND "
            sql = " UNION ALL ".join(f"{sql} WHERE {where}cwd >= ? AND cwd < ?" for _ in roots)
            for root in roots:
                args += [root.rstrip("/"), root.rstrip("/") + "0"]
            rows = conn.execute(sql, args).fetchall()
            return [
                (str(r[0]), str(r[1]), r[2])
                for r in rows
                if isinstance(r[2], str) and within(r[2], roots)
            ]
        return [
            (str(r[0]), str(r[1]), r[2] if isinstance(r[2], str) else None)
            for r in conn.execute(sql, args)
        ]
    except sqlite3.Error:
        return None
    finally:
        conn.close()


def locate(home: str, recorded: str, thread_id: str) -> str | None:
    """The rollout on disk for an index row: in `home` at its recorded place, as recorded, or
    found by id. A home copied or mounted elsewhere keeps its layout but not its paths."""
    for folder in FOLDERS:
        marker = f"/{folder}/"
        cut = recorded.rfind(marker)
        if cut >= 0:
            moved = os.path.join(home, folder, recorded[cut + len(marker) :])
            if os.path.isfile(moved):
                return moved
    if os.path.isfile(recorded):
        return recorded
    return find_by_id(home, thread_id)


# --- scanning --------------------------------------------------------------------------------


def _uuid7_day_dirs(thread_id: str) -> list[str]:
    """`YYYY/MM/DD` folders a UUIDv7 thread's rollout is likely in (local time, ±1 day)."""
    import uuid  # only to find a rollout by id: the checkpoint path has its path

    try:
        value = uuid.UUID(thread_id)
    except ValueError:
        return []
    if value.version != 7:
        return []
    seconds = (value.int >> 80) / 1000
    return [time.strftime("%Y/%m/%d", time.localtime(seconds + d * 86400)) for d in (0, -1, 1)]


def find_by_id(home: str, thread_id: str) -> str | None:
    """The rollout file of `thread_id` in `home`, looking in its date folders first."""
    if not kit.plain_id(thread_id):
        return None
    for folder in FOLDERS:
        for day in _uuid7_day_dirs(thread_id):
            hit = _match_in(os.path.join(home, folder, day), thread_id)
            if hit:
                return hit
    for path in rollout_files(home):
        if thread_id_of(path) == thread_id:
            return path
    return None


def _match_in(folder: str, thread_id: str) -> str | None:
    try:  # no contextlib: this runs on every Codex checkpoint
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name.endswith((f"-{thread_id}.jsonl", f"-{thread_id}.jsonl.zst")):
                    return entry.path
    except OSError:
        pass  # a day folder that is gone or unreadable holds nothing
    return None


def rollout_files(home: str) -> Iterator[str]:
    """Every rollout path under `home`'s session folders (any depth, any order)."""
    for folder in FOLDERS:
        for top, _, names in os.walk(os.path.join(home, folder)):
            for name in names:
                if name.startswith("rollout-") and name.endswith(SUFFIXES):
                    yield os.path.join(top, name)


def _ref(account: Account, tid: str, path: str, cwd: str | None) -> SessionRef | None:
    """The rollout at `path`, stat'ed now; None when it is gone."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return SessionRef(
        agent=AGENT,
        account=account.name,
        session_id=tid,
        path=path,
        mtime=st.st_mtime,
        cwd=cwd,
        size=st.st_size,
    )


def _from_index(account: Account, roots: Sequence[str]) -> list[SessionRef] | None:
    """The project's rollouts by the index; None when it cannot say, and then also when it
    found none but does not describe this home: rows for the project whose rollouts are all
    gone, or an index that names rollouts elsewhere (a home copied or mounted elsewhere, its
    rollouts' cwds rewritten: the scan finds them by their heads)."""
    rows = index_rows(account.dir, roots)
    if rows is None:
        return None
    refs = _located(account, rows)
    if not refs and (rows or not _describes(account.dir)):
        return None
    return refs


def _describes(home: str) -> bool:
    """Whether the index's paths are this home's: a row's rollout is where it says."""
    conn = _index(home)
    if conn is None:
        return False
    import sqlite3

    try:
        row = conn.execute("SELECT rollout_path FROM threads LIMIT 1").fetchone()
    except sqlite3.Error:
        return False
    finally:
        conn.close()
    return row is not None and os.path.isfile(str(row[0]))


def _located(account: Account, rows: list[tuple[str, str, str | None]]) -> list[SessionRef]:
    refs: list[SessionRef] = []
    for tid, recorded, cwd in rows:
        path = locate(account.dir, recorded, tid)
        ref = _ref(account, tid, path, cwd) if path else None
        if ref is not None:
            refs.append(ref)
    refs.sort(key=lambda r: r.mtime, reverse=True)
    return refs


def _from_scan(account: Account, roots: Sequence[str]) -> list[SessionRef]:
    """The project's rollouts, newest first by mtime: a walk of the names, each rollout's head
    from `HeadCache` (read from disk only when new to it), and a stat of the matches only."""
    cache = HeadCache(account.dir)
    refs = []
    ours: dict[str | None, bool] = {}  # a few hundred folders among thousands of rollouts
    for path in rollout_files(account.dir):
        tid, cwd = cache.get(path)
        if (mine := ours.get(cwd)) is None:
            mine = ours[cwd] = within(cwd, roots)
        ref = _ref(account, tid, path, cwd) if tid and mine else None
        if ref is not None:
            refs.append(ref)
    cache.save()
    refs.sort(key=lambda r: r.mtime, reverse=True)
    return refs


class HeadCache:
    """baker's own index of rollout heads (thread id and cwd), for accounts without Codex's
    sqlite index: a rollout's first line never changes, so an entry stays true as long as its
    file exists. Kept in `$BAKER_HOME/cache/codex/`; a missing or unreadable cache only means
    reading heads again."""

    def __init__(self, home: str) -> None:
        from continuity_core import trust

        self.home, self.prefix = home, os.path.join(home, "")
        digest = hexdigest(os.path.realpath(home).encode(), "sha256")[:16]
        self.path = os.path.join(trust.home_root(), "cache", "codex", f"heads-{digest}.json")
        self.entries: dict[str, list[str | None]] = {}
        self.seen: set[str] = set()
        self.added = 0
        try:  # not contextlib: `baker handoff --from codex` would import it for this alone
            loaded = jsonl.loads(trust.read_bytes(self.path, home=True))
        except (OSError, ValueError, trust.Untrusted):
            return
        if isinstance(loaded, dict) and loaded.get("home") == os.path.realpath(home):
            self.entries = loaded.get("heads") or {}

    def get(self, path: str) -> tuple[str | None, str | None]:
        key = path[len(self.prefix) :] if path.startswith(self.prefix) else path
        self.seen.add(key)
        entry = self.entries.get(key)
        if isinstance(entry, list) and len(entry) == 2:
            return entry[0], entry[1]
        try:
            tid, cwd = head_meta(path)
        except OSError:
            return None, None
        self.entries[key] = [tid, cwd]
        self.added += 1
        return tid, cwd

    def save(self) -> None:
        gone = self.entries.keys() - self.seen
        if not self.added and not gone:
            return
        for key in gone:
            del self.entries[key]
        from continuity_core import trust
        from continuity_core.fs import atomic_write

        data = {"home": os.path.realpath(self.home), "heads": self.entries}
        try:
            trust.home_path("cache", "codex")
            atomic_write(self.path, json.dumps(data))
        except (OSError, trust.Untrusted):
            pass  # a cache: the heads are read again next time


def discover(project: str | PathLike[str], accounts: Sequence[Account]) -> Iterator[SessionRef]:
    """Sessions of `project` across `accounts`, newest first."""
    roots = project_roots(project)
    streams: list[Iterable[SessionRef]] = []
    for account in accounts:
        if not os.path.isdir(account.dir):
            continue
        indexed = _from_index(account, roots)
        streams.append(indexed if indexed is not None else _from_scan(account, roots))
    if len(streams) == 1:  # one account: nothing to merge
        merged: Iterable[SessionRef] = streams[0]
    else:
        import heapq  # listing sessions, not a hook's own

        merged = heapq.merge(*streams, key=lambda r: -r.mtime)
    seen: set[str] = set()
    for ref in merged:
        if ref.path not in seen:
            seen.add(ref.path)
            yield ref


def all_sessions(accounts: Sequence[Account]) -> Iterator[SessionRef]:
    """Every rollout of every account, in no particular order: one walk of the session folders,
    the `cwd` from the thread index, and a rollout's head only when the index lacks it.

    Index rows with no rollout on disk (title-generation threads) are left out, as in `discover`.
    """
    for account in accounts:
        if not os.path.isdir(account.dir):
            continue
        indexed = {tid: (recorded, cwd) for tid, recorded, cwd in index_rows(account.dir) or []}
        walked: set[str] = set()
        for path in rollout_files(account.dir):
            tid = thread_id_of(path)
            if tid is not None and tid in indexed:
                cwd = indexed[tid][1]
            else:
                try:
                    tid, cwd = head_meta(path)
                except OSError:
                    continue
            ref = _ref(account, tid, path, cwd) if tid else None
            if ref is not None:
                walked.add(ref.session_id)
                yield ref
        # a rollout the index records outside this home (`locate` finds it as recorded)
        for tid, (recorded, cwd) in indexed.items():
            ref = _ref(account, tid, recorded, cwd) if tid not in walked else None
            if ref is not None and os.path.isfile(recorded):
                yield ref


def is_archived(path: str) -> bool:
    """Whether `codex archive` moved the rollout: Codex keeps it in `archived_sessions/` (one
    flat folder) and refuses to resume it until `codex unarchive` moves it back. The folder
    that counts is the nearest session folder above the file (as `home_of` finds it), so a
    Codex home that itself lies under some `archived_sessions/` is not all archived."""
    folders = path.split("/")[:-1]  # str parts: a handoff reads this, and imports no pathlib
    return next((p for p in reversed(folders) if p in FOLDERS), None) == ARCHIVED


ARCHIVED = FOLDERS[1]


# --- forks ------------------------------------------------------------------------------------

# A fork's session_meta names its parent and its cut before its ~20 KB of base instructions.
FORK = re.compile(
    rb'(?s)"forked_from_id"\s*:\s*"([0-9A-Za-z-]{8,64})"'
    rb'.{0,200}?"forked_from_ordinal_exclusive"\s*:\s*(\d+)'
)
HEAD_FORK = 1024
FORK_DEPTH = 8  # a fork of a fork of …: the chain is followed this far


def lineage(path: str) -> tuple[list[str], str | None]:
    """The rollouts a fork's history lies in, its parent first, then the parent's parent …
    (found by id in its Codex home, each once, `FORK_DEPTH` at most); and the id of the first
    one that is not there (None when none is missing, or `path` is no fork)."""
    found: list[str] = []
    seen = {thread_id_of(path)}
    home, current = home_of(path), path
    while len(found) < FORK_DEPTH:
        try:
            head = read_head(current, HEAD_FORK)
        except OSError:
            break
        up = FORK.search(head) if b"session_meta" in head[:200] else None
        if up is None or up.group(1).decode() in seen:
            break
        parent_id = up.group(1).decode()
        seen.add(parent_id)
        parent = find_by_id(home, parent_id)
        if parent is None:
            return found, parent_id
        found.append(parent)
        current = parent
    return found, None


def home_of(path: str) -> str:
    """The Codex home a rollout lies in: the folder above its sessions/ folder."""
    from pathlib import PurePosixPath  # here: the hooks that load this module never call it

    parts = PurePosixPath(path).parts
    for i in range(len(parts) - 1, 0, -1):
        if parts[i] in FOLDERS:
            return os.path.join(*parts[:i])
    return os.path.dirname(path) or "."


def ref_for(path: str, account: Account) -> SessionRef | None:
    try:
        tid, cwd = head_meta(path)
    except OSError:
        return None
    return _ref(account, tid or thread_id_of(path) or "", path, cwd)


def by_thread(thread_id: str, accounts: Sequence[Account]) -> SessionRef | None:
    """The rollout of one thread in any account (the index first, then its date folders)."""
    for account in accounts:
        if not os.path.isdir(account.dir):
            continue
        rows = index_rows(account.dir, thread_id=thread_id) or []
        path = next((p for p in (locate(account.dir, r[1], r[0]) for r in rows) if p), None)
        path = path or find_by_id(account.dir, thread_id)
        if path:
            return ref_for(path, account)
    return None


# --- compressed rollouts ---------------------------------------------------------------------


def _zst_head(path: str, size: int) -> bytes:
    try:
        import zstandard  # type: ignore[import-not-found, unused-ignore]  # optional: often absent
    except ImportError:
        import shutil
        import subprocess  # only for a .zst rollout without zstandard: few hooks come here

        zstd = shutil.which("zstd")
        if zstd is None:
            return b""  # nothing can read it here: the rollout is skipped, never fatal
        with subprocess.Popen(
            [zstd, "-dcq", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        ) as proc:
            data = proc.stdout.read(size) if proc.stdout is not None else b""
            proc.kill()
        return data
    with open(path, "rb") as f:
        chunk: bytes = zstandard.ZstdDecompressor().stream_reader(f).read(size)
        return chunk


def plain_copy(path: str, cache_dir: str) -> str | None:
    """A decompressed copy of a .zst rollout in `cache_dir`, made once per file version."""
    import subprocess  # only for a .zst rollout: every hook imports this module
    from pathlib import Path

    cache = Path(cache_dir)
    try:
        st = os.stat(path)
    except OSError:
        return None
    name = os.path.basename(path)[:-4]
    target = cache / f"{name}.{int(st.st_mtime)}.{st.st_size}"
    if target.is_file():
        return str(target)
    for older in cache.glob(f"{name}.*"):  # an earlier version of the same rollout
        older.unlink(missing_ok=True)
    cache.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = target.with_suffix(".part")
    try:
        try:
            import zstandard  # type: ignore[import-not-found, unused-ignore]  # optional: often absent

            with open(path, "rb") as src, open(tmp, "wb") as dst:
                zstandard.ZstdDecompressor().copy_stream(src, dst)
        except ImportError:
            import shutil

            zstd = shutil.which("zstd")
            if zstd is None:
                return None
            subprocess.run(
                [zstd, "-dqf", path, "-o", str(tmp)], check=True, capture_output=True, timeout=60
            )
        os.replace(tmp, target)
    except (OSError, subprocess.SubprocessError):
        tmp.unlink(missing_ok=True)
        return None
    return str(target)
