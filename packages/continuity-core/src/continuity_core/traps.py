"""`.baker/traps.jsonl`: approaches already tried and rejected, keyed by a path or command glob.

A trap comes back only when its path or command is about to be touched again (`pretool`),
at most `BATCH` unseen ones per tool call, and a session is marked as having seen only what
was actually delivered. Broken lines are skipped one by one and kept on disk untouched. A
trap remembers the content hashes of the files it cites and says "needs re-check" once any of
them changed: the rejection may no longer hold.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
from collections.abc import Iterable, Sequence
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import Literal

import msgspec

from continuity_core import trust
from continuity_core.errors import BakerError, StoreError
from continuity_core.fs import atomic_write, hexdigest
from continuity_core.redact import redact
from continuity_core.schemas.trap import Trap
from continuity_core.store import STORE, Store, now_iso

TRAPS_FILE = "traps.jsonl"
SEEN_DIR = "traps-seen"
BATCH = 5
HASHED_FILES_MAX = 10
HASH_BYTES_MAX = 4 << 20  # pretool re-hashes cited files within its 3 s deadline
SEEN_KEEP = 200  # sessions whose seen-sets are kept
WHY_MAX = 2000
_GLOB = re.compile(r"[*?\[]")
_SEP = re.compile(r"\s*(?:&&|\|\||;|\|)\s*")


class TrapNotFound(BakerError):
    pass


def traps_path(root: Path) -> Path:
    return root / STORE / TRAPS_FILE


def _lines(root: Path) -> list[bytes]:
    try:
        return trust.read_bytes(traps_path(root)).splitlines()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return []


def _decode(line: bytes, *, redact_why: bool = True) -> Trap | None:
    """One line as a trap; None for anything else (a broken line, a non-string pattern).
    `redact_why=False` leaves `why` for the caller to redact (`unseen`: only the few that
    match, where redacting 1,000 reasons on every pre-tool call cost more than the rest)."""
    try:
        trap = msgspec.json.decode(line, type=Trap)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if not trap.pattern.strip():
        return None
    # A line written by hand (or by an older baker) is shown as `add` would have stored it.
    why = redact(trap.why) if redact_why else trap.why
    return msgspec.structs.replace(trap, pattern=redact(trap.pattern), why=why)


def load(root: Path, *, redact_why: bool = True) -> list[Trap]:
    """Every usable trap, oldest first."""
    traps = [_decode(line, redact_why=redact_why) for line in _lines(root) if line.strip()]
    return [t for t in traps if t is not None]


def parse_lines(data: bytes) -> list[Trap]:
    """The usable traps of a `traps.jsonl` text (another machine's, say), oldest first."""
    traps = [_decode(line) for line in data.splitlines() if line.strip()]
    return [t for t in traps if t is not None]


def with_other_machines(root: Path) -> list[Trap]:
    """This project's traps, then those `baker pull` brought from other machines (marked
    with their machine; read from `.baker/machines.json`, never from git)."""
    return _with_others(root, load(root))


def _with_others(root: Path, own: list[Trap]) -> list[Trap]:
    from continuity_core.machines import traps_from_others

    ids = {t.id for t in own}
    return own + [t for t in traps_from_others(root) if t.id not in ids]


def file_hash(path: Path) -> str | None:
    """sha256 of a file's content (first 16 hex digits); None when it cannot be read."""
    try:
        if path.stat().st_size > HASH_BYTES_MAX or not path.is_file():
            return None
        return hexdigest(path.read_bytes(), "sha256")[:16]
    except OSError:
        return None


def cited_files(root: Path, pattern: str, extra: Iterable[str] = ()) -> list[str]:
    """Project files a trap cites: those its path glob matches (a few), plus `extra`."""
    found: list[str] = []
    for name in extra:
        rel = relative(root, name)
        if rel not in found:
            found.append(rel)
    if not pattern.startswith("/") and ".." not in PurePosixPath(pattern).parts:
        try:
            matches = sorted(root.glob(pattern)) if _GLOB.search(pattern) else [root / pattern]
        except (ValueError, NotImplementedError, OSError):
            matches = []
        for path in matches:
            if len(found) >= HASHED_FILES_MAX:
                break
            if path.is_file() and ".git" not in path.relative_to(root).parts:
                rel = path.relative_to(root).as_posix()
                if rel not in found:
                    found.append(rel)
    return found


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
    pattern, why = redact(pattern.strip()), redact(why.strip())
    if not pattern:
        raise BakerError("a trap needs a non-empty path or command pattern")
    if not why:
        raise BakerError("a trap needs a reason: what failed and why")
    if len(why) > WHY_MAX:
        raise BakerError(f"the reason is {len(why)} characters; keep it under {WHY_MAX}")
    kind: Literal["path", "command"] = "command" if command else "path"
    cited = cited_files(root, pattern if kind == "path" else "", files)
    hashes = {rel: h for rel in cited if (h := file_hash(root / rel)) is not None}
    trap = Trap(id=os.urandom(4).hex(), pattern=pattern, kind=kind, why=why,
                created_at=now_iso(), session=session, agent=agent, file_hashes=hashes)
    store = Store(root)
    with store.lock():
        path = traps_path(root)
        old = b"".join(line + b"\n" for line in _lines(root))
        atomic_write(path, old + msgspec.json.encode(trap) + b"\n")
    return trap


def remove(root: Path, trap_id: str) -> Trap:
    """Remove one trap by id (or a unique id prefix); every other line stays byte-for-byte."""
    store = Store(root)
    with store.lock():
        lines = _lines(root)
        hits = [(i, t) for i, line in enumerate(lines)
                if (t := _decode(line)) is not None and t.id.startswith(trap_id)]
        if not trap_id or not hits:
            raise TrapNotFound(f"no trap with id {trap_id!r}; `baker trap list` shows them")
        if len({t.id for _, t in hits}) > 1:
            raise BakerError(f"{trap_id!r} matches several traps; give more of the id")
        drop = {i for i, _ in hits}
        kept = b"".join(line + b"\n" for i, line in enumerate(lines) if i not in drop)
        atomic_write(traps_path(root), kept)
    return hits[0][1]


def changed_files(root: Path, trap: Trap) -> list[str]:
    """Cited files whose content changed (or vanished) since the trap was recorded."""
    return [rel for rel, h in trap.file_hashes.items() if file_hash(root / rel) != h]


# --- matching ----------------------------------------------------------------------------------

def relative(root: Path, path: str, cwd: str | None = None) -> str:
    """`path` relative to the project root where it lies inside it, as posix. A relative path
    is read from `cwd` (where the agent ran: `units.py` in `weather/` is `weather/units.py`)."""
    p = Path(os.path.expanduser(path))
    if not p.is_absolute() and cwd and os.path.isabs(cwd):
        p = Path(os.path.normpath(os.path.join(cwd, p)))
    if p.is_absolute():
        with contextlib.suppress(ValueError):
            return p.relative_to(root).as_posix()
        with contextlib.suppress(ValueError, OSError):
            return p.resolve().relative_to(root.resolve()).as_posix()
        return p.as_posix()
    return PurePosixPath(path.replace("\\", "/")).as_posix().removeprefix("./")


def path_matches(pattern: str, rel: str) -> bool:
    """A glob over project-relative paths; a glob with no `/` matches a file name anywhere;
    a plain folder matches everything below it."""
    pattern = pattern.removeprefix("./")
    # fnmatch compiles a regex per pattern: first check the literal text before the first
    # wildcard, which a match must start with (1,000 traps, one compile instead of 1,000).
    if rel.startswith(_GLOB.split(pattern, maxsplit=1)[0]) and fnmatchcase(rel, pattern):
        return True
    if "/" not in pattern.rstrip("/") and fnmatchcase(PurePosixPath(rel).name, pattern):
        return True
    folder = pattern.rstrip("/")
    return not _GLOB.search(folder) and rel.startswith(folder + "/")


def command_matches(pattern: str, command: str) -> bool:
    """A glob found anywhere in the command line, or in any one of its chained commands."""
    if "[" not in pattern and not all(part in command for part in _GLOB.split(pattern)):
        return False  # a literal piece of the glob is missing: no need to compile it
    if fnmatchcase(command, f"*{pattern}*"):
        return True
    return any(fnmatchcase(part, pattern) for part in _SEP.split(command) if part)


def command_paths(command: str) -> list[str]:
    """Words of a shell command that look like paths, so path traps see `rm src/db.py` too."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    return [w for w in words if not w.startswith("-") and ("/" in w or "." in w.strip("."))]


def matching(root: Path, traps: Iterable[Trap], paths: Sequence[str],
             command: str | None, cwd: str | None = None) -> list[Trap]:
    """Traps whose pattern matches any of `paths` or `command` (relative ones read from `cwd`,
    the tool call's working folder), in file order."""
    rels = [relative(root, p, cwd) for p in paths if p]
    if command:
        rels += [relative(root, p, cwd) for p in command_paths(command)]
    out: list[Trap] = []
    for trap in traps:
        if trap.kind == "command":
            hit = bool(command) and command_matches(trap.pattern, command or "")
        else:
            hit = any(path_matches(trap.pattern, rel) for rel in rels)
        if hit:
            out.append(trap)
    return out


def matching_paths(root: Path, paths: Sequence[str]) -> list[Trap]:
    """Path traps for files a session touched (for the brief); only their reasons are
    redacted, as `unseen` does (a brief read 1,000 traps' reasons for the few it shows)."""
    if not any(paths):
        return []
    found = matching(root, load(root, redact_why=False), paths, None)
    return [msgspec.structs.replace(t, why=redact(t.why)) for t in found]


def render(root: Path, trap: Trap) -> str:
    """One trap as the agent reads it: pattern, why, evidence and whether it needs a re-check."""
    when = trap.created_at[:10]
    evidence = f", session {trap.session}" if trap.session else ""
    if trap.machine:
        evidence += f", from machine {trap.machine}"
    line = f"- `{trap.pattern}` ({trap.kind}, {when}{evidence}): {trap.why}"
    changed = changed_files(root, trap)
    if changed:
        line += f" [needs re-check: {', '.join(changed[:5])} changed since]"
    return redact(line)


# --- what a session has already been shown ----------------------------------------------------

def _seen_path(root: Path, session: str) -> Path:
    digest = hexdigest(session.encode())[:16]
    return root / STORE / SEEN_DIR / f"{digest}.json"


def seen(root: Path, session: str) -> set[str]:
    try:
        value = msgspec.json.decode(trust.read_bytes(_seen_path(root, session)))
    except (OSError, msgspec.DecodeError):
        return set()
    return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()


def mark_seen(root: Path, session: str, ids: Iterable[str]) -> None:
    """Add `ids` to the session's seen set; old sessions' sets are pruned."""
    path = _seen_path(root, session)
    trust.check_dirs(root, STORE, SEEN_DIR, create=True)
    atomic_write(path, msgspec.json.encode(sorted(seen(root, session) | set(ids))),
                 durable=False)
    with contextlib.suppress(OSError):
        files = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in files[:-SEEN_KEEP]:
            old.unlink(missing_ok=True)


def unseen(root: Path, session: str, paths: Sequence[str], command: str | None,
           batch: int = BATCH, cwd: str | None = None) -> list[Trap]:
    """The next matching traps `session` has not been shown, at most `batch`."""
    own = load(root, redact_why=False)  # as with_other_machines, reasons redacted below
    traps = _with_others(root, own)
    if not traps:
        return []
    already = seen(root, session)
    found = [t for t in matching(root, traps, paths, command, cwd)
             if t.id not in already][:batch]
    raw = {id(t) for t in own}
    return [msgspec.structs.replace(t, why=redact(t.why)) if id(t) in raw else t for t in found]


def record_delivered(root: Path, session: str, traps: Iterable[Trap]) -> None:
    """Mark as seen what was actually delivered, and nothing else."""
    # A busy lock costs a repeat later, never a warning the session did not get.
    # A read-only store (OSError) too: the trap comes again, which is the safe side.
    with contextlib.suppress(StoreError, OSError), Store(root).lock(timeout=1.0):
        mark_seen(root, session, (t.id for t in traps))
