"""`baker run` with the real CLIs: Claude Code hits a usage limit from its mock, and `baker run`
ends it and starts Codex with the brief by itself, in the same terminal."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from continuity_core import limits
from tests.e2e.flows import (
    REQUEST,
    _plain,
    _wait_text,
    assert_holds_the_brief,
    first_request,
    install,
    source_script,
    type_line,
)
from tests.e2e.harness import VENV_BIN, Agent, baker, wait_until
from tests.e2e.mock_models import Turn

pytestmark = pytest.mark.e2e


def rotation(home: Path, order: str, accounts: str = "") -> None:
    config = home / ".baker" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    before = config.read_text() if config.exists() else ""
    config.write_text(
        f"{before}\n{accounts}\n[rotation]\norder = {order}\ncountdown = 1\nmax_hops = 1\n"
    )


def test_run_continues_in_codex_after_claude_hits_its_limit(
    agent: Callable[..., Agent], isolated_home: Path
) -> None:
    src: Agent = agent("claude", source_script())
    dst: Agent = agent("codex", [Turn(text="I will confirm the plan first.")])
    install(src)  # the project's Claude hooks: StopFailure records the limit
    rotation(isolated_home, '["claude", "codex"]')

    env = {**dst.env, **src.env}
    tui = src.terminal(
        str(VENV_BIN / "baker"), "run", "--", "--dangerously-skip-permissions", REQUEST, env=env
    )
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


def test_run_continues_in_gemini_after_codex_hits_its_limit(
    agent: Callable[..., Agent], isolated_home: Path
) -> None:
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


def test_run_continues_the_same_claude_session_in_a_second_account(
    agent: Callable[..., Agent], isolated_home: Path
) -> None:
    first: Agent = agent("claude", source_script())
    second: Agent = agent("claude", [Turn(text="Continuing where we stopped.")], account="second")
    # One terminal, one environment: the second account reaches its own mock through its
    # settings' `env`, as a real second login reaches its own plan.
    settings = second.config_dir / "settings.json"
    data = json.loads(settings.read_text())
    data["env"] = {"ANTHROPIC_BASE_URL": second.mock.url}
    settings.write_text(json.dumps(data))
    install(first)
    rotation(
        isolated_home,
        '["claude", "claude:second"]',
        f'[accounts.second]\nagent = "claude"\ndir = "{second.config_dir}"\n',
    )

    tui = first.terminal(
        str(VENV_BIN / "baker"), "run", "--", "--dangerously-skip-permissions", REQUEST
    )
    try:
        assert first.mock.wait_for(lambda: first.mock.played() >= 3, 90), _plain(tui.text)[-3000:]
        # `claude --resume ID` shows the old conversation and waits for the next line.
        assert _wait_text(tui, "continuing in Claude Code (second)", 60), _plain(tui.text)[-3000:]
        assert _wait_text(tui, REQUEST[:30], 60), _plain(tui.text)[-3000:]
        type_line(tui, "carry on")
        if not second.mock.wait_for(lambda: bool(second.mock.main_requests), 20):
            tui.send(b"\r")  # under load the TUI may take the first Enter as part of a paste
        text = first_request(second, tui, timeout=90)
    finally:
        tui.stop()
    assert REQUEST in text and "carry on" in text  # the whole history, in the second account
    got = limits.read()
    assert len(got) == 1, got
    (recorded,) = got
    assert Path(recorded.dir) == first.config_dir
    log = (first.project / ".baker" / "log" / "events.jsonl").read_text()
    assert '"native": true' in log.replace('"native":true', '"native": true')


def test_esc_stays_in_claude_and_a_later_limit_with_nothing_free_exits_75(
    agent: Callable[..., Agent], isolated_home: Path
) -> None:
    src: Agent = agent("claude", source_script())
    install(src)
    config = isolated_home / ".baker" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text('[rotation]\norder = ["claude"]\ncountdown = 60\n')

    tui = src.terminal(
        str(VENV_BIN / "baker"), "run", "--", "--dangerously-skip-permissions", REQUEST
    )
    try:
        assert _wait_text(tui, "no entry is free: ending it in", 90), _plain(tui.text)[-3000:]
        tui.send(b"\x1b")  # stay
        assert wait_until(lambda: '"run_countdown_cancelled"' in _log(src), 10)
        asked = len(src.mock.main_requests)
        type_line(tui, "still there?")
        assert src.mock.wait_for(lambda: len(src.mock.main_requests) > asked, 30), _plain(tui.text)[
            -3000:
        ]  # Claude Code kept running and took the next line
        # That turn hits the (sticky) limit again: a new limit, a new countdown; Enter ends it.
        assert wait_until(lambda: _log(src).count('"run_limit"') >= 2, 60), _log(src)
        time.sleep(0.5)
        tui.send(b"\r")
        assert wait_until(lambda: tui.proc.poll() is not None, 30), _plain(tui.text)[-3000:]
    finally:
        code = tui.stop()
    assert code == 75
    assert "every entry is limited; claude" in _plain(tui.text)


def _log(a: Agent) -> str:
    path = a.project / ".baker" / "log" / "events.jsonl"
    return path.read_text() if path.exists() else ""
