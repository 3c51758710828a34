"""Task state: `baker note`, `baker now`, `baker block` (memory/hot.md) and `baker trap`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
import msgspec

from continuity_cli import output
from continuity_cli.app import Group

if TYPE_CHECKING:
    from collections.abc import Iterable

    from continuity_core.schemas.trap import Trap

_AGENT = click.option(
    "--agent", metavar="NAME", help="Who writes (recorded in the note's front matter)."
)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def note(as_json: bool) -> None:
    """Show the note (memory/hot.md); warns on stderr when it is over its 120-line cap."""
    from continuity_core import note as note_mod
    from continuity_core.store import Store

    root = Path(Store.here().root)  # outside a project set up with `baker init`: refused, as now
    data = note_mod.as_json(root)
    if as_json:
        output.emit_json(data)
        return
    from continuity_core.redact import redact

    lines, unknown = data["lines"], data["unknown_sections"]
    click.echo(redact(note_mod.read_text(root) or ""), nl=False)
    if lines > note_mod.CAP:
        click.echo(
            f"warning: {lines} lines, over the {note_mod.CAP}-line cap; the next write "
            "is refused until it is shortened",
            err=True,
        )
    if unknown:
        click.echo(f"note: sections kept as written but not known: {', '.join(unknown)}", err=True)


@click.command()
@click.argument("text", nargs=-1)
@_AGENT
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def now(text: tuple[str, ...], agent: str | None, as_json: bool) -> None:
    """Show or set the single next action (the note's Now).

    Shown, it is checked against the previous session of this project (the newest that did
    work, in any agent, as `baker handoff` chooses it) and flagged SUSPECT when a tool call
    there that finished after Now was set already did it (calls before that are not checked).
    """
    from continuity_core import note as note_mod
    from continuity_core.store import Store

    root = Path(Store.here().root)  # as `note`, `block` and `trap add`: only in a project set up
    if text:
        output.warn([secret_warning(" ".join(text))])
        path = note_mod.set_now(root, " ".join(text), agent)
        if not as_json:
            click.echo(f"Now set in {path}")
            return
    read = note_mod.read(root)
    current = note_mod.shown(read) if read else None
    action = current.get("Now") if current else ""
    result = _check(root, action, current.meta.get("updated") if current else None)
    if as_json:
        output.emit_json({"now": action or None, **result})
        return
    click.echo(action or '(not set: `baker now "the next action"`)')
    if result["suspect"]:
        click.echo(f"SUSPECT: {result['detail']}")
    elif action:
        click.echo(result["detail"])


def secret_warning(text: str) -> str | None:
    """What `baker now`/`block` and the MCP `note` tool say of a secret in what they store
    (redacted); None when there is none."""
    from continuity_core.redact import scan

    kinds = scan(text)
    if not kinds:
        return None
    return (
        f"the text holds a secret ({', '.join(kinds)}); it is stored as [REDACTED]: keep "
        "secrets out of the note"
    )


def _check(root: Any, action: str, since: str | None) -> dict[str, Any]:
    """Whether the newest transcript of this project already did `action`."""
    from continuity_core import inflight, pickup
    from continuity_core import note as note_mod
    from continuity_core.adapters import load_all
    from continuity_core.brief import call_text
    from continuity_core.store import Store

    if not action:
        return {"suspect": False, "checked": False, "detail": ""}
    adapters = load_all()[0]  # the previous session by the one rule; --agent only names who writes
    store = Store(root)
    prev = pickup.find_previous(root, adapters, store=store if store.exists else None)
    if prev.session is None:
        return {
            "suspect": False,
            "checked": False,
            "detail": prev.why_not.replace("a previous session", "a session") + ".",
        }
    s = prev.session
    call = note_mod.executed(action, s, since)
    where = f"{s.agent} session {s.session_id}"
    begun = note_mod.executed(action, s, finished=False) if call is None else None
    # The same source as the brief: a call the pre-tool hook saw start and the transcript
    # never recorded (Gemini CLI writes a call only once it returns).
    unrecorded = (
        inflight.unrecorded(store, s) if call is None and begun is None and store.exists else None
    )
    if call is not None:
        when = f" at {call.timestamp}" if call.timestamp else ""
        detail = (
            f"{where} already ran {call.name} `{call_text(call)[:200]}`{when}; "
            "check its effect before doing it again, then update Now"
        )
    elif begun is not None:
        detail = (
            f"{where} started {begun.name} `{call_text(begun)[:200]}` and never got "
            "its result: check its effect before running it again"
        )
    elif unrecorded is not None and note_mod.does(action, unrecorded.command, unrecorded.paths):
        what = unrecorded.command or ", ".join(unrecorded.paths)
        detail = (
            f"{where} started {unrecorded.tool_name} `{what[:200]}` at "
            f"{unrecorded.started_at} and never got its result (seen by the pre-tool "
            "hook; the transcript never recorded it): check its effect before running "
            "it again"
        )
    else:
        detail = f"checked against {where}: not done there yet"
    return {"suspect": call is not None, "checked": True, "session": s.session_id, "detail": detail}


@click.command()
@click.argument("text", nargs=-1, required=True)
@_AGENT
def block(text: tuple[str, ...], agent: str | None) -> None:
    """Add an item to the note's Blocked section: what waits, and on what."""
    from continuity_core import note as note_mod
    from continuity_core.store import Store

    root = Path(Store.here().root)  # before the secret warning: a refused write warns of nothing
    output.warn([secret_warning(" ".join(text))])
    path = note_mod.add_blocked(root, " ".join(text), agent)
    click.echo(f"added to Blocked in {path}")


@click.group(cls=Group)
def trap() -> None:
    """Traps: approaches already tried and rejected for a path or command (.baker/traps.jsonl).

    The matching ones are shown to the agent just before it touches that path or runs that
    command again (the pretool hook), at most five new ones per tool call.
    """


@trap.command("add")
@click.argument("pattern")
@click.argument("why")
@click.option(
    "--command",
    "is_command",
    is_flag=True,
    help="PATTERN is a glob over shell commands, not paths.",
)
@click.option(
    "--file",
    "files",
    multiple=True,
    metavar="PATH",
    help="A file the reason depends on; its content hash is kept (repeatable).",
)
@click.option("--session", metavar="ID", help="The session where this was learnt.")
@click.option(
    "--agent",
    metavar="NAME",
    help="Who learnt it (recorded in the trap's .baker/traps.jsonl entry).",
)
def trap_add(
    pattern: str,
    why: str,
    is_command: bool,
    files: tuple[str, ...],
    session: str | None,
    agent: str | None,
) -> None:
    """Record that an approach for PATTERN failed, and WHY."""
    from continuity_core import traps
    from continuity_core.store import Store

    t = traps.add(
        Path(Store.here().root),
        pattern,
        why,
        command=is_command,
        files=files,
        session=session,
        agent=agent,
    )
    cited = f"; watching {len(t.file_hashes)} file(s) for changes" if t.file_hashes else ""
    click.echo(f"trap {t.id} added for {t.kind} `{t.pattern}`{cited}")
    if t.kind == "command" and not is_command:
        click.echo(
            "  (taken as a command: words without a `/` that name no file here; "
            f"`--command` says so explicitly, `./{t.pattern}` keeps it a path)"
        )


def trap_entries(root: Path, items: Iterable[Trap]) -> list[dict[str, Any]]:
    """`baker trap list --json`, which the MCP `traps` tool returns too: each trap, with the
    files it cites that changed since."""
    from continuity_core import traps

    return [
        {**msgspec.to_builtins(t), "changed_files": traps.changed_files(root, t)} for t in items
    ]


@trap.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def trap_list(as_json: bool) -> None:
    """List traps, marking those whose cited files changed since as needing a re-check."""
    from continuity_core import traps
    from continuity_core.store import Store

    root = Path(Store.here().root)
    items = traps.load(root)
    if as_json:
        output.emit_json(trap_entries(root, items))
        return
    if not items:
        click.echo('no traps yet: `baker trap add PATTERN "why it failed"`')
    for t in items:
        click.echo(f"{t.id}  {traps.render(root, t).removeprefix('- ')}")


@trap.command("rm")
@click.argument("trap_id")
def trap_rm(trap_id: str) -> None:
    """Remove the trap TRAP_ID (a unique prefix is enough)."""
    from continuity_core import traps
    from continuity_core.store import Store

    t = traps.remove(Path(Store.here().root), trap_id)
    click.echo(f"removed trap {t.id} (`{t.pattern}`)")
