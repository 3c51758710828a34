"""Claude Code hook payloads parsed; other agents' payloads refused; output the model sees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_claude import ClaudeAdapter
from continuity_core.adapters import Account
from tests.claude.helpers import PAYLOADS, payload
from tests.conftest import FIXTURES

KIND = {
    "SessionStart": "session_start",
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "Stop": "stop",
    "StopFailure": "stop",
    "PreCompact": "pre_compact",
    "SessionEnd": "session_end",
    "UserPromptSubmit": "prompt",
}
ALL = [json.loads(line) for line in (PAYLOADS / "all.jsonl").read_text().splitlines()]


@pytest.mark.parametrize(
    "name", sorted(str(p.relative_to(PAYLOADS)) for p in PAYLOADS.rglob("*.json"))
)
def test_every_captured_payload_parses(adapter: ClaudeAdapter, name: str) -> None:
    """2.1.197's payloads and, in `2.1.332/`, the newer CLI's (PostToolBatch, MessageDisplay)."""
    raw = json.loads((PAYLOADS / name).read_text())
    event = adapter.parse_hook(payload(name))
    assert event.agent == "claude"
    assert event.native == raw["hook_event_name"]
    assert event.kind == KIND.get(raw["hook_event_name"], "other")
    assert event.session_id == raw["session_id"]
    assert event.transcript_path == raw["transcript_path"]
    assert event.cwd == raw["cwd"]


def test_all_payloads_of_the_capture(adapter: ClaudeAdapter) -> None:
    events = [adapter.parse_hook(json.dumps(entry["payload"]).encode()) for entry in ALL]
    assert len(events) == len(ALL) > 100
    sources = {e.source for e in events if e.kind == "session_start"}
    assert sources == {"startup", "resume", "compact"}


def test_the_2_1_332_capture_and_a_fork(adapter: ClaudeAdapter) -> None:
    entries = [
        json.loads(line) for line in (PAYLOADS / "2.1.332" / "all.jsonl").read_text().splitlines()
    ]
    events = [adapter.parse_hook(json.dumps(e["payload"]).encode()) for e in entries]
    natives = {e.native for e in events}
    assert {"PostToolBatch", "MessageDisplay", "SessionStart", "PreToolUse"} <= natives
    assert all(e.kind == KIND.get(e.native, "other") for e in events)
    start = next(e for e in entries if e["event"] == "SessionStart")["payload"]
    fork = adapter.parse_hook(json.dumps({**start, "source": "fork"}).encode())
    assert fork.kind == "session_start" and fork.source == "fork"


def test_tool_paths_and_commands(adapter: ClaudeAdapter) -> None:
    edit = adapter.parse_hook(payload("PreToolUse.Edit.json"))
    assert edit.tool_name == "Edit"
    assert edit.paths == ["/home/dev/src/weather-cli/weather/units.py"]
    write = adapter.parse_hook(payload("PreToolUse.Write.json"))
    assert write.paths == [json.loads(payload("PreToolUse.Write.json"))["tool_input"]["file_path"]]
    bash = adapter.parse_hook(payload("PreToolUse.Bash.json"))
    assert bash.command == json.loads(payload("PreToolUse.Bash.json"))["tool_input"]["command"]
    assert bash.paths == []
    for tool, key in (("MultiEdit", "file_path"), ("NotebookEdit", "notebook_path")):
        body = json.loads(payload("PreToolUse.Edit.json"))
        body["tool_name"], body["tool_input"] = tool, {key: "/w/p/x"}
        assert adapter.parse_hook(json.dumps(body).encode()).paths == ["/w/p/x"]


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_other_agents_payloads_are_refused(adapter: ClaudeAdapter, agent: str) -> None:
    files = sorted((FIXTURES / agent / "hook_payloads").glob("*.json"))
    assert files
    for path in files:
        with pytest.raises(ValueError):
            adapter.parse_hook(path.read_bytes())


@pytest.mark.parametrize(
    "bad",
    [
        b"",
        b"   ",
        b"not json",
        b"\xff\xfe",
        b"[]",
        b"null",
        b"{}",
        b'{"hook_event_name": 5}',
        b'{"hook_event_name": "Stop"}',  # no session id
        b'{"hook_event_name": "Invented", "session_id": "s"}',
        b'{"hook_event_name": "PreToolUse", "session_id": "s", "tool_input": "rm -rf /"}',
        b'{"hook_event_name": "Stop", "session_id": "s", "transcript_path": "/tmp/x.json"}',
        b'{"hook_event_name": "Stop", "session_id": "s", "cwd": "/w", "transcript_path": "/home/u/.claude/projects/-w/s.jsonl", "extra": 1',
    ],
)
def test_bad_input_raises_valueerror(adapter: ClaudeAdapter, bad: bytes) -> None:
    with pytest.raises(ValueError):
        adapter.parse_hook(bad)


def test_session_for_hook_before_and_after_the_transcript_exists(
    adapter: ClaudeAdapter, claude_dir: Path, account: Account
) -> None:
    start = adapter.parse_hook(payload("SessionStart.startup.json", claude_dir))
    ref = adapter.session_for_hook(start, [account])
    assert ref is not None and ref.account == "~/.claude"
    assert ref.session_id == "48f0d34d-61b5-40aa-aac6-73b6722315eb"
    assert ref.cwd == "/home/dev/src/weather-cli"
    # at a real startup the file does not exist yet: no session, nothing depends on it
    Path(ref.path).unlink()
    assert adapter.session_for_hook(start, [account]) is None
    stop = adapter.parse_hook(payload("Stop.json", claude_dir))
    assert adapter.session_for_hook(stop, []) is None


def test_session_of_an_unlisted_account_is_tagged_with_its_dir(
    adapter: ClaudeAdapter, claude_dir: Path
) -> None:
    stop = adapter.parse_hook(payload("Stop.json", claude_dir))
    ref = adapter.session_for_hook(stop, [])
    assert ref is not None and ref.account == str(claude_dir)


@pytest.mark.parametrize(
    ("name", "event"),
    [
        ("SessionStart.startup.json", "SessionStart"),
        ("SessionStart.compact.json", "SessionStart"),
        ("PreToolUse.Edit.json", "PreToolUse"),
    ],
)
def test_context_goes_out_as_additional_context(
    adapter: ClaudeAdapter, name: str, event: str
) -> None:
    out = adapter.render_context(adapter.parse_hook(payload(name)), "remember the trap")
    assert out is not None
    assert json.loads(out) == {
        "hookSpecificOutput": {"hookEventName": event, "additionalContext": "remember the trap"}
    }


@pytest.mark.parametrize(
    "name",
    ["Stop.json", "StopFailure.json", "PreCompact.json", "SessionEnd.json", "SubagentStop.json"],
)
def test_no_output_where_it_would_harm_or_be_lost(adapter: ClaudeAdapter, name: str) -> None:
    assert adapter.render_context(adapter.parse_hook(payload(name)), "text") is None


def test_empty_context_prints_nothing(adapter: ClaudeAdapter) -> None:
    event = adapter.parse_hook(payload("SessionStart.json"))
    assert adapter.render_context(event, "") is None
