"""The one git-facts call: branch, head, dirty files, diff stats, worktrees.

The four git commands run concurrently, so the wall time is that of the slowest one. A folder
outside git gives `GitFacts(is_repo=False)`, never an error.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from continuity_core.schemas.checkpoint import GitFacts, Worktree

DIRTY_CAP = 50
_QUIET = {"GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}


def _spawn(cwd: Path, *args: str) -> subprocess.Popen[bytes] | None:
    try:
        return subprocess.Popen(
            ["git", *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL, env={**os.environ, **_QUIET},
        )
    except OSError:  # git missing or cwd gone
        return None


def _out(proc: subprocess.Popen[bytes] | None, timeout: float) -> str | None:
    if proc is None:
        return None
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None
    return out.decode("utf-8", "replace") if proc.returncode == 0 else None


def git_facts(cwd: Path, *, timeout: float = 5.0, worktrees: bool = True) -> GitFacts:
    """Facts about the repository containing `cwd`."""
    status = _spawn(cwd, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=normal")
    log = _spawn(cwd, "log", "-1", "--format=%H%x00%s")
    diff = _spawn(cwd, "diff", "HEAD", "--shortstat", "--no-ext-diff")
    top = _spawn(cwd, "rev-parse", "--show-toplevel")
    wt = _spawn(cwd, "worktree", "list", "--porcelain") if worktrees else None
    status_out = _out(status, timeout)
    log_out, diff_out, top_out = _out(log, timeout), _out(diff, timeout), _out(top, timeout)
    wt_out = _out(wt, timeout)
    if status_out is None:
        return GitFacts()
    facts = GitFacts(is_repo=True, root=(top_out or "").strip() or None)
    _parse_status(status_out, facts)
    if log_out:
        head, _, subject = log_out.rstrip("\n").partition("\x00")
        facts.head, facts.subject = head or facts.head, subject
    if diff_out:
        _parse_shortstat(diff_out, facts)
    if wt_out:
        facts.worktrees = _parse_worktrees(wt_out)
    return facts


def diffstat(cwd: Path, facts: GitFacts, exclude: list[str], *, timeout: float = 5.0) -> None:
    """Recount `+a −d in n tracked files` without the paths in `exclude`."""
    specs = [f":(exclude,literal){p}" for p in exclude]
    out = _out(_spawn(cwd, "diff", "HEAD", "--shortstat", "--no-ext-diff", "--", ".", *specs),
               timeout)
    facts.files_changed = facts.insertions = facts.deletions = 0
    if out:
        _parse_shortstat(out, facts)


def _parse_status(out: str, facts: GitFacts) -> None:
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
                if e[0] == "2":
                    i += 1  # the original path of a rename follows
            if len(dirty) < DIRTY_CAP:
                dirty.append(f"{xy} {path}")
    facts.dirty, facts.dirty_count = dirty, count


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
