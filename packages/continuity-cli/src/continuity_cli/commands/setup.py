"""Set-up commands: init, sync, uninstall, adapters."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from continuity_cli import output

if TYPE_CHECKING:
    from continuity_core.adapters import Adapter, Change


@click.command()
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option(
    "--local",
    is_flag=True,
    help="Write agent hooks to personal settings files (e.g. .claude/settings.local.json).",
)
@click.option(
    "--agent",
    "agents",
    multiple=True,
    metavar="NAME",
    help="Only set up these agents (default: every installed adapter).",
)
@click.option(
    "--pre-commit",
    "pre_commit",
    is_flag=True,
    help="Also install a git pre-commit hook that blocks a commit holding a secret "
    "or adding .baker/ or memory/hot.md (an existing hook is kept and run first).",
)
@click.option(
    "--mcp",
    is_flag=True,
    help="Also register `baker mcp` as an MCP server for this project, in each installed "
    "agent's project file; an agent that reads MCP servers only from the user's files is "
    "told to use `global sync --mcp` (which file each agent reads: docs/mcp.md).",
)
def init(dry_run: bool, local: bool, agents: tuple[str, ...], pre_commit: bool, mcp: bool) -> None:
    """Make this repository a Continuity project.

    Creates `.baker/` (private, gitignored), the note `memory/hot.md`, a marked block in
    AGENTS.md telling every agent to keep the note current, and each installed agent's hooks.
    Hooks, project-level or user-level (`baker global sync`), act only in a repository set up
    this way: elsewhere they write nothing. Safe to run again: it changes only what is
    missing. Exits 1 when a file could not be changed (each such line says why); everything
    else is still set up.
    """
    from continuity_core import project
    from continuity_core.store import project_root_for_init, worktree_root

    root = project_root_for_init()
    project.refuse(root)
    _known_agents(agents)
    if worktree_root(root) is None:
        click.echo(
            f"warning: {root} is not in a git repository: briefs will carry no repo "
            "state (branch, commits, uncommitted files); `git init` first if it should",
            err=True,
        )
    changes = project.init(root, dry_run=dry_run)
    changes += _sync(root, local=local, dry_run=dry_run, only=agents, mcp=mcp)
    if pre_commit:
        from continuity_core import precommit

        changes += precommit.install(root, dry_run=dry_run)
        if shutil.which("baker") is None:  # the hook runs `baker` from PATH
            baker = precommit.installer()
            where = f"it falls back to {baker} while that exists" if baker else "it cannot run"
            click.echo(
                f"warning: `baker` is not on PATH, so the pre-commit hook {where}; add baker's "
                "folder to PATH (or install it with pipx) so every commit is checked",
                err=True,
            )
    if not dry_run:
        project.record_own(root, changes)
    click.echo(f"{'Would set up' if dry_run else 'Set up'} Continuity in {root}")
    output.changes(changes, dry_run=dry_run)
    output.fail_if_any_failed(changes)


def _known_agents(only: tuple[str, ...]) -> None:
    """`--agent claud` once set up nothing for it, silently: refused before anything is
    written, as `adapters.load` refuses it (the nearest installed name, or how to install it)."""
    from continuity_core.adapters import load, load_all

    adapters, errors = load_all()
    for name in only:
        if name not in adapters and name not in errors:
            load(name)


def _sync(
    root: Path, *, local: bool, dry_run: bool, only: tuple[str, ...], mcp: bool = False
) -> list[Change]:
    from continuity_core import skill
    from continuity_core.adapters import Change, load_all

    adapters, errors = load_all()
    changes: list[Change] = []
    for name, err in errors.items():
        if not only or name in only:
            changes.append(Change(path=name, action="failed", detail=err))
    chosen = {n: a for n, a in adapters.items() if not only or n in only}
    for name, adapter in chosen.items():
        try:
            changes += adapter.install(root, local=local, dry_run=dry_run)
            if mcp:
                changes += adapter.install_mcp(root, dry_run=dry_run)
        except Exception as e:  # one agent's failure must not stop the others
            changes.append(Change(path=name, action="failed", detail=str(e)))
    changes += skill.install(root, _skill_dirs(chosen.values()), dry_run=dry_run)
    return changes


def _skill_dirs(adapters: Iterable[Adapter]) -> list[str]:
    """The project folders the agents load skills from, each once."""
    return list(dict.fromkeys(d for a in adapters for d in a.skill_dirs))


@click.command()
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--local", is_flag=True, help="Use personal settings files where the agent has them.")
@click.option("--agent", "agents", multiple=True, metavar="NAME", help="Only these agents.")
@click.option("--mcp", is_flag=True, help="Also register `baker mcp` (as `init --mcp` does).")
def sync(dry_run: bool, local: bool, agents: tuple[str, ...], mcp: bool) -> None:
    """Re-install each agent's project hooks (after installing a new adapter, say)."""
    from continuity_core import project
    from continuity_core.store import Store

    root = Path(Store.here().root)
    _known_agents(agents)
    changes = _sync(root, local=local, dry_run=dry_run, only=agents, mcp=mcp)
    if not dry_run:
        project.record_own(root, changes)
    output.changes(changes, dry_run=dry_run)
    output.fail_if_any_failed(changes)


@click.command()
@click.option("--dry-run", is_flag=True, help="Show what would be removed; remove nothing.")
def uninstall(dry_run: bool) -> None:
    """Remove exactly what `baker init` added to this project's and agents' files.

    That includes the `baker mcp` registration of `init --mcp`; other MCP servers stay.

    `.baker/` and `memory/hot.md` hold your data and are left in place; delete them yourself
    if you want them gone.
    """
    from continuity_core import precommit, project, skill
    from continuity_core.adapters import Change, load_all
    from continuity_core.store import Store

    root = Path(Store.here().root)
    changes = project.uninstall(root, dry_run=dry_run)
    changes += precommit.uninstall(root, dry_run=dry_run)
    adapters, _ = load_all()
    changes += skill.uninstall(root, _skill_dirs(adapters.values()), dry_run=dry_run)
    for name, adapter in adapters.items():
        try:
            changes += adapter.uninstall(root, dry_run=dry_run)
        except Exception as e:
            changes.append(Change(path=name, action="failed", detail=str(e)))
    # A file baker never wrote, or that is not there at all, is not worth a line.
    changes = [c for c in changes if c.action != "unchanged" or os.path.lexists(root / c.path)]
    output.changes(changes, dry_run=dry_run)
    output.fail_if_any_failed(changes)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def adapters(as_json: bool) -> None:
    """List the installed agent adapters, their versions, and any that fail to load."""
    from continuity_core.adapters import load_all, registered

    _, errors = load_all()
    rows = [
        {
            "name": r.name,
            "distribution": r.dist,
            "version": r.version,
            "error": r.error or errors.get(r.name),
        }
        for r in registered().values()
    ]
    output.listing(
        rows,
        as_json=as_json,
        empty=('No adapters installed. Install one: pip install "continuity-cli[claude]"'),
        line=lambda row: (
            f"{row['name']:<8} {row['distribution']} {row['version']}  "
            f"{'error: ' + str(row['error']) if row['error'] else 'ok'}"
        ),
    )
