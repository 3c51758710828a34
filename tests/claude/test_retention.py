"""Claude Code's retention ability: `cleanupPeriodDays` in the account's settings.json."""

from __future__ import annotations

import json
from pathlib import Path

from continuity_claude.adapter import ClaudeAdapter
from continuity_core.adapters import Account


def _days(home: Path) -> float | None:
    policy = ClaudeAdapter().retention
    assert policy is not None
    days, where = policy.retention_days(Account(agent="claude", name="~/.claude", dir=str(home)))
    assert where == str(home / "settings.json")
    return days


def test_cleanup_period_days_is_read(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text(json.dumps({"cleanupPeriodDays": 10}))
    assert _days(tmp_path) == 10


def test_default_is_thirty_days(tmp_path: Path) -> None:
    assert _days(tmp_path) == 30
    (tmp_path / "settings.json").write_text(json.dumps({"cleanupPeriodDays": "soon"}))
    assert _days(tmp_path) == 30
