"""How `baker resume codex` starts Codex: the interactive TUI with the brief as first prompt."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from continuity_core.adapters import LaunchOptions, LaunchSpec
from continuity_core.schemas.session import SessionRef

PROGRAM = "codex"
POINTER = "Read the handoff brief in "  # what earlier versions typed for a long brief
CONTINUE = "Continue this session. A handoff brief with the live repo state is in "
# First prompts `baker resume` typed for the user: never the user's own request.
HANDOFF_PROMPTS = ("# Handoff brief", POINTER, CONTINUE)


def _copy_into(ref: SessionRef, home: Path) -> tuple[Path, bool]:
    """Copy a rollout into `home`'s sessions/ under its own date folders; (path, copied)."""
    source = Path(ref.path)
    parts = source.parts
    rel = Path(*parts[parts.index("sessions") + 1 :]) if "sessions" in parts else Path(source.name)
    target = home / "sessions" / rel
    if target.exists() and target.stat().st_size >= source.stat().st_size:
        return target, False
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    return target, True


def build(project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
    env: dict[str, str] = {}
    notes: list[str] = []
    home = Path(options.account.dir) if options.account is not None else None
    if home is not None and options.account is not None:
        env["CODEX_HOME"] = str(home)
        notes.append(f"Codex runs with CODEX_HOME={home} (account {options.account.name})")
    native = options.native
    if native is not None and native.agent == PROGRAM and os.path.isfile(native.path):
        if home is not None and not native.path.startswith(str(home).rstrip("/") + "/"):
            if options.extra.get("dry_run"):
                notes.append(f"would copy the rollout of {native.session_id} into {home}")
            else:
                target, copied = _copy_into(native, home)
                if copied:
                    notes.append(f"copied the rollout of {native.session_id} to {target}")
        # Verified with codex-cli 0.171.0: `codex resume ID PROMPT` continues a rollout copied
        # into another CODEX_HOME (found by its file name; Codex then adds it to that index).
        prompt = f"{CONTINUE}{brief.resolve()}: read it first, then do what its 'First move' says."
        notes.append("continuing the same Codex thread")
        return LaunchSpec(argv=[PROGRAM, "resume", native.session_id, prompt], env=env,
                          cwd=str(project), notes=notes)
    from continuity_core.brief import first_prompt  # not at import: the parser imports us

    first = first_prompt(brief.resolve())
    if first.whole:
        notes.append("the brief is the first prompt")
    else:
        notes.append(f"the brief's essentials are the first prompt; Codex is told to read "
                     f"the rest in {brief}")
    return LaunchSpec(argv=[PROGRAM, first.text], env=env, cwd=str(project), notes=notes)
