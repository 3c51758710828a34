"""`dev.py canary`: its help needs no network, and its fact check holds on the fixtures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def test_help_needs_neither_npm_nor_the_network() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "dev.py"), "canary", "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        env={"PATH": "/nonexistent"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "usage: dev.py canary" in proc.stdout and "--agent" in proc.stdout


@pytest.fixture
def canary(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    pytest.importorskip("continuity_claude")
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    import canary as module

    return module


def test_facts_of_the_captured_fixtures_are_all_found(canary: ModuleType) -> None:
    truth = {
        rel: gt
        for rel, gt in json.loads((FIXTURES / "ground_truth.json").read_text()).items()
        if gt.get("agent") == "claude"
        and rel.endswith(".jsonl")
        and "/projects/" in rel
        and "/subagents/" not in rel
    }
    found, total, missed, unknown = canary.facts("claude", FIXTURES, truth)
    assert missed == [] and found == total > 60
    assert unknown == {}


def test_the_report_names_what_is_new(canary: ModuleType) -> None:
    report = {
        "agent": "claude",
        "package": "@anthropic-ai/claude-code",
        "version": "9.9.9",
        "known_versions": ["2.1.197", "2.1.332"],
        "known": False,
        "capture": "1 transcript",
        "new_record_types": ["brand-new"],
        "new_attachment_types": [],
        "new_hook_events": [],
        "facts": {"found": 3, "total": 4, "missed": ["S1 todos"]},
        "unknown_records": {"brand-new": 2},
        "e2e": {"summary": "1 failed", "passed": False},
    }
    text = canary.render(report)
    assert "9.9.9 (NEW: the adapter knows 2.1.197, 2.1.332" in text
    assert "new record types: brand-new" in text and "facts: 3/4" in text
    assert "e2e: FAIL" in text
    assert not canary.healthy(report)


def test_each_agent_is_the_cli_the_e2e_tests_pin(canary: ModuleType) -> None:
    # an adapter of the workspace, its npm package the one tests/e2e/package.json pins
    import workspace  # scripts/workspace.py, on the path the fixture set

    pinned = json.loads((ROOT / "tests" / "e2e" / "package.json").read_text())["dependencies"]
    assert set(canary.PACKAGES) <= set(workspace.adapters(ROOT))
    assert set(canary.PACKAGES.values()) <= set(pinned)
    assert canary.PACKAGES["copilot"] == "@github/copilot"
