"""Click front for the hook commands, for `--help` only: `baker`'s entry point runs them
through `continuity_cli.hooks` without click, so an agent's turn never pays for it."""

from __future__ import annotations

import click

_AGENT = click.option(
    "--agent", metavar="NAME", help="The agent calling this hook (claude, codex, gemini)."
)
_QUIET = click.option("--quiet", "-q", is_flag=True, help="Print nothing (for hooks).")


def _run(name: str, agent: str | None, quiet: bool, rest: tuple[str, ...]) -> None:
    from continuity_cli.hooks import run

    args = [name, *(["--agent", agent] if agent else []), *(["--quiet"] if quiet else []), *rest]
    raise SystemExit(run(args))


@click.command(context_settings={"ignore_unknown_options": True})
@_AGENT
@_QUIET
@click.argument("payload", nargs=-1)
def checkpoint(agent: str | None, quiet: bool, payload: tuple[str, ...]) -> None:
    """Write a checkpoint of this project: repo state and the agent's transcript facts.

    Agents run it after every turn with the hook payload on stdin (Codex's notify passes it
    as an argument). Always exits 0; failures are logged to .baker/log/ for `baker audit`.
    Run by hand (no --agent, no --quiet) it prints the checkpoint's id, or why none was
    written (outside a project set up with `baker init`, or the failure).
    """
    _run("checkpoint", agent, quiet, payload)


@click.command()
@_AGENT
def pickup(agent: str | None) -> None:
    """Print the session-start context: environment facts, the note, the interrupted state.

    With --agent, prints the agent's hook JSON; without, plain text for a person.
    """
    _run("pickup", agent, False, ())


@click.command()
@_AGENT
def pretool(agent: str | None) -> None:
    """Print traps matching the tool call on stdin (at most five unseen); never blocks it."""
    _run("pretool", agent, False, ())
