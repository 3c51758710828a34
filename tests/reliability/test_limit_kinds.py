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

from continuity_core import limits, stamps
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
    until = stamps.parse_time(recorded.until)
    assert until is not None, recorded
    expected = before + dt.timedelta(hours=hours)
    assert abs((until - expected).total_seconds()) < 120, (recorded.until, expected)


USAGE = "-home-dev-src-invoice-import/dda69e93-840c-4f09-bca7-83524514858c.jsonl"


def test_where_two_records_disagree_the_brief_says_which_it_used(
    repo: Path, isolated_home: Path
) -> None:
    """Claude's transcript says "resets 4:19am (UTC)"; the limit ledger, written by the hook,
    names a later reset for the same account. The brief takes the later and says why; with
    no reset in the transcript (the 429), it takes the ledger's and says so."""
    assert run_baker("init", cwd=repo).returncode == 0
    claude_session(isolated_home, repo, rel=USAGE, project="/home/dev/src/invoice-import")
    later = stamps.iso(limits.now() + dt.timedelta(hours=2))
    limits.record(
        limits.Limit(
            agent="claude",
            dir=str(isolated_home / ".claude"),
            since=stamps.now_iso(),
            until=later,
            source="hook",
        )
    )
    shown = run_baker("handoff", cwd=repo).stdout
    head = shown.split("\n## ")[0]
    assert f"(resets at {later})" in head
    assert "the later is used" in head and "the hook record in the limit ledger" in head


def test_a_reset_only_the_ledger_names_is_used_and_said(repo: Path, isolated_home: Path) -> None:
    assert run_baker("init", cwd=repo).returncode == 0
    claude_session(isolated_home, repo, rel=RATE, project=PROJECT)
    hook = json.loads(payload("claude", "StopFailure.json", isolated_home, repo))
    hook["last_assistant_message"] = "Rate limited (429). Please try again in 20 minutes."
    assert (
        run_baker("checkpoint", "--agent", "claude", cwd=repo, input=json.dumps(hook)).returncode
        == 0
    )
    (recorded,) = limits.read()
    head = run_baker("handoff", cwd=repo).stdout.split("\n## ")[0]
    assert f"(resets at {recorded.until})" in head
    assert "the transcript names none" in head
