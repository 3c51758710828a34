"""`baker handoff` without click in its everyday form (`baker handoff [--from AGENT]
[--account NAME] [--session ID]`): an agent or a person runs it at every switch, and importing
click alone costs more than a bare interpreter start (docs/decisions.md, "Hook start-up
budget"). Every other form (`--json`, `--copy`, `-o`, `--budget`, `--machine`, `--help`, a
typo) goes through click (`continuity_cli.commands.handoff`), which shares `make_brief` and
`limit_note` with this path, so both print the same text and the same errors."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from continuity_core.handoff import Handoff

PLAIN_OPTIONS = {"--from": "agent", "--account": "account", "--session": "session_id"}


def plain_args(args: list[str]) -> dict[str, str] | None:
    """The options of a plain `handoff` call, or None when click must parse it (any other
    option, one given twice, a missing value: click says what is wrong)."""
    found: dict[str, str] = {}
    it = iter(args)
    for arg in it:
        name, eq, value = arg.partition("=")
        key = PLAIN_OPTIONS.get(name)
        if key is None or key in found:
            return None
        if not eq:
            nxt = next(it, None)
            if nxt is None or nxt.startswith("-"):
                return None
            value = nxt
        found[key] = value
    return found


def make_brief(
    agent: str | None = None,
    account: str | None = None,
    session_id: str | None = None,
    budget: int | None = None,
) -> tuple[Handoff, str]:
    """The handoff of the project here and its rendered text."""
    from continuity_core import brief as brief_mod
    from continuity_core import handoff as handoff_mod

    root = handoff_mod.project_top()
    result = handoff_mod.make(
        root, agent=agent, account=account, session_id=session_id, budget_tokens=budget
    )
    return result, brief_mod.render(result.brief)


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


def _echo(text: str, *, err: bool = False) -> None:
    """As click.echo writes text: ANSI escapes dropped when the stream is not a terminal."""
    out = sys.stderr if err else sys.stdout
    if "\x1b" in text and not out.isatty():
        import re

        text = re.sub(r"\033\[[0-?]*[ -/]*[@-~]", "", text)  # click's _ansi_re
    out.write(text)
    out.flush()


def run(options: dict[str, str]) -> int:
    """Print the brief as `baker handoff` does; a domain error as click shows it, exit 1."""
    from continuity_core.errors import BakerError

    try:
        result, text = make_brief(
            options.get("agent"), options.get("account"), options.get("session_id")
        )
    except BakerError as e:
        _echo(f"Error: {e}\n", err=True)
        return 1
    except OSError as e:
        if e.filename is None:
            raise
        from continuity_cli.app import os_error_line  # only on this error: it imports click

        _echo(f"Error: {os_error_line(e)}\n", err=True)
        return 1
    try:
        for err in result.errors:
            _echo(f"warning: {err}\n", err=True)
        _echo(text)
        note = limit_note(result)
        if note:
            _echo(note + "\n", err=True)
    except BrokenPipeError:  # as click: a closed pipe is not a traceback
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return 0
