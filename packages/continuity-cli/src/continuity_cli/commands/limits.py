"""`baker limits`: which rotation entry is limited, since when, until when, and why we know."""

from __future__ import annotations

import click


@click.command()
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="A list, one object per entry: entry, agent, account, limited, since, until, source.",
)
def limits(as_json: bool) -> None:
    """Show each agent and account of `[rotation]` and whether it is limited now.

    Limits are recorded by the hooks (Claude Code's StopFailure, a turn that ended on a
    usage- or rate-limit record) and by `baker run` (the limit message in the agent's output),
    in ~/.baker/limits.json; each expires at its reset time (an unknown one after an hour).
    Accounts outside the rotation that are limited are listed after it.
    """
    from continuity_cli import output
    from continuity_core import limits as limits_mod
    from continuity_core.adapters import load
    from continuity_core.config import load_config

    config = load_config()
    rows = limits_mod.status(limits_mod.rotation(config, load), limits_mod.read())
    # Why a list is short goes to stderr under --json: stdout stays the list, `[]` explained.
    if not config.rotation.order:
        click.echo(
            "no [rotation] order in ~/.baker/config.toml (see `baker run --help`)", err=as_json
        )
    if not rows:
        click.echo("no limit recorded for any account", err=as_json)
    if as_json:
        output.emit_json(rows)
    if as_json or not rows:
        return
    width = max(len(r["entry"]) for r in rows)
    for row in rows:
        if not row["limited"]:
            click.echo(f"{row['entry']:<{width}}  available")
            continue
        until = f"until {when(row['until'])}" if row["until"] else "reset time unknown"
        click.echo(
            f"{row['entry']:<{width}}  limited since {when(row['since'])}, {until} "
            f"(from the {row['source']})"
        )


def when(value: str | None) -> str:
    """An ISO time as local wall-clock time, with the date when it is not today."""
    from continuity_core.stamps import parse_time

    at = parse_time(value)
    if at is None:
        return value or "?"
    import datetime as dt

    local = at.astimezone()
    today = dt.datetime.now().astimezone().date()
    return local.strftime("%H:%M" if local.date() == today else "%Y-%m-%d %H:%M")
