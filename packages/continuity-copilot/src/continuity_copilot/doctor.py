"""`baker doctor` for Copilot CLI: user-level hooks, the repository's hooks and their folder
trust, `disableAllHooks`, the CLI's version. Only reports; `baker global sync` / `baker sync`
make the changes."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from continuity_copilot import discovery, install, launch
from continuity_copilot.adapter import KNOWN
from continuity_core.adapters import Account, Finding, kit


def cli_version() -> str | None:
    return kit.cli_version(launch.PROGRAM)


def doctor(project: Path, accounts: Sequence[Account]) -> list[Finding]:
    findings = [
        kit.version_finding(
            "Copilot CLI",
            cli_version(),
            KNOWN,
            program=launch.PROGRAM,
            fix="upgrade continuity-copilot",
        )
    ]
    repo_hooks = project / install.PROJECT_HOOKS
    repo_have = install.hook_state(repo_hooks)[0] if repo_hooks.is_file() else []
    for account in accounts:
        if os.path.isdir(account.dir):
            findings += _account(account, project, repo_have)
    return findings


def trusted(project: Path, home: Path) -> bool:
    """Whether `project` is one of the account's trusted folders (or inside one)."""
    folders = kit.json_object(home / "config.json").get("trustedFolders")
    if not isinstance(folders, list):
        return False
    tops = [os.path.realpath(os.path.expanduser(f)) for f in folders if isinstance(f, str) and f]
    return discovery.within(os.path.realpath(project), tops)


def _account(account: Account, project: Path, repo_have: list[str]) -> list[Finding]:
    home = Path(account.dir)
    settings = home / install.SETTINGS
    out: list[Finding] = []
    if kit.json_object(settings).get("disableAllHooks") is True:
        out.append(
            Finding(
                level="warn",
                message=(
                    f"{settings}: disableAllHooks is true, so Copilot runs none of baker's hooks"
                ),
                fix=f"remove disableAllHooks from {settings}",
            )
        )
    have, missing = install.hook_state(settings)
    if have and not missing:
        out.append(Finding(level="ok", message=f"{settings}: baker's hooks are installed"))
    elif have:
        out.append(
            Finding(
                level="warn",
                message=f"{settings}: baker's {', '.join(missing)} hook(s) are missing",
                fix="baker global sync",
            )
        )
    elif not repo_have:
        out.append(
            Finding(
                level="warn",
                message=f"{settings}: no baker hooks, so Copilot sessions end unrecorded",
                fix="baker global sync",
            )
        )
    if repo_have:
        if trusted(project, home):
            out.append(
                Finding(
                    level="ok",
                    message=f"{install.PROJECT_HOOKS}: this folder is trusted in {home}, so "
                    "Copilot loads the repository's hooks",
                )
            )
        else:
            out.append(
                Finding(
                    level="info" if have else "warn",
                    message=(
                        f"{install.PROJECT_HOOKS}: Copilot loads a repository's hooks only in a "
                        f"trusted folder, and {project} is not in trustedFolders of "
                        f"{home / 'config.json'}"
                        + ("; the user-level hooks cover it" if have else "")
                    ),
                    fix="trust the folder when Copilot asks, or run `baker global sync`",
                )
            )
    return out
