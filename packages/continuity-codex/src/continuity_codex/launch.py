"""How `baker resume codex` starts Codex: the interactive TUI with the brief as first prompt."""

from __future__ import annotations

import os

from continuity_core.adapters import LaunchOptions, LaunchSpec
from continuity_core.schemas.session import SessionRef

TYPE_CHECKING = False
if TYPE_CHECKING:  # the parser imports this module (HANDOFF_PROMPTS) on every checkpoint
    from pathlib import Path

PROGRAM = "codex"
POINTER = "Read the handoff brief in "  # what earlier versions typed for a long brief
CONTINUE = "Continue this session. A handoff brief with the live repo state is in "
# First prompts `baker resume` typed for the user: never the user's own request.
HANDOFF_PROMPTS = ("# Handoff brief", POINTER, CONTINUE)


def _copy_into(
    ref: SessionRef, home: Path, *, force: bool, dry_run: bool, account: str
) -> list[str]:
    """Copy a rollout into `home`'s sessions/ under its own date folders; notes of what it
    did (or, with `dry_run`, would do). A copy already there that the source does not simply
    extend is never lost: `BakerError` unless `force`, which keeps it beside as a backup."""
    from pathlib import Path

    from continuity_codex.parser import read
    from continuity_core.adapters import kit
    from continuity_core.errors import BakerError
    from continuity_core.fs import backup_beside, copy_action

    source = Path(ref.path)
    target = _target(source, home)
    action = copy_action(source, target)
    if action == "same":
        return []
    if action == "conflict" and not force:
        refusal = (
            f"refusing to overwrite the rollout of {ref.session_id} in account {account}: its "
            f"copy there holds records the source does not have.\n"
            f"  source ({ref.account}): {kit.copy_side(source, read)} — {source}\n"
            f"  target ({account}): {kit.copy_side(target, read)} — {target}\n"
            f"To continue the target's copy instead, run `baker resume codex --native "
            f"--from-account {account} --account {account}`; to replace it with the source's, "
            "add `--force` (the target's copy is kept beside it as `<file>.baker-backup-<time>`)."
        )
        if dry_run:
            return [
                f"would refuse (the target's copy differs; --force to replace it): "
                f"{source} -> {target}",
                refusal,
            ]
        raise BakerError(refusal)
    if dry_run:
        verb = {
            "copy": "would copy",
            "extend": "would overwrite (the source extends it)",
            "conflict": "would back up and overwrite",
        }[action]
        return [f"{verb}: {source} -> {target}"]
    notes = []
    if action == "conflict":
        notes.append(f"kept the target's different copy as {backup_beside(target)}")
    target.parent.mkdir(parents=True, exist_ok=True)
    import shutil  # not at import: the parser imports this module for HANDOFF_PROMPTS

    shutil.copy2(source, target)
    notes.append(f"copied the rollout of {ref.session_id} to {target}")
    return notes


def _target(source: Path, home: Path) -> Path:
    """Where a rollout goes in `home`: its date folders under sessions/ (one from the flat
    archived_sessions/ gets them from its name)."""
    from pathlib import Path

    from continuity_codex.discovery import _NAME

    parts = source.parts
    if "sessions" in parts:
        return home / "sessions" / Path(*parts[parts.index("sessions") + 1 :])
    m = _NAME.match(source.name)
    day = m.group(1)[:10].split("-") if m else []
    return home / "sessions" / Path(*day) / source.name


def _copy_lineage(ref: SessionRef, home: Path, *, dry_run: bool) -> list[str]:
    """A fork's parents (and theirs) copied into `home` beside it: Codex resumes a fork only
    with its parent's rollout ("invalid paginated history lineage …: missing source rollout",
    verified with codex-cli 0.171.0). A different copy already there is kept: it holds the
    parent's history as that account has it."""
    from pathlib import Path

    from continuity_codex.discovery import lineage
    from continuity_core.fs import copy_action

    notes = []
    for parent in lineage(ref.path)[0]:
        source = Path(parent)
        target = _target(source, home)
        action = copy_action(source, target)
        if action == "same":
            continue
        if action == "conflict":
            notes.append(f"kept the different copy of the fork's parent {target}")
            continue
        if dry_run:
            notes.append(f"would copy the fork's parent: {source} -> {target}")
            continue
        import shutil

        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        notes.append(f"copied the fork's parent {source.name} to {target}")
    return notes


def _orphan(ref: SessionRef) -> str | None:
    """Why Codex cannot continue a fork whose parent's rollout is gone; None when it can."""
    from continuity_codex.discovery import home_of, lineage

    missing = lineage(ref.path)[1]
    if missing is None:
        return None
    return (
        f"the Codex thread {ref.session_id} is a fork whose history lies in thread "
        f"{missing}, and that rollout is not in {home_of(ref.path)}: Codex cannot resume "
        "the fork without it. Leave out --native to start a new Codex session from the "
        "brief (it holds the fork's own records)."
    )


def _archived(ref: SessionRef) -> str | None:
    """Why Codex cannot continue an archived thread, and what to do; None when it can."""
    from continuity_codex.discovery import is_archived

    if not is_archived(ref.path):
        return None
    # Verified with codex-cli 0.171.0: `codex resume` and `codex exec resume` of an archived
    # thread fail ("session … is archived. Run `codex unarchive …` to unarchive it first").
    return (
        f"the Codex thread {ref.session_id} is archived ({ref.path}): Codex cannot resume "
        f"it. Run `codex unarchive {ref.session_id}` and then this command again, or "
        "leave out --native to start a new Codex session from the brief (the brief reads "
        "the archived transcript)."
    )


def build(project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
    from pathlib import Path

    env: dict[str, str] = {}
    notes: list[str] = []
    account = options.account
    home = Path(account.dir) if account is not None else None
    if account is not None:
        env["CODEX_HOME"] = str(home)
        notes.append(f"Codex runs with CODEX_HOME={home} (account {account.name})")
    native = options.native
    if native is not None and native.agent == PROGRAM and os.path.isfile(native.path):
        refusal = _archived(native) or _orphan(native)
        if refusal is not None:
            if options.dry_run:
                return LaunchSpec(
                    argv=[PROGRAM, "resume", native.session_id],
                    env=env,
                    cwd=str(project),
                    notes=[*notes, f"would refuse: {refusal}"],
                )
            from continuity_core.errors import BakerError

            raise BakerError(refusal)
        if home is not None and not native.path.startswith(str(home).rstrip("/") + "/"):
            notes += _copy_into(
                native,
                home,
                force=options.force,
                dry_run=options.dry_run,
                account=account.name if account else str(home),
            )
            notes += _copy_lineage(native, home, dry_run=options.dry_run)
        # Verified with codex-cli 0.171.0: `codex resume ID PROMPT` continues a rollout copied
        # into another CODEX_HOME (found by its file name; Codex then adds it to that index).
        prompt = f"{CONTINUE}{brief.resolve()}: read it first, then do what its 'First move' says."
        notes.append("continuing the same Codex thread")
        return LaunchSpec(
            argv=[PROGRAM, "resume", native.session_id, prompt],
            env=env,
            cwd=str(project),
            notes=notes,
        )
    from continuity_core.adapters import kit  # not at import: the parser imports us

    first, note = kit.brief_prompt(brief, options, "Codex")
    notes.append(note)
    return LaunchSpec(argv=[PROGRAM, first.text], env=env, cwd=str(project), notes=notes)
