"""`baker status`: environment facts, regenerated every time."""

from __future__ import annotations

import click


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def status(as_json: bool) -> None:
    """Show live facts about this project: branch, dirty files, the next action, checkpoints."""
    from continuity_core import brief, note
    from continuity_core.git import git_facts
    from continuity_core.handoff import project_root
    from continuity_core.store import Store

    from continuity_cli import output

    root = project_root()
    store = Store(root)
    git = git_facts(root)
    latest = store.latest_checkpoint() if store.exists else None
    current = note.read(root)
    data = {
        "project": str(root),
        "initialized": store.exists,
        "git": git,
        "now": current.get("Now") if current else None,
        "latest_checkpoint": latest.id if latest else None,
    }
    if as_json:
        output.emit_json(data)
        return
    click.echo(f"project: {root}{'' if store.exists else ' (not initialized: run baker init)'}")
    click.echo(brief.git_section(git))
    click.echo(f"now: {data['now'] or '(not set)'}")
    click.echo(f"latest checkpoint: {data['latest_checkpoint'] or 'none'}")
