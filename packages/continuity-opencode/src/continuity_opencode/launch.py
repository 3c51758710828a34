"""How `baker resume opencode` starts OpenCode: its TUI with the brief as the first prompt.

`opencode --prompt TEXT` submits TEXT as the first user message, verbatim (seen with 1.18.33);
`opencode -s ID --prompt TEXT` continues a session of the same database. An account is an
OpenCode data folder: OpenCode finds it through `XDG_DATA_HOME` (the folder's parent, when
the folder is named `opencode`) or its database through `OPENCODE_DB`.
"""

from __future__ import annotations

import os

from continuity_core.adapters import LaunchOptions, LaunchSpec

TYPE_CHECKING = False
if TYPE_CHECKING:  # the parser imports this module (HANDOFF_PROMPTS) on every checkpoint
    import subprocess
    from pathlib import Path

    from continuity_core.adapters import Account

PROGRAM = "opencode"
CONTINUE = "Continue this session. A handoff brief with the live repo state is in "
# First prompts `baker resume` typed for the user: never the user's own request.
HANDOFF_PROMPTS = ("# Handoff brief", CONTINUE)


def account_env(account: Account) -> tuple[dict[str, str], str]:
    """The environment that makes OpenCode use `account`, and a note saying so."""
    folder = account.dir.rstrip("/")
    if folder.endswith(".db"):
        return {"OPENCODE_DB": folder}, f"OpenCode runs with OPENCODE_DB={folder}"
    if os.path.basename(folder) == "opencode":
        parent = os.path.dirname(folder)
        return {"XDG_DATA_HOME": parent}, f"OpenCode runs with XDG_DATA_HOME={parent}"
    db = os.path.join(folder, "opencode.db")
    return {"OPENCODE_DB": db}, f"OpenCode runs with OPENCODE_DB={db}"


def build(project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
    env: dict[str, str] = {}
    notes: list[str] = []
    if options.account is not None:
        env, said = account_env(options.account)
        notes.append(f"{said} (account {options.account.name})")
    # OpenCode 1.18 takes its project folder from PWD, not from the folder it runs in (seen:
    # a PWD left from elsewhere made it refuse writes in the project as "external_directory").
    env["PWD"] = str(project)
    native = options.native
    if native is not None and native.agent == PROGRAM:
        from continuity_opencode.database import split_path

        db, sid = split_path(native.path)
        target = env.get("OPENCODE_DB") or (
            os.path.join(env["XDG_DATA_HOME"], "opencode") if "XDG_DATA_HOME" in env else None
        )
        if db and target is not None and not _same_home(db, target):
            # OpenCode continues only a session of its own database: copy it over with
            # OpenCode's own `export` and `import` (the id stays; verified with 1.18.33).
            name = options.account.name if options.account else target
            if options.dry_run:
                notes.append(
                    f"would copy session {sid} from {db} into account {name} "
                    "(`opencode export` there, `opencode import` here)"
                )
            else:
                notes.append(_copy_session(sid, db, env, name, str(project)))
        prompt = f"{CONTINUE}{brief.resolve()}: read it first, then do what its 'First move' says."
        notes.append("continuing the same OpenCode session")
        return LaunchSpec(
            argv=[PROGRAM, "-s", native.session_id, "--prompt", prompt],
            env=env,
            cwd=str(project),
            notes=notes,
        )
    from continuity_core.adapters import kit

    first, note = kit.brief_prompt(brief, options, "OpenCode")
    notes.append(note)
    return LaunchSpec(
        argv=[PROGRAM, "--prompt", first.text], env=env, cwd=str(project), notes=notes
    )


def _copy_session(sid: str, db: str, env: dict[str, str], account: str, project: str) -> str:
    """`opencode export SID` from `db`, `opencode import` into the account `env` selects; run
    in `project`, which `import` makes the session's folder (seen with 1.18.33)."""
    import shutil
    import subprocess
    import tempfile

    from continuity_core.errors import BakerError

    exe = shutil.which(PROGRAM)
    if exe is None:
        raise BakerError(
            f"`{PROGRAM}` is not on PATH: it is needed to copy session {sid} into account "
            f"{account} (or leave out --native to start a new session from the brief)"
        )
    base = {k: v for k, v in os.environ.items() if k not in ("OPENCODE_DB", "PWD")}
    with tempfile.TemporaryDirectory(prefix="baker-opencode-") as tmp:
        dump = os.path.join(tmp, f"{sid}.json")
        with open(dump, "wb") as out:
            exported = subprocess.run(
                [exe, "export", sid],
                stdout=out,
                stderr=subprocess.PIPE,
                cwd=project,
                env={**base, "OPENCODE_DB": db, "PWD": project},
                timeout=120,
                check=False,
            )
        _check(exported, "export", sid, account)
        imported = subprocess.run(
            [exe, "import", dump],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=project,
            env={**base, **env},
            timeout=120,
            check=False,
        )
        _check(imported, "import", sid, account)
    return f"copied session {sid} from {db} into account {account}"


def _check(proc: subprocess.CompletedProcess[bytes], step: str, sid: str, account: str) -> None:
    if proc.returncode == 0:
        return
    from continuity_core.errors import BakerError

    why = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
    raise BakerError(f"`opencode {step}` failed copying session {sid} into {account}: {why[0]}")


def _same_home(db: str, target: str) -> bool:
    here = os.path.realpath(db)
    there = os.path.realpath(target)
    return here == there or os.path.dirname(here) == there
