"""What the end-to-end runs against the real Codex CLI found: a usage limit's reset in words,
and redaction that must cost once per kept item."""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from continuity_codex import CodexAdapter, parser
from continuity_core.schemas.session import SessionRef
from continuity_core.store import encode_document
from tests.codex.helpers import line, rollout

# The message Codex 0.171 writes for a 429 `usage_limit_reached` (its Display of the error).
LIMIT = (
    "You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), "
    "visit https://chatgpt.com/settings/usage to purchase more credits or try again at {}."
)
UTC = dt.UTC
EST = dt.timezone(dt.timedelta(hours=-5))


@pytest.fixture
def local_tz(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This machine's zone set to UTC-5 (no DST), as the CLI that wrote the words saw it."""
    monkeypatch.setenv("TZ", "EST5")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize(
    ("words", "at", "tz", "reset"),
    [
        ("6:20 AM", "2026-11-30T03:57:30.402Z", UTC, "2026-11-30T06:20:00Z"),
        ("6:20 AM", "2026-11-30T07:57:30Z", UTC, "2026-12-01T06:20:00Z"),  # next occurrence
        ("12:05 AM", "2026-11-30T07:57:30Z", UTC, "2026-12-01T00:05:00Z"),
        ("12:05 PM", "2026-11-30T07:57:30Z", UTC, "2026-11-30T12:05:00Z"),
        ("6:20 AM", "2026-11-30T06:20:30Z", UTC, "2026-11-30T06:20:00Z"),  # the minute shown
        ("11:30 PM", "2026-11-30T03:00:00Z", EST, "2026-11-30T04:30:00Z"),  # Nov 29, 22:00 local
        ("Dec 4th, 2026 3:57 PM", "2026-11-30T07:57:30Z", EST, "2026-12-04T20:57:00Z"),
        ("Jan 1st, 2027 1:02 AM", "2026-12-31T22:00:00Z", UTC, "2027-01-01T01:02:00Z"),
    ],
)
def test_reset_in_words(words: str, at: str, tz: dt.tzinfo, reset: str) -> None:
    assert parser.clock_reset(LIMIT.format(words), at, tz) == reset


def test_no_reset_in_words() -> None:
    later = "You\u2019ve hit your usage limit. Try again later."
    assert parser.clock_reset(later, "2026-11-30T03:57:30Z") is None
    assert parser.clock_reset(LIMIT.format("6:20 AM"), None) is None


def limit_rollout(tmp_path: Path, *snapshot: str) -> Path:
    error = {"message": LIMIT.format("6:20 AM"), "codex_error_info": "usage_limit_exceeded"}
    return rollout(
        tmp_path,
        "01a22a99-0000-7000-8000-000000000001",
        "/w",
        body=[
            line("event_msg", {"type": "task_started"}),
            line("event_msg", {"type": "user_message", "message": "go on"}),
            *snapshot,
            line(
                "event_msg",
                {"type": "task_complete", "error": error},
                ts="2026-11-30T10:57:30.402Z",
            ),
        ],
    )


def ref_of(path: Path) -> SessionRef:
    st = path.stat()
    return SessionRef(
        agent="codex",
        account="~/.codex",
        session_id="s",
        path=str(path),
        mtime=st.st_mtime,
        size=st.st_size,
    )


def test_usage_limit_reset_read_from_the_words_in_local_time(
    tmp_path: Path, local_tz: None
) -> None:
    session = CodexAdapter().read(ref_of(limit_rollout(tmp_path))).session
    error = session.last_error
    assert error is not None and error.kind == "usage_limit"
    assert error.reset_at == "2026-11-30T11:20:00Z"  # 6:20 AM at UTC-5, after 05:57 local


def test_a_full_rate_limit_window_beats_the_words(tmp_path: Path) -> None:
    window = {"used_percent": 100.0, "window_minutes": 300, "resets_at": 1796022450}
    snapshot = line(
        "event_msg",
        {
            "type": "token_count",
            "info": None,
            "rate_limits": {"primary": window, "secondary": None},
        },
    )
    session = CodexAdapter().read(ref_of(limit_rollout(tmp_path, snapshot))).session
    assert session.last_error is not None
    assert session.last_error.reset_at == "2026-11-30T07:07:30Z"


SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def secret_rollout(tmp_path: Path) -> Path:
    call = {
        "type": "function_call",
        "call_id": "c1",
        "name": "exec_command",
        "arguments": json.dumps({"cmd": f"echo {SECRET}"}),
    }
    plan = {
        "type": "function_call",
        "call_id": "c2",
        "name": "update_plan",
        "arguments": json.dumps({"plan": [{"step": f"rotate {SECRET}", "status": "in_progress"}]}),
    }
    return rollout(
        tmp_path,
        "01a22a99-0000-7000-8000-000000000002",
        "/w",
        body=[
            line("event_msg", {"type": "user_message", "message": f"my token is {SECRET}"}),
            line("response_item", call),
            line(
                "response_item",
                {
                    "type": "function_call_output",
                    "call_id": "c1",
                    "output": f"{SECRET}\nProcess exited with code 0",
                },
            ),
            line("response_item", plan),
            line("event_msg", {"type": "agent_message", "message": f"done with {SECRET}"}),
        ],
    )


def test_one_read_and_a_read_per_line_keep_the_same_redacted_session(tmp_path: Path) -> None:
    path = secret_rollout(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    once = parser.read(ref_of(path))
    path.write_bytes(b"")
    per_line = None
    for raw in lines:  # a cursor saved after every line, as hooks do while the agent works
        with path.open("ab") as f:
            f.write(raw)
        per_line = parser.read(ref_of(path), per_line)
    assert per_line is not None
    assert once.session == per_line.session
    for cursor in (once, per_line):
        saved = encode_document(cursor).decode()
        assert SECRET not in saved
        assert cursor.session.requests == ["my token is [REDACTED]"]
        assert [t.content for t in cursor.session.todos] == ["rotate [REDACTED]"]
        assert cursor.session.tool_calls[0].output is not None
        assert "[REDACTED]" in cursor.session.tool_calls[0].output
