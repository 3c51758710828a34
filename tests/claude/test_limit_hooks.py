"""Claude's StopFailure hook fills the limit ledger, with the reset time its text names."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from continuity_core import limits
from tests.conftest import run_baker


def test_claude_stop_failure_text_reset() -> None:
    """Claude's StopFailure wording, read by core's `limits.reset_in_text`."""
    now = dt.datetime(2026, 1, 1, 3, 0, tzinfo=dt.UTC)
    assert (
        limits.reset_in_text("You've hit your 5-hour limit · resets 5:41am (UTC)", now)
        == "2026-01-01T05:41:00Z"
    )
    assert limits.reset_in_text("resets 2:10am (UTC)", now) == "2026-01-02T02:10:00Z"
    assert limits.reset_in_text("resets 5pm (Europe/Paris)", now) == "2026-01-01T16:00:00Z"
    assert limits.reset_in_text("Please try again later.", now) is None


def test_claude_stop_failure_payload_is_recorded_by_the_checkpoint_hook(
    tmp_path: Path, fixtures: Path
) -> None:
    """Outside any project too: a plain `claude` that hit its limit is known later."""
    payload = json.loads((fixtures / "claude" / "hook_payloads" / "StopFailure.json").read_text())
    payload["cwd"] = str(tmp_path)
    payload["last_assistant_message"] = "You've hit your 5-hour limit · resets 5:41am (UTC)"
    result = run_baker("checkpoint", "--agent", "claude", input=json.dumps(payload), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    (got,) = limits.read()
    assert (got.agent, got.source, got.kind) == ("claude", "hook", "usage_limit")
    assert got.until is not None and got.until.endswith("05:41:00Z")
    assert got.session_id == payload["session_id"]
    assert Path(got.dir) == Path.home() / ".claude"
