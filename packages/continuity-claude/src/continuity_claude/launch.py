"""How `baker resume claude` starts Claude Code: with the brief, or resuming the session."""

from __future__ import annotations

import os
from pathlib import Path

from continuity_claude.discovery import CONFIG_ENV, default_dir, project_slug
from continuity_core.adapters import Account, LaunchOptions, LaunchSpec
from continuity_core.brief import first_prompt
from continuity_core.fs import atomic_write

PROGRAM = "claude"


def _account_env(account: Account | None) -> dict[str, str]:
    """`CLAUDE_CONFIG_DIR` for a non-default account.

    The default dir is left unset on purpose: with the variable set, Claude Code keeps its
    login state in `$CLAUDE_CONFIG_DIR/.claude.json` instead of `~/.claude.json`.
    """
    if account is None:
        return {}
    if os.path.realpath(account.dir) == os.path.realpath(default_dir()):
        return {}
    return {CONFIG_ENV: account.dir}


def launch(project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
    """Interactive `claude` with the brief as its first turn, or `claude --resume <id>`."""
    env = _account_env(options.account)
    if options.native is not None:
        return _native(project, options, env)
    argv = [PROGRAM, first_prompt(brief).text]
    if not brief.resolve().is_relative_to(project.resolve()):
        # Read asks before it leaves the project (seen with 2.1.197); after the prompt, as
        # --add-dir takes every argument that follows it.
        argv += ["--add-dir", str(brief.resolve().parent)]
    return LaunchSpec(argv=argv, env=env, cwd=str(project))


def _copy(src: Path, dst: Path) -> bool:
    """Copy a file atomically unless `dst` already holds the same bytes; True when copied."""
    data = src.read_bytes()
    try:
        if dst.read_bytes() == data:
            return False
    except OSError:
        pass
    dst.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(dst, data)
    return True


def _copy_tree(src: Path, dst: Path) -> int:
    copied = 0
    if src.is_dir():
        for path in sorted(src.rglob("*")):
            if path.is_file() and not path.is_symlink():
                copied += _copy(path, dst / path.relative_to(src))
    return copied


def _native(project: Path, options: LaunchOptions, env: dict[str, str]) -> LaunchSpec:
    """Make the session (and its subagents and tasks) visible to the target account, resume it.

    With `options.extra["dry_run"]` nothing is copied; the note says what would be.

    `claude --resume <id>` looks the session up in the project folder of the cwd it runs in,
    so the files go to `<target>/projects/<slug of that cwd>/`.
    """
    session = options.native
    if session is None:
        raise ValueError("no session to continue")
    source = Path(session.path)
    cwd = session.cwd if session.cwd and os.path.isdir(session.cwd) else str(project)
    target_dir = Path(options.account.dir) if options.account else default_dir()
    folder = target_dir / "projects" / project_slug(os.path.realpath(cwd))
    notes: list[str] = []
    dst = folder / source.name
    if options.extra.get("dry_run"):
        if source.resolve() != dst.resolve():
            notes.append(f"would copy session {session.session_id} into {folder}")
    elif source.resolve() != dst.resolve():
        copied = int(_copy(source, dst))
        copied += _copy_tree(source.with_suffix(""), folder / source.stem)
        source_config = source.parents[2]
        copied += _copy_tree(source_config / "tasks" / session.session_id,
                             target_dir / "tasks" / session.session_id)
        if copied:
            notes.append(f"copied session {session.session_id} into {folder}")
    return LaunchSpec(argv=[PROGRAM, "--resume", session.session_id], env=env, cwd=cwd,
                      notes=notes)
