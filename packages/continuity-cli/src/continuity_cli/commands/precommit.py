"""`baker precommit`: the check the git pre-commit hook runs (`baker init --pre-commit`)."""

from __future__ import annotations

import click


@click.command(hidden=True)
@click.option("--json", "as_json", is_flag=True, help="Print the problems as JSON.")
def precommit(as_json: bool) -> None:
    """Check the staged changes before a commit (run by the git pre-commit hook).

    Exits 1, naming each file and line and the kind of secret (never the secret itself), when
    the staged changes hold a secret or add anything under .baker/ or memory/hot.md; exits 0
    otherwise. Installed by `baker init --pre-commit`; skip it once with
    `git commit --no-verify`.
    """
    from pathlib import Path

    from continuity_cli import output
    from continuity_core import precommit as guard
    from continuity_core.git import GitError

    try:
        problems = guard.check(Path.cwd())
    except GitError as e:
        raise click.ClickException(f"cannot read the staged changes: {e}") from None
    if as_json:
        output.emit_json(problems)
    elif problems:
        click.echo(guard.report(problems), err=True)
    if problems:
        raise SystemExit(1)
