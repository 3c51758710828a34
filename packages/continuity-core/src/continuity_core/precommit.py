"""The pre-commit guard: a git hook that blocks a commit which would publish a secret or the
private store.

`install` writes the repository's `pre-commit` hook (an existing one is kept beside it and run
first); `uninstall` removes it and puts the kept one back. The hook runs `baker precommit`,
which calls `check`: the staged diff's added lines go through the one redactor's `findings`,
and any staged path under `.baker/` or at `memory/hot.md` is refused. A report names the kind,
the file and the line, never the value.
"""

from __future__ import annotations

import bisect
import itertools
import os
import re
import shlex
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from continuity_core import git
from continuity_core.adapters import Change
from continuity_core.fs import atomic_write
from continuity_core.project import IGNORED, outside_project  # IGNORED: never committed

MARKER = "# baker pre-commit guard"
CHAINED = "pre-commit.baker-chained"
_HOOK = """#!/bin/sh
{marker}: installed by `baker init --pre-commit`, removed by `baker uninstall`.
# Blocks a commit whose staged changes hold a secret or add .baker/ or memory/hot.md.
# Skip it once with `git commit --no-verify`.
# The baker that installed it, used when `baker` is not on PATH:
BAKER={baker}
hooks=$(dirname "$0")
if [ -x "$hooks/{chained}" ]; then
  "$hooks/{chained}" "$@" || exit $?
fi
if command -v baker >/dev/null 2>&1; then
  exec baker precommit
fi
if [ -n "$BAKER" ] && [ -x "$BAKER" ]; then
  exec "$BAKER" precommit
fi
echo "baker: the pre-commit secret guard did NOT run: baker is not on PATH" >&2
echo "  (nor at ${{BAKER:-the path it was installed from}}). Put baker on PATH, or run" >&2
echo '  `baker init --pre-commit` again; `baker uninstall` removes this hook.' >&2
exit 0
"""


def installer() -> str | None:
    """The absolute path of the running `baker`, which the hook falls back to when `baker` is
    not on PATH; None when it cannot be told (run as a module, say)."""
    for path in (Path(sys.argv[0] if sys.argv else ""), Path(sys.executable).parent / "baker"):
        if path.name == "baker" and os.access(path, os.X_OK):
            return str(path.absolute())
    return None


def hook_text(baker: str | None) -> str:
    """The hook script, with `baker` (quoted for the shell) as its fallback."""
    return _HOOK.format(marker=MARKER, chained=CHAINED, baker=shlex.quote(baker or ""))


_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass(frozen=True)
class Problem:
    """One reason to block: a secret's kind at a file's line, or a private path staged."""

    path: str
    line: int  # 0 for a private path
    kind: str  # the redactor's kind, or "private"


def _hook(root: Path) -> tuple[Path, Path, str, str | None]:
    """The `pre-commit` hook, the one it chains, the hook as shown, and why it may not be
    touched: a hooks folder in the work tree (a relative `core.hooksPath` such as `.githooks`,
    which a repository can commit as a link) is refused when a link in it leads out of the
    project. `.git/` never comes with a clone, and a folder configured elsewhere is the
    user's. OSError or GitError where git cannot say where the hooks are."""
    # Where git runs this repository's hooks from (`core.hooksPath` or `.git/hooks`).
    folder = Path(git.run(root, "rev-parse", "--git-path", "hooks", hooks_path=True).strip())
    hook = (folder if folder.is_absolute() else root / folder) / "pre-commit"
    shown = str(hook.relative_to(root)) if hook.is_relative_to(root) else str(hook)
    top, here = root.absolute(), hook.absolute()
    in_tree = here.is_relative_to(top) and here.relative_to(top).parts[:1] != (".git",)
    return hook, hook.with_name(CHAINED), shown, outside_project(hook, root) if in_tree else None


def _ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text(errors="replace")
    except OSError:
        return False


def install(root: Path, *, dry_run: bool = False, baker: str | None = None) -> list[Change]:
    """Write the guard as the `pre-commit` hook; an existing hook is kept and run first.
    `baker` (default: the running one) is where the hook finds baker when it is not on PATH;
    a guard written by an older or another baker is brought up to date."""
    try:
        hook, chained, shown, why = _hook(root)
    except (OSError, git.GitError) as e:
        return [Change(path="pre-commit hook", action="failed", detail=str(e))]
    if why:
        return [Change(path=shown, action="failed", detail=why)]
    text = hook_text(baker if baker is not None else installer())
    detail = "blocks staged secrets and .baker/ or memory/hot.md"
    action: Literal["updated", "created"] = "updated" if _ours(hook) else "created"
    try:
        if action == "updated" and hook.read_text(errors="replace") == text:
            return [Change(path=shown, action="unchanged")]
        chain = action == "created" and os.path.lexists(hook)
        if chain and os.path.lexists(chained):
            why = f"{chained.name} already exists: move it away and run again"
            return [Change(path=shown, action="failed", detail=why)]
        if chain:
            detail += f"; the existing hook runs first (kept as {chained.name})"
        if not dry_run:
            hook.parent.mkdir(parents=True, exist_ok=True)
            if chain:
                os.rename(hook, chained)
            atomic_write(hook, text, mode=0o755)
    except OSError as e:
        return [Change(path=shown, action="failed", detail=e.strerror or str(e))]
    return [Change(path=shown, action=action, detail=detail)]


def uninstall(root: Path, *, dry_run: bool = False) -> list[Change]:
    """Remove the guard, and put back the hook it was chained to. Nothing when absent."""
    try:
        hook, chained, shown, why = _hook(root)
    except (OSError, git.GitError):
        return []  # not a git repository: no hook to remove
    if why:
        return [Change(path=shown, action="failed", detail=why)]
    if not _ours(hook):
        return []
    restore = os.path.lexists(chained)
    if not dry_run:
        try:
            if restore:
                os.replace(chained, hook)
            else:
                hook.unlink()
        except OSError as e:
            return [Change(path=shown, action="failed", detail=e.strerror or str(e))]
    if restore:
        return [Change(path=shown, action="updated", detail="the hook it chained is back")]
    return [Change(path=shown, action="removed")]


def check(root: Path) -> list[Problem]:
    """What in the staged changes must not be committed (empty when the commit may go)."""
    from continuity_core.redact import findings

    problems: list[Problem] = []
    only = ("--diff-filter=ACMR", "--no-renames")
    names = git.run(root, "diff", "--cached", "--name-only", "-z", *only, timeout=None)
    for name in filter(None, names.split("\x00")):
        if name.startswith(IGNORED[0]) or name == IGNORED[1]:
            problems.append(Problem(path=name, line=0, kind="private"))
    diff = git.run(
        root,
        "diff",
        "--cached",
        "-U0",
        "--no-color",
        *git.NO_DRIVERS,
        *only,
        "--text",
        timeout=None,
    )
    for path, numbers, lines in _added(diff):
        text = "\n".join(lines)
        starts = [0, *itertools.accumulate(len(line) + 1 for line in lines[:-1])]
        found = dict.fromkeys(  # each kind once per line
            (kind, numbers[bisect.bisect_right(starts, start) - 1])
            for kind, start, _ in findings(text)
        )
        problems += [Problem(path=path, line=line, kind=kind) for kind, line in found]
    return problems


def _added(diff: str) -> Iterator[tuple[str, list[int], list[str]]]:
    """(path, line numbers, lines) of the lines each file's staged diff adds."""
    path: str | None = None
    numbers: list[int] = []
    lines: list[str] = []
    line_no = 0
    header = False  # between `diff --git` and the first hunk: `+++ b/path` names the file
    for raw in [*diff.split("\n"), "diff --git "]:  # the last line ends the last file
        if raw.startswith("diff --git "):
            if path is not None and lines:
                yield path, numbers, lines
            path, numbers, lines, header = None, [], [], True
        elif header and raw.startswith("+++ "):
            target = raw[4:].strip('"')
            path = target[2:] if target.startswith("b/") else target
        elif raw.startswith("@@"):
            m = _HUNK.match(raw)
            line_no, header = (int(m.group(1)) if m else 0), False
        elif not header and raw.startswith("+") and path is not None:
            numbers.append(line_no)
            lines.append(raw[1:])
            line_no += 1


def report(problems: list[Problem]) -> str:
    """What the hook prints: each problem on a line, then how to fix it or skip the check."""
    lines = ["baker: this commit would publish something private:"]
    for p in problems:
        if p.kind != "private":
            lines.append(f"  {p.path}:{p.line}: a secret ({p.kind})")
        elif p.path.startswith(IGNORED[0]):
            lines.append(f"  {p.path}: Continuity's private store (never committed)")
        else:
            lines.append(
                f"  {p.path}: the project's note, private to this checkout (never committed)"
            )
    if all(p.kind == "private" for p in problems):  # blocked for what the file is, not a secret
        lines += [
            "Unstage it (`git restore --staged PATH`: it stays on disk, ignored) and commit again.",
            "To commit it anyway, once: `git commit --no-verify`.",
        ]
    else:
        lines += [
            "Unstage it (`git restore --staged PATH`) or remove the secret, then commit again.",
            "If this is a false alarm, commit once with `git commit --no-verify`.",
        ]
    return "\n".join(lines)
