"""`baker doctor` for Codex CLI: notify, user-level hooks and their trust, CLI version.

Only reports; `baker global sync` makes the changes.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from continuity_codex import config as cfg
from continuity_codex import install, launch
from continuity_codex.adapter import KNOWN  # kept in the adapter, which the hooks import anyway
from continuity_core.adapters import Account, Finding, kit

SYNC = "baker global sync"


def cli_version() -> str | None:
    return kit.cli_version(launch.PROGRAM)


def doctor(project: Path, accounts: Sequence[Account]) -> list[Finding]:
    findings = [
        kit.version_finding(
            "Codex", cli_version(), KNOWN, program=launch.PROGRAM, fix="upgrade continuity-codex"
        )
    ]
    project_hooks = project / ".codex" / "hooks.json"
    for account in accounts:
        if os.path.isdir(account.dir):
            findings += _account_findings(account, project_hooks)
    if project_hooks.is_file() and not any("both" in f.message for f in findings):
        findings.append(
            Finding(
                level="info",
                message=(
                    f"{project_hooks}: Codex runs these only in a trusted project and once each "
                    "hook is trusted"
                ),
            )
        )
    return findings


def _account_findings(account: Account, project_hooks: Path) -> list[Finding]:
    import tomlkit
    from tomlkit.exceptions import ParseError

    path = Path(account.dir) / "config.toml"
    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        doc = tomlkit.document()
    except (OSError, ParseError) as e:
        return [Finding(level="error", message=f"{path}: {e}", fix="fix the file")]
    state, other = cfg.notify_state(doc)
    if state == "absent":
        notify = Finding(
            level="warn", message=f"{path}: no notify, so turns end unrecorded", fix=SYNC
        )
    elif state == "other":
        notify = Finding(
            level="warn", message=f"{path}: notify runs {other}, not baker", fix=f"{SYNC} --chain"
        )
    else:
        notify = Finding(level="ok", message=f"{path}: notify runs baker")
    out = [notify]
    source = install.trust_source(account)
    statuses = list(cfg.trust_status(doc, source))
    if cfg.trusted_elsewhere(doc, str(project_hooks)) and any(s == "trusted" for _, s in statuses):
        # Seen with codex-cli 0.171.0: both layers run; baker skips the second call.
        out.append(
            Finding(
                level="info",
                message=(
                    f"baker's hooks are trusted both in {path} (user level) and in {project_hooks} "
                    "(project); Codex calls each twice and baker deduplicates the calls, so each "
                    "event runs once"
                ),
                fix="to save the second process: baker uninstall in this "
                f"project, or remove the [hooks.state] entries for {project_hooks} from {path}",
            )
        )
    for hook, status in statuses:
        if status == "trusted":
            continue
        level: Literal["info", "warn"] = "info" if status == "missing" else "warn"
        fix = f"{SYNC} --trust" if status != "missing" else SYNC
        out.append(
            Finding(
                level=level,
                message=f"{path}: {hook.event} hook is {status}"
                + (" — Codex skips it silently" if status != "missing" else ""),
                fix=fix,
            )
        )
    return out
