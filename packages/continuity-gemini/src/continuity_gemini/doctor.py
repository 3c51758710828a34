"""`baker doctor` for Gemini CLI: folder trust, session retention, hooks, CLI version.

Only reports; trusting a folder or changing retention is the user's decision.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from continuity_core.adapters import Account, Finding, kit
from continuity_gemini import install
from continuity_gemini.adapter import KNOWN  # kept in the adapter, which the hooks import anyway
from continuity_gemini.discovery import HOME_ENV

TRUST_ENV = "GEMINI_CLI_TRUST_WORKSPACE"
TRUST_PATH_ENV = "GEMINI_CLI_TRUSTED_FOLDERS_PATH"


def cli_version() -> str | None:
    return kit.cli_version("gemini", env={"GEMINI_CLI_NO_RELAUNCH": "true"})


_settings = kit.json_object


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def trust(project: Path, gemini_dir: Path) -> str:
    """ "trusted", "untrusted" (DO_NOT_TRUST) or "unknown" (the CLI will ask) for `project`."""
    if os.environ.get(TRUST_ENV, "").lower() == "true":
        return "trusted"
    if _get(_settings(gemini_dir / "settings.json"), "security", "folderTrust", "enabled") is False:
        return "trusted"
    rules = _settings(Path(os.environ.get(TRUST_PATH_ENV) or gemini_dir / "trustedFolders.json"))
    here = str(project.absolute())
    for rule, level in rules.items():
        if level == "DO_NOT_TRUST" and os.path.normpath(rule) == here:
            return "untrusted"
    for rule, level in rules.items():
        base = os.path.normpath(rule)
        if level == "TRUST_PARENT":
            base = os.path.dirname(base)
        if level in ("TRUST_FOLDER", "TRUST_PARENT") and (
            here == base or here.startswith(base.rstrip("/") + "/")
        ):
            return "trusted"
    return "unknown"


def doctor(project: Path, accounts: Sequence[Account]) -> list[Finding]:
    project_settings = _settings(project / ".gemini" / "settings.json")
    homes = [Path(a.dir) for a in accounts if Path(a.dir).is_dir()]
    out = _hooks(project_settings, homes)
    for home in homes:
        out += _home(project, home)
    if not homes:
        out.append(
            Finding(
                level="info",
                message=f"gemini: no Gemini CLI home found (~/.gemini or ${HOME_ENV}/.gemini)",
            )
        )
    out.append(
        kit.version_finding(
            "Gemini CLI",
            cli_version(),
            KNOWN,
            program="gemini",
            fix="upgrade continuity-gemini, or report what breaks",
        )
    )
    return out


def _hooks(project_settings: dict[str, Any], homes: list[Path]) -> list[Finding]:
    """Where the hooks are installed (the project's settings, the user's, both), and whether
    the project turns them off."""
    user_hooks = any(install.has_hooks(_settings(h / "settings.json")) for h in homes)
    if install.has_hooks(project_settings) and user_hooks:
        found = Finding(
            level="ok",
            message="gemini: hooks installed in "
            ".gemini/settings.json and at user level; Gemini CLI calls each "
            "twice and baker deduplicates the calls, so each event runs once",
        )
    elif install.has_hooks(project_settings):
        found = Finding(level="ok", message="gemini: hooks installed in .gemini/settings.json")
    elif user_hooks:
        found = Finding(level="ok", message="gemini: hooks installed at user level")
    else:
        # Without a Gemini home the user does not use Gemini here: say so, don't warn.
        found = Finding(
            level="warn" if homes else "info",
            message="gemini: no Continuity hooks configured",
            fix="run `baker sync --agent gemini`",
        )
    out = [found]
    if _get(project_settings, "hooksConfig", "enabled") is False:
        out.append(
            Finding(
                level="warn",
                message="gemini: hooksConfig.enabled is false in "
                ".gemini/settings.json, so no hook runs",
                fix="remove that setting",
            )
        )
    return out


def _home(project: Path, home: Path) -> list[Finding]:
    """One Gemini CLI home: whether it trusts the project, and whether it deletes sessions."""
    out: list[Finding] = []
    level = trust(project, home)
    if level == "untrusted":
        out.append(
            Finding(
                level="warn",
                message=f"gemini: {project} is marked DO_NOT_TRUST in "
                f"{home}: Gemini CLI ignores its project hooks",
                fix="trust the folder in Gemini CLI (/permissions) if you mean to",
            )
        )
    elif level == "unknown":
        out.append(
            Finding(
                level="warn",
                message=f"gemini: {project} is not a trusted folder "
                f"for {home}: project hooks do not run until you trust it",
                fix="start `gemini` here and accept the trust prompt, or add it to "
                f"{os.environ.get(TRUST_PATH_ENV) or home / 'trustedFolders.json'} "
                "yourself",
            )
        )
    settings = _settings(home / "settings.json")
    if _get(settings, "general", "sessionRetention", "enabled") is not False:
        # on by default: sessions older than `maxAge` (30 days) go at every start-up
        age = _get(settings, "general", "sessionRetention", "maxAge")
        age = age if isinstance(age, str) and age else "30d"
        out.append(
            Finding(
                level="warn",
                message=f"gemini: session retention is on for {home}: "
                f"the CLI deletes sessions older than {age} at start-up, a "
                "resumed one included",
                fix="keep them in the archive with `baker recall --index` (it "
                'keeps what it indexed), or set "general": {"sessionRetention":'
                f' {{"enabled": false}}}} in {home / "settings.json"}',
            )
        )
    return out
