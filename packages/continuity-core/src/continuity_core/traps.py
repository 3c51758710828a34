"""`.baker/traps.jsonl`: approaches already tried and rejected, keyed by a path or command glob.

A trap comes back only when its path or command is about to be touched again (`pretool`),
at most `BATCH` unseen ones per tool call, and a session is marked as having seen only what
was actually delivered. Broken lines are skipped one by one and kept on disk untouched. A
trap remembers the content hashes of the files it cites and says "needs re-check" once any of
them changed: the rejection may no longer hold.
"""

from __future__ import annotations

import json
import os
import re
import stat
import zlib

# Paths as posix, normalized (no `//`, `.` or `a/..`): pathlib costs the pre-tool hook half a
# bare interpreter start (it imports `urllib`); `os` has imported posixpath already.
from posixpath import normpath

from continuity_core import jsonl, trust
from continuity_core.errors import BakerError, StoreError
from continuity_core.fs import atomic_write, checksum, hexdigest
from continuity_core.stamps import now_iso
from continuity_core.store import HASHED_FILES_MAX, MACHINES_FILE, STORE, Store

TYPE_CHECKING = False
if TYPE_CHECKING:  # the pre-tool hook imports this module on every tool call: see `unseen`
    from collections.abc import Iterable, Iterator, Sequence
    from pathlib import Path
    from typing import Any, Literal

    from continuity_core.schemas.trap import Trap

    StrPath = str | os.PathLike[str]

TRAPS_FILE = "traps.jsonl"
SEEN_DIR = "traps-seen"
CACHE = ("cache", "traps.json")
CACHE_FORMAT = "5"
BATCH = 5
HASH_BYTES_MAX = 4 << 20  # pretool re-hashes cited files within its 3 s deadline
SEEN_KEEP = 200  # sessions whose seen-sets are kept: past it, pruned to SEEN_PRUNED_TO
SEEN_PRUNED_TO = 150  # (so a busy project does not stat 200 files on every tool call)
WHY_MAX = 2000
_SHELL_SPACE = " \t\r\n"  # what shlex splits words on


class TrapNotFound(BakerError): ...


def traps_path(root: StrPath) -> str:
    return os.path.join(root, STORE, TRAPS_FILE)


def _lines(root: StrPath) -> list[bytes]:
    try:
        return trust.read_bytes(traps_path(root)).splitlines()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return []


def _decode(line: bytes, *, redact_why: bool = True) -> Trap | None:
    """One line as a trap; None for anything else (a broken line, a non-string pattern).
    `redact_why=False` leaves `why` for the caller to redact (`unseen`: only the few that
    match, where redacting 1,000 reasons on every pre-tool call cost more than the rest)."""
    import msgspec

    from continuity_core.redact import redact
    from continuity_core.schemas.trap import Trap

    try:
        trap = msgspec.json.decode(line, type=Trap)
    except ValueError:  # not JSON, or not a trap (msgspec.ValidationError)
        return None
    if not trap.pattern.strip():
        return None
    # A line written by hand (or by an older baker) is shown as `add` would have stored it.
    why = redact(trap.why) if redact_why else trap.why
    return msgspec.structs.replace(trap, pattern=redact(trap.pattern), why=why)


def load(root: StrPath, *, redact_why: bool = True) -> list[Trap]:
    """Every usable trap, oldest first."""
    return parse_lines(b"\n".join(_lines(root)), redact_why=redact_why)


def parse_lines(data: bytes, *, redact_why: bool = True) -> list[Trap]:
    """The usable traps of a `traps.jsonl` text (another machine's, say), oldest first."""
    traps = [_decode(line, redact_why=redact_why) for line in data.splitlines() if line.strip()]
    return [t for t in traps if t is not None]


def file_hash(path: StrPath) -> str | None:
    """sha256 of a file's content (first 16 hex digits); None when it cannot be read."""
    try:
        st = os.stat(path)
        if st.st_size > HASH_BYTES_MAX or not stat.S_ISREG(st.st_mode):
            return None
        with open(path, "rb") as f:
            return hexdigest(f.read(), "sha256")[:16]
    except OSError:
        return None


def cited_files(root: Path, pattern: str, extra: Iterable[str] = ()) -> list[str]:
    """Project files a trap cites: those its path glob matches (a few), plus `extra`."""
    found = list(dict.fromkeys(relative(root, name) for name in extra))
    if not pattern.startswith("/") and ".." not in pattern.split("/"):
        try:
            matches = sorted(root.glob(pattern)) if _wild(pattern) else [root / pattern]
        except (ValueError, NotImplementedError, OSError):
            matches = []
        for path in matches:
            if len(found) >= HASHED_FILES_MAX:
                break
            rel = path.relative_to(root)
            if path.is_file() and ".git" not in rel.parts and rel.as_posix() not in found:
                found.append(rel.as_posix())
    return found


def _reads_as_command(root: Path, pattern: str) -> bool:
    """`pytest -x` or `make` given without `--command`: words, or one bare name (no `.`, `/`
    or wildcard), that name no file here read as a shell command (a path trap on them would
    never match). `docs/my notes.md`, `*.py` and a file with a space that exists stay paths."""
    if "/" in pattern or not (re.fullmatch(r"[\w-]+", pattern) or re.search(r"\s", pattern)):
        return False
    try:
        return next(iter(root.glob(pattern)), None) is None
    except (OSError, ValueError):  # not a pattern glob reads
        return True


def add(
    root: Path,
    pattern: str,
    why: str,
    *,
    command: bool = False,
    files: Sequence[str] = (),
    session: str | None = None,
    agent: str | None = None,
) -> Trap:
    """Record a trap; pattern and why are redacted before they reach disk."""
    import msgspec

    from continuity_core.redact import redact
    from continuity_core.schemas.trap import Trap

    pattern, why = redact(pattern.strip()), redact(why.strip())
    if not pattern:
        raise BakerError("a trap needs a non-empty path or command pattern")
    if not why:
        raise BakerError("a trap needs a reason: what failed and why")
    if len(why) > WHY_MAX:
        raise BakerError(f"the reason is {len(why)} characters; keep it under {WHY_MAX}")
    kind: Literal["path", "command"] = (
        "command" if command or _reads_as_command(root, pattern) else "path"
    )
    cited = cited_files(root, pattern if kind == "path" else "", files)
    hashes = {rel: h for rel in cited if (h := file_hash(os.path.join(root, rel))) is not None}
    trap = Trap(
        id=os.urandom(4).hex(),
        pattern=pattern,
        kind=kind,
        why=why,
        created_at=now_iso(),
        session=session,
        agent=agent,
        file_hashes=hashes,
    )
    with Store(root).lock():
        old = b"".join(line + b"\n" for line in _lines(root))
        atomic_write(traps_path(root), old + msgspec.json.encode(trap) + b"\n")
    return trap


def remove(root: Path, trap_id: str) -> Trap:
    """Remove one trap by id (or a unique id prefix); every other line stays byte-for-byte."""
    with Store(root).lock():
        lines = _lines(root)
        hits = [
            (i, t)
            for i, line in enumerate(lines)
            if (t := _decode(line)) is not None and t.id.startswith(trap_id)
        ]
        if not trap_id or not hits:
            raise TrapNotFound(f"no trap with id {trap_id!r}; `baker trap list` shows them")
        if len({t.id for _, t in hits}) > 1:
            raise BakerError(f"{trap_id!r} matches several traps; give more of the id")
        drop = {i for i, _ in hits}
        kept = b"".join(line + b"\n" for i, line in enumerate(lines) if i not in drop)
        atomic_write(traps_path(root), kept)
    return hits[0][1]


def changed_files(root: StrPath, trap: Trap) -> list[str]:
    """Cited files whose content changed (or vanished) since the trap was recorded."""
    return [rel for rel, h in trap.file_hashes.items() if file_hash(os.path.join(root, rel)) != h]


# --- matching ----------------------------------------------------------------------------------
# Globs are `fnmatch.fnmatchcase`'s: the whole name, `*` any run (a `/` too), `?` any one
# character, `[...]` a set. The literal text of a pattern is looked for first (`str.find`): most
# traps are turned down without a regex.


def _wild(text: str) -> bool:
    return "*" in text or "?" in text or "[" in text


def _literal_head(pattern: str) -> str:
    """The text before the first wildcard, which a match must start with."""
    return pattern.partition("*")[0].partition("?")[0].partition("[")[0]


def _literal_pieces(pattern: str) -> list[str]:
    """The literal pieces between a pattern's wildcards."""
    for c in "?[":
        pattern = pattern.replace(c, "*")
    return pattern.split("*")


def _glob(name: str, pattern: str, regex: str | None = None) -> bool:
    """`fnmatchcase(name, pattern)`; `regex`, its `_translate`, spares importing fnmatch."""
    if regex is not None:
        return re.match(regex, name) is not None
    from fnmatch import fnmatchcase

    return fnmatchcase(name, pattern)


def _relative_to(path: str, root: str) -> str | None:
    """`path` below `root`, as posix; None where it is not below."""
    p, top = normpath(path), normpath(root).rstrip("/")
    if p == top or (not top and p == "/"):
        return "."
    return p[len(top) + 1 :] if p.startswith(top + "/") else None


def relative(root: StrPath, path: str, cwd: str | None = None) -> str:
    """`path` relative to the project root where it lies inside it, as posix. A relative path
    is read from `cwd` (where the agent ran: `units.py` in `weather/` is `weather/units.py`)."""
    top = os.fspath(root)
    p = os.path.expanduser(path)
    if not os.path.isabs(p) and cwd and os.path.isabs(cwd):
        p = os.path.normpath(os.path.join(cwd, p))
    if os.path.isabs(p):
        rel = _relative_to(p, top)
        if rel is None:
            try:
                rel = _relative_to(os.path.realpath(p), os.path.realpath(top))
            except (ValueError, OSError):
                rel = None
        return rel if rel is not None else normpath(p)
    return normpath(path.replace("\\", "/")).removeprefix("./")


def path_matches(pattern: str, rel: str, regex: str | None = None) -> bool:
    """A glob over project-relative paths; a glob with no `/` matches a file name anywhere;
    a plain folder matches everything below it. (`regex`: see `_glob`.)"""
    pattern = pattern.removeprefix("./")
    # The literal text before the first wildcard is checked first: a match must start with it.
    if rel.startswith(_literal_head(pattern)) and _glob(rel, pattern, regex):
        return True
    if "/" not in pattern.rstrip("/") and _glob(rel.rpartition("/")[2], pattern, regex):
        return True
    folder = pattern.rstrip("/")
    return not _wild(folder) and rel.startswith(folder + "/")


def command_matches(pattern: str, command: str, regex: str | None = None) -> bool:
    """A glob found anywhere in the command line. (So in any one of its chained commands
    too: a part of `a && b` that matches the glob is a piece of the line that does.)"""
    if "[" not in pattern and not all(part in command for part in _literal_pieces(pattern)):
        return False  # a literal piece of the glob is missing: no need to match it
    return _glob(command, f"*{pattern}*", regex)


def _translate(kind: str, pattern: str) -> str:
    """The regex `_glob` tests a trap of this kind with (the cache holds it)."""
    from fnmatch import translate

    return translate(f"*{pattern}*" if kind == "command" else pattern.removeprefix("./"))


def command_paths(command: str) -> list[str]:
    """Words of a shell command that look like paths, so path traps see `rm src/db.py` too."""
    if any(c in command for c in "'\"\\#"):  # quotes, escapes, comments: shlex reads them
        import shlex

        try:
            words = shlex.split(command, comments=True)
        except ValueError:
            words = command.split()
    else:  # shlex's answer for a line without them: words between its white space
        for c in _SHELL_SPACE[1:]:
            command = command.replace(c, " ")
        words = [w for w in command.split(" ") if w]
    return [w for w in words if not w.startswith("-") and ("/" in w or "." in w.strip("."))]


def _rels(root: StrPath, paths: Sequence[str], command: str | None, cwd: str | None) -> list[str]:
    """The project-relative paths a tool call touches: its own and its command's."""
    rels = [relative(root, p, cwd) for p in paths if p]
    return rels + [relative(root, p, cwd) for p in command_paths(command)] if command else rels


def _matches(
    kind: str, pattern: str, rels: list[str], command: str | None, regex: str | None = None
) -> bool:
    if kind == "command":
        return bool(command) and command_matches(pattern, command or "", regex)
    return any(path_matches(pattern, rel, regex) for rel in rels)


def matching(
    root: StrPath,
    traps: Sequence[Trap],
    paths: Sequence[str],
    command: str | None,
) -> list[Trap]:
    """Traps whose pattern matches any of `paths` or `command` (a relative path is the
    project's), in file order."""
    rels = _rels(root, paths, command, None)
    return [t for t in traps if _matches(t.kind, t.pattern, rels, command)]


def _lead(kind: str, pattern: str) -> str | None:
    """What every path `pattern` matches starts with, where `path_matches` says so: a glob
    with a folder (`src/db/*.py`: `src/db/`); None for the rest (a bare name matches
    anywhere)."""
    if kind == "command" or "/" not in pattern.rstrip("/") or pattern.startswith("./"):
        return None
    return _literal_head(pattern.rstrip("/"))


def matching_paths(root: StrPath, paths: Sequence[str]) -> list[Trap]:
    """Path traps for files a session touched (for the brief); only their reasons are
    redacted, as `unseen` does (a brief read 1,000 traps' reasons for the few it shows)."""
    if not any(paths):
        return []
    import msgspec

    from continuity_core.redact import redact

    found = matching(root, load(root, redact_why=False), paths, None)
    return [msgspec.structs.replace(t, why=redact(t.why)) for t in found]


def render(root: StrPath, trap: Trap) -> str:
    """One trap as the agent reads it: pattern, why, evidence and whether it needs a re-check."""
    return Shown.of(trap).line(root)


class Shown:
    """What the pre-tool hook needs of a trap, redacted once: id, kind, pattern, its glob's regex
    (`_translate`), its line up to the reason (`head`), its cited files (path, as shown, hash,
    `_identity` and hash when cached). From the cache (`unseen`), the hook decodes no trap,
    imports no redactor and hashes no file that kept its identity."""

    __slots__ = ("files", "head", "id", "kind", "pattern", "regex")

    def __init__(
        self, id: str, kind: str, pattern: str, regex: str, head: str, files: list[list[Any]]
    ) -> None:
        self.id = id
        self.kind = kind
        self.pattern = pattern
        self.regex = regex
        self.head = head
        self.files = files

    @classmethod
    def of(cls, trap: Trap, states: dict[str, list[str | None]] | None = None) -> Shown:
        from continuity_core.redact import redact

        when = trap.created_at[:10]
        evidence = f", session {trap.session}" if trap.session else ""
        if trap.machine:
            evidence += f", from machine {trap.machine}"
        head = redact(f"- `{trap.pattern}` ({trap.kind}, {when}{evidence}): {trap.why}")
        files = [
            [rel, redact(rel), h, *(states or {}).get(rel, ("", None))]
            for rel, h in trap.file_hashes.items()
        ]
        regex = _translate(trap.kind, trap.pattern)
        return cls(trap.id, trap.kind, trap.pattern, regex, head, files)

    def line(self, root: StrPath) -> str:
        """The line the agent reads, the cited files that changed since named at its end."""
        changed = [s for rel, s, h, *state in self.files if _current(root, rel, *state) != h]
        if changed:
            return f"{self.head} [needs re-check: {', '.join(changed[:5])} changed since]"
        return self.head


# --- the pre-tool hook's cache -----------------------------------------------------------------
# Every trap the hook could show (this project's and those `baker pull` brought), parsed and
# redacted by whichever call first finds the cache stale, in `.baker/cache/traps.json` (the
# store passed the trust check), stale once the `_identity` of `traps.jsonl`, `machines.json`
# or the redactor changed, or this module's format or the Python (`fnmatch.translate`) did.
# As for git's index (`trust.RACY_S`), a file modified or changed (its ctime: `cp -p`, `tar x`
# set an old mtime) in the last `RACY_NS` may be rewritten in its times' tick keeping every
# field: it is read again, nothing cached (just after a `baker trap add`).
RACY_NS = 3_000_000_000


def _stat(path: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except OSError:
        return None


def _identity(path: str) -> str | None:
    """A file's device, inode, size and times; "-" if missing, None if changed in `RACY_NS`."""
    import time

    st = _stat(path)
    if st is None:
        return "-"
    if max(st.st_mtime_ns, st.st_ctime_ns) >= time.time_ns() - RACY_NS:
        return None
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def _current(root: StrPath, rel: str, ident: str, known: str | None) -> str | None:
    """A cited file's content hash: `known` while it keeps the identity seen before hashing
    it (`_cached`; a change after that is a new identity, so `known` is never too new)."""
    path = os.path.join(root, rel)
    return known if ident and _identity(path) == ident else file_hash(path)


def _cache_key(root: str) -> str | None:
    """What the cache is current for; None while a file it depends on changed just now."""
    import sys

    from continuity_core import __version__

    here = os.path.dirname(os.path.abspath(__file__))
    files = (traps_path(root), os.path.join(root, STORE, MACHINES_FILE), f"{here}/redact.py")
    idents = [_identity(path) for path in files]
    key = [CACHE_FORMAT, __version__, f"{sys.hexversion:x}", *idents]
    return None if None in idents else "|".join(map(str, key))


class _Cached:
    """The cache file as read (`_encode` writes it): its header, and the lines it points to
    decoded only where needed (what else it may hold raises, `unseen` builds it again)."""

    __slots__ = ("base", "data", "header")

    def __init__(self, data: bytes) -> None:
        self.base = data.index(b"\n") + 1
        self.data = data
        self.header = jsonl.loads(data[: self.base])

    def line(self, where: list[int]) -> Any:
        """The line `where` ([offset after the header, length]) points to, decoded."""
        start = self.base + where[0]
        return jsonl.loads(self.data[start : start + where[1]])

    def matching(self, rels: list[str], command: str | None) -> Iterator[Shown]:
        """The traps that match `rels` or `command`, in file order."""
        head = self.header
        buckets: list[list[int]] = head["buckets"]
        found: list[list[int]] = list(head["path"]) if rels else []
        # Each path's prefixes as long as some lead, not all of them: a 100 KB word (a base64
        # blob in a command) has 5 GB of prefixes.
        for start in {rel[:k] for rel in rels for k in head["lens"] if k <= len(rel)}:
            found += self.line(buckets[_bucket(start, len(buckets))]).get(start, ())
        if command:  # a literal piece missing from the command turns a trap down
            pieces = ((i, p, where) for i, p, *where in self.line(head["command"]))
            found += (
                [i, *where]
                for i, p, where in pieces
                if "[" in p or all(part in command for part in _literal_pieces(p))
            )
        for _, *where in sorted(found):
            t = Shown(*self.line(where))
            if _matches(t.kind, t.pattern, rels, command, t.regex):
                yield t


def _bucket(lead: str, count: int) -> int:
    return zlib.crc32(lead.encode("utf-8", "surrogatepass")) % count


def _encode(key: str, shown: Sequence[Shown]) -> bytes:
    """A header line, then JSON lines it (or a bucket) points to by offset after it and
    length: one per trap (a `Shown`), buckets of path traps by `_lead` (16 leads to one) and
    the command traps with their patterns. A call reads the few its paths' prefixes and its
    command lead to: most of 1,000 traps are turned down unread."""
    body: list[bytes] = []
    size = 0

    def put(value: object) -> list[int]:
        nonlocal size
        body.append(json.dumps(value).encode() + b"\n")
        size += len(body[-1])
        return [size - len(body[-1]), len(body[-1]) - 1]

    leads: dict[str, list[list[int]]] = {}
    header: dict[str, Any] = {"key": key, "path": [], "command": []}
    for i, t in enumerate(shown):
        where = put([t.id, t.kind, t.pattern, t.regex, t.head, t.files])  # `Shown`'s arguments
        start = _lead(t.kind, t.pattern)
        if t.kind == "command":
            header["command"].append([i, t.pattern, *where])
        elif start is not None:
            leads.setdefault(start, []).append([i, *where])
        else:
            header["path"].append([i, *where])
    buckets: list[dict[str, list[list[int]]]] = [{} for _ in range(len(leads) // 16 + 1)]
    for start, found in leads.items():
        buckets[_bucket(start, len(buckets))][start] = found
    header["lens"] = sorted({len(start) for start in leads})
    header["buckets"] = [put(bucket) for bucket in buckets]
    header["command"] = put(header["command"])
    return json.dumps(header).encode() + b"\n" + b"".join(body)


def _cached(root: str, *, fresh: bool = False) -> _Cached:
    """Every trap pretool could show, oldest first (see the section's comment): from the cache
    where it is current (unless `fresh`); else read, redacted and cached again (where the
    store can be written), with this project's cited files hashed (a pulled trap's: shown)."""
    key = _cache_key(root)
    path = os.path.join(root, STORE, *CACHE)
    try:
        if fresh or key is None:
            raise ValueError("rebuilt")
        cached = _Cached(trust.read_bytes(path))
        if cached.header.get("key") == key:
            return cached
    except (OSError, trust.Untrusted, ValueError):
        pass
    from continuity_core.snapshots import from_file

    found = load(root, redact_why=False)
    cited = {rel: os.path.join(root, rel) for t in found for rel in t.file_hashes}
    pulled = from_file(root)
    ids = {t.id for t in found}
    found += [t for t in (pulled.traps if pulled is not None else []) if t.id not in ids]
    states = {rel: [_identity(p) or "", file_hash(p)] for rel, p in cited.items()}
    data = _encode(key or "", [Shown.of(t, states) for t in found])
    if key is not None and os.path.isdir(os.path.join(root, STORE)):
        try:
            trust.dirs(root, STORE, *CACHE[:-1], create=True)
            atomic_write(path, data, durable=False)
        except (OSError, trust.Untrusted):
            pass  # a read-only store: the next call reads the traps again
    return _Cached(data)


# --- what a session has already been shown ----------------------------------------------------
# One file per session, named by a checksum of its id (`fs.checksum`) and holding the id first:
# a session whose id shares the name is shown its traps again, never told they were seen.


def _seen_path(root: StrPath, session: str) -> str:
    return os.path.join(root, STORE, SEEN_DIR, f"{checksum(session.encode())}.json")


def seen(root: StrPath, session: str) -> set[str]:
    try:
        value = jsonl.loads(trust.read_bytes(_seen_path(root, session)))
    except (OSError, ValueError):
        return set()
    ours = isinstance(value, list) and value[:1] == [session]
    return {v for v in value[1:] if isinstance(v, str)} if ours else set()


def _mark_seen(root: StrPath, session: str, ids: Iterable[str]) -> None:
    folder = trust.dirs(root, STORE, SEEN_DIR, create=True)
    seen_now = json.dumps([session, *sorted(seen(root, session) | set(ids))])
    atomic_write(_seen_path(root, session), seen_now, durable=False)
    try:  # old sessions' sets are pruned
        with os.scandir(folder) as it:
            entries = [e for e in it if e.name.endswith(".json")]
        if len(entries) <= SEEN_KEEP:
            return  # nothing to prune: no `stat` of every set on every call
        files = sorted((e.stat(follow_symlinks=False).st_mtime, e.path) for e in entries)
        for _, old in files[:-SEEN_PRUNED_TO]:
            try:
                os.unlink(old)
            except FileNotFoundError:
                pass
    except OSError:
        pass


def unseen(
    root: StrPath,
    session: str,
    paths: Sequence[str],
    command: str | None,
    cwd: str | None = None,
) -> list[Shown]:
    """The next matching traps `session` has not been shown, at most `BATCH` (the seen set
    is read only where some trap matches: most calls have none)."""
    top = os.fspath(root)
    rels = _rels(top, paths, command, cwd)
    if not rels and not command:
        return []  # nothing to match: the cache is not read
    try:
        found = list(_cached(top).matching(rels, command))
    except Exception:  # a cache `_encode` did not write: built again, where a bug would raise
        found = list(_cached(top, fresh=True).matching(rels, command))
    already = seen(top, session) if found else set()
    return [t for t in found if t.id not in already][:BATCH]


def record_delivered(store: Store, session: str, traps: list[Shown]) -> None:
    """Mark as seen what was actually delivered, and nothing else; log it for `baker audit`."""
    # A busy lock costs a repeat later, never a warning the session did not get.
    # A read-only store (OSError) too: the trap comes again, which is the safe side.
    try:
        with store.lock(timeout=1.0):
            _mark_seen(store.root, session, (t.id for t in traps))
    except (StoreError, OSError):
        pass
    store.log("traps_delivered", session=session, ids=[t.id for t in traps])
