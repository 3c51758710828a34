"""`baker doctor` checks for Claude Code: hooks, CLI version, transcript retention."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from continuity_claude.adapter import KNOWN  # kept in the adapter, which the hooks import anyway
from continuity_claude.install import HOOKS, LOCAL_SETTINGS, SETTINGS, is_ours
from continuity_claude.retention import DEFAULT_DAYS as DEFAULT_RETENTION_DAYS
from continuity_core.adapters import Account, Finding, kit


def cli_version() -> str | None:
    """`claude --version` without its suffix ("2.1.197"), or None when it is not on PATH."""
    return kit.cli_version("claude")


def _our_events(path: Path) -> set[str]:
    return kit.hook_events(kit.json_object(path), is_ours)


def doctor(project: Path, accounts: Sequence[Account]) -> list[Finding]:
    version = cli_version()
    findings: list[Finding] = []
    project_events = _our_events(project / SETTINGS) | _our_events(project / LOCAL_SETTINGS)
    user_events: set[str] = set()
    for acc in accounts:
        user_events |= _our_events(Path(acc.dir) / "settings.json")
    missing = [e for e in HOOKS if e not in project_events | user_events]
    where = " and ".join(
        name
        for name, events in (("the project", project_events), ("user level", user_events))
        if events
    )
    if not missing:
        findings.append(
            Finding(level="ok", message=f"Claude Code hooks are installed, run from {where}")
        )
    else:
        findings.append(
            Finding(
                level="warn",
                message=f"Claude Code hooks missing for: {', '.join(missing)}",
                fix="run `baker sync` in this project (or `baker global sync --user-hooks`)",
            )
        )
    if project_events and user_events:
        findings.append(
            Finding(
                level="info",
                message="Claude Code calls each hook twice (project and user level); "
                "baker deduplicates the calls, so each event runs once",
                fix="to save the second "
                "process, remove one level (`baker global sync --uninstall` or `baker uninstall`)",
            )
        )
    findings.append(
        kit.version_finding(
            "Claude Code",
            version,
            KNOWN,
            program="claude",
            fix="upgrade continuity-claude; until then check that `baker handoff` shows the latest "
            "request, todos and files, and look for `unknown_records` in "
            ".baker/checkpoints/*.json",
        )
    )
    findings.append(_retention(project, accounts))
    return findings


def _retention(project: Path, accounts: Sequence[Account]) -> Finding:
    """Claude Code deletes transcripts older than `cleanupPeriodDays` (30 unless set)."""
    sources = [project / LOCAL_SETTINGS, project / SETTINGS] + [
        Path(a.dir) / "settings.json" for a in accounts
    ]
    for path in sources:
        days = kit.json_object(path).get("cleanupPeriodDays")
        if isinstance(days, int) and not isinstance(days, bool):
            short = days < 7
            return Finding(
                level="warn" if short else "info",
                message=f"Claude Code keeps transcripts {days} days (cleanupPeriodDays in {path})",
                fix="raise cleanupPeriodDays so old sessions can still be handed off"
                if short
                else "",
            )
    where = str(Path(accounts[0].dir) / "settings.json") if accounts else "settings.json"
    return Finding(
        level="info",
        message=f"Claude Code deletes transcripts older than {DEFAULT_RETENTION_DAYS} days",
        fix=f"set cleanupPeriodDays in {where} to keep them longer",
    )
