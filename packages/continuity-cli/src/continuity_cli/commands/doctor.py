"""`baker doctor`: is everything in place, and what to do where it is not."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from continuity_core.adapters import Finding


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
def doctor(as_json: bool) -> None:
    """Check adapters, hooks, transcripts per account, checkpoints, permissions and versions.

    Exits 1 when a check failed (an error), 0 when only warnings or nothing remain.
    """
    from continuity_cli import output
    from continuity_core import diagnose

    findings = [*diagnose.run(), mcp_finding()]
    if as_json:
        output.emit_json(findings)
    else:
        marks = {"ok": "ok  ", "info": "info", "warn": "WARN", "error": "FAIL"}
        for f in findings:
            click.echo(f"{marks[f.level]} {f.message}")
            if f.fix:
                click.echo(f"     → {f.fix}")
    output.exit_on_error(findings)


def mcp_finding() -> Finding:
    """Whether `baker mcp` can run: the SDK is an extra (docs/mcp.md). Not imported here."""
    import importlib.util

    from continuity_core.adapters import Finding

    if importlib.util.find_spec("mcp") is None:
        return Finding(
            level="info",
            message="MCP SDK not installed: `baker mcp` (agents' tools) is unavailable",
            fix="install continuity-cli[mcp] in baker's "
            "environment, if you register it with `init --mcp`",
        )
    return Finding(level="ok", message="MCP SDK installed: `baker mcp` can serve the agents")
