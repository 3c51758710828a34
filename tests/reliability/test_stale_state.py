"""baker's own state written by one process and read by a later one: the in-flight record the
pre-tool hook's detached child writes may not outlive what it describes: a record written after
a later call's is not taken as the truth."""

from __future__ import annotations

from pathlib import Path

from continuity_core import inflight
from continuity_core.schemas.hook import HookEvent
from continuity_core.store import Store


def _event(tool: str, command: str) -> HookEvent:
    return HookEvent(
        agent="gemini",
        kind="pre_tool",
        session_id="s-1",
        tool_name=tool,
        command=command,
        cwd="/nowhere",
    )


def test_an_in_flight_record_written_late_keeps_the_later_call(repo: Path) -> None:
    """The pre-tool hook answers first and its detached child writes the record: the child
    of an earlier call can write after the child of the call that followed it. The call
    that started last stays the one in flight, whichever write lands last, though both
    started within one second; and a new call replaces it."""
    store = Store(repo)
    first, second = _event("run_shell_command", "make"), _event("run_shell_command", "pytest")
    inflight.record(store, second, "2026-12-05T12:00:01.420Z")
    inflight.record(store, first, "2026-12-05T12:00:01.080Z")  # the slower child, landing last
    call = inflight._load(inflight._path(store, "gemini", "s-1"))
    assert call.command == "pytest" and call.started_at == "2026-12-05T12:00:01.420Z"
    third = _event("run_shell_command", "make deploy")
    inflight.record(store, third, "2026-12-05T12:00:03.000Z")
    assert inflight._load(inflight._path(store, "gemini", "s-1")).command == "make deploy"
