"""`baker status`: environment facts, regenerated every time and never read from a stale write."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from continuity_core.store import Store


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--deadline",
    type=click.FloatRange(1, 600),
    default=15.0,
    show_default=True,
    help="Seconds all probes together may take.",
)
def status(as_json: bool, deadline: float) -> None:
    """Show live facts about this project: git, venv interpreters, jobs, probes, GPU.

    Jobs in .baker/probes.json are checked by their effect (the artifact exists, is fresh
    and readable), shell probes run with a timeout each, the GPU by a real computation.
    Exits 1 when a job, probe or GPU check fails or times out (`failed` in the JSON names them).
    """
    import msgspec

    from continuity_cli import output
    from continuity_core import note, probes
    from continuity_core.handoff import project_root
    from continuity_core.store import Store

    root = project_root()
    store = Store(root)
    env = probes.environment(root, deadline_s=deadline)
    latest = store.latest_checkpoint() if store.exists else None
    current = note.read(root)
    now = current.get("Now") if current else None
    reminder = _reminder(store)
    failed = [
        r.name
        for r in (*env.interpreters, *env.jobs, *env.probes, *env.gpu)
        if r.state in ("fail", "timeout", "error")
    ]
    if as_json:
        data = msgspec.to_builtins(env)
        data.update(
            initialized=store.exists,
            now=now or None,
            latest_checkpoint=latest.id if latest else None,
            usage_reminder=reminder,
            failed=failed,
        )
        output.emit_json(data)
        raise SystemExit(1 if failed else 0)
    click.echo(f"project: {root}{'' if store.exists else ' (not initialized: run baker init)'}")
    click.echo(probes.render(env))
    click.echo(f"now: {now or '(not set)'}")
    click.echo(f"latest checkpoint: {latest.id if latest else 'none'}")
    if reminder:
        click.echo(
            f"context usage: {reminder.get('level')} ({reminder.get('percent') or '?'}% "
            f"at the last turn): {reminder.get('action')}"
        )
    if failed:
        click.echo(f"failed: {', '.join(failed)}", err=True)
        raise SystemExit(1)


def _reminder(store: Store) -> dict[str, object] | None:
    """The usage reminder the checkpoint hook left (`.baker/reminder.json`), if any."""
    import msgspec

    from continuity_core import trust
    from continuity_core.checkpoint import REMINDER

    try:
        return msgspec.json.decode(trust.read_bytes(store.path(REMINDER)), type=dict[str, object])
    except (OSError, trust.Untrusted, msgspec.DecodeError):  # a ValidationError too: not an object
        return None
