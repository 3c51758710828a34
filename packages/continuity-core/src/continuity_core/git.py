"""The one git-facts call: branch, head, dirty files, diff stats, worktrees.

git itself answers, through `subprocess`: `status --porcelain=v2 --branch` (branch, head,
upstream, ahead/behind, dirty files), `rev-parse --show-toplevel`, `log -1` (the last commit's
subject) and `worktree list --porcelain`, all started at once; `diff --shortstat` runs only when
`status` lists a tracked change. `Begun.values` gives the facts as plain values (`GitFacts`'
fields, a pickup builds no Struct), `struct` makes them a `GitFacts`. A folder outside git gives
`GitFacts(is_repo=False)`, never an error.

Every git command baker starts goes through `argv` (nothing from the repository's config
runs): `output` where a failure only means "no answer" (the hooks), `run` where git's own
message must reach the user (`push`, `pull`, the pre-commit guard) as a `GitError`.
"""

from __future__ import annotations

import functools
import os
import stat

from continuity_core.errors import BakerError

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from typing import Any

    from continuity_core.schemas.checkpoint import GitFacts

    StrPath = str | os.PathLike[str]

DIRTY_CAP = 50
# Variables that change how git finds the repository and its index: with one set, git's own
# files are not read.
_DISCOVERY_ENV = (
    "GIT_INDEX_FILE",
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


def _start(cmd: list[str]) -> subprocess.Popen[bytes] | None:
    """Start `cmd` with its output on a pipe; None when git is missing."""
    import subprocess

    try:
        return subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            env=run_env({"GIT_TERMINAL_PROMPT": "0"}),
        )
    except OSError:
        return None


def _spawn(cwd: StrPath, *args: str) -> subprocess.Popen[bytes] | None:
    return _start(argv(cwd, *args))


def _out(proc: subprocess.Popen[bytes] | None, timeout: float) -> str | None:
    """The command's output when it exits 0 within `timeout`; None otherwise (killed then)."""
    if proc is None:
        return None
    import subprocess

    try:
        out, _ = proc.communicate(timeout=timeout)
    except BaseException as e:  # its timeout, or a hook's deadline: no git is left running
        proc.kill()
        proc.communicate()
        if isinstance(e, subprocess.TimeoutExpired):
            return None
        raise
    return out.decode("utf-8", "replace") if proc.returncode == 0 else None


def output(cwd: StrPath, *args: str, timeout: float) -> str | None:
    """What `git -C cwd ARGS` prints when it exits 0 within `timeout`; None when git is
    missing, fails or is slow (killed then)."""
    return _out(_spawn(cwd, *args), timeout)


GIT_TIMEOUT_S = 30.0


class GitError(BakerError):
    """A git command failed; its message is git's own."""


def run_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of `run`: no optional locks, git's own wording, and `extra`."""
    return {**os.environ, "LC_ALL": "C", "GIT_OPTIONAL_LOCKS": "0", **(extra or {})}


def run(
    cwd: StrPath,
    *args: str,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = GIT_TIMEOUT_S,
    check: bool = True,
    hooks_path: bool = False,
) -> str:
    """What `git -C cwd ARGS` (`argv`) prints; "" where it fails unchecked. With `check`, a
    failure is a GitError carrying git's own message. `env` goes on top of `run_env`'s (a
    push may prompt for credentials: the terminal is left alone)."""
    import subprocess

    try:
        proc = subprocess.run(
            argv(cwd, *args, hooks_path=hooks_path),
            cwd=cwd,
            input=input,
            capture_output=True,
            env=run_env(env),
            timeout=timeout,
            check=False,
            stdin=None if input is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitError("git is not on PATH") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"`git {args[0]}` took more than {timeout:g}s; gave up") from None
    if check and proc.returncode != 0:
        # `git push --porcelain` reports a rejected ref on stdout ("!<TAB>ref<TAB>why").
        rejected = [
            " ! " + ln[2:].replace("\t", " ")
            for ln in proc.stdout.decode(errors="replace").splitlines()
            if ln.startswith("!\t")
        ]
        lines = rejected + proc.stderr.decode(errors="replace").strip().splitlines()
        said = [ln for ln in lines if ln.startswith(("fatal:", "error:", "remote:", " ! "))]
        why = "\n  ".join(ln.strip() for ln in (said or lines or [f"exit {proc.returncode}"])[:2])
        raise GitError(f"`git {args[0]}` failed:\n  {why}")  # git's lines, one a line
    return proc.stdout.decode(errors="replace") if proc.returncode == 0 else ""


def git_facts(cwd: StrPath, *, timeout: float = 5.0, worktrees: bool = True) -> GitFacts:
    """Facts about the repository containing `cwd`."""
    return struct(Begun(cwd, worktrees=worktrees).values(timeout=timeout))


_STATUS = ("status", "--porcelain=v2", "--branch", "-z", "--untracked-files=normal")
_LOG = ("log", "-1", "--no-show-signature", "--format=%H%x00%s")
_TOP = ("rev-parse", "--show-toplevel")
_TREES = ("worktree", "list", "--porcelain")


class Begun:
    """`git_facts` begun: git runs while the caller does other work; `values` waits for it.
    What `values` never read is read to its end by `close`."""

    __slots__ = ("cwd", "procs")

    def __init__(self, cwd: StrPath, *, worktrees: bool = True) -> None:
        self.cwd = cwd
        self.procs = [_spawn(cwd, *args) for args in (_STATUS, _LOG, _TOP)]
        self.procs.append(_spawn(cwd, *_TREES) if worktrees else None)

    def values(self, *, timeout: float = 5.0) -> dict[str, Any]:
        """The facts as plain values, `GitFacts`' fields (those at their default may be left
        out), once git answered."""
        status, log, top, trees = self.procs
        self.procs = []
        status_out = _out(status, timeout)
        if status_out is None:  # the others are not waited for: killed if still running
            for proc in (log, top, trees):
                _out(proc, 0)
            return {}
        facts: dict[str, Any] = {"is_repo": True}
        tracked = _parse_status(status_out, facts)
        # `diff HEAD` counts what status lists as tracked changes: none listed, nothing to count.
        diff = _spawn(self.cwd, "diff", "HEAD", "--shortstat", *NO_DRIVERS) if tracked else None
        log_out, top_out, trees_out = (_out(p, timeout) for p in (log, top, trees))
        facts["root"] = (top_out or "").strip() or None
        if log_out:
            head, _, subject = log_out.rstrip("\n").partition("\x00")
            facts["head"], facts["subject"] = head or facts.get("head"), subject
        if trees_out:  # none where begun without `worktrees`
            facts["worktrees"] = _parse_worktrees(trees_out)
        _parse_shortstat(_out(diff, timeout) or "", facts)
        return facts

    def close(self, timeout: float = 5.0) -> None:
        """Wait for what `values` did not read (the caller failed before it wanted them)."""
        procs, self.procs = self.procs, []
        for proc in procs:
            _out(proc, timeout)


def struct(values: dict[str, Any]) -> GitFacts:
    """`GitFacts` of `Begun.values`, for what keeps or sends them (a checkpoint, a brief)."""
    import msgspec

    from continuity_core.schemas.checkpoint import GitFacts

    return msgspec.convert(values, GitFacts)


def git_dir(cwd: StrPath) -> str | None:
    """The git folder of `cwd`'s work tree, found as git finds it: the nearest `.git` upwards,
    a folder holding `HEAD` or a `gitdir:` file; None where git's discovery variables are set
    or none is found (git is asked then)."""
    if any(os.environ.get(name) for name in _DISCOVERY_ENV):
        return None
    here = os.path.realpath(cwd)
    while True:
        dot = os.path.join(here, ".git")
        if os.path.isfile(os.path.join(dot, "HEAD")):  # a `.git` folder without it git skips
            return dot
        if os.path.isfile(dot):  # a worktree's or submodule's `.git` file: "gitdir: <path>"
            try:
                with open(dot, "rb") as f:
                    line = f.read(4096).split(b"\n", 1)[0].decode()
            except (OSError, UnicodeDecodeError):
                return None
            return os.path.join(here, line[8:].strip()) if line.startswith("gitdir: ") else None
        if here == (here := os.path.dirname(here)):
            return None


def _read(path: str) -> bytes:
    """A file of git's folder; b"" where it is missing or not a regular file: a FIFO or a
    device there (an archive can bring one) is opened without waiting and never read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # none on Windows
    except FileNotFoundError:
        return b""
    with open(fd, "rb") as f:
        return f.read() if stat.S_ISREG(os.fstat(fd).st_mode) else b""


def local_config_may_name(cwd: StrPath, word: bytes) -> bool:
    """Whether the clone's own config file, the one `git config --local` reads (in the folder
    a linked worktree's `commondir` names), may hold `word` (lower case): False only when
    that file is missing or never says it, so no `git config` call can find a key named
    after it; True where git itself must be asked."""
    found = git_dir(cwd)
    if found is None:
        return True
    try:
        found = os.path.join(found, _read(os.path.join(found, "commondir")).decode().strip())
        return word in _read(os.path.join(os.path.realpath(found), "config")).lower()
    except (OSError, UnicodeDecodeError):
        return True


def diffstat(
    cwd: StrPath, facts: dict[str, Any], exclude: list[str], *, timeout: float = 5.0
) -> None:
    """Recount `+a −d in n tracked files` of `Begun.values` without the paths in `exclude`."""
    specs = [f":(exclude,literal){p}" for p in exclude]
    out = _out(_spawn(cwd, "diff", "HEAD", "--shortstat", *NO_DRIVERS, "--", ".", *specs), timeout)
    facts["files_changed"] = facts["insertions"] = facts["deletions"] = 0
    _parse_shortstat(out or "", facts)


def _parse_status(out: str, facts: dict[str, Any]) -> bool:
    """Fill `facts` from `git status --porcelain=v2 --branch -z`; True when it lists a tracked
    change (an entry other than an untracked file)."""
    tracked = False
    entries = iter(out.split("\x00"))
    dirty: list[str] = []
    count = 0
    for e in entries:
        if not e:
            continue
        if e.startswith("# branch.oid "):
            oid = e[13:]
            facts["head"] = None if oid == "(initial)" else oid
        elif e.startswith("# branch.head "):
            name = e[14:]
            facts["detached"] = name == "(detached)"
            facts["branch"] = None if facts["detached"] else name
        elif e.startswith("# branch.upstream "):
            facts["upstream"] = e[18:]
        elif e.startswith("# branch.ab "):
            ahead, _, behind = e[12:].partition(" ")
            facts["ahead"], facts["behind"] = abs(int(ahead)), abs(int(behind))
        elif e[0] in "12u?":
            count += 1
            if e[0] == "?":
                xy, path = "??", e[2:]
            else:
                fields = e.split(" ", {"1": 8, "2": 9, "u": 10}[e[0]])
                xy, path = fields[1].replace(".", " "), fields[-1]
                tracked = True
                if e[0] == "2":
                    next(entries, None)  # the original path of a rename follows
            if len(dirty) < DIRTY_CAP:
                dirty.append(f"{xy} {path}")
    facts["dirty"], facts["dirty_count"] = dirty, count
    return tracked


def _parse_shortstat(out: str, facts: dict[str, Any]) -> None:
    for part in out.strip().split(","):
        words = part.split()
        if len(words) >= 2 and words[0].isdigit():
            for key in ("files_changed", "insertions", "deletions"):
                if words[1].startswith(key[:4]):
                    facts[key] = int(words[0])


def _parse_worktrees(out: str) -> list[dict[str, str | None]]:
    """`Worktree`s as plain values, one from each block `worktree list --porcelain` prints."""
    trees: list[dict[str, str | None]] = []
    for block in out.strip().split("\n\n"):
        said = {k: v for k, _, v in (line.partition(" ") for line in block.splitlines())}
        if "worktree" in said:
            branch = said.get("branch", "").removeprefix("refs/heads/") or None
            trees.append({"path": said["worktree"], "head": said.get("HEAD"), "branch": branch})
    return trees
