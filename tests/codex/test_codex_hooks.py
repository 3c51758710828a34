"""Hook payloads, notify's argv, hook output, and finding the session a hook belongs to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_codex import CodexAdapter
from continuity_core.adapters import Account
from continuity_core.schemas.hook import HookEvent
from tests.codex.helpers import PAYLOADS, by_scenario, home_copy
from tests.conftest import FIXTURES

ADAPTER = CodexAdapter()
NOTIFY = (PAYLOADS / "notify.json").read_text()
KIND = {
    "SessionStart": "session_start",
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "Stop": "stop",
    "PreCompact": "pre_compact",
    "PostCompact": "other",
    "SessionEnd": "session_end",
    "UserPromptSubmit": "prompt",
}


def every_payload() -> list[tuple[str, dict[str, object]]]:
    rows = [json.loads(raw) for raw in (PAYLOADS / "all.jsonl").read_text().splitlines()]
    return [(r["event"], r["payload"]) for r in rows]


def test_every_captured_payload_parses_to_its_kind() -> None:
    seen = set()
    for event, payload in every_payload():
        if event == "notify":
            parsed = ADAPTER.parse_hook(b"", ["baker", json.dumps(payload)])
            assert parsed.kind == "notify" and parsed.session_id == payload["thread-id"]
        else:
            parsed = ADAPTER.parse_hook(json.dumps(payload).encode())
            assert parsed.kind == KIND[event], event
            assert parsed.session_id == payload["session_id"]
            assert parsed.cwd == payload["cwd"]
        seen.add(event)
    assert seen == {*KIND, "notify"}


def test_tool_hooks_carry_the_command_and_the_paths_a_patch_touches() -> None:
    bash = ADAPTER.parse_hook((PAYLOADS / "PreToolUse.Bash.json").read_bytes())
    assert bash.tool_name == "Bash" and bash.command and "celsius_to_fahrenheit" in bash.command
    patch = ADAPTER.parse_hook((PAYLOADS / "PreToolUse.apply_patch.json").read_bytes())
    assert patch.paths == ["weather/units.py"] and patch.command is None
    start = ADAPTER.parse_hook((PAYLOADS / "SessionStart.resume.json").read_bytes())
    assert start.source == "resume"
    compact = ADAPTER.parse_hook((PAYLOADS / "PreCompact.manual.json").read_bytes())
    assert compact.source == "manual"


@pytest.mark.parametrize(
    "argv",
    [
        [NOTIFY],
        ["--agent", "codex", "--quiet", NOTIFY],
        ["some-program", "--flag", NOTIFY],  # a chained program passes the same last argument
    ],
)
def test_notify_json_is_the_last_argument(argv: list[str]) -> None:
    event = ADAPTER.parse_hook(b"", argv)
    assert event.kind == "notify" and event.native == "agent-turn-complete"
    assert event.session_id == "01a22a99-3138-74a2-beeb-885dc8136fd9"
    assert event.cwd == "/home/dev/src/weather-cli" and event.turn_id


@pytest.mark.parametrize(
    "argv",
    [
        ["{not json"],
        ['{"type": "agent-turn-complete"}'],
        ['{"thread-id": 5, "type": "x"}'],
        ["[1, 2]"],
    ],
)
def test_bad_notify_arguments_are_rejected(argv: list[str]) -> None:
    with pytest.raises(ValueError):
        ADAPTER.parse_hook(b"", argv)


@pytest.mark.parametrize("name", ["SessionStart.json", "PreToolUse.Bash.json", "Stop.json"])
def test_other_agents_payloads_are_not_ours(name: str) -> None:
    with pytest.raises(ValueError):
        ADAPTER.parse_hook((FIXTURES / "claude" / "hook_payloads" / name).read_bytes())


def test_gemini_payloads_are_not_ours() -> None:
    with pytest.raises(ValueError):
        ADAPTER.parse_hook((FIXTURES / "gemini" / "hook_payloads" / "BeforeTool.json").read_bytes())


def test_an_ephemeral_thread_has_no_transcript_but_is_still_codex() -> None:
    payload = json.loads((PAYLOADS / "Stop.json").read_text()) | {"transcript_path": None}
    event = ADAPTER.parse_hook(json.dumps(payload).encode())
    assert event.kind == "stop" and event.transcript_path is None


def test_context_goes_out_as_additional_context_where_codex_reads_it() -> None:
    start = ADAPTER.parse_hook((PAYLOADS / "SessionStart.json").read_bytes())
    out = ADAPTER.render_context(start, "the note says: ship it")
    assert out is not None and json.loads(out) == {
        "hookSpecificOutput": {
            "hookEventName": "SessionStart",
            "additionalContext": "the note says: ship it",
        }
    }
    pre = ADAPTER.parse_hook((PAYLOADS / "PreToolUse.Bash.json").read_bytes())
    assert (
        json.loads(ADAPTER.render_context(pre, "trap") or "")["hookSpecificOutput"]["hookEventName"]
        == "PreToolUse"
    )
    stop = ADAPTER.parse_hook((PAYLOADS / "Stop.json").read_bytes())
    assert ADAPTER.render_context(stop, "anything") is None
    assert ADAPTER.render_context(ADAPTER.parse_hook(b"", [NOTIFY]), "anything") is None
    assert ADAPTER.render_context(start, "") is None


def test_session_for_hook_by_transcript_path_and_by_thread_id(tmp_path: Path) -> None:
    home = home_copy(tmp_path)
    accounts = [Account(agent="codex", name="work", dir=str(home))]
    rel, truth = by_scenario("S1")
    real = str(home / Path(rel).relative_to("codex/.codex"))
    stop = ADAPTER.parse_hook((PAYLOADS / "Stop.json").read_bytes())
    # The captured path names the capture machine's home: found by thread id instead.
    ref = ADAPTER.session_for_hook(stop, accounts)
    assert ref is not None and ref.path == real and ref.account == "work"
    moved = HookEvent(agent="codex", kind="stop", session_id="whatever", transcript_path=real)
    ref = ADAPTER.session_for_hook(moved, accounts)
    assert ref is not None and ref.session_id == truth["session_id"]
    assert ref.cwd == truth["cwd"]
    # A transcript path outside every known account still finds its home.
    ref = ADAPTER.session_for_hook(moved, [])
    assert ref is not None and ref.account == str(home)
    notify = ADAPTER.parse_hook(b"", [NOTIFY])
    ref = ADAPTER.session_for_hook(notify, accounts)
    assert ref is not None and ref.session_id == truth["session_id"]


def test_a_title_generation_thread_has_no_session(tmp_path: Path) -> None:
    home = home_copy(tmp_path)
    accounts = [Account(agent="codex", name="work", dir=str(home))]
    title = json.dumps(
        {
            "type": "agent-turn-complete",
            "thread-id": "01a22a9b-0000-7000-8000-000000000000",
            "cwd": "/home/dev/src/weather-cli",
            "input-messages": ["Generate a concise, single-line task title for this request"],
        }
    )
    assert ADAPTER.session_for_hook(ADAPTER.parse_hook(b"", [title]), accounts) is None
    (home / "state_5.sqlite").write_bytes(b"garbage")  # and with no usable index
    assert ADAPTER.session_for_hook(ADAPTER.parse_hook(b"", [title]), accounts) is None
    other = HookEvent(agent="claude", kind="stop", session_id="x")
    assert ADAPTER.session_for_hook(other, accounts) is None
