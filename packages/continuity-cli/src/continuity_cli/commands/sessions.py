"""`baker sessions`: this project's recent sessions across agents and accounts."""

from __future__ import annotations

from typing import Any

import click


@click.command()
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=20,
    show_default=True,
    metavar="N",
    help="Show the newest N sessions.",
)
@click.option("--from", "agent", metavar="AGENT", help="Only this agent's sessions.")
@click.option(
    "--account",
    metavar="NAME",
    help="Only this account (a name from config.toml or a config folder).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def sessions(limit: int, agent: str | None, account: str | None, as_json: bool) -> None:
    """List this project's recent sessions, newest first, in every agent and account.

    Each row: agent, account, session id, started, last activity, size ("—", null in --json,
    for a session that is no file of its own: OpenCode's database rows), requests typed, and
    its state: `did work`, `failed` (no answer: an API error before any output, an empty
    retry), `limit` (a usage or rate limit ended it, with its reset time when recorded) or
    `interrupted` (a tool call or turn never finished, in the transcript or as
    the pre-tool hook saw it); then `archived` when the agent
    archived it (it cannot continue it natively) and `forked from ID` for a fork. The session
    marked `*` is the one `baker handoff`, `resume` and the SessionStart pickup take; ids (or a
    prefix) go to `--session`.
    """
    from continuity_cli import output
    from continuity_core.adapters import load_all
    from continuity_core.handoff import project_root
    from continuity_core.sessions import structured, table, why_none

    root = project_root()
    adapters, broken = load_all()
    found = table(root, adapters, agent=agent, account=account, limit=limit)
    output.warn([*broken.values(), *found.errors])
    rows = found.rows
    if as_json:
        output.emit_json(structured(root, found))
        return
    if not rows:
        where = "; ".join(found.searched) or "no agent adapter is installed"
        click.echo(f"No sessions of {root} (searched: {where}).")
        if why := why_none(root, found.below):
            click.echo(why)
        _machines(root)
        return
    for row in rows:
        mark = "*" if row["chosen"] else " "
        what = row["state"] or "unreadable"
        if row.get("limit_kind"):  # a rate limit passes in minutes; a usage limit does not
            what = str(row["limit_kind"]).replace("_", " ")
        if row["reset_at"]:
            what += f" (resets {row['reset_at']})"
        if row.get("archived"):
            what += ", archived"
        if row.get("forked_from"):
            what += f", forked from {row['forked_from']}"
        requests = "?" if row["requests"] is None else str(row["requests"])
        click.echo(
            f"{mark} {row['agent']:<7} {row['account']:<18} {row['id']}  "
            f"started {_short(row['started'])}  last {_short(row['last_activity'])}  "
            f"{_size(row['size'])}  {requests} req  {what}"
        )
        if row["error"] and row["state"] in ("failed", "limit", None):
            click.echo(f"    {row['error']}")
    if found.more > 0:
        click.echo(f"… {found.more} older (--limit)")
    click.echo("* the session `baker handoff` takes; pass an id to `--session` for another.")
    _machines(root)


def _machines(root: Any) -> None:
    """The other machines' newest snapshots, as `baker pull` last fetched them."""
    from continuity_core.sessions import other_machines

    rows = other_machines(root)
    if not rows:
        return
    click.echo("\nOther machines (as `baker pull` fetched them; `baker handoff --machine NAME`):")
    for row in rows:
        state = row["state"] + (f" (resets {row['reset_at']})" if row["reset_at"] else "")
        where = f"{row['branch'] or 'detached'} @ {(row['head'] or '?')[:12]}"
        click.echo(
            f"  {row['machine']} · {_short(row['time'])} · {row['agent'] or 'no agent'} · "
            f"{state} · {where}"
        )


def _short(stamp: str | None) -> str:
    from continuity_core.sessions import short_time

    return short_time(stamp).removesuffix(" UTC") if stamp else "?"


def _size(size: int | None) -> str:
    if size is None:  # a session kept as database rows has no byte size of its own
        return "—"
    value = float(size)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            return f"{value:.1f} {unit}" if size >= 1024 else f"{size} B"
    return f"{size} B"
