"""Text on the screen switches no agent (issue 30, points 2 and 3).

Under `baker run`, an agent that merely printed `rate limit exceeded`, `You've hit your usage
limit · resets 3pm` or `Error: quota exceeded` (a README it `cat`s, a log, its own answer) was
told to exit, the next agent started, and the first was recorded as limited, so later runs
and `resume --next` skipped it; Esc stopped the switch but left the false limit in the
ledger; and a rate limit moved on to the next account as a usage limit does. The agents here
are the small fakes of tests/cli/test_run.py behind a real pseudo-terminal.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from continuity_core import limits
from tests.cli import test_run as flows
from tests.cli.test_run import Pty, _rotation, _started

agents = flows.agents  # the fake agents on PATH, a fixture

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="baker run is Unix only")

SAID = (
    "rate limit exceeded",
    "You've hit your usage limit · resets 3pm",
    "Error: quota exceeded",
)


def test_a_limit_message_in_the_agent_s_output_does_not_switch(
    repo: Path, agents: dict[str, str], isolated_home: Path
) -> None:
    from continuity_cli.supervise import HOOK_WAIT_S

    _rotation(isolated_home, ["codex", "claude"])
    with Pty([], repo, agents) as term:
        term.expect("codex ready")
        for text in SAID:  # the fake echoes each line, as `cat README.md` would show it
            term.send(f"{text}\r")
            term.expect(text.split(" · ")[0])
            time.sleep(HOOK_WAIT_S + 0.5)
        term.send("exit 0\r")
        assert term.wait() == 0
    assert "continuing in" not in term.seen.decode(errors="replace")
    assert [s["name"] for s in _started(agents)] == ["codex"]
    assert limits.read() == []


def test_esc_drops_a_pending_limit(repo: Path, agents: dict[str, str], isolated_home: Path) -> None:
    """A limit read from the transcript and status line is pending while the countdown runs:
    Esc stays, and nothing enters the ledger."""
    _rotation(isolated_home, ["codex", "claude"], countdown=30)
    with Pty([], repo, agents) as term:
        term.expect("codex ready")
        term.send("api-error\r")
        term.expect("continuing in Claude Code in")
        term.send("\x1b")
        time.sleep(1.0)
        term.send("exit 0\r")
        assert term.wait() == 0
    assert limits.read() == []
    assert [s["name"] for s in _started(agents)] == ["codex"]


def test_a_rate_limit_retries_the_same_entry(
    repo: Path, agents: dict[str, str], isolated_home: Path
) -> None:
    """A rate limit waits and retries the same agent and session (Enter: now), and is kept
    in the ledger as a rate limit, not a usage limit."""
    _rotation(isolated_home, ["codex", "claude"], countdown=30)
    with Pty([], repo, agents) as term:
        term.expect("codex ready")
        term.send("api-error Error: rate limit exceeded (429), try again later\r")
        term.expect("retrying it in")
        term.send("\r")
        term.expect("codex ready", timeout=30)
        term.send("exit 0\r")
        assert term.wait() == 0
    started = _started(agents)
    assert [s["name"] for s in started] == ["codex", "codex"]
    assert "resume" in started[1]["argv"]
    (recorded,) = limits.read()
    assert (recorded.agent, recorded.kind) == ("codex", "rate_limit")
    shown = limits.status([], limits.read())
    assert shown[0]["kind"] == "rate_limit"
