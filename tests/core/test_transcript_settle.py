"""The capped Session edits keep text raw until `read_incremental` redacts what a read kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from continuity_core import transcript
from continuity_core.redact import redact
from continuity_core.schemas.session import Session, SessionRef, TodoItem, ToolCall, limits
from continuity_core.store import encode_document
from continuity_core.transcript import (
    add_call,
    add_message,
    add_request,
    read_incremental,
    set_result,
    set_todos,
)

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def fold(session: Session, extra: dict[str, Any], line: bytes) -> None:
    """A tiny transcript format: one edit per line."""
    rec = json.loads(line)
    kind, text = rec["k"], rec.get("t", "")
    if kind == "request":
        add_request(session, extra, text)
    elif kind == "message":
        add_message(session, extra, "assistant", text)
    elif kind == "call":
        add_call(session, extra, ToolCall(id=rec["id"], name="Write", input={"a": [{"b": text}]}))
    elif kind == "result":
        set_result(session, extra, rec["id"], text)
    elif kind == "todos":
        set_todos(session, extra, [TodoItem(content=text)])
    elif kind == "edit":
        session.cwd = rec["cwd"]
        session.git_branch, session.model = f"fix/{text}", f"m-{text}"
        add_call(session, extra, ToolCall(id=rec["id"], name=f"mcp:{text}"))
        transcript.add_edit(
            session, f"{rec['cwd']}/notes/{text}.txt", "move", "Write", moved_to=f"old/{text}.txt"
        )
    elif kind == "boom":
        raise RuntimeError("an interrupted read")


def write(path: Path, records: list[dict[str, Any]]) -> SessionRef:
    with path.open("a") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)
    st = path.stat()
    return SessionRef(
        agent="claude",
        account="a",
        session_id="s",
        path=str(path),
        mtime=st.st_mtime,
        size=st.st_size,
    )


EVERYTHING = [
    {"k": "request", "t": f"use {SECRET} " + "x" * 9000},
    {"k": "message", "t": f"ok {SECRET} " + "y" * 9000},
    {"k": "call", "id": "c1", "t": f"{SECRET} " + "z" * 9000},
    {"k": "result", "id": "c1", "t": f"{SECRET} " + "w" * 9000},
    {"k": "todos", "t": f"rotate {SECRET}"},
]


def test_a_read_redacts_what_it_kept_requests_verbatim_the_rest_clipped(tmp_path: Path) -> None:
    cursor = read_incremental(write(tmp_path / "t.jsonl", EVERYTHING), None, fold)
    s = cursor.session
    assert SECRET not in encode_document(cursor).decode()
    assert s.requests[0].startswith("use [REDACTED] ") and len(s.requests[0]) > 9000
    assert s.messages[0].text == s.requests[0]  # the request's message is not clipped either
    assert s.messages[1].text.startswith("ok [REDACTED]")
    assert len(s.messages[1].text) <= limits.TEXT
    call = s.tool_calls[0]
    assert call.input["a"][0]["b"].startswith("[REDACTED]")
    assert len(call.input["a"][0]["b"]) <= limits.TEXT
    assert call.output is not None and call.output.startswith("[REDACTED]")
    assert len(call.output) <= limits.TEXT
    assert s.todos[0].content == "rotate [REDACTED]"
    assert transcript.PENDING not in msgspec.to_builtins(cursor.state)


def test_a_read_an_exception_interrupts_still_redacts_what_it_kept(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    cursor = read_incremental(write(path, [{"k": "request", "t": "hello"}]), None, fold)
    ref = write(path, [*EVERYTHING, {"k": "boom"}, {"k": "request", "t": "never read"}])
    with pytest.raises(RuntimeError):
        read_incremental(ref, cursor, fold)
    # The caller still holds this cursor and may save it: nothing in it is raw.
    assert SECRET not in encode_document(cursor).decode()
    assert cursor.session.requests[0] == "hello"
    assert len(cursor.session.messages[-1].text) <= limits.TEXT


def test_redaction_work_is_bounded_by_what_the_session_keeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []

    def counting(text: str) -> str:
        calls.append(text)
        return redact(text)

    monkeypatch.setattr(transcript, "redact", counting)
    records: list[dict[str, Any]] = []
    for i in range(2000):
        records += [
            {"k": "request", "t": f"ask {i}"},
            {"k": "message", "t": f"say {i}"},
            {"k": "call", "id": f"c{i}", "t": "in"},
            {"k": "result", "id": f"c{i}"},
        ]
    path = tmp_path / "t.jsonl"
    cursor = read_incremental(write(path, records), None, fold)
    s = cursor.session
    assert len(s.requests) == limits.REQUESTS and s.requests[-1] == "ask 1999"
    assert len(s.messages) == limits.MESSAGES and len(s.tool_calls) == limits.TOOL_CALLS
    # Requests, messages, and each kept call's output and name.
    assert len(calls) <= limits.REQUESTS + limits.MESSAGES + 2 * limits.TOOL_CALLS
    calls.clear()
    cursor = read_incremental(write(path, [{"k": "message", "t": "one more"}]), cursor, fold)
    assert calls == ["one more"]  # what an earlier read kept is not redacted again


def test_every_string_a_session_keeps_is_redacted(tmp_path: Path) -> None:
    """A file named after a token, a tool or branch name holding one: what `handoff` shows
    redacted is redacted in the cursor and checkpoint too, not only where it is printed."""
    path = tmp_path / "t.jsonl"
    record = {"k": "edit", "id": "e1", "t": SECRET, "cwd": f"/w/{SECRET}"}
    cursor = read_incremental(write(path, [record]), None, fold)
    assert SECRET not in encode_document(cursor).decode()
    s = cursor.session
    assert s.files_edited[0].path == "notes/[REDACTED].txt"
    assert s.files_edited[0].moved_to == "old/[REDACTED].txt"
    assert (s.cwd, s.git_branch, s.model) == ("/w/[REDACTED]", "fix/[REDACTED]", "m-[REDACTED]")
    assert s.tool_calls[0].name == "mcp:[REDACTED]"
    cursor = read_incremental(write(path, [{**record, "id": "e2"}]), cursor, fold)
    assert SECRET not in encode_document(cursor).decode()
    assert [e.count for e in cursor.session.files_edited] == [2]  # the same file, counted once
