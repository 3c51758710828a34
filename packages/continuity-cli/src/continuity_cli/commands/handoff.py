"""`baker handoff`: print, copy or save the brief for the next agent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from continuity_core.handoff import Handoff


@click.command()
@click.option("--from", "agent", metavar="AGENT", help="Only look at this agent's sessions.")
@click.option(
    "--account",
    metavar="NAME",
    help="Only this source account (a name from config.toml or a config folder).",
)
@click.option("--session", "session_id", metavar="ID", help="This session (an id or its prefix).")
@click.option(
    "--machine",
    metavar="NAME",
    help="The brief from that machine's snapshot (after `baker pull`), its repo "
    "state compared with this checkout.",
)
@click.option(
    "--budget",
    type=click.IntRange(min=200),
    metavar="TOKENS",
    help="Bound the brief; lower-priority sections are cut first (default 8000).",
)
@click.option(
    "--copy",
    is_flag=True,
    help="Put the brief on the clipboard (printed instead when there is none).",
)
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(dir_okay=False),  # a str: pathlib is imported only when it is given
    help="Save the brief to FILE.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the brief as JSON: typed fields (request, todos, files, repo, note, "
    "limit, commands run, every request, sub-agents, …) and the rendered markdown "
    "(docs/schemas/handoff.schema.json).",
)
def handoff(
    agent: str | None,
    account: str | None,
    session_id: str | None,
    machine: str | None,
    budget: int | None,
    copy: bool,
    out: str | None,
    as_json: bool,
) -> None:
    """Print the brief: what the next agent needs to continue this project's work.

    Takes this project's newest session, across every installed agent and account, that did
    work (a model answer or a tool call); a newer one that failed before doing any is named as
    a failed attempt, never taken for the work. It is combined with the note, live repo state
    and traps. Everything is redacted.

    --from, --account (a name from config.toml or a config folder) and --session narrow that
    choice; when nothing matches, the command exits 1 and lists the sessions that exist
    (`baker sessions` lists them all).
    """
    from continuity_cli import output
    from continuity_core import brief as brief_mod
    from continuity_core import handoff as handoff_mod

    result = handoff_mod.make(
        handoff_mod.find_root(),
        agent=agent,
        account=account,
        session_id=session_id,
        budget_tokens=budget,
        machine=machine,
    )
    text = brief_mod.render(result.brief)
    for err in result.errors:
        click.echo(f"warning: {err}", err=True)
    if as_json:
        output.emit_json(handoff_mod.structured(result))
    elif out is None and not copy:
        click.echo(text, nl=False)
    if out is not None:
        from pathlib import Path

        from continuity_core.fs import atomic_write

        saved = Path(out)
        atomic_write(saved, text)
        click.echo(f"Brief saved to {saved} ({len(text.encode())} bytes)", err=True)
    if copy:
        from continuity_cli.clipboard import copy_text

        copied, how = copy_text(text)
        if not copied and not as_json:
            click.echo(text, nl=False)  # the brief is never lost
        click.echo(how, err=True)
    note = limit_note(result)
    if note:
        click.echo(note, err=True)


def limit_note(result: Handoff) -> str | None:
    """What to do when the last session ended on a usage limit (another account or agent)
    or a rate limit (wait and retry: another account does not help it)."""
    if not result.brief.ended_on_limit:
        return None
    when = f" (resets {result.brief.reset_at})" if result.brief.reset_at else ""
    if result.brief.limit_kind == "rate_limit":
        return (
            f"The last session ended on a rate limit{when}: it passes in minutes; retry "
            "the same session later (`baker run` waits and retries by itself)."
        )
    return (
        f"The last session ended on a usage limit{when}: continue with "
        "`baker resume AGENT` on another agent, or `--account NAME`, or "
        "`baker resume --next` ([rotation]; `baker run` does it by itself)."
    )
