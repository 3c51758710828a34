"""`baker global sync`: the user-level pieces for every account of every agent."""

from __future__ import annotations

from typing import Any

import click

from continuity_cli.app import Group


@click.group(name="global", cls=Group)
def global_() -> None:
    """User-level set-up across every agent and account listed in ~/.baker/config.toml."""


@global_.command()
@click.option("--user-hooks", is_flag=True,
              help="Also install user-level hooks for Claude Code and Gemini CLI.")
@click.option("--chain", is_flag=True,
              help="Codex: keep an existing notify program by calling it after baker.")
@click.option("--trust", is_flag=True,
              help="Codex: mark the hooks baker installs as trusted (writes hooks.state).")
@click.option("--mcp", is_flag=True,
              help="Register `baker mcp` as a user-level MCP server (Codex: config.toml "
                   "[mcp_servers.baker]; Claude Code: .claude.json; Gemini CLI: settings.json).")
@click.option("--uninstall", is_flag=True, help="Remove what an earlier sync added.")
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
def sync(user_hooks: bool, chain: bool, trust: bool, mcp: bool, uninstall: bool, dry_run: bool,
         as_json: bool) -> None:
    """Install Codex notify and hooks (and, asked, other agents' user hooks) in every account.

    With --mcp, also registers `baker mcp` for every project in each account's user settings.
    Reports what changed, what was left alone and why. Codex reads notify and hooks only from
    the user's config.toml, so this is how Codex sessions get checkpoints. An account whose
    folder does not exist is skipped (run the agent once, or fix ~/.baker/config.toml).
    """
    from pathlib import Path

    from continuity_cli import output
    from continuity_core.adapters import Change, UserOptions, load_all
    from continuity_core.config import load_config

    config = load_config()
    adapters, errors = load_all()
    report: list[dict[str, Any]] = []  # the --json rows
    every: list[Change] = []  # for the exit status
    for name, err in errors.items():
        every.append(Change(path=name, action="failed", detail=err))
        report.append({"agent": name, "account": None, "changes": every[-1:]})
    for name, adapter in adapters.items():
        options = UserOptions(hooks=name == "codex" or user_hooks, chain=chain, trust=trust,
                              dry_run=dry_run, uninstall=uninstall, mcp=mcp)
        for account in adapter.accounts(config):
            if not Path(account.dir).is_dir():
                changes = [Change(path=account.dir, action="skipped",
                                  detail="no such folder: run the agent once with this account, "
                                         "or fix its `dir` in ~/.baker/config.toml")]
                every += changes
                report.append({"agent": name, "account": account.name, "changes": changes})
                continue
            try:
                changes = adapter.install_user(account, options)
            except Exception as e:
                changes = [Change(path=account.dir, action="failed", detail=str(e))]
            every += changes
            report.append({"agent": name, "account": account.name, "changes": changes})
    if as_json:
        output.emit_json(report)
    else:
        for entry in report:
            click.echo(f"{entry['agent']} ({entry['account'] or 'not loaded'}):")
            output.changes(entry["changes"], dry_run=dry_run)
    output.fail_if_any_failed(every)
