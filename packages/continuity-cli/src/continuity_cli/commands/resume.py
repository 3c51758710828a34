"""`baker resume AGENT`: build the brief and start that agent with it."""

from __future__ import annotations

import os
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from continuity_core.adapters import Account, Adapter, LaunchSpec


@dataclass
class Prepared:
    """What `baker resume` (and `baker run` on a switch) starts: the agent and its brief."""

    adapter: Adapter
    spec: LaunchSpec
    brief: Path
    brief_bytes: int


@click.command()
@click.argument("agent", required=False)
@click.option(
    "--next",
    "next_",
    is_flag=True,
    help="Start the [rotation] entry after the newest session's agent and account "
    "that is not limited (see `baker limits`), instead of naming AGENT.",
)
@click.option(
    "--from", "source", metavar="AGENT", help="Take the newest session of this agent only."
)
@click.option("--from-account", metavar="NAME", help="Take the session from this account only.")
@click.option(
    "--session", "session_id", metavar="ID", help="Take this session (an id or its prefix)."
)
@click.option(
    "--account",
    metavar="NAME",
    help="Start AGENT under this account (a name from config.toml or a config dir).",
)
@click.option(
    "--native",
    is_flag=True,
    help="Same vendor, other account: continue the very session instead of a brief.",
)
@click.option(
    "--force",
    is_flag=True,
    help="With --native: replace a different copy of the session in the target "
    "account (a timestamped backup is kept beside it).",
)
@click.option(
    "--machine",
    metavar="NAME",
    help="Take the brief from that machine's snapshot (after `baker pull`).",
)
@click.option("--budget", type=click.IntRange(min=200), metavar="TOKENS", help="Bound the brief.")
@click.option("--dry-run", is_flag=True, help="Print what would be run; start and write nothing.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="With --dry-run: print the launch as JSON (without --dry-run: a usage error).",
)
def resume(
    agent: str | None,
    next_: bool,
    source: str | None,
    from_account: str | None,
    session_id: str | None,
    account: str | None,
    native: bool,
    force: bool,
    machine: str | None,
    budget: int | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Start AGENT with the brief of this project's newest session as its first turn.

    The brief reaches the agent whole at any size: its essentials (latest request, todos,
    files, the interrupted call, the first move) inline, and past 24 KB the rest through a
    private file the agent is told to read. `baker` replaces itself with the agent.

    With `--next`, the agent and account come from `[rotation] order` in ~/.baker/config.toml:
    the first entry after the newest session's that is not limited; the same agent on another
    account continues the very session (`--native`). Works on every platform.

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
      baker resume --next                # whatever [rotation] says comes next
    """
    from continuity_core.errors import BakerError

    if as_json and not dry_run:  # a machine asking for JSON must not get an agent started
        raise click.UsageError("--json describes the launch without starting it: add --dry-run")
    if next_:
        if agent or account or native:
            raise BakerError(
                "--next chooses the agent and account: drop AGENT, --account and --native"
            )
        agent, account, native, source = choose_next(source, from_account, session_id)
    elif agent is None:
        raise BakerError("name the agent to start (e.g. `baker resume codex`), or pass --next")
    prepared = prepare(
        agent,
        source=source,
        from_account=from_account,
        session_id=session_id,
        account=account,
        native=native,
        force=force,
        machine=machine,
        budget=budget,
        dry_run=dry_run,
    )
    if dry_run:
        show(prepared, as_json)
        return
    spec = prepared.spec
    exe = shutil.which(str(spec.argv[0]))
    if exe is None:
        raise BakerError(
            f"`{spec.argv[0]}` is not on PATH: install {prepared.adapter.display_name} first "
            f"(the brief is saved in {prepared.brief})"
        )
    for note in spec.notes:
        click.echo(note, err=True)
    os.chdir(spec.cwd)
    os.execve(exe, spec.argv, {**os.environ, **spec.env})  # noqa: S606 - replacing baker is the point


def show(prepared: Prepared, as_json: bool) -> None:
    """What a dry run would start: as JSON, or a line a setting."""
    from continuity_cli import output

    spec, path = prepared.spec, prepared.brief
    if shutil.which(str(spec.argv[0])) is None:  # what the real run would stop on
        click.echo(
            f"warning: `{spec.argv[0]}` is not on PATH: install "
            f"{prepared.adapter.display_name} first (the real run fails here)",
            err=True,
        )
    if as_json:
        launch = {"brief": str(path), "brief_saved": False, "brief_bytes": prepared.brief_bytes}
        output.emit_json({**launch, "launch": spec})
        return
    click.echo(f"brief: {path} ({prepared.brief_bytes} bytes; not written: dry run)")
    for key, value in spec.env.items():
        click.echo(f"env: {key}={value}")
    click.echo(f"cwd: {spec.cwd}")
    click.echo("run: " + " ".join(shlex.quote(_short(a)) for a in spec.argv))
    for note in spec.notes:
        click.echo(f"note: {note}")


def prepare(
    agent: str,
    *,
    source: str | None = None,
    from_account: str | None = None,
    session_id: str | None = None,
    account: str | None = None,
    native: bool = False,
    force: bool = False,
    machine: str | None = None,
    budget: int | None = None,
    dry_run: bool = False,
) -> Prepared:
    """Build and save the brief and the launch of `agent`, as `baker resume` does (a dry run
    saves nothing: the launch gets the brief's text and its file is only named)."""
    from continuity_core import brief as brief_mod
    from continuity_core import handoff as handoff_mod
    from continuity_core.adapters import LaunchOptions, load
    from continuity_core.errors import BakerError
    from continuity_core.pickup import BRIEF_ENV, BRIEF_SESSION_ENV

    target = load(agent)
    if native and source not in (None, agent):
        raise BakerError(f"--native continues a {agent} session; it cannot take one from {source}")
    if machine is not None and native:
        raise BakerError(
            "--native continues a session of this machine; --machine starts "
            "from another machine's brief: use one of them"
        )
    root = handoff_mod.project_root()
    result = handoff_mod.make(
        root,
        agent=source or (agent if native else None),
        account=from_account,
        session_id=session_id,
        budget_tokens=budget,
        write=not dry_run,
        machine=machine,
    )
    if native and (result.brief.session is None or result.adapter is not target):
        raise BakerError(
            f"no {agent} session of this project to continue natively; "
            "drop --native to start from the brief instead"
        )
    launch_account = None if account is None else _account(target, account)
    text = brief_mod.render(result.brief)
    # A dry run writes nothing anywhere: the brief is handed over in memory, its file only named.
    path = handoff_mod.brief_path(root) if dry_run else handoff_mod.save_brief(root, text)
    spec = target.launch(
        root,
        path,
        LaunchOptions(
            account=launch_account,
            native=result.brief.session if native else None,
            brief=result.brief,
            dry_run=dry_run,
            force=force,
        ),
    )
    spec.cwd = spec.cwd or str(root)
    used = result.brief.session
    # The agent's SessionStart hook then leaves the previous session to the brief.
    spec.env[BRIEF_ENV] = str(path)
    if used is not None:
        spec.env[BRIEF_SESSION_ENV] = f"{used.agent} session {used.session_id}"
    return Prepared(adapter=target, spec=spec, brief=path, brief_bytes=len(text.encode()))


def _account(target: Adapter, name: str) -> Account:
    """The account of `target` named `name` (config.toml's name or a config folder); a
    BakerError with the nearest name when there is none."""
    from continuity_core.config import load_config
    from continuity_core.errors import BakerError
    from continuity_core.sessions import accounts_for

    matches = accounts_for(target, load_config(), name)
    if not matches:
        import difflib

        names = [a.name for a in target.accounts(load_config())]
        near = difflib.get_close_matches(name, names, n=1)
        raise BakerError(
            f"no {target.name} account named {name!r}"
            + (f" (did you mean {near[0]!r}?)" if near else "")
            + ": add it under [accounts] in ~/.baker/config.toml, or pass its config dir"
        )
    return matches[0]


def choose_next(
    source: str | None, from_account: str | None, session_id: str | None
) -> tuple[str, str | None, bool, str | None]:
    """(agent, account, native, source) of the rotation entry after the newest session's."""
    from continuity_core import handoff as handoff_mod
    from continuity_core import limits
    from continuity_core.adapters import load, load_all
    from continuity_core.config import load_config
    from continuity_core.errors import BakerError
    from continuity_core.sessions import newest

    config = load_config()
    entries = limits.rotation(config, load)
    if not entries:
        raise BakerError(
            '--next needs `[rotation] order = ["claude", "codex"]` in '
            "~/.baker/config.toml (see `baker limits`)"
        )
    adapters = {source: load(source)} if source else load_all()[0]
    found = newest(
        handoff_mod.project_root(),
        adapters,
        config,
        agent=source,
        account=from_account,
        session_id=session_id,
    )
    current = None
    if found is not None:
        current = (found.ref.agent, limits.account_dir(found.adapter, config, found.ref.account))
    entry = limits.next_entry(entries, current, limits.read())
    if entry is None:
        first = limits.earliest(limits.read())
        when = f"; the first resets at {first.until}" if first and first.until else ""
        raise BakerError(f"every [rotation] entry is limited{when} (see `baker limits`)")
    same = current is not None and entry.agent == current[0]
    click.echo(f"next in the rotation: {entry.text}", err=True)
    source = entry.agent if same else None  # the same agent: continue its session natively
    return entry.agent, entry.account or (entry.dir if same else None), same, source


def _short(arg: str) -> str:
    return arg if len(arg) <= 120 else f"{arg[:100]}… <{len(arg)} chars>"
