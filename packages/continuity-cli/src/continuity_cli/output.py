"""Rendering helpers shared by commands: JSON for machines, short lines for people."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import click
import msgspec

_T = TypeVar("_T")


def emit_json(value: Any) -> None:
    sys.stdout.buffer.write(msgspec.json.format(msgspec.json.encode(value), indent=2) + b"\n")
    sys.stdout.flush()


def warn(lines: Iterable[str | None]) -> None:
    """`warning: LINE` on stderr for each line that is not empty."""
    for line in lines:
        if line:
            click.echo(f"warning: {line}", err=True)


def fail_if_any_failed(items: list[Any]) -> None:
    """Exit 1 after the report when a change failed: the rest was done, but not all of it."""
    failed = sum(1 for c in items if c.action == "failed")
    if failed:
        click.echo(f"{failed} change(s) failed: see the lines above.", err=True)
        raise SystemExit(1)


def exit_on_error(findings: Iterable[Any]) -> None:
    """The one rule of the check commands (`doctor`, `audit`): exit 1 when a check failed."""
    if any(f.level == "error" for f in findings):
        raise SystemExit(1)


# When two steps touched one file, the line shows the one that says most about where it ended.
_WEIGHT = {"failed": 5, "removed": 4, "created": 3, "updated": 2, "skipped": 1, "unchanged": 0}


def fold(items: list[Any]) -> list[Any]:
    """One change per path, in first-seen order: a file two steps touched (an agent's hooks,
    then its MCP entry) shows the final action (a failure first), their details joined."""
    order: dict[str, Any] = {}
    for c in items:
        seen = order.get(c.path)
        if seen is None:
            order[c.path] = c
            continue
        action = max(c.action, seen.action, key=lambda a: _WEIGHT.get(a, 0))  # a tie: the later
        detail = "; ".join(dict.fromkeys(d for d in (seen.detail, c.detail) if d))
        order[c.path] = msgspec.structs.replace(seen, action=action, detail=detail)
    return list(order.values())


def changes(items: list[Any], *, dry_run: bool = False) -> None:
    """One line per file: what was (or would be) created, updated, removed or left alone."""
    verb = "would be " if dry_run else ""
    for c in fold(items):
        detail = f" — {c.detail}" if c.detail else ""
        action = c.action if c.action in ("unchanged", "skipped", "failed") else verb + c.action
        click.echo(f"  {action:<16} {c.path}{detail}")


def listing(items: Sequence[_T], *, as_json: bool, empty: str, line: Callable[[_T], str]) -> None:
    """A list as JSON, or one line an item (`empty` alone when there is none)."""
    if as_json:
        emit_json(items)
        return
    if not items:
        click.echo(empty)
    for item in items:
        click.echo(line(item))


def indented(label: str, items: Iterable[object]) -> None:
    """`  label: item`, a line an item: the details under a result's first line."""
    for item in items:
        click.echo(f"  {label}: {item}")
