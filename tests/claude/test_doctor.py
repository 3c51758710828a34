"""`baker doctor` findings for Claude Code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_claude import ClaudeAdapter
from continuity_core.adapters import Account, Finding, UserOptions


@pytest.fixture
def quiet_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("continuity_claude.doctor.cli_version", lambda: "2.1.197")


def levels(findings: list[Finding]) -> list[tuple[str, str]]:
    return [(f.level, f.message) for f in findings]


@pytest.mark.usefixtures("quiet_cli")
def test_missing_then_installed_hooks(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    acc = Account(agent="claude", name="a", dir=str(tmp_path / "cfg"))
    first = adapter.doctor(tmp_path, [acc])
    assert first[0].level == "warn" and "Stop" in first[0].message and "baker sync" in first[0].fix
    adapter.install(tmp_path)
    assert levels(adapter.doctor(tmp_path, [acc]))[:2] == [
        ("ok", "Claude Code hooks are installed, run from the project"),
        ("ok", "Claude Code 2.1.197"),
    ]
    adapter.install_user(acc, UserOptions())
    both = levels(adapter.doctor(tmp_path, [acc]))
    assert both[0] == ("ok", "Claude Code hooks are installed, run from the project and user level")
    assert (
        "info",
        "Claude Code calls each hook twice (project and user level); baker "
        "deduplicates the calls, so each event runs once",
    ) in both
    adapter.uninstall(tmp_path)
    assert levels(adapter.doctor(tmp_path, [acc]))[0] == (
        "ok",
        "Claude Code hooks are installed, run from user level",
    )


@pytest.mark.parametrize(
    ("version", "level", "word"),
    [("2.2.0", "warn", "newer"), ("2.1.100", "info", "older"), (None, "info", "not on PATH")],
)
def test_cli_version_against_known_formats(
    adapter: ClaudeAdapter,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    version: str | None,
    level: str,
    word: str,
) -> None:
    monkeypatch.setattr("continuity_claude.doctor.cli_version", lambda: version)
    found = [
        f
        for f in adapter.doctor(tmp_path, [])
        if "Claude Code 2" in f.message or "PATH" in f.message
    ]
    assert [(f.level, word in f.message) for f in found] == [(level, True)]


@pytest.mark.usefixtures("quiet_cli")
def test_retention(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    acc = Account(agent="claude", name="a", dir=str(cfg))
    assert "30 days" in adapter.doctor(tmp_path, [acc])[-1].message
    cfg.mkdir()
    (cfg / "settings.json").write_text(json.dumps({"cleanupPeriodDays": 3}))
    last = adapter.doctor(tmp_path, [acc])[-1]
    assert (last.level, "3 days" in last.message) == ("warn", True)
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text(json.dumps({"cleanupPeriodDays": 365}))
    assert adapter.doctor(tmp_path, [acc])[-1].level == "info"
