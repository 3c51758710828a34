"""Copilot CLI end to end: the real `copilot` offline against a loopback chat-completions mock.

Its hooks, installed by `baker init` and `baker global sync`, fire in a `copilot -p` turn and a
checkpoint of the Copilot session appears; on the next run the sessionStart pickup reaches the
model. A Claude Code session stopped by its usage limit continues in Copilot with the latest
request, the todos and the files in Copilot's first request. Under `baker run`, a Copilot
session whose quota is spent (a 429 `insufficient_quota`: a usage limit) continues in Gemini
CLI by itself, told so by Copilot's own records; a rate limit would wait and retry Copilot.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_core import limits
from tests.e2e.flows import (
    REQUEST,
    _plain,
    assert_holds_the_brief,
    first_request,
    install,
    source_script,
)
from tests.e2e.harness import VENV_BIN, Agent, MakeAgent, baker
from tests.e2e.mock_models import Turn, _strings, shell, todos, write
from tests.e2e.test_e2e_run import rotation

pytestmark = pytest.mark.e2e

MARKER = "Verify the e2e pickup marker 5d2e before editing"


def test_copilot_hooks_checkpoint_and_pickup(agent: MakeAgent) -> None:
    a: Agent = agent(
        "copilot",
        [
            Turn(calls=[todos(("Write the notes", "in_progress"), ("Review them", "pending"))]),
            Turn(calls=[write("notes.txt", "written under hooks\n")]),
            Turn(calls=[shell("cat notes.txt")]),
            Turn(text="First session done."),
            Turn(text="Second session done."),
        ],
    )
    install(a)
    assert (a.project / ".github" / "hooks" / "baker.json").is_file()
    assert "baker checkpoint --agent copilot" in (a.config_dir / "settings.json").read_text()
    checkpoints = a.project / ".baker" / "checkpoints"

    a.run("E2E copilot: first session")
    # Copilot also runs the project's .claude hooks (Claude-shaped payloads, which Claude's
    # adapter refuses): they write no checkpoint; the turn's is the Copilot hook's.
    assert (a.project / ".claude" / "settings.json").is_file()
    saved = [json.loads(p.read_text()) for p in sorted(checkpoints.glob("*.json"))]
    assert {c["agent"] for c in saved} == {"copilot"}, [(c["agent"], c["event"]) for c in saved]
    ours = [c for c in saved if c["event"] == "stop"]
    assert ours, f"no Copilot checkpoint after the turn; .baker/log: {_log(a)}"
    logged = (a.project / ".baker" / "log" / "events.jsonl").read_text().splitlines()
    refused = [e for e in map(json.loads, logged) if e["event"] == "hook_bad_input"]
    assert ("checkpoint", "claude") in [(e["command"], e["agent"]) for e in refused]
    cp = json.dumps(ours[-1])
    for fact in ("copilot", "E2E copilot: first session", "Write the notes", "notes.txt"):
        assert fact in cp, fact

    assert baker(a, "now", MARKER).returncode == 0
    before = len(a.mock.main_requests)
    a.run("E2E copilot: second session")
    first = a.mock.main_requests[before]
    # sessionStart's additionalContext arrives as a user message of its own, before the prompt
    assert MARKER in _strings(first.body), f"pickup missing; .baker/log: {_log(a)}"


def test_baker_run_continues_in_gemini_when_copilots_quota_is_spent(
    agent: MakeAgent, isolated_home: Path
) -> None:
    script = source_script()
    # A spent quota (a usage limit) moves on; a rate limit would wait and retry Copilot.
    script[-1] = Turn(error="usage_limit")
    src: Agent = agent("copilot", script)
    dst: Agent = agent("gemini", [Turn(text="I will confirm the plan first.")])
    install(src)  # errorOccurred records the limit at the first retry
    rotation(isolated_home, '["copilot", "gemini"]')

    env = {**dst.env, **src.env}
    argv = [str(VENV_BIN / "baker"), "run", "--", "--allow-all", "-i", REQUEST]
    tui = src.terminal(*argv, env=env)
    try:
        assert src.mock.wait_for(lambda: src.mock.played() >= 3, 90), _plain(tui.text)[-3000:]
        text = first_request(dst, tui, timeout=120)
    finally:
        tui.stop()
    # the brief says the Copilot turn ended on the limit: Copilot's log of its hook call
    assert_holds_the_brief(text, "copilot")
    (recorded,) = limits.read()
    assert (recorded.agent, recorded.kind, recorded.source) == ("copilot", "usage_limit", "hook")


def _log(a: Agent) -> str:
    logs = sorted((a.project / ".baker" / "log").glob("*"))
    return "\n".join(p.read_text()[-1500:] for p in logs) or "(empty)"
