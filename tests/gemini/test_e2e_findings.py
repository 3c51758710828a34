"""What the end-to-end runs against the real Gemini CLI 0.61 found: it offers and runs
`write_todos`; and redaction must cost once per kept item, rewinds included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from continuity_core.schemas.session import SessionRef
from continuity_core.store import encode_document
from continuity_core.transcript import Cursor
from continuity_gemini import GeminiAdapter
from tests.gemini.chatlog import CONTEXT, PAYLOADS, SID, call, gemini, header, user, write_log

# The arguments exactly as the CLI passed them to the tool (BeforeTool payload).
PLAN = json.loads((PAYLOADS / "BeforeTool.write_todos.json").read_text())["tool_input"]
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def log(tmp_path: Path, records: list[Any]) -> Path:
    return write_log(
        tmp_path / "chats" / "session-2026-11-30T04-00-5e551011.jsonl",
        [header(), CONTEXT, *records],
    )


def read(path: Path, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
    ref = SessionRef(
        agent="gemini",
        account="~/.gemini",
        session_id=SID,
        path=str(path),
        mtime=path.stat().st_mtime,
        cwd="/work/proj",
    )
    return GeminiAdapter().read(ref, cursor)


def test_write_todos_becomes_the_todo_list_with_statuses(tmp_path: Path) -> None:
    later = {
        "todos": [
            {**t, "status": s}
            for t, s in zip(
                PLAN["todos"], ("completed", "in_progress", "cancelled", "pending"), strict=True
            )
        ]
    }
    path = log(
        tmp_path,
        [user("u1", "Add the helper"), gemini("g1", "", calls=[call("w1", "write_todos", PLAN)])],
    )
    cursor = read(path)
    assert [(t.content, t.status) for t in cursor.session.todos] == [
        (t["description"], t["status"]) for t in PLAN["todos"]
    ]
    with path.open("a") as f:
        f.write(json.dumps(gemini("g2", "", calls=[call("w2", "write_todos", later)])) + "\n")
    session = read(path, cursor).session
    assert [t.status for t in session.todos] == ["completed", "in_progress", "cancelled", "pending"]
    assert session.todos[0].content == "Create weather/units.py with celsius_to_fahrenheit()"


def test_a_todo_the_tool_refused_is_not_the_list(tmp_path: Path) -> None:
    failed = call("w1", "write_todos", PLAN, output=None, status="error")
    session = read(log(tmp_path, [user("u1", "plan"), gemini("g1", "", calls=[failed])])).session
    assert session.todos == []


def test_what_the_cursor_saves_is_redacted_once_rewinds_included(tmp_path: Path) -> None:
    todo = {"todos": [{"description": f"rotate {SECRET}", "status": "pending"}]}
    shell = call("s1", "run_shell_command", {"command": f"echo {SECRET}"}, output=SECRET)
    path = log(
        tmp_path,
        [
            user("u1", f"my token is {SECRET}"),
            gemini("g1", f"noted {SECRET}", calls=[shell, call("w1", "write_todos", todo)]),
            user("u2", "a second thought"),
            gemini("g2", "answer to drop"),
            {"$rewindTo": "u2"},  # takes back a request and a message this same read added
        ],
    )
    cursor = read(path)
    session = cursor.session
    assert SECRET not in encode_document(cursor).decode()
    assert session.requests == ["my token is [REDACTED]"]
    assert [m.text for m in session.messages] == ["my token is [REDACTED]", "noted [REDACTED]"]
    assert session.tool_calls[0].input == {"command": "echo [REDACTED]"}
    assert session.tool_calls[0].output == "[REDACTED]"
    assert [t.content for t in session.todos] == ["rotate [REDACTED]"]


def test_a_rewind_into_an_earlier_read_then_new_words(tmp_path: Path) -> None:
    path = log(
        tmp_path, [user("u1", "one"), gemini("g1", "a"), user("u2", "two"), gemini("g2", "b")]
    )
    cursor = read(path)
    with path.open("a") as f:
        for rec in ({"$rewindTo": "u2"}, user("u3", f"use {SECRET}"), gemini("g3", SECRET)):
            f.write(json.dumps(rec) + "\n")
    cursor = read(path, cursor)
    # lookup aids and counters are not saved: the state is the view and the saved todos
    assert set(msgspec.to_builtins(cursor.state)) <= {"view", "todos"}
    assert cursor.session.requests == ["one", "use [REDACTED]"]
    assert [m.text for m in cursor.session.messages] == ["one", "a", "use [REDACTED]", "[REDACTED]"]
