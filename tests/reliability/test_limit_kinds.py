"""A rate limit is not a usage limit (issue 30, point 3).

After Claude Code's 429 "try again later" (a captured transcript and its StopFailure hook),
the brief's header and the stderr advice said "usage limit" and advised switching account;
the ledger kept no kind; and a reset written "in 3 hours" was not read, so rotation tried the
account again two hours early.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from continuity_core import limits
from tests.cli.flows import claude_session, payload
from tests.conftest import run_baker

pytest.importorskip("continuity_claude")

RATE = "-home-dev-src-invoice-parser/edca8fb0-fe15-4e8b-a3b4-ae472cc4581f.jsonl"
PROJECT = "/home/dev/src/invoice-parser"


def test_a_rate_limit_is_called_one_everywhere(repo: Path, isolated_home: Path) -> None:
    assert run_baker("init", cwd=repo).returncode == 0
    claude_session(isolated_home, repo, rel=RATE, project=PROJECT)
    shown = run_baker("handoff", cwd=repo)
    assert shown.returncode == 0, shown.stderr
    assert "ended on a rate limit" in shown.stdout
    assert "usage limit" not in shown.stdout.split("\n## ")[0]
    assert "rate limit" in shown.stderr and "usage limit" not in shown.stderr
    assert "--account" not in shown.stderr  # another account does not help a rate limit
    as_json = json.loads(run_baker("handoff", "--json", cwd=repo).stdout)
    assert as_json["limit"]["kind"] == "rate_limit"
    rows = run_baker("sessions", cwd=repo).stdout
    assert "rate limit" in rows
    data = json.loads(run_baker("sessions", "--json", cwd=repo).stdout)
    assert data["sessions"][0]["limit_kind"] == "rate_limit"

    hook = payload("claude", "StopFailure.json", isolated_home, repo)
    assert run_baker("checkpoint", "--agent", "claude", cwd=repo, input=hook).returncode == 0
    (recorded,) = limits.read()
    assert recorded.kind == "rate_limit"
    listed = json.loads(run_baker("limits", "--json", cwd=repo).stdout)
    assert listed[0]["kind"] == "rate_limit"


@pytest.mark.parametrize(
    ("said", "hours"),
    [
        ("Rate limited. Please try again in 3 hours.", 3.0),
        ("You've hit your limit, try again in 2h 30m", 2.5),
        ("usage limit reached, try again in 45 minutes", 0.75),
    ],
)
def test_a_reset_written_as_a_span_is_read(
    repo: Path, isolated_home: Path, said: str, hours: float
) -> None:
    assert run_baker("init", cwd=repo).returncode == 0
    claude_session(isolated_home, repo, rel=RATE, project=PROJECT)
    hook = json.loads(payload("claude", "StopFailure.json", isolated_home, repo))
    hook["last_assistant_message"] = said
    before = dt.datetime.now(dt.UTC)
    done = run_baker("checkpoint", "--agent", "claude", cwd=repo, input=json.dumps(hook))
    assert done.returncode == 0
    (recorded,) = limits.read()
    until = limits.parse_time(recorded.until)
    assert until is not None, recorded
    expected = before + dt.timedelta(hours=hours)
    assert abs((until - expected).total_seconds()) < 120, (recorded.until, expected)
