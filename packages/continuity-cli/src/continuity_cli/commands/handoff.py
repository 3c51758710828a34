"""`baker handoff`: print, copy or save the brief for the next agent."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.option("--from", "agent", metavar="AGENT", help="Only look at this agent's sessions.")
@click.option("--account", metavar="NAME",
              help="Only this account (a name from config.toml or a config dir).")
@click.option("--session", "session_id", metavar="ID", help="This session (an id or its prefix).")
@click.option("--budget", type=click.IntRange(min=200), metavar="TOKENS",
              help="Bound the brief; lower-priority sections are cut first (default 8000).")
@click.option("--copy", is_flag=True, help="Put the brief on the clipboard.")
@click.option("-o", "--output", "out", type=click.Path(dir_okay=False, path_type=Path),
              help="Save the brief to FILE.")
@click.option("--json", "as_json", is_flag=True, help="Print the structured brief as JSON.")
def handoff(agent: str | None, account: str | None, session_id: str | None, budget: int | None,
            copy: bool, out: Path | None, as_json: bool) -> None:
    """Print the brief: what the next agent needs to continue this project's work.

    Finds the newest session for this project across every installed agent and account,
    and combines it with the note, live repo state and traps. Everything is redacted.
    """
    from continuity_cli import output
    from continuity_core import brief as brief_mod
    from continuity_core import handoff as handoff_mod

    root = handoff_mod.project_root()
    result = handoff_mod.make(root, agent=agent, account=account, session_id=session_id,
                              budget_tokens=budget)
    for err in result.errors:
        click.echo(f"warning: {err}", err=True)
    text = brief_mod.render(result.brief)
    if as_json:
        output.emit_json(result.brief)
    elif out is None and not copy:
        click.echo(text, nl=False)
    if out is not None:
        from continuity_core.fs import atomic_write

        atomic_write(out, text)
        click.echo(f"Brief saved to {out} ({len(text.encode())} bytes)", err=True)
    if copy:
        from continuity_cli.clipboard import copy_text

        click.echo(copy_text(text), err=True)
    if result.brief.ended_on_limit:
        when = f" (resets {result.brief.reset_at})" if result.brief.reset_at else ""
        click.echo(f"The last session ended on a usage limit{when}: continue with "
                   "`baker resume AGENT` on another agent, or `--account NAME`, or "
                   "`baker resume --next` ([rotation]; `baker run` does it by itself).",
                   err=True)
