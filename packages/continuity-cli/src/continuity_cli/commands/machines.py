"""`baker push` and `baker pull`: continue on another machine through the repository's remote."""

from __future__ import annotations

import click

from continuity_cli import output


@click.command()
@click.argument("remote", required=False)
@click.option(
    "--delete",
    is_flag=True,
    help="Delete this machine's snapshot ref from REMOTE (and here) instead.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def push(remote: str | None, delete: bool, as_json: bool) -> None:
    """Push a snapshot of this project's continuity state to refs/baker/<machine>.

    The snapshot is a commit (parent: this machine's previous one) holding the brief as
    `baker handoff` would print it now, the newest checkpoint, the note, the traps and the
    saved checkpoints' index; never a transcript. It is written with git plumbing (no index,
    worktree or branch is touched) and only that one ref is pushed. When the note, the traps
    or the checkpoint hold anything the secret scan knows, nothing is written and the command
    exits 1, naming the kind and the file. An unchanged state writes nothing.

    REMOTE defaults to `git config baker.remote`, else the branch's upstream remote, else
    origin. The machine is `[machine] name` in ~/.baker/config.toml, else the hostname.
    Anyone who can read REMOTE can read the snapshot: see docs/machines.md.
    """
    from continuity_core import machines
    from continuity_core.handoff import project_root

    result = machines.push(project_root(), remote, delete=delete)
    at = f"{result.ref} {result.commit and result.commit[:12]}"
    if as_json:
        output.emit_json(result)
    elif result.deleted:
        click.echo(
            f"Deleted {result.ref} on {result.remote} and here (the host may keep its "
            "objects until it garbage-collects)"
        )
    elif result.changed:
        click.echo(f"Pushed {at} to {result.remote}")
    elif result.sent:
        click.echo(
            f"No new snapshot (unchanged since {at}); pushed {result.ref} to {result.remote}"
        )
    else:
        click.echo(f"Unchanged since {at}: no new snapshot; {result.remote} is up to date")


@click.command()
@click.argument("remote", required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the machines found as JSON.")
def pull(remote: str | None, as_json: bool) -> None:
    """Fetch the other machines' snapshots (refs/baker/*) from REMOTE.

    Only refs/baker/* are fetched, into refs/baker/* here, never this machine's own ref and
    never a branch. A snapshot is data from whoever can push there: each file over
    256 KiB is refused (named on stderr), only plain files are read, and every string is
    redacted, stripped of terminal control and clipped. Their traps then reach this
    project's pickup and pretool hooks, marked with their machine. `baker handoff --machine
    NAME` prints one's brief and `baker resume AGENT --machine NAME` starts an agent with it.
    """
    from continuity_core import machines
    from continuity_core.handoff import project_root

    result = machines.pull(project_root(), remote)
    for why in result.refused:  # a snapshot too big or not plain files: named, not read
        click.echo(f"refused: {why}", err=True)
    if as_json:
        output.emit_json(result)
        return
    if not result.machines:
        click.echo(f"No other machine's snapshot on {result.remote}")
        return
    for m in result.machines:
        s = m.snapshot
        state = "limit" if s.ended_on_limit else (s.event or "manual")
        click.echo(
            f"{m.name} · {m.time} · {s.agent or 'no agent'} · {state} · "
            f"{s.git.branch or 'detached'} @ {(s.git.head or '?')[:12]}"
        )
    if result.traps:
        click.echo(f"{result.traps} trap(s) from other machines now reach the hooks here")
