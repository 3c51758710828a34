"""Issue 19 cases 1-2 with the real CLIs: Claude works and hits its limit, a Codex retry fails
before any answer, then a new Codex session starts. The brief and Codex's own SessionStart
context both describe the Claude session and name the failed retry."""

from __future__ import annotations

import json

import pytest

from tests.e2e.flows import REQUEST, install, source_script, stopped_on_a_limit
from tests.e2e.harness import Agent, MakeAgent, baker, session_id
from tests.e2e.mock_models import Turn

pytestmark = pytest.mark.e2e


def test_a_failed_codex_retry_never_hides_the_claude_work(agent: MakeAgent) -> None:
    claude: Agent = agent("claude", source_script())
    stopped_on_a_limit(claude)
    claude_sid = next(p.stem for p in (claude.config_dir / "projects").glob("*/*.jsonl"))
    codex: Agent = agent("codex", [Turn(error="usage_limit")])
    retry = codex.run("hi", check=False)
    assert retry.returncode != 0
    retry_sid = session_id(codex, retry.stdout)

    handoff = baker(codex, "handoff", "--json")
    assert handoff.returncode == 0, handoff.stderr
    brief = json.loads(handoff.stdout)
    assert brief["session"]["session_id"] == claude_sid and brief["latest_request"] == REQUEST
    [failed] = brief["failed_attempts"]
    assert failed["session_id"] == retry_sid and failed["agent"] == "codex"
    assert "failed: usage limit" in failed["summary"]

    listed = json.loads(baker(codex, "sessions", "--json").stdout)["sessions"]
    assert [(r["id"], r["state"], r["chosen"]) for r in listed] == [
        (retry_sid, "limit", False),
        (claude_sid, "limit", True),
    ]
    assert not listed[0]["did_work"] and listed[1]["did_work"]

    # The user switches to a second Codex account (the first one is limited) and starts Codex.
    work: Agent = agent("codex", [Turn(text="Picking up the parser work.")], account="work")
    install(work)
    work.run("carry on")
    first = json.dumps(work.mock.main_requests[0].body)
    assert f"session: claude {claude_sid}" in first  # the pickup Codex's hook gave its model
    assert f"session {retry_sid}) failed: usage limit" in first
