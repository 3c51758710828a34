"""Rendering helpers shared by commands: JSON for machines, short lines for people."""

from __future__ import annotations

import sys
from typing import Any

import click
import msgspec


def emit_json(value: Any) -> None:
    sys.stdout.buffer.write(msgspec.json.format(msgspec.json.encode(value), indent=2) + b"\n")
    sys.stdout.flush()


def fail_if_any_failed(items: list[Any]) -> None:
    """Exit 1 after the report when a change failed: the rest was done, but not all of it."""
    failed = sum(1 for c in items if c.action == "failed")
    if failed:
        click.echo(f"{failed} change(s) failed: see the lines above.", err=True)
        raise SystemExit(1)


def changes(items: list[Any], *, dry_run: bool = False) -> None:
    """One line per file: what was (or would be) created, updated, removed or left alone."""
    verb = "would be " if dry_run else ""
    for c in items:
        detail = f" — {c.detail}" if c.detail else ""
        action = c.action if c.action in ("unchanged", "skipped", "failed") else verb + c.action
        click.echo(f"  {action:<16} {c.path}{detail}")
