"""What the end-to-end runs against the real Claude Code found: batched Task* calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from continuity_claude import ClaudeAdapter
from continuity_core.schemas.session import Session, SessionRef

TS = "2026-11-30T04:00:00.000Z"


def assistant(msg_id: str, block: dict[str, Any]) -> dict[str, Any]:
    """One content block of an API message: Claude Code writes a record per block."""
    return {
        "type": "assistant",
        "timestamp": TS,
        "isSidechain": False,
        "message": {
            "id": msg_id,
            "model": "claude-opus-4-8",
            "role": "assistant",
            "content": [block],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 5},
        },
    }


def tool_use(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


def result(call_id: str, content: str, structured: Any, *, error: bool = False) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call_id, "content": content}
    if error:
        block["is_error"] = True
    return {
        "type": "user",
        "timestamp": TS,
        "isSidechain": False,
        "toolUseResult": structured,
        "message": {"role": "user", "content": [block]},
    }


def created(call_id: str, task_id: str, subject: str) -> dict[str, Any]:
    return result(
        call_id,
        f"Task #{task_id} created successfully: {subject}",
        {"task": {"id": task_id, "subject": subject}},
    )


def updated(call_id: str, task_id: str) -> dict[str, Any]:
    return result(
        call_id,
        f"Updated task #{task_id} status",
        {"success": True, "taskId": task_id, "updatedFields": ["status"]},
    )


def read(tmp_path: Path, records: list[dict[str, Any]]) -> Session:
    path = tmp_path / "s1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    st = path.stat()
    ref = SessionRef(
        agent="claude",
        account="~/.claude",
        session_id="s1",
        path=str(path),
        mtime=st.st_mtime,
        size=st.st_size,
    )
    return ClaudeAdapter().read(ref).session


def todos(session: Session) -> list[tuple[str | None, str, str]]:
    return [(t.id, t.content, t.status) for t in session.todos]


BATCH = [  # what the mock's `todos` turn makes Claude Code 2.1 write, in the file's order
    {"type": "user", "timestamp": TS, "message": {"role": "user", "content": "plan the work"}},
    assistant(
        "m1",
        tool_use(
            "c1", "TaskCreate", subject="Run the shell check", description="d", activeForm="a"
        ),
    ),
    assistant(
        "m1",
        tool_use("c2", "TaskCreate", subject="Write hello.txt", description="d", activeForm="a"),
    ),
    assistant("m1", tool_use("c3", "TaskUpdate", taskId="1", status="in_progress")),
]


def test_update_batched_with_its_create_keeps_its_status(tmp_path: Path) -> None:
    session = read(
        tmp_path,
        [
            *BATCH,
            created("c1", "1", "Run the shell check"),
            created("c2", "2", "Write hello.txt"),
            updated("c3", "1"),
        ],
    )
    assert todos(session) == [
        ("1", "Run the shell check", "in_progress"),
        ("2", "Write hello.txt", "pending"),
    ]


def test_update_whose_result_comes_before_the_create_result(tmp_path: Path) -> None:
    session = read(
        tmp_path,
        [
            *BATCH,
            updated("c3", "1"),
            created("c1", "1", "Run the shell check"),
            created("c2", "2", "Write hello.txt"),
        ],
    )
    assert todos(session)[0] == ("1", "Run the shell check", "in_progress")


def test_failed_or_unanswered_update_changes_nothing(tmp_path: Path) -> None:
    failed = result("c3", "Error: Task not found", "Error: Task not found", error=True)
    session = read(
        tmp_path,
        [
            *BATCH,
            created("c1", "1", "Run the shell check"),
            created("c2", "2", "Write hello.txt"),
            failed,
        ],
    )
    assert todos(session)[0] == ("1", "Run the shell check", "pending")
    session = read(tmp_path, [*BATCH, created("c1", "1", "Run the shell check")])
    assert todos(session) == [("1", "Run the shell check", "pending")]


def test_update_across_reads_and_subject_redacted(tmp_path: Path) -> None:
    secret = "AKIA" + "Q3EGRIGNZ5ZJVX7M"
    path = tmp_path / "s1.jsonl"
    first = [
        *BATCH[:2],
        assistant("m1", tool_use("c3", "TaskUpdate", taskId="1", subject=f"use key {secret}")),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in first))
    st = path.stat()
    ref = SessionRef(
        agent="claude",
        account="~/.claude",
        session_id="s1",
        path=str(path),
        mtime=st.st_mtime,
        size=st.st_size,
    )
    adapter = ClaudeAdapter()
    cursor = adapter.read(ref)
    assert secret.encode() not in msgspec.json.encode(cursor.state)  # reaches disk redacted
    with path.open("a") as f:
        for r in (created("c1", "1", "Run the shell check"), updated("c3", "1")):
            f.write(json.dumps(r) + "\n")
    session = adapter.read(ref, cursor).session
    assert [t.content for t in session.todos] == ["use key [REDACTED]"]
