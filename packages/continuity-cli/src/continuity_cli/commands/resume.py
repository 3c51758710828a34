"""`baker resume AGENT`: build the brief and start that agent with it."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import click


@click.command()
@click.argument("agent")
@click.option("--from", "source", metavar="AGENT",
              help="Take the newest session of this agent only.")
@click.option("--from-account", metavar="NAME", help="Take the session from this account only.")
@click.option("--session", "session_id", metavar="ID",
              help="Take this session (an id or its prefix).")
@click.option("--account", metavar="NAME",
              help="Start AGENT under this account (a name from config.toml or a config dir).")
@click.option("--native", is_flag=True,
              help="Same vendor, other account: continue the very session instead of a brief.")
@click.option("--force", is_flag=True,
              help="With --native: replace a different copy of the session in the target "
                   "account (a timestamped backup is kept beside it).")
@click.option("--machine", metavar="NAME",
              help="Take the brief from that machine's snapshot (after `baker pull`).")
@click.option("--budget", type=click.IntRange(min=200), metavar="TOKENS", help="Bound the brief.")
@click.option("--dry-run", is_flag=True, help="Print what would be run; start and write nothing.")
@click.option("--json", "as_json", is_flag=True, help="With --dry-run: print the launch as JSON.")
def resume(agent: str, source: str | None, from_account: str | None, session_id: str | None,
           account: str | None, native: bool, force: bool, machine: str | None,
           budget: int | None, dry_run: bool, as_json: bool) -> None:
    """Start AGENT with the brief of this project's newest session as its first turn.

    The brief reaches the agent whole at any size: small briefs go inline, larger ones through
    a private file the agent is told to read first. `baker` replaces itself with the agent.

    The session is chosen as `baker handoff` chooses it: the newest one of this project, in any
    agent and account, that did work. `--from`, `--from-account` and `--session` narrow that
    choice (exit 1, listing what exists, when nothing matches); `--account` names where AGENT
    starts. An account is a name from config.toml or a config folder path.

    With --native, a copy of the session already in the target account that the source does
    not simply extend is never overwritten: the command stops and says which side has what,
    unless --force (which keeps a timestamped backup of the target's copy beside it).

    \b
    Examples:
      baker resume codex                 # Claude Code hit its limit: continue in Codex
      baker resume claude --account work # same agent, another account, from the brief
      baker resume claude --from claude --account work --native
      baker resume codex --machine laptop  # after `baker pull`: laptop's work, here
    """
    from continuity_cli import output
    from continuity_core import brief as brief_mod
    from continuity_core import handoff as handoff_mod
    from continuity_core.adapters import LaunchOptions, load
    from continuity_core.config import load_config
    from continuity_core.errors import BakerError
    from continuity_core.pickup import BRIEF_ENV, BRIEF_SESSION_ENV
    from continuity_core.sessions import accounts_for

    target = load(agent)
    if native and source not in (None, agent):
        raise BakerError(f"--native continues a {agent} session; it cannot take one from {source}")
    root = handoff_mod.project_root()
    if machine is not None:
        if native:
            raise BakerError("--native continues a session of this machine; --machine starts "
                             "from another machine's brief: use one of them")
        result = handoff_mod.from_machine(root, machine, budget_tokens=budget,
                                          narrowed=source or from_account or session_id)
    else:
        result = handoff_mod.make(root, agent=source or (agent if native else None),
                                  account=from_account, session_id=session_id,
                                  budget_tokens=budget, write=not dry_run)
    if native and (result.brief.session is None or result.adapter is not target):
        raise BakerError(f"no {agent} session of this project to continue natively; "
                         "drop --native to start from the brief instead")
    launch_account = None
    if account is not None:
        matches = accounts_for(target, load_config(), account)
        if not matches:
            from continuity_core.adapters import Account, expand

            if not Path(expand(account)).is_dir():
                raise BakerError(f"no {agent} account named {account!r}: add it under "
                                 "[accounts] in ~/.baker/config.toml, or pass its config dir")
            matches = [Account(agent=agent, name=account, dir=expand(account))]
        launch_account = matches[0]
    text = brief_mod.render(result.brief)
    # A dry run writes nothing anywhere: the brief is handed over in memory, its file only named.
    path = handoff_mod.brief_path(root) if dry_run else handoff_mod.save_brief(root, text)
    spec = target.launch(root, path, LaunchOptions(
        account=launch_account, native=result.brief.session if native else None,
        brief_chars=len(text.encode()), brief_text=text if dry_run else None,
        extra={"dry_run": dry_run, "force": force}))
    used = result.brief.session
    # The agent's SessionStart hook then leaves the previous session to the brief.
    spec.env.update({BRIEF_ENV: str(path)})
    if used is not None:
        spec.env[BRIEF_SESSION_ENV] = f"{used.agent} session {used.session_id}"
    if dry_run:
        if as_json:
            output.emit_json({"brief": str(path), "brief_saved": False,
                              "brief_bytes": len(text.encode()), "launch": spec})
            return
        click.echo(f"brief: {path} ({len(text.encode())} bytes; not written: dry run)")
        for key, value in spec.env.items():
            click.echo(f"env: {key}={value}")
        click.echo(f"cwd: {spec.cwd or root}")
        click.echo("run: " + " ".join(shlex.quote(_short(a)) for a in spec.argv))
        for note in spec.notes:
            click.echo(f"note: {note}")
        return
    exe = shutil.which(spec.argv[0])
    if exe is None:
        raise BakerError(f"`{spec.argv[0]}` is not on PATH: install {target.display_name} first "
                         f"(the brief is saved in {path})")
    for note in spec.notes:
        click.echo(note, err=True)
    os.chdir(spec.cwd or root)
    os.execve(exe, spec.argv, {**os.environ, **spec.env})  # noqa: S606 - replacing baker is the point


def _short(arg: str) -> str:
    return arg if len(arg) <= 120 else f"{arg[:100]}… <{len(arg)} chars>"
