"""Copilot hook payloads in, hook output out: every captured payload, and what is not ours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_copilot import CopilotAdapter, hooks
from continuity_core.adapters import Account
from tests.copilot.helpers import GREETER, PAYLOADS, home_copy

ADAPTER = CopilotAdapter()


def payload(name: str, **changes: object) -> bytes:
    data = json.loads((PAYLOADS / f"{name}.json").read_text())
    data.update(changes)
    return json.dumps(data).encode()


def test_each_event_is_told_by_its_keys() -> None:
    seen = {p.stem: hooks.parse_hook(p.read_bytes()).native for p in PAYLOADS.glob("*.json")}
    assert seen == {name: name for name in seen}
    assert len(seen) == 8


def test_pre_tool_gives_paths_and_commands() -> None:
    edit = hooks.parse_hook(
        payload("preToolUse", toolName="edit", toolArgs={"path": "/p/src/app.py", "old_str": "a"})
    )
    assert edit.kind == "pre_tool" and edit.paths == ["/p/src/app.py"] and edit.command is None
    shell = hooks.parse_hook(payload("preToolUse", toolName="bash", toolArgs={"command": "make"}))
    assert shell.command == "make" and shell.paths == []
    assert shell.session_id == "d05f0348-0120-4737-b5da-8bfb5f671609"
    assert shell.cwd == "/home/dev/src/proj2"


def test_a_rate_limit_error_is_a_limit_and_other_errors_save_nothing() -> None:
    limit = hooks.parse_hook(payload("errorOccurred"))
    assert (limit.kind, limit.error) == ("stop", "rate_limit")
    assert "Rate limit reached" in (limit.error_message or "")
    tool = hooks.parse_hook(
        payload("errorOccurred", errorContext="tool_execution", error={"message": "ENOENT"})
    )
    assert (tool.kind, tool.error) == ("other", None)
    fatal = hooks.parse_hook(payload("errorOccurred", recoverable=False, error={"message": "boom"}))
    assert (fatal.kind, fatal.error) == ("stop", None)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"session_id": "x", "hook_event_name": "Stop", "transcript_path": "/h/events.jsonl"}',
        b'{"sessionId": "", "prompt": "x"}',
        b'{"sessionId": "abc", "unrelated": 1}',
        b'{"sessionId": 3, "prompt": "x"}',
    ],
)
def test_payloads_of_others_are_refused(raw: bytes) -> None:
    # Copilot runs a project's .claude hooks too, with Claude-shaped payloads: Claude's.
    with pytest.raises(ValueError):
        hooks.parse_hook(raw)


def test_context_goes_where_copilot_reads_it() -> None:
    start = hooks.parse_hook(payload("sessionStart"))
    assert json.loads(hooks.render_context(start, "facts") or "") == {"additionalContext": "facts"}
    pre = hooks.parse_hook(payload("preToolUse"))
    assert json.loads(hooks.render_context(pre, "traps") or "") == {"additionalContext": "traps"}
    stop = hooks.parse_hook(payload("agentStop"))
    assert hooks.render_context(stop, "x") is None
    assert hooks.render_context(start, "") is None


def test_session_for_hook_finds_the_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = home_copy(tmp_path)
    events = home / "session-state" / GREETER / "events.jsonl"
    stop = ADAPTER.parse_hook(payload("agentStop", sessionId=GREETER, transcriptPath=str(events)))
    ref = ADAPTER.session_for_hook(stop, [])
    assert ref is not None and ref.session_id == GREETER and ref.path == str(events)
    assert ref.account == str(home)  # an account not configured is named by its folder
    account = Account(agent="copilot", name="work", dir=str(home))
    ref = ADAPTER.session_for_hook(stop, [account])
    assert ref is not None and ref.account == "work"
    # other events carry only the session id: found in the accounts, or in the hook's own home
    start = ADAPTER.parse_hook(payload("sessionStart", sessionId=GREETER))
    assert ADAPTER.session_for_hook(start, []) is None
    monkeypatch.setenv("COPILOT_HOME", str(home))
    found = ADAPTER.session_for_hook(start, [])
    assert found is not None and found.path == str(events)
    unknown = ADAPTER.parse_hook(payload("sessionStart", sessionId="../../etc/passwd"))
    assert ADAPTER.session_for_hook(unknown, [account]) is None


CLAUDE_SHAPED = PAYLOADS.parent / "claude_hook_payloads"  # captured: see its README.md


@pytest.mark.parametrize("event", sorted(p.stem for p in CLAUDE_SHAPED.glob("*.json")))
def test_what_copilot_sends_claudes_hooks_is_refused_by_both_adapters(event: str) -> None:
    claude = pytest.importorskip("continuity_claude.hooks")
    raw = (CLAUDE_SHAPED / f"{event}.json").read_bytes()
    with pytest.raises(ValueError):
        claude.parse_hook(raw)  # not Claude's: a Copilot session
    with pytest.raises(ValueError):
        hooks.parse_hook(raw)  # Copilot's own hooks carry this turn


def test_claudes_hook_run_by_copilot_writes_no_checkpoint(isolated_home: Path, repo: Path) -> None:
    pytest.importorskip("continuity_claude")
    from tests.conftest import run_baker
    from tests.copilot.test_copilot_launch import session_into

    assert run_baker("init", cwd=repo).returncode == 0
    folder = session_into(isolated_home / ".copilot", GREETER, repo)
    events = str(folder / "events.jsonl")
    claude_stop = json.loads((CLAUDE_SHAPED / "Stop.json").read_text())
    claude_stop.update(session_id=GREETER, cwd=str(repo), transcript_path=events)
    stop = json.loads(payload("agentStop", sessionId=GREETER, cwd=str(repo), transcriptPath=events))
    checkpoints = repo / ".baker" / "checkpoints"

    hook = run_baker("checkpoint", "--agent", "claude", input=json.dumps(claude_stop))
    assert hook.returncode == 0 and hook.stdout == ""
    for event, command in (("SessionStart", "pickup"), ("PreToolUse", "pretool")):
        claude_shaped = json.loads((CLAUDE_SHAPED / f"{event}.json").read_text())
        claude_shaped.update(session_id=GREETER, cwd=str(repo))
        call = run_baker(command, "--agent", "claude", input=json.dumps(claude_shaped))
        assert call.returncode == 0 and call.stdout == "", call.stdout
    # Claude's adapter refuses it (the transcript is Copilot's): nothing in Claude's name
    assert not checkpoints.is_dir() or not any(checkpoints.iterdir())
    lines = (repo / ".baker" / "log" / "events.jsonl").read_text().splitlines()
    log = [json.loads(line) for line in lines]
    refused = [e for e in log if e["event"] == "hook_bad_input"]
    assert [(e["command"], e["agent"]) for e in refused] == [
        ("checkpoint", "claude"),
        ("pickup", "claude"),
        ("pretool", "claude"),
    ]

    # the turn's checkpoint is the Copilot hook's, with its session
    assert run_baker("checkpoint", "--agent", "copilot", input=json.dumps(stop)).returncode == 0
    (written,) = [json.loads(p.read_text()) for p in checkpoints.iterdir()]
    assert (written["agent"], written["event"]) == ("copilot", "stop")
    assert written["session"]["session_id"] == GREETER


def test_a_live_agent_stop_waits_until_copilot_has_logged_the_turn(tmp_path: Path) -> None:
    import threading
    import time

    from tests.copilot.helpers import HOOKED

    # Copilot logs the hook call (`hook.start`, its input inside) before running it, and
    # appends to events.jsonl from a buffer: here the log arrives 0.3 s after the hook starts.
    captured = (
        PAYLOADS.parent / ".copilot" / "session-state" / HOOKED / "events.jsonl"
    ).read_text()
    events = tmp_path / "events.jsonl"
    now = int(time.time() * 1000)
    log = captured.replace('"timestamp":1796320511663', f'"timestamp":{now}')
    assert log != captured
    stop = hooks.parse_hook(payload("agentStop", timestamp=now, transcriptPath=str(events)))
    assert stop.turn_id == str(now)
    writer = threading.Timer(0.3, events.write_text, (log,))
    writer.start()
    start = time.monotonic()
    try:
        assert hooks.flushed(stop)
    finally:
        writer.join()
    assert 0.25 < time.monotonic() - start < 2

    # another call's stamp: not this turn's line, so it waits its time and reads what is there
    other = hooks.parse_hook(payload("agentStop", timestamp=now + 1, transcriptPath=str(events)))
    assert not hooks.flushed(other, wait_s=0.1)
    # a captured payload replayed days later, and the other events, never wait
    start = time.monotonic()
    assert not hooks.flushed(hooks.parse_hook(payload("agentStop", transcriptPath=str(events))))
    assert not hooks.flushed(hooks.parse_hook(payload("sessionStart", timestamp=now)))
    assert time.monotonic() - start < 0.1


def test_a_folder_listed_twice_is_one_account_named_as_config_toml_names_it(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As for every adapter (issue 31): ~/.copilot that is also `[accounts.work]` is `work`."""
    from continuity_core.schemas.config import AccountConfig, GlobalConfig

    monkeypatch.delenv("COPILOT_HOME", raising=False)
    config = GlobalConfig(accounts={"work": AccountConfig(agent="copilot", dir="~/.copilot")})
    got = [(a.name, a.dir) for a in ADAPTER.accounts(config)]
    assert got == [("work", str(Path.home() / ".copilot"))]
