"""Gemini CLI's retention ability: `general.sessionRetention` in the account's settings.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_core.adapters import Account
from continuity_gemini.adapter import GeminiAdapter


def _days(home: Path, policy: object) -> float | None:
    (home / "settings.json").write_text(json.dumps({"general": {"sessionRetention": policy}}))
    retention = GeminiAdapter().retention
    assert retention is not None
    days, _ = retention.retention_days(Account(agent="gemini", name=str(home), dir=str(home)))
    return days


@pytest.mark.parametrize(
    ("policy", "days"),
    [
        ({"enabled": False}, None),
        ({}, 30),
        ({"maxAge": "2w"}, 14),
        ({"maxAge": "12h"}, 0.5),
        ({"maxAge": "1m"}, 30),
        ({"maxAge": "nonsense"}, 30),
    ],
)
def test_session_retention(tmp_path: Path, policy: object, days: float | None) -> None:
    assert _days(tmp_path, policy) == days
