"""`baker doctor` for OpenCode: the plugin in the project and the user's config, the
databases each account has, the CLI's version. Only reports; `baker sync` makes changes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from continuity_core.adapters import Account, Finding, kit
from continuity_opencode import discovery, install, launch, models
from continuity_opencode.adapter import KNOWN


def cli_version() -> str | None:
    return kit.cli_version(launch.PROGRAM)


def doctor(project: Path, accounts: Sequence[Account]) -> list[Finding]:
    findings = [
        kit.version_finding(
            "OpenCode",
            cli_version(),
            KNOWN,
            program=launch.PROGRAM,
            fix="upgrade continuity-opencode",
        )
    ]
    places = [(project / ".opencode", "the project")]
    places += [(Path(d), str(d)) for d in models.config_dirs()]
    installed = False
    for folder, where in places:
        state = install.plugin_state(folder)
        path = folder / install.PLUGIN_DIR / install.PLUGIN_NAME
        if state == "current":
            installed = True
            findings.append(Finding(level="ok", message=f"baker's OpenCode plugin: {path}"))
        elif state == "stale":
            installed = True
            findings.append(
                Finding(
                    level="warn",
                    message=f"{path} is an older baker's OpenCode plugin",
                    fix="baker sync" if where == "the project" else "baker global sync",
                )
            )
        elif state == "foreign":
            findings.append(
                Finding(
                    level="warn",
                    message=f"{path} is not baker's plugin: baker leaves it alone",
                    fix="rename it, then run `baker sync`",
                )
            )
    if not installed:
        findings.append(
            Finding(
                level="warn",
                message=(
                    "baker's OpenCode plugin is not installed: no checkpoint after OpenCode turns"
                ),
                fix="baker sync (this project) or baker global sync (every project)",
            )
        )
    for account in accounts:
        dbs = discovery.account_databases(account)
        if dbs:
            findings.append(
                Finding(level="info", message=f"OpenCode account {account.name}: {', '.join(dbs)}")
            )
    return findings
