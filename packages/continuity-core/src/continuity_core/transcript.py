"""Incremental transcript reading shared by every adapter, and the capped Session edits.

An adapter supplies `fold(session, extra, line)`; `read_incremental` feeds it only the lines
appended since the cursor, and starts over when the file shrank or was replaced. The cursor
(offset, the Session so far, the adapter's private `extra`) is what `.baker/cursors/` keeps.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from typing import Any

import msgspec

from continuity_core.jsonl import ForwardReader
from continuity_core.redact import redact
from continuity_core.schemas.session import (
    ApiError,
    FileEdit,
    Message,
    Session,
    SessionRef,
    ToolCall,
    limits,
)

HEAD_BYTES = 256

Fold = Callable[[Session, dict[str, Any], bytes], None]


class Cursor(msgspec.Struct, kw_only=True):
    path: str
    offset: int = 0
    ino: int = 0
    # A digest of the file's first `head_len` bytes: other first bytes mean a replaced file.
    # Only the digest is kept, so no transcript text reaches the cursor unredacted.
    head_len: int = 0
    head_sha: str = ""
    session: Session
    extra: dict[str, Any] = msgspec.field(default_factory=dict)


def _digest(path: str, length: int = HEAD_BYTES) -> tuple[int, str]:
    with open(path, "rb") as f:
        head = f.read(length)
    return len(head), hashlib.sha256(head).hexdigest()


def new_cursor(ref: SessionRef, offset: int = 0) -> Cursor:
    """A cursor that starts reading `ref` at `offset`, with an empty Session."""
    head_len, head_sha = _digest(ref.path)
    return Cursor(
        path=ref.path, offset=offset, ino=os.stat(ref.path).st_ino, head_len=head_len,
        head_sha=head_sha,
        session=Session(agent=ref.agent, session_id=ref.session_id, path=ref.path,
                        account=ref.account, cwd=ref.cwd),
    )


def _same_file(cursor: Cursor, st: os.stat_result) -> bool:
    if st.st_size < cursor.offset or cursor.ino != st.st_ino:
        return False
    return _digest(cursor.path, cursor.head_len) == (cursor.head_len, cursor.head_sha)


def read_incremental(
    ref: SessionRef,
    cursor: Cursor | None,
    fold: Fold,
    *,
    include_tail: bool = False,
    finish: Callable[[Session, dict[str, Any]], None] | None = None,
) -> Cursor:
    """Fold the lines of `ref.path` appended since `cursor` into its Session."""
    st = os.stat(ref.path)
    if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
        raise ValueError(f"{ref.path} is not a regular file")
    if cursor is None or cursor.path != ref.path or not _same_file(cursor, st):
        cursor = new_cursor(ref)
    elif cursor.head_len < HEAD_BYTES and st.st_size > cursor.head_len:
        cursor.head_len, cursor.head_sha = _digest(ref.path)  # the file grew past the old head
    session, extra = cursor.session, cursor.extra
    reader = ForwardReader(ref.path, cursor.offset, include_tail=include_tail)
    for line in reader:
        session.records += 1
        try:
            fold(session, extra, line)
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, ValueError,
                KeyError, TypeError, AttributeError, IndexError):
            session.bad_lines += 1
    session.bad_lines += reader.skipped_long
    cursor.offset = reader.offset
    if finish is not None:
        finish(session, extra)
    return cursor


# --- capped edits: every adapter keeps a Session bounded the same way -----------------------

def clip(text: str, limit: int = limits.TEXT) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 20] + f" … [{len(text) - limit + 20} chars cut]"


def add_request(session: Session, text: str, timestamp: str | None = None) -> None:
    """A request the user typed: kept verbatim (redacted) in `requests` and as a message."""
    text = redact(text)
    session.requests.append(text)
    del session.requests[: -limits.REQUESTS]
    add_message(session, "user", text, kind="request", timestamp=timestamp, cut=False)


def add_message(
    session: Session, role: Any, text: str, *, kind: Any = "response",
    timestamp: str | None = None, cut: bool = True,
) -> None:
    text = redact(text)
    session.messages.append(
        Message(role=role, text=clip(text) if cut else text, kind=kind, timestamp=timestamp)
    )
    del session.messages[: -limits.MESSAGES]


def add_call(session: Session, call: ToolCall) -> None:
    for i, old in enumerate(session.tool_calls):
        if old.id == call.id:
            session.tool_calls[i] = call
            return
    session.tool_calls.append(call)
    del session.tool_calls[: -limits.TOOL_CALLS]


def set_result(session: Session, call_id: str, output: str, *, is_error: bool = False) -> bool:
    """Record a tool result; False when the call is not (or no longer) kept."""
    for call in reversed(session.tool_calls):
        if call.id == call_id:
            call.output = clip(redact(output))
            call.is_error = is_error
            return True
    return False


def add_edit(
    session: Session, path: str, action: Any = "edit", tool: str = "",
    moved_to: str | None = None,
) -> None:
    """Note a file edit; the same path edited again counts up and moves to the end."""
    rel = relative_to_cwd(path, session.cwd)
    for i, edit in enumerate(session.files_edited):
        if edit.path == rel:
            edit.count += 1
            if action != "edit":  # a later write, delete or move says more than an edit
                edit.action = action
            edit.moved_to = moved_to or edit.moved_to
            edit.tool = tool or edit.tool
            session.files_edited.append(session.files_edited.pop(i))
            return
    session.files_edited.append(FileEdit(path=rel, action=action, tool=tool, moved_to=moved_to))


def add_error(session: Session, error: ApiError) -> None:
    error.message = clip(redact(error.message), 1000)
    session.errors.append(error)
    del session.errors[: -limits.ERRORS]


def relative_to_cwd(path: str, cwd: str | None) -> str:
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1 :]
    return path
