"""A session with a secret in its request, message and tail: the brief and handoff tests' input."""

from __future__ import annotations

from continuity_core.schemas.session import ApiError, FileEdit, Message, Session, TodoItem, ToolCall

SECRET = "ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6"


def session(**kw: object) -> Session:
    base = Session(
        agent="claude",
        session_id="s-1",
        path="/t.jsonl",
        account="~/.claude",
        requests=["first", f"Fix the deploy; token {SECRET}"],
        messages=[
            Message(role="user", text="Fix the deploy", kind="request"),
            Message(role="assistant", text=f"Using {SECRET} " + "x" * 3000),
        ],
        todos=[TodoItem(content="Run the tests", status="in_progress")],
        files_edited=[FileEdit(path="deploy.sh", action="edit", count=2)],
        tool_calls=[ToolCall(id="t1", name="Bash", input={"command": "sleep 60 && ./it.sh"})],
        errors=[
            ApiError(kind="usage_limit", message="limit reached", reset_at="2026-12-01T00:00Z")
        ],
    )
    for k, v in kw.items():
        setattr(base, k, v)
    return base
