"""The store trusts nothing it did not make: the one place that checks a path before use.

A cloned repository can carry a committed `.baker/` or `memory/hot.md` (git checks them out
even though `baker init` ignores them), so before Continuity reads or writes either, every path
component inside the project is checked with `lstat`: a symlink, another user's file or folder,
or a group- or world-writable mode means the store is not used (`Untrusted`). Files are then
opened with `O_NOFOLLOW` where the platform has it and checked again on the open descriptor.

The per-user folder `~/.baker` (`$BAKER_HOME`) follows the same rules, except that the user's
own folder that is merely looser than 0700 is tightened (and logged) instead of refused.

A store git tracks came with the repository whatever its modes (a clone under umask 077, or a
filesystem that ignores modes, checks a committed `.baker` out 0700), so `check_store` ends with
one `git ls-files` of `.baker` and `memory/hot.md` (`tracked`); the hooks remember a clean
verdict in `~/.baker/cache/tracked/` under the git index's identity, so a hook pays a
subprocess only after the index changed. Modelled on git's "racily clean" entries, a
verdict is remembered only once the index is `RACY_S` old: a rewrite in the same timestamp
tick could otherwise bring back the same identity (size, times and a reused inode) with a
`.baker` staged in it.

Only `os` and `stat` at import: hooks call this on every turn. The checks work on `str` paths
(`os.path`); a caller that wants a `Path` wraps what they return.
"""

from __future__ import annotations

import errno
import json
import os
import stat

from continuity_core.errors import StoreError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path

    StrPath = str | os.PathLike[str]

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
# A FIFO put where a file is expected would block the open until a writer came; opened
# without blocking, it is refused at once by the `fstat` check (not a regular file).
NONBLOCK = getattr(os, "O_NONBLOCK", 0)
PRIVATE_DIR = 0o700
WRITABLE_BY_OTHERS = 0o022
_geteuid = getattr(os, "geteuid", None)
LOG = "events.jsonl"  # in `.baker/log/` and `~/.baker/log/`, read by `baker audit`
LOG_MAX = 1 << 20  # then moved to `events.1.jsonl` (a refused repository logs every turn)


class Untrusted(StoreError):
    """A path Continuity would read or write fails the trust check; it is not used."""

    def __init__(self, path: StrPath, why: str, *, home: bool = False) -> None:
        from pathlib import Path  # a refusal is rare: only then is pathlib paid for

        self.path = Path(path)
        self.why = why
        super().__init__(f"{path} {why}, so it is refused: {_advice(self.path, why, home=home)}")


def _advice(path: Path, why: str, *, home: bool) -> str:
    what = "~/.baker ($BAKER_HOME)" if home else "this project's Continuity store"
    if "symlink" in why:
        made = "a repository or someone else could have made" if home else "a clone can commit"
        fix = " (or point BAKER_HOME at the real folder)" if home else ""
        return (
            f"{what} is not used through a link {made}. Look at it, remove the link "
            f"(`rm {path}`) and run `baker init` again{fix}"
        )
    if "another user" in why:
        return (
            f"{what} is not used. If you trust it, take it over (`chown -R $USER {path}`);"
            f" otherwise move it aside and run `baker init` again"
        )
    if "open to other users" in why:
        return (
            f"{what} is not used: baker makes it 0700, and one open to others may have "
            f"come with the repository. If you made it, run `chmod 700 {path}`; otherwise "
            "remove it and run `baker init` again"
        )
    if "tracked by git" in why:
        return (
            f"{what} is not used while git tracks it: a repository's committed store could "
            "run commands (.baker/probes.json) or put its text in the agent's context. If "
            f"you made it, stop tracking it (`git rm -r --cached -- {path.name}` in "
            f"{path.parent}, then commit); otherwise remove it and run `baker init` again"
        )
    if "writable" in why:
        return (
            f"{what} is not used while others may change it. If it is yours, "
            f"run `chmod go-w {path}`; otherwise remove it and run `baker init` again"
        )
    return f"{what} is not used. Move it aside and run `baker init` again"


def problem(st: os.stat_result, *, folder: bool) -> str | None:
    """Why an `lstat` result may not be used, or None when it is fine."""
    mode = st.st_mode
    if stat.S_ISLNK(mode):
        return "is a symlink"
    if folder and not stat.S_ISDIR(mode):
        return "is not a folder"
    if not folder and not stat.S_ISREG(mode):
        return "is not a regular file"
    if _geteuid is not None and st.st_uid != _geteuid():
        return f"belongs to another user (uid {st.st_uid})"
    if stat.S_IMODE(mode) & WRITABLE_BY_OTHERS:
        return f"is group- or world-writable (mode {stat.S_IMODE(mode):04o})"
    return None


def dirs(base: StrPath, *parts: str, create: bool = False, home: bool = False) -> str:
    """`base` joined with `parts`, each component below `base` checked with `lstat`.

    A missing component ends the check (nothing below it exists), or with `create` is made
    0700 and checked in turn. In `home` (`~/.baker`), the user's own folder that is merely
    looser than 0700 is tightened and logged instead of refused. Raises Untrusted; returns
    the joined path.
    """
    path = os.fspath(base)
    for part in parts:
        path = os.path.join(path, part)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            if not create:
                return os.path.join(base, *parts)
            try:
                os.mkdir(path, PRIVATE_DIR)
            except FileExistsError:
                pass
            st = os.lstat(path)
        why = problem(st, folder=True)
        mode = stat.S_IMODE(st.st_mode)
        if home and (why is None or why.startswith("is group-")) and mode & 0o077:
            os.chmod(path, PRIVATE_DIR)
            home_log("home_tightened", path=path, was=f"{mode:04o}")
        elif why:
            raise Untrusted(path, why, home=home)
    return path


def check_file(path: StrPath, *, home: bool = False) -> None:
    """`lstat` of one file that may be missing; raises Untrusted when it may not be used."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    why = problem(st, folder=False)
    if why:
        raise Untrusted(path, why, home=home)


def open_fd(path: StrPath, flags: int, mode: int = 0o600, *, home: bool = False) -> int:
    """`os.open` that never follows a symlink in the last component (`O_NOFOLLOW` where the
    platform has it, an `lstat` first where not) and refuses another user's file, a file
    others may write, or anything but a regular file (a FIFO is opened without waiting for a
    writer). FileNotFoundError passes through; the caller closes the descriptor."""
    if not NOFOLLOW:  # pragma: no cover - Windows: no O_NOFOLLOW, check the name first
        check_file(path, home=home)
    try:
        fd = os.open(path, flags | NOFOLLOW | CLOEXEC | NONBLOCK, mode)
    except OSError as e:
        if e.errno == errno.ELOOP or (e.errno == errno.EMLINK and NOFOLLOW):  # BSDs say EMLINK
            raise Untrusted(path, "is a symlink", home=home) from None
        raise
    why = problem(os.fstat(fd), folder=False)
    if why:
        os.close(fd)
        raise Untrusted(path, why, home=home)
    return fd


def read_bytes(path: StrPath, *, home: bool = False) -> bytes:
    """The whole file, opened with `open_fd` (FileNotFoundError when missing)."""
    with open(open_fd(path, os.O_RDONLY, home=home), "rb") as f:
        return f.read()


def log_line(folder: str, line: str, *, home: bool = False) -> None:
    """Append one line to the event log in `folder` (checked), rotated past `LOG_MAX`: a
    private (0600) file, created if missing, never written through a link."""
    path = os.path.join(folder, LOG)
    try:
        if os.lstat(path).st_size > LOG_MAX:
            os.replace(path, os.path.join(folder, "events.1.jsonl"))
    except FileNotFoundError:
        pass
    fd = open_fd(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600, home=home)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


# --- the project store ------------------------------------------------------------------
STORE = ".baker"
NOTE_DIR = "memory"
NOTE_NAME = "hot.md"


def _entries(folder: StrPath) -> Iterator[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as it:
            yield from it
    except (FileNotFoundError, NotADirectoryError):
        return


def check_store(root: StrPath) -> None:
    """Raise Untrusted unless `root/.baker` is safe to use: `.baker` is 0700 as baker makes
    it, it and each entry in it pass `problem` (one `lstat` each), and no entry one folder
    further down is a symlink (read from the folder listing, no `stat`). Files further down
    are checked again when opened (`open_fd`). Last, nothing under `.baker` (or the note) may
    be tracked by git (`check_tracked`). A missing store passes: nothing to trust."""
    root = os.fspath(root)
    store = os.path.join(root, STORE)
    try:
        st = os.lstat(store)
    except FileNotFoundError:
        if os.path.lexists(os.path.join(root, NOTE_DIR, NOTE_NAME)):
            check_tracked(root)  # a committed note alone, before `baker init` adopts it
        return
    why = problem(st, folder=True)
    if why is None and stat.S_IMODE(st.st_mode) & 0o077:
        # baker makes `.baker` 0700 whatever the umask; git checks a committed one out 0755
        # (or 0775), and a committed store could carry probes.json commands that pickup runs.
        why = f"is open to other users (mode {stat.S_IMODE(st.st_mode):04o}), not as baker makes it"
    if why:
        raise Untrusted(store, why)
    for entry in _entries(store):
        why = problem(entry.stat(follow_symlinks=False), folder=entry.is_dir(follow_symlinks=False))
        if why:
            raise Untrusted(entry.path, why)
        if entry.is_dir(follow_symlinks=False):
            for inner in _entries(entry.path):
                if inner.is_symlink():
                    raise Untrusted(inner.path, "is a symlink")
    check_tracked(root)


# --- files that came with the repository -------------------------------------------------
TRACKED_SPECS = (STORE, f"{NOTE_DIR}/{NOTE_NAME}", NOTE_DIR)  # the last: a submodule there
TRACKED_CACHE = ("cache", "tracked")
TRACKED_TIMEOUT_S = 3.0
TRACKED_CACHE_MAX_AGE_S = 86400.0
RACY_S = 2.0  # an index younger than this may still be rewritten with the same identity
# Hooks write clean verdicts; a command (a dry run included) only reads them.
_REMEMBER = {"clean": False}


def remember_clean_verdicts() -> None:
    """Let this process write `tracked`'s clean verdicts to ~/.baker (the hooks do: they
    call it on every turn; an interactive command pays its one git call instead)."""
    _REMEMBER["clean"] = True


def check_tracked(root: StrPath) -> None:
    """Raise Untrusted when git tracks anything under `root/.baker`, `root/memory/hot.md` or
    `root/memory` itself (a submodule): it came with the repository, so its probes and text are
    the repository's, not the user's. Outside git, or where git is missing or fails, only the
    `lstat` checks apply."""
    found = tracked(root)
    if found:
        top = found[0].split("/", 1)[0]
        path = os.path.join(root, top if top == STORE else found[0])
        raise Untrusted(path, f"is tracked by git ({found[0]} came with the repository)")


def tracked(root: StrPath) -> list[str]:
    """The paths of `TRACKED_SPECS` (`memory/` only itself) that git's index holds, relative to
    `root` (one `git ls-files`; none remembered from a previous call with the same index)."""
    root = os.fspath(root)
    mark, written = _mark(root)
    if mark is not None and os.path.lexists(mark):
        return []
    found = ls_files(root, TRACKED_SPECS)  # of `memory/`, only the note or the folder itself
    found = found and [p for p in found if p.split("/")[0] == STORE or p in TRACKED_SPECS]
    if found is None or found:
        return found or []
    # An index written less than `RACY_S` ago (or in the future: a skewed clock) could be
    # rewritten within the same timestamp tick, with the same identity: not remembered.
    import time

    if mark is not None and _REMEMBER["clean"] and time.time() - written >= RACY_S:
        try:
            os.close(os.open(mark, os.O_WRONLY | os.O_CREAT | NOFOLLOW | CLOEXEC, 0o600))
            if os.path.basename(mark).startswith("0"):  # one clean verdict in sixteen sweeps
                sweep(os.path.dirname(mark), TRACKED_CACHE_MAX_AGE_S)
        except OSError:
            pass
    return []


def ls_files(
    root: StrPath, specs: Iterable[str], timeout_s: float = TRACKED_TIMEOUT_S
) -> list[str] | None:
    """What git's index holds under the literal paths `specs` (relative to `root`): files
    that came with the repository. None when git is missing, fails, is slow, or `root` is
    not in a work tree."""
    from continuity_core import git

    out = git.output(
        root, "--literal-pathspecs", "ls-files", "-z", "--cached", "--", *specs, timeout=timeout_s
    )
    if out is None:
        return None  # not a git worktree (or git refuses it): only the lstat checks apply
    return [p for p in out.split("\0") if p]


def _mark(root: str) -> tuple[str | None, float]:
    """The file in ~/.baker that remembers a clean verdict for the git index `root` uses right
    now, and when that index was last written; None when git's environment points elsewhere,
    no index is found or ~/.baker refuses. The index is known by its identity: git replaces
    the file on every write, and the mark is named by `fs.checksum` of it (inode and times are
    nothing a repository picks)."""
    from continuity_core.fs import checksum
    from continuity_core.git import git_dir

    found = git_dir(root)
    try:
        ist = os.stat(os.path.join(found, "index")) if found else None
        folder = home_path(*TRACKED_CACHE, create=_REMEMBER["clean"]) if ist else None
    except (OSError, Untrusted):
        return None, 0.0
    if ist is None or folder is None:
        return None, 0.0
    key = (
        f"{root}\0{found}\0{TRACKED_SPECS}\0{ist.st_dev}\0{ist.st_ino}\0"
        f"{ist.st_mtime_ns}\0{ist.st_ctime_ns}\0{ist.st_size}"
    )
    # Its modification time alone: a rewrite sets it to the time of writing, and one set
    # back by hand changes the inode's change time, also in the key.
    return os.path.join(folder, checksum(key.encode())), ist.st_mtime


def sweep(folder: StrPath, max_age_s: float) -> None:
    """Delete the plain files in a private cache folder older than `max_age_s`; never raises."""
    import time

    limit = time.time() - max_age_s
    for entry in _entries(folder):
        try:
            if (
                entry.is_file(follow_symlinks=False)
                and entry.stat(follow_symlinks=False).st_mtime < limit
            ):
                os.unlink(entry.path)
        except OSError:
            pass


def note_path(root: StrPath) -> str:
    """The note's path once `memory/` and `memory/hot.md` pass the `lstat` check."""
    path = os.path.join(dirs(root, NOTE_DIR), NOTE_NAME)
    check_file(path)
    return path


def store_problems(root: Path) -> list[Untrusted]:
    """Every failure of the project checks (note and store), for `baker doctor`."""
    out: list[Untrusted] = []
    for check in (note_path, check_store):
        try:
            check(root)
        except Untrusted as e:
            out.append(e)
    return out


# --- the per-user folder ------------------------------------------------------------------
def home_root() -> str:
    """`$BAKER_HOME` or `~/.baker`, unchecked, as a `str`."""
    raw = os.environ.get("BAKER_HOME")
    if raw:  # as `Path(raw).expanduser()` has it: no trailing slash, `..` left alone
        return os.path.expanduser(raw).rstrip("/") or "/"
    return os.path.join(os.path.expanduser("~"), ".baker")


def home_path(*parts: str, create: bool = True) -> str:
    """`~/.baker` (and `parts` below it), checked; created 0700 whoever creates it.

    The user's own folder that is merely looser than 0700 (group-writable included) is
    tightened to 0700 and the change logged; a symlink or another user's folder raises
    Untrusted. With `create` False nothing is made and a missing part ends the check.
    """
    parent, name = os.path.split(home_root())
    if create and not os.path.lexists(os.path.join(parent, name)):
        os.makedirs(parent, mode=PRIVATE_DIR, exist_ok=True)  # the folders above: not checked
    return dirs(parent, name, *parts, create=create, home=True)


def home_log(event: str, **fields: str) -> None:
    """One line in `~/.baker/log/events.jsonl`; never raises (a refused home logs nothing)."""
    try:
        from continuity_core.stamps import now_iso

        line = json.dumps({"t": now_iso(), "event": event, **fields})
        log_line(home_path("log"), line, home=True)
    except Exception:  # noqa: S110 - logging is best effort by design
        pass


def refused(exc: Untrusted, command: str) -> None:
    """A hook found an untrusted store: log one line under ~/.baker; the hook then exits 0."""
    home_log("store_refused", command=command, path=str(exc.path), why=exc.why)
