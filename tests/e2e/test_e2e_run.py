"""`baker run` with the real CLIs: Claude Code hits a usage limit from its mock, and `baker run`
ends it and starts Codex with the brief by itself, in the same terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_core import limits
from tests.e2e.harness import VENV_BIN, Agent, baker
from tests.e2e.mock_models import Turn
from tests.e2e.test_e2e_hooks import install
from tests.e2e.test_e2e_resume import (
    REQUEST,
    _plain,
    assert_holds_the_brief,
    first_request,
    source_script,
)

pytestmark = pytest.mark.e2e


def rotation(home: Path, order: str) -> None:
    config = home / ".baker" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    before = config.read_text() if config.exists() else ""
    config.write_text(f"{before}\n[rotation]\norder = {order}\ncountdown = 1\nmax_hops = 1\n")


def test_run_continues_in_codex_after_claude_hits_its_limit(agent, isolated_home: Path) -> None:
    src: Agent = agent("claude", source_script())
    dst: Agent = agent("codex", [Turn(text="I will confirm the plan first.")])
    install(src)  # the project's Claude hooks: StopFailure records the limit
    rotation(isolated_home, '["claude", "codex"]')

    env = {**dst.env, **src.env}
    tui = src.terminal(str(VENV_BIN / "baker"), "run", "--", "--dangerously-skip-permissions",
                       REQUEST, env=env)
    try:
        assert src.mock.wait_for(lambda: src.mock.played() >= 3, 90), _plain(tui.text)[-3000:]
        text = first_request(dst, tui, timeout=90)
    finally:
        tui.stop()
    assert_holds_the_brief(text, "claude")
    screen = _plain(tui.text)
    assert "continuing in Codex" in screen, screen[-3000:]

    (recorded,) = limits.read()
    assert (recorded.agent, recorded.source) == ("claude", "hook")
    shown = json.loads(baker(src, "limits", "--json").stdout)
    assert shown[0]["entry"] == "claude" and shown[0]["limited"] is True
    log = (src.project / ".baker" / "log" / "events.jsonl").read_text()
    assert '"run_switch"' in log and '"limit_recorded"' in log


def test_run_continues_in_gemini_after_codex_hits_its_limit(agent, isolated_home: Path) -> None:
    """Codex writes no hook payload for a failed turn: its rate-limit record (or, failing
    that, the message on screen) is what `baker run` goes by."""
    src: Agent = agent("codex", source_script())
    dst: Agent = agent("gemini", [Turn(text="I will confirm the plan first.")])
    install(src)
    rotation(isolated_home, '["codex", "gemini"]')

    env = {**dst.env, **src.env}
    args = src.argv(REQUEST, headless=False)[1:]
    tui = src.terminal(str(VENV_BIN / "baker"), "run", "--", *args, env=env)
    try:
        assert src.mock.wait_for(lambda: src.mock.played() >= 3, 90), _plain(tui.text)[-3000:]
        text = first_request(dst, tui, timeout=120)
    finally:
        tui.stop()
    assert_holds_the_brief(text, "codex")
    (recorded,) = limits.read()
    # Read from the rollout once the screen showed the limit, with the reset time it names.
    assert (recorded.agent, recorded.source) == ("codex", "transcript")
    assert recorded.until is not None
