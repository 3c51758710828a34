"""`baker doctor`: is everything in place, and what to do where it is not."""

from __future__ import annotations

import click


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
def doctor(as_json: bool) -> None:
    """Check adapters, hooks, transcripts per account, checkpoints, permissions and versions.

    Exits 1 when a check failed (an error), 0 when only warnings or nothing remain.
    """
    from continuity_cli import output
    from continuity_core import diagnose

    findings = diagnose.run()
    if as_json:
        output.emit_json(findings)
    else:
        marks = {"ok": "ok  ", "info": "info", "warn": "WARN", "error": "FAIL"}
        for f in findings:
            click.echo(f"{marks[f.level]} {f.message}")
            if f.fix:
                click.echo(f"     → {f.fix}")
    if any(f.level == "error" for f in findings):
        raise SystemExit(1)
