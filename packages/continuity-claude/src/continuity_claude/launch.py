"""How `baker resume claude` starts Claude Code: with the brief, or resuming the session."""

from __future__ import annotations

import os
from pathlib import Path

from continuity_claude.discovery import CONFIG_ENV, default_dir, project_slug
from continuity_core.adapters import Account, LaunchOptions, LaunchSpec, kit
from continuity_core.fs import CopyAction, atomic_write, backup_beside, copy_action
from continuity_core.schemas.session import SessionRef

PROGRAM = "claude"


def _account_env(account: Account | None) -> dict[str, str]:
    """`CLAUDE_CONFIG_DIR` for a non-default account.

    The default dir is left unset on purpose: with the variable set, Claude Code keeps its
    login state in `$CLAUDE_CONFIG_DIR/.claude.json` instead of `~/.claude.json`.
    """
    if account is None or os.path.realpath(account.dir) == os.path.realpath(default_dir()):
        return {}
    return {CONFIG_ENV: account.dir}


def launch(project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
    """Interactive `claude` with the brief as its first turn, or `claude --resume <id>`."""
    env = _account_env(options.account)
    if options.native is not None:
        return _native(project, options, env)
    prompt, note = kit.brief_prompt(brief, options, "Claude Code")
    argv = [PROGRAM, prompt.text]
    if not brief.resolve().is_relative_to(project.resolve()):
        # Read asks before it leaves the project (seen with 2.1.197); after the prompt, as
        # --add-dir takes every argument that follows it.
        argv += ["--add-dir", str(brief.resolve().parent)]
    return LaunchSpec(argv=argv, env=env, cwd=str(project), notes=[note])


def _plan(
    session: SessionRef, folder: Path, target_dir: Path
) -> list[tuple[Path, Path, CopyAction]]:
    """Every file of the session (transcript, subagents, tasks) and what copying it would do."""
    source = Path(session.path)
    pairs = [(source, folder / source.name)]
    trees = [
        (source.with_suffix(""), folder / source.stem),
        (
            source.parents[2] / "tasks" / session.session_id,
            target_dir / "tasks" / session.session_id,
        ),
    ]
    for src_dir, dst_dir in trees:
        if src_dir.is_dir():
            pairs += [
                (p, dst_dir / p.relative_to(src_dir))
                for p in sorted(src_dir.rglob("*"))
                if p.is_file() and not p.is_symlink()
            ]
    return [(src, dst, copy_action(src, dst)) for src, dst in pairs]


def _side(path: Path) -> str:
    from continuity_claude.parser import fold
    from continuity_core.transcript import read_incremental

    return kit.copy_side(path, lambda ref: read_incremental(ref, None, fold))


def _refusal(session: SessionRef, conflicts: list[tuple[Path, Path]], account: str) -> str:
    src, dst = conflicts[0]
    main = src.suffix == ".jsonl" and src.stem == session.session_id
    lines = [
        f"refusing to overwrite session {session.session_id} in account {account}: its copy "
        "there holds records the source does not have."
    ]
    if main:
        lines += [
            f"  source ({session.account}): {_side(src)} — {src}",
            f"  target ({account}): {_side(dst)} — {dst}",
        ]
    lines += [f"  differs: {d}" for _, d in conflicts[1 if main else 0 :][:5]]
    lines += [
        "To continue the target's copy instead, run `baker resume claude --native "
        f"--from-account {account} --account {account}`; to replace it with the source's, "
        "add `--force` (the target's copy is kept beside it as "
        "`<file>.baker-backup-<time>`)."
    ]
    return "\n".join(lines)


def _native(project: Path, options: LaunchOptions, env: dict[str, str]) -> LaunchSpec:
    """Make the session (and its subagents and tasks) visible to the target account, resume it.

    `claude --resume <id>` looks the session up in the project folder of the cwd it runs in,
    so the files go to `<target>/projects/<slug of that cwd>/`. A file already there is
    replaced only when the source extends it; any other difference stops the launch
    (`BakerError`) unless `options.force`, which keeps a timestamped backup beside
    it. With `options.dry_run` nothing is written; the notes say what would be.
    """
    from continuity_core.errors import BakerError

    session = options.native
    if session is None:
        raise ValueError("no session to continue")
    source = Path(session.path)
    cwd = session.cwd if session.cwd and os.path.isdir(session.cwd) else str(project)
    target_dir = Path(options.account.dir) if options.account else default_dir()
    account = options.account.name if options.account else "~/.claude"
    folder = target_dir / "projects" / project_slug(os.path.realpath(cwd))
    argv = [PROGRAM, "--resume", session.session_id]
    if source.resolve() == (folder / source.name).resolve():
        return LaunchSpec(argv=argv, env=env, cwd=cwd)
    plan = _plan(session, folder, target_dir)
    conflicts = [(src, dst) for src, dst, act in plan if act == "conflict"]
    force = options.force
    notes: list[str] = []
    if options.dry_run:
        verbs = {
            "copy": "would copy",
            "extend": "would overwrite (the source extends it)",
            "same": "unchanged",
            "conflict": "would back up and overwrite"
            if force
            else "would refuse (the target's copy differs; --force to replace it)",
        }
        notes += [f"{verbs[act]}: {src} -> {dst}" for src, dst, act in plan]
        if conflicts and not force:
            notes.append(_refusal(session, conflicts, account))
        return LaunchSpec(argv=argv, env=env, cwd=cwd, notes=notes)
    if conflicts and not force:
        raise BakerError(_refusal(session, conflicts, account))
    copied = 0
    for src, dst, act in plan:
        if act == "same":
            continue
        if act == "conflict":
            backup = backup_beside(dst)
            notes.append(f"kept the target's different copy as {backup}")
        dst.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(dst, src.read_bytes())
        copied += 1
    if copied:
        notes.append(f"copied session {session.session_id} into {folder} ({copied} file(s))")
    return LaunchSpec(argv=argv, env=env, cwd=cwd, notes=notes)
