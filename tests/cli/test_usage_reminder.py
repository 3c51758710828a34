"""The checkpoint hook leaves a usage reminder past a level; status shows it; below, it goes."""

from __future__ import annotations

import json
from pathlib import Path

from continuity_core import checkpoint
from continuity_core.schemas.session import Session, Usage
from continuity_core.store import Store
from tests.conftest import run_baker


def test_reminder_appears_past_a_level_and_goes_below(repo: Path) -> None:
    run_baker("init", cwd=repo)
    store = Store(repo)
    high = Session(
        agent="claude", session_id="s", usage=Usage(context_tokens=160_000, context_window=200_000)
    )
    checkpoint.remind(store, high)
    marker = json.loads((repo / ".baker" / "reminder.json").read_text())
    assert marker["level"] == "rotate" and "new session" in marker["action"]
    status = json.loads(run_baker("status", "--json", cwd=repo).stdout)
    assert status["usage_reminder"]["level"] == "rotate"
    assert "context usage: rotate" in run_baker("status", cwd=repo).stdout
    low = Session(
        agent="claude", session_id="s", usage=Usage(context_tokens=10_000, context_window=200_000)
    )
    checkpoint.remind(store, low)
    assert not (repo / ".baker" / "reminder.json").exists()
    assert json.loads(run_baker("status", "--json", cwd=repo).stdout)["usage_reminder"] is None
