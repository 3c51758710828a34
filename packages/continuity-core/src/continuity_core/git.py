"""The one git-facts call: branch, head, dirty files, diff stats, worktrees.

One git process, `status`, in the common case. The top-level folder, the worktrees and the
last commit's subject are read from the files git keeps (`.git`, `worktrees/*/gitdir` and
`HEAD`, refs, the loose commit object), with `git rev-parse` / `git worktree list` / `git log
-1` as the fallback wherever those files say something this reader does not know (a reftable
store, a bare main repository, an unborn branch, a packed commit, replace refs, git's
discovery variables set); `diff --shortstat` runs only when `status` lists a tracked change.
A folder outside git gives `GitFacts(is_repo=False)`, never an error.
"""

from __future__ import annotations

import functools
import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from continuity_core.schemas.checkpoint import GitFacts, Worktree

    StrPath = str | os.PathLike[str]

DIRTY_CAP = 50
COMMIT_TEXT_MAX = 1 << 20  # what is inflated of a loose commit to read its subject
_QUIET = {"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
# Variables that change how git finds the repository: with one set, git itself is asked.
_DISCOVERY_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_OBJECT_DIRECTORY",
)


# What a repository's own config can make git run, turned off on every git command baker
# starts: a folder that came as a tarball or a zip may carry its `.git/config`. The filter
# drivers it names are emptied by `argv` (`git status` runs a clean filter).
_OFF = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "diff.external=",
    "log.showSignature=false",
)
SAFE = ("--no-pager", *(arg for setting in _OFF for arg in ("-c", setting)))
# Added to every `diff` and `log` with a patch or a stat: no external diff, no textconv.
NO_DRIVERS = ("--no-ext-diff", "--no-textconv")


def argv(cwd: StrPath, *args: str, hooks_path: bool = False) -> list[str]:
    """The argv of `git -C cwd ARGS` with nothing from the repository's config run (`SAFE`,
    and every filter driver the clone's own config names made empty). `hooks_path` keeps
    the repository's `core.hooksPath`, for asking git where its hooks live (which runs none)."""
    safe = SAFE
    if hooks_path:
        safe = ("--no-pager", *(a for o in _OFF if "hooksPath" not in o for a in ("-c", o)))
    return ["git", *safe, *_filters_off(str(cwd)), "-C", str(cwd), *args]


@functools.lru_cache(maxsize=16)  # asked before every git command: once per folder
def _filters_off(cwd: str) -> tuple[str, ...]:
    """`-c filter.NAME.clean=` (and smudge, process) for each filter driver the clone's own
    config, or a file it includes, names; none where that file never says `filter`."""
    if not any(local_config_may_name(cwd, word) for word in (b"filter", b"include")):
        return ()
    ask = ("config", "--local", "--includes", "--name-only", "--get-regexp", r"^filter\.")
    out = _out(_start(["git", *SAFE, "-C", str(cwd), *ask]), 5.0)
    names = {
        line.split(".", 1)[1].rsplit(".", 1)[0] for line in (out or "").split("\n") if "." in line
    }
    off: list[str] = []
    for name in sorted(n for n in names if n):
        for key in ("clean", "smudge", "process"):
            off += ["-c", f"filter.{name}.{key}="]
        off += ["-c", f"filter.{name}.required=false"]
    return tuple(off)


class _Git:
    """A running git command whose output is read to its end (`_out`)."""

    __slots__ = ("fd", "pid", "proc")

    def __init__(self, pid: int = 0, fd: int = -1, proc: Any = None) -> None:
        self.pid, self.fd, self.proc = pid, fd, proc


def _spawn(cwd: StrPath, *args: str) -> _Git | None:
    """Start `git -C cwd ARGS` with its output on a pipe. `os.posix_spawnp` where the platform
    has it: importing `subprocess` (signal, threading, selectors, locale) cost a checkpoint
    more than the git processes it started; elsewhere `subprocess`."""
    return _start(argv(cwd, *args))


def _start(cmd: list[str]) -> _Git | None:
    env = {**os.environ, **_QUIET}
    if not hasattr(os, "posix_spawnp"):
        import subprocess

        try:
            return _Git(
                proc=subprocess.Popen(
                    cmd,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.DEVNULL,
                    stdin=subprocess.DEVNULL,
                    env=env,
                )
            )
        except OSError:  # git missing
            return None
    read, write = os.pipe()  # both close on exec: the child keeps only its stdout copy
    try:
        pid = os.posix_spawnp(
            "git",
            cmd,
            env,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, write, 1),
                (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
            ],
        )
    except OSError:  # git missing
        os.close(read)
        return None
    finally:
        os.close(write)
    return _Git(pid=pid, fd=read)


def _out(proc: _Git | None, timeout: float) -> str | None:
    """The command's output when it exits 0 within `timeout`; None otherwise (killed then)."""
    if proc is None:
        return None
    if proc.proc is not None:
        import subprocess

        try:
            out, _ = proc.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.proc.kill()
            proc.proc.communicate()
            return None
        return out.decode("utf-8", "replace") if proc.proc.returncode == 0 else None
    import select

    deadline = time.monotonic() + timeout
    chunks: list[bytes] = []
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([proc.fd], [], [], left)[0]:
                os.kill(proc.pid, 9)  # SIGKILL, as Popen.kill
                os.waitpid(proc.pid, 0)
                return None
            chunk = os.read(proc.fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(proc.fd)
    _, status = os.waitpid(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        return None
    return b"".join(chunks).decode("utf-8", "replace")


def output(cwd: StrPath, *args: str, timeout: float) -> str | None:
    """What `git -C cwd ARGS` prints when it exits 0 within `timeout`; None when git is
    missing, fails or is slow (killed then)."""
    return _out(_spawn(cwd, *args), timeout)


def git_facts(cwd: StrPath, *, timeout: float = 5.0, worktrees: bool = True) -> GitFacts:
    """Facts about the repository containing `cwd`."""
    return Begun(cwd).facts(timeout=timeout, worktrees=worktrees)


class Begun:
    """`git_facts` begun: `git status` runs (and `git log`, where git's own files do not give
    the last commit's subject) while the caller does other work; `facts` waits for them.
    What `facts` never read is read to its end by `close` (git is never killed midway)."""

    __slots__ = ("cwd", "found", "here", "log", "refs", "status", "subject")

    def __init__(self, cwd: StrPath) -> None:
        self.cwd = cwd
        self.status = _spawn(
            cwd, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=normal"
        )
        self.found = found = _find_top(cwd)  # while status runs
        self.refs = refs = _Refs(_common_dir(found[1])) if found else None
        self.here = here = refs.resolve(os.path.join(found[1], "HEAD")) if refs and found else None
        self.subject = refs.subject(here[1]) if refs and here else None
        self.log = _spawn(cwd, *_LOG) if self.subject is None else None

    def facts(self, *, timeout: float = 5.0, worktrees: bool = True) -> GitFacts:
        """The facts, once `git status` (and `git log`) answered."""
        from continuity_core.schemas.checkpoint import GitFacts  # not on the pre-tool path

        cwd, found, refs, here, subject = self.cwd, self.found, self.refs, self.here, self.subject
        log, status = self.log, self.status
        self.log = self.status = None
        status_out = _out(status, timeout)
        if status_out is None:
            _out(log, timeout)
            return GitFacts()
        tracked = _parse_status(status_out, facts := GitFacts(is_repo=True))
        if subject is not None and here is not None and here[1] != facts.head:
            subject, log = None, _spawn(cwd, *_LOG)  # a commit landed in between: git says
        # `diff HEAD` counts what status lists as tracked changes: none listed, nothing to count.
        diff = _spawn(cwd, "diff", "HEAD", "--shortstat", *NO_DRIVERS) if tracked else None
        top = found[0] if found else None
        if top is None:
            top = (_out(_spawn(cwd, "rev-parse", "--show-toplevel"), timeout) or "").strip() or None
        facts.root = top
        trees = _read_worktrees(found[1], refs) if worktrees and found else None
        if worktrees and trees is None:
            trees = _parse_worktrees(
                _out(_spawn(cwd, "worktree", "list", "--porcelain"), timeout) or ""
            )
        log_out, diff_out = _out(log, timeout), _out(diff, timeout)
        if subject is not None:
            facts.subject = subject
        elif log_out:
            head, _, subject = log_out.rstrip("\n").partition("\x00")
            facts.head, facts.subject = head or facts.head, subject
        if diff_out:
            _parse_shortstat(diff_out, facts)
        if trees:
            facts.worktrees = trees
        return facts

    def close(self, timeout: float = 5.0) -> None:
        """Wait for what `facts` did not read (the caller failed before it wanted them)."""
        log, status = self.log, self.status
        self.log = self.status = None
        _out(status, timeout)
        _out(log, timeout)


_LOG = ("log", "-1", "--no-show-signature", "--format=%H%x00%s")


def _find_top(cwd: StrPath) -> tuple[str, str] | None:
    """(top-level folder, git dir) as git finds them from `cwd`: the nearest folder upwards
    holding `.git`, in real-path terms as `git rev-parse --show-toplevel` prints it. None where
    git's discovery variables are set or `.git` is not a folder or a `gitdir:` file."""
    if any(name in os.environ for name in _DISCOVERY_ENV):
        return None
    here = os.path.realpath(cwd)
    while True:
        dot = os.path.join(here, ".git")
        if os.path.isdir(dot):
            # A folder git would not take for a repository (git looks further up): git says.
            if not all(os.path.exists(os.path.join(dot, n)) for n in ("HEAD", "objects", "refs")):
                return None
            return here, dot
        if os.path.isfile(dot):
            text = _read(dot)
            if text is None or not text.startswith("gitdir: "):
                return None
            gitdir = os.path.normpath(os.path.join(here, text[8:].strip()))
            return (here, gitdir) if os.path.isdir(gitdir) else None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _common_dir(gitdir: str) -> str:
    """The repository's own folder, shared by its worktrees (a linked one names it)."""
    commondir = _read(os.path.join(gitdir, "commondir"))
    return os.path.realpath(os.path.join(gitdir, commondir.strip()) if commondir else gitdir)


def local_config_file(cwd: StrPath) -> str | None:
    """The file `git config --local` reads for `cwd`'s repository, found as `git_facts` finds
    the top-level folder; None where git itself must be asked."""
    found = _find_top(cwd)
    return os.path.join(_common_dir(found[1]), "config") if found else None


def local_config_may_name(cwd: StrPath, word: bytes) -> bool:
    """Whether the clone's own config file (`local_config_file`) may hold `word` (lower
    case): False only when that file is missing or never says it, so no `git config` call
    can find a key named after it."""
    path = local_config_file(cwd)
    if path is None:
        return True
    try:
        with open(path, "rb") as f:
            return word in f.read().lower()
    except FileNotFoundError:
        return False
    except OSError:
        return True


class _Refs:
    """Reads refs and loose commits from a repository's own folder (`common`), as git would;
    every answer is None where this reader is not sure (git is asked then)."""

    def __init__(self, common: str) -> None:
        self.common = common
        # A reftable store keeps refs where this reader does not look.
        self.usable = not os.path.isdir(os.path.join(common, "reftable"))
        self._packed: bytes | None = None

    def packed(self) -> bytes:
        """`packed-refs` as written (read once, never decoded whole: a repository with
        300,000 tags has 30 MB of it, and each copy of that costs a hook ~20 ms)."""
        if self._packed is None:
            try:
                with open(os.path.join(self.common, "packed-refs"), "rb") as f:
                    data = f.read()
            except OSError:
                data = b""
            if b"\r" in data:  # as a text-mode read has it (git writes none)
                data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            self._packed = data
        return self._packed

    def packed_oid(self, name: str) -> str | None:
        """The object id `packed-refs` gives the ref `name` (found, not parsed)."""
        data = self.packed()
        needle = f" {name}".encode()
        at = data.find(needle)
        while at >= 0:
            end = at + len(needle)
            # The name ends its line (the last line may lack its newline), an id begins it.
            if data[end : end + 1] in (b"\n", b""):
                line = data[data.rfind(b"\n", 0, at) + 1 : at]
                if line[:1] not in (b"", b"#", b"^") and b" " not in line:
                    try:
                        return line.decode()
                    except UnicodeDecodeError:
                        return None
            at = data.find(needle, at + 1)
        return None

    def resolve(self, head_file: str) -> tuple[str | None, str] | None:
        """(the branch ref it names or None when detached, the object id) of a HEAD file."""
        if not self.usable or os.path.islink(head_file):
            return None  # a symlinked HEAD is a symbolic ref to git: git says
        text = _read(head_file)
        ref = None
        for _ in range(5):
            if text is None:
                break
            text = text.strip()
            if not text.startswith("ref: "):
                return (ref, text) if _is_oid(text) else None  # an object id
            name = text[5:].strip()
            if not name.startswith("refs/") or ".." in name or "\\" in name:
                return None  # no ref git would read (`ref: ../../file`): git says
            ref = ref or name
            path = os.path.join(self.common, name)
            if os.path.islink(path):
                return None
            text = _read(path)
            if text is None:
                text = self.packed_oid(name)
        return None  # unborn, a loop, or unreadable: git says

    def subject(self, oid: str) -> str | None:
        """What `git log -1 --format=%s` prints for the commit `oid` when it is a loose object
        (a recent commit); None for a packed one, an `encoding` header (git re-encodes), or a
        repository with replace refs or grafts (git shows another commit)."""
        if not _is_oid(oid):
            return None
        if os.path.exists(os.path.join(self.common, "info", "grafts")):
            return None
        try:
            if os.listdir(os.path.join(self.common, "refs", "replace")):
                return None
        except OSError:
            pass
        if b" refs/replace/" in self.packed():
            return None
        try:
            with open(os.path.join(self.common, "objects", oid[:2], oid[2:]), "rb") as f:
                data = f.read(2 * COMMIT_TEXT_MAX)  # a few bytes inflate to a gigabyte
        except OSError:  # packed, or unreadable
            return None
        import zlib

        inflate = zlib.decompressobj()
        try:
            raw = inflate.decompress(data, COMMIT_TEXT_MAX)
        except zlib.error:  # a corrupt object is git's to report
            return None
        whole = inflate.eof  # else only the start was inflated: the subject must end in it
        kind, _, body = raw.partition(b"\0")
        if not kind.startswith(b"commit "):
            return None
        headers, blank, message = body.partition(b"\n\n")
        if not blank and not whole:
            return None
        if any(line.startswith(b"encoding ") for line in headers.split(b"\n")):
            return None
        lines = message.split(b"\n")
        while lines and not lines[0].strip():  # git skips blank lines before the subject
            lines.pop(0)
        subject: list[bytes] = []
        for line in lines:  # the first paragraph, each line right-trimmed, joined by spaces
            if not line.strip():
                break
            subject.append(line.rstrip())
        else:
            if not whole:
                return None  # a first paragraph longer than what was inflated: git says
        return b" ".join(subject).decode("utf-8", "replace")


def _is_oid(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _read_worktrees(gitdir: str, refs: _Refs | None = None) -> list[Worktree] | None:
    """What `git worktree list --porcelain` says, read from the repository's files: the main
    worktree first, then the linked ones by path. None where this reader is not sure."""
    refs = refs or _Refs(_common_dir(gitdir))
    common = refs.common
    if os.path.basename(common) != ".git" or not refs.usable:
        return None  # a bare or separate git dir; a reftable store: git says
    main = refs.resolve(os.path.join(common, "HEAD"))
    if main is None:
        return None
    trees = [_worktree(os.path.dirname(common), *main)]
    linked: list[Worktree] = []
    folder = os.path.join(common, "worktrees")
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        names = []
    except OSError:
        return None
    for name in names:
        entry = os.path.join(folder, name)
        where = _read(os.path.join(entry, "gitdir"))
        head = refs.resolve(os.path.join(entry, "HEAD"))
        if where is None or head is None:
            return None
        where = where.strip()
        if not os.path.isabs(where):
            where = os.path.realpath(os.path.join(entry, where))
        linked.append(_worktree(where.removesuffix("/.git"), *head))
    return trees + sorted(linked, key=lambda w: w.path)


def _worktree(path: str, ref: str | None, oid: str) -> Worktree:
    from continuity_core.schemas.checkpoint import Worktree

    branch = ref.removeprefix("refs/heads/") if ref else None
    return Worktree(path=path, head=oid, branch=branch)


def diffstat(cwd: StrPath, facts: GitFacts, exclude: list[str], *, timeout: float = 5.0) -> None:
    """Recount `+a −d in n tracked files` without the paths in `exclude`."""
    specs = [f":(exclude,literal){p}" for p in exclude]
    out = _out(_spawn(cwd, "diff", "HEAD", "--shortstat", *NO_DRIVERS, "--", ".", *specs), timeout)
    facts.files_changed = facts.insertions = facts.deletions = 0
    if out:
        _parse_shortstat(out, facts)


def _parse_status(out: str, facts: GitFacts) -> bool:
    """Fill `facts` from `git status --porcelain=v2 --branch -z`; True when it lists a tracked
    change (an entry other than an untracked file)."""
    tracked = False
    entries = out.split("\x00")
    dirty: list[str] = []
    count = 0
    i = 0
    while i < len(entries):
        e = entries[i]
        i += 1
        if not e:
            continue
        if e.startswith("# branch.oid "):
            oid = e[13:]
            facts.head = None if oid == "(initial)" else oid
        elif e.startswith("# branch.head "):
            name = e[14:]
            facts.detached = name == "(detached)"
            facts.branch = None if facts.detached else name
        elif e.startswith("# branch.upstream "):
            facts.upstream = e[18:]
        elif e.startswith("# branch.ab "):
            ahead, _, behind = e[12:].partition(" ")
            facts.ahead, facts.behind = abs(int(ahead)), abs(int(behind))
        elif e[0] in "12u?":
            count += 1
            if e[0] == "?":
                xy, path = "??", e[2:]
            else:
                fields = e.split(" ", {"1": 8, "2": 9, "u": 10}[e[0]])
                xy, path = fields[1].replace(".", " "), fields[-1]
                tracked = True
                if e[0] == "2":
                    i += 1  # the original path of a rename follows
            if len(dirty) < DIRTY_CAP:
                dirty.append(f"{xy} {path}")
    facts.dirty, facts.dirty_count = dirty, count
    return tracked


def _parse_shortstat(out: str, facts: GitFacts) -> None:
    for part in out.strip().split(","):
        words = part.split()
        if len(words) >= 2 and words[0].isdigit():
            n = int(words[0])
            if words[1].startswith("file"):
                facts.files_changed = n
            elif words[1].startswith("insertion"):
                facts.insertions = n
            elif words[1].startswith("deletion"):
                facts.deletions = n


def _parse_worktrees(out: str) -> list[Worktree]:
    from continuity_core.schemas.checkpoint import Worktree

    trees: list[Worktree] = []
    for block in out.strip().split("\n\n"):
        wt: Worktree | None = None
        for line in block.splitlines():
            key, _, value = line.partition(" ")
            if key == "worktree":
                wt = Worktree(path=value)
                trees.append(wt)
            elif wt is not None and key == "HEAD":
                wt.head = value
            elif wt is not None and key == "branch":
                wt.branch = value.removeprefix("refs/heads/")
    return trees
