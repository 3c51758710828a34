"""How `baker resume copilot` starts Copilot CLI: interactive (`-i`) with the brief first."""

from __future__ import annotations

import os

from continuity_core.adapters import LaunchOptions, LaunchSpec
from continuity_core.schemas.session import SessionRef

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

PROGRAM = "copilot"
CONTINUE = "Continue this session. A handoff brief with the live repo state is in "
# What Copilot leaves in a session folder while a process holds it: never copied.
LOCKS = ("inuse.", ".workspace-fork.lock")


def _copy_session(ref: SessionRef, options: LaunchOptions, home: Path) -> list[str]:
    """Copy a session folder into `home`'s session-state/ so Copilot there can `--resume` it;
    notes of what it did (or, with `dry_run`, would do). A copy already there whose log the
    source does not simply extend is never lost: `BakerError` unless `force`, which keeps it
    beside as `<id>.baker-backup-<time>`."""
    import shutil
    from pathlib import Path

    from continuity_copilot.discovery import STATE
    from continuity_core.errors import BakerError
    from continuity_core.fs import backup_beside, copy_action

    source = Path(ref.path).parent
    target = home / STATE / ref.session_id
    action = copy_action(Path(ref.path), target / "events.jsonl")
    if action == "same":
        return []
    account = options.account.name if options.account is not None else str(home)
    if action == "conflict" and not options.force:
        if options.dry_run:
            return [f"would refuse (the target's copy differs; --force to replace it): {target}"]
        raise BakerError(
            f"refusing to overwrite the Copilot session {ref.session_id} in account {account}: "
            f"its copy there ({target}) holds events the source ({source}) does not have. "
            f"Continue the target's copy with `baker resume copilot --native --from-account "
            f"{account} --account {account}`, or add `--force` to replace it (the target's "
            "copy is kept beside it as `<id>.baker-backup-<time>`)."
        )
    if options.dry_run:
        verb = {
            "copy": "would copy",
            "extend": "would update",
            "conflict": "would back up and replace",
        }
        return [f"{verb[action]} the session folder: {source} -> {target}"]
    notes = []
    if action == "conflict":
        notes.append(f"kept the target's different copy as {backup_beside(target)}")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(
        source,
        target,
        dirs_exist_ok=True,
        ignore=lambda _dir, names: [n for n in names if n.startswith(LOCKS)],
    )
    notes.append(f"copied the Copilot session {ref.session_id} to {target}")
    return notes


def build(project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
    from pathlib import Path

    env: dict[str, str] = {}
    notes: list[str] = []
    home = Path(options.account.dir) if options.account is not None else None
    if home is not None and options.account is not None:
        env["COPILOT_HOME"] = str(home)
        notes.append(f"Copilot CLI runs with COPILOT_HOME={home} (account {options.account.name})")
    native = options.native
    if native is not None and native.agent == PROGRAM and os.path.isfile(native.path):
        if home is not None and not native.path.startswith(str(home).rstrip("/") + "/"):
            notes += _copy_session(native, options, home)
        prompt = f"{CONTINUE}{brief.resolve()}: read it first, then do what its 'First move' says."
        notes.append("continuing the same Copilot session")
        return LaunchSpec(
            argv=[PROGRAM, "--resume", native.session_id, "-i", prompt],
            env=env,
            cwd=str(project),
            notes=notes,
        )
    from continuity_core.adapters import kit

    first, note = kit.brief_prompt(brief, options, "Copilot")
    notes.append(note)
    return LaunchSpec(argv=[PROGRAM, "-i", first.text], env=env, cwd=str(project), notes=notes)
