"""Hook payloads as Gemini CLI 0.61.0 sent them, and the output it reads back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_gemini import GeminiAdapter
from tests.conftest import FIXTURES
from tests.gemini.chatlog import CONTEXT, PAYLOADS, SID, gemini, header, user, write_log

ADAPTER = GeminiAdapter()
EXPECTED = {
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "BeforeAgent": "prompt",
    "AfterAgent": "stop",
    "BeforeTool": "pre_tool",
    "AfterTool": "post_tool",
    "Notification": "notify",
    "BeforeModel": "other",
    "AfterModel": "other",
    "BeforeToolSelection": "other",
}


@pytest.mark.parametrize("path", sorted(PAYLOADS.glob("*.json")), ids=lambda p: p.stem)
def test_every_captured_payload(path: Path) -> None:
    raw = path.read_bytes()
    data = json.loads(raw)
    event = ADAPTER.parse_hook(raw)
    assert event.agent == "gemini" and event.native == data["hook_event_name"]
    assert event.session_id == data["session_id"] and event.cwd == data["cwd"]
    assert event.transcript_path == data["transcript_path"]
    if data["hook_event_name"] == "PreCompress":
        # The captured transcripts never came near the threshold: each was a per-turn no-op,
        # except the one /compress sent.
        assert event.kind == ("pre_compact" if data["trigger"] == "manual" else "other")
    else:
        assert event.kind == EXPECTED[data["hook_event_name"]]


def test_all_payloads_of_the_capture_parse() -> None:
    for line in (PAYLOADS / "all.jsonl").read_text().splitlines():
        record = json.loads(line)
        event = ADAPTER.parse_hook(json.dumps(record["payload"]).encode())
        assert event.native == record["event"]


def test_before_tool_paths_and_command() -> None:
    edit = ADAPTER.parse_hook((PAYLOADS / "BeforeTool.replace.json").read_bytes())
    assert edit.tool_name == "replace"
    assert edit.paths == ["/home/dev/src/weather-cli/weather/units.py"]
    assert edit.command is None
    shell = ADAPTER.parse_hook((PAYLOADS / "BeforeTool.run_shell_command.json").read_bytes())
    assert (
        shell.command
        == "python3 -c 'from weather.units import celsius_to_fahrenheit as c; print(c(100))'"
    )
    assert shell.paths == []
    resume = ADAPTER.parse_hook((PAYLOADS / "SessionStart.resume.json").read_bytes())
    assert resume.source == "resume"


@pytest.mark.parametrize(
    "path",
    sorted((FIXTURES / "claude" / "hook_payloads").glob("*.json"))
    + sorted((FIXTURES / "codex" / "hook_payloads").glob("*.json")),
    ids=lambda p: f"{p.parent.parent.name}-{p.stem}",
)
def test_other_agents_payloads_are_refused(path: Path) -> None:
    with pytest.raises(ValueError):
        ADAPTER.parse_hook(path.read_bytes())


@pytest.mark.parametrize(
    "garbage",
    [b"", b"{", b"\xff", b"[]", b"null", b'{"hook_event_name": 3}', b'{"hook_event_name": "Stop"}'],
)
def test_garbage_is_refused(garbage: bytes) -> None:
    with pytest.raises(ValueError):
        ADAPTER.parse_hook(garbage)


def _pre_compress(transcript: Path, trigger: str = "auto") -> str:
    payload = {
        "session_id": SID,
        "transcript_path": str(transcript),
        "cwd": "/p",
        "hook_event_name": "PreCompress",
        "timestamp": "2026-11-30T04:00:00Z",
        "trigger": trigger,
    }
    return ADAPTER.parse_hook(json.dumps(payload).encode()).kind


def test_pre_compress_is_a_checkpoint_only_near_the_threshold(tmp_path: Path) -> None:
    small = write_log(
        tmp_path / "small.jsonl",
        [header(), CONTEXT, user("u1", "q"), gemini("g1", "a", tokens=20_000)],
    )
    big = write_log(
        tmp_path / "big.jsonl",
        [
            header(),
            CONTEXT,
            user("u1", "q"),
            gemini("g1", "a", tokens=500_000),
            {"$set": {"lastUpdated": "2026-11-30T04:00:03.000Z"}},
            user("u2", "next"),
        ],
    )
    assert _pre_compress(small) == "other"
    assert _pre_compress(big) == "pre_compact"
    assert _pre_compress(small, trigger="manual") == "pre_compact"
    assert _pre_compress(tmp_path / "missing.jsonl") == "other"


def test_render_context_where_the_model_sees_it() -> None:
    start = ADAPTER.parse_hook((PAYLOADS / "SessionStart.startup.json").read_bytes())
    out = ADAPTER.render_context(start, "resume <here>")
    assert out is not None
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == "resume <here>"
    stop = ADAPTER.parse_hook((PAYLOADS / "AfterAgent.json").read_bytes())
    assert ADAPTER.render_context(stop, "x") is None
    assert ADAPTER.render_context(start, "") is None
    clear = json.loads((PAYLOADS / "SessionStart.startup.json").read_text()) | {"source": "clear"}
    assert ADAPTER.render_context(ADAPTER.parse_hook(json.dumps(clear).encode()), "x") is None
    before_tool = ADAPTER.parse_hook((PAYLOADS / "BeforeTool.replace.json").read_bytes())
    out = ADAPTER.render_context(before_tool, "trap!")
    assert out is not None
    assert json.loads(out) == {"systemMessage": "trap!"}
