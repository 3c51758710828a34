"""A tool call the transcript never recorded (the agent died while it ran) still reaches the
brief, because the pre-tool hook saw it start."""

from __future__ import annotations

from pathlib import Path

from continuity_core import brief, inflight
from continuity_core.schemas.checkpoint import GitFacts
from continuity_core.schemas.hook import HookEvent
from continuity_core.schemas.session import Session, ToolCall
from continuity_core.store import Store


def store_in(tmp_path: Path) -> Store:
    (tmp_path / ".baker").mkdir(mode=0o700)
    return Store(tmp_path)


def event(session_id: str = "s1") -> HookEvent:
    return HookEvent(
        agent="gemini",
        kind="pre_tool",
        session_id=session_id,
        tool_name="run_shell_command",
        command="sleep 60 && ./scripts/integration.sh",
    )


def test_a_call_after_the_last_record_is_reported(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    session = Session(agent="gemini", session_id="s1", updated_at="2000-01-01T00:00:00Z")
    inflight.record(store, event())
    call = inflight.unrecorded(store, session)
    assert call is not None and call.command == "sleep 60 && ./scripts/integration.sh"
    text = brief.render(
        brief.build(
            project="/p",
            created_at="t",
            git=GitFacts(),
            note_text=None,
            session=session,
            unrecorded=call,
        )
    )
    assert "sleep 60 && ./scripts/integration.sh" in text and "pre-tool hook" in text


def test_a_call_the_transcript_moved_past_is_not(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    inflight.record(store, event())
    later = Session(agent="gemini", session_id="s1", updated_at="2999-01-01T00:00:00Z")
    assert inflight.unrecorded(store, later) is None
    pending = Session(
        agent="gemini", session_id="s1", tool_calls=[ToolCall(id="t", name="run_shell_command")]
    )
    assert inflight.unrecorded(store, pending) is None  # the transcript says it already
    inflight.clear(store, "gemini", "s1")
    assert inflight.unrecorded(store, Session(agent="gemini", session_id="s1")) is None


def test_a_record_written_late_keeps_when_the_call_started(tmp_path: Path) -> None:
    """The pre-tool hook's child writes the record after the answer: the call's start is when
    the hook saw it, so a transcript that moved on before the write still says it returned."""
    store = store_in(tmp_path)
    inflight.record(store, event(), "2026-01-01T00:00:00Z")
    moved = Session(agent="gemini", session_id="s1", updated_at="2026-01-01T00:00:01Z")
    assert inflight.unrecorded(store, moved) is None
    before = Session(agent="gemini", session_id="s1", updated_at="2025-12-31T23:59:59Z")
    call = inflight.unrecorded(store, before)
    assert call is not None and call.started_at == "2026-01-01T00:00:00Z"


def test_a_path_named_after_a_token_is_stored_redacted(tmp_path: Path) -> None:
    token = "ghp_" + "P4thT0k3nA1b2C3d4E5f6G7h8I9j0K1l2M3n"
    store = store_in(tmp_path)
    inflight.record(
        store,
        HookEvent(
            agent="claude",
            kind="pre_tool",
            session_id="s1",
            tool_name="Write",
            paths=[f"notes/{token}.txt"],
        ),
    )
    [stored] = (tmp_path / ".baker" / "inflight").iterdir()
    assert token not in stored.read_text() and "notes/[REDACTED].txt" in stored.read_text()
