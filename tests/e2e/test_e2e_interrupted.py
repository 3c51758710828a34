"""The scripted failures: a usage limit on a chosen request, and a request that never answers
while the CLI is stopped by its PID. The adapter's parse of the transcript shows what happened."""

from __future__ import annotations

import pytest

from tests.e2e.harness import Agent, MakeAgent, newest_session
from tests.e2e.mock_models import Turn, shell

pytestmark = pytest.mark.e2e

AGENTS = ["claude", "codex", "gemini"]
PROMPT = "E2E: run the check, then carry on"
CALL = shell("printf 'step-%d\\n' 1")


@pytest.mark.parametrize("name", AGENTS)
def test_usage_limit_mid_task(name: str, agent: MakeAgent, monkeypatch: pytest.MonkeyPatch) -> None:
    a: Agent = agent(name, [Turn(calls=[CALL]), Turn(error="usage_limit")])
    proc = a.run(PROMPT, check=False)

    assert proc.returncode != 0
    assert len(a.mock.main_requests) == 2  # stopped at the limit: no retry storm
    session = newest_session(a, monkeypatch)
    assert session.requests == [PROMPT]
    assert [c.output for c in session.tool_calls if c.output and "step-1" in c.output]
    if name == "gemini":
        # Gemini CLI 0.61 prints the quota error but does not write it to the session file.
        assert "quota" in (proc.stdout + proc.stderr).lower() and session.turn_incomplete
    else:
        assert session.errors and session.errors[-1].kind == "usage_limit"


@pytest.mark.parametrize("name", AGENTS)
def test_stopped_while_the_model_hangs(
    name: str, agent: MakeAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    a: Agent = agent(name, [Turn(calls=[CALL]), Turn(hang=True)])
    tui = a.interactive(PROMPT)
    try:
        assert a.mock.wait_for(lambda: a.mock.played() == 2, timeout=45), tui.text[-2000:]
    finally:
        tui.stop()
    assert tui.proc.returncode is not None

    session = newest_session(a, monkeypatch)
    assert session.requests == [PROMPT]
    assert session.turn_incomplete
    assert [c for c in session.tool_calls if c.output and "step-1" in c.output]
