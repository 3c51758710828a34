"""Incremental transcript reading shared by every adapter, and the capped Session edits.

An adapter supplies `fold(session, extra, line)`; `read_incremental` feeds it only the lines
appended since the cursor, and starts over when the file shrank or was replaced. The cursor
(offset, the Session so far, the adapter's private `extra`) is what `.baker/cursors/` keeps.

Redaction is the costly step, so the capped edits below keep raw text and note what they
touched in `extra[PENDING]`; `settle` redacts and clips only what is still kept, once, and
`read_incremental` runs it at the end of every read (even one a fold interrupted), so no raw
text is left in a returned or saved cursor.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from typing import Any

import msgspec

from continuity_core.fs import hexdigest
from continuity_core.jsonl import ForwardReader
from continuity_core.redact import redact, redact_obj
from continuity_core.schemas.session import (
    ApiError,
    Compaction,
    FileEdit,
    Message,
    Session,
    SessionRef,
    TodoItem,
    ToolCall,
    limits,
)

HEAD_BYTES = 256
COLD_MAX = 32 << 20  # the most a first read takes, from the end (docs/decisions.md)
PENDING = "_pending"  # the key in `extra` of what waits for `settle`; never saved

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
    return len(head), hexdigest(head, "sha256")


def new_cursor(ref: SessionRef, offset: int = 0) -> Cursor:
    """A cursor that starts reading `ref` at `offset`, with an empty Session."""
    head_len, head_sha = _digest(ref.path)
    return Cursor(
        path=ref.path, offset=offset, ino=os.stat(ref.path).st_ino, head_len=head_len,
        head_sha=head_sha,
        session=Session(agent=ref.agent, session_id=ref.session_id, path=ref.path,
                        account=ref.account, cwd=ref.cwd),
    )


def tail_cursor(ref: SessionRef, cold_max: int | None = None) -> Cursor | None:
    """For a transcript over `cold_max` bytes, a cursor at the first line of its last part.

    A first read must fit a hook's deadline whatever the file's size; the newest requests,
    todos, calls and usage lie at the end. What came before that part is not read.
    """
    cold_max = COLD_MAX if cold_max is None else cold_max
    try:
        size = os.stat(ref.path).st_size
        if size <= cold_max:
            return None
        with open(ref.path, "rb") as f:
            offset = f.seek(size - cold_max)
            while True:  # skip the rest of the line the seek cut, in bounded reads
                block = f.read(1 << 20)
                cut = block.find(b"\n")
                if cut >= 0 or not block:
                    offset += cut + 1 if cut >= 0 else len(block)
                    break
                offset += len(block)
    except OSError:
        return None
    return new_cursor(ref, offset)


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
    cold: bool = True,
    finish: Callable[[Session, dict[str, Any]], None] | None = None,
    compaction_marker: bytes = b"",
) -> Cursor:
    """Fold the lines of `ref.path` appended since `cursor` into its Session; a file never read
    (or replaced) over `COLD_MAX` bytes is read from its last `COLD_MAX` bytes when `cold`.

    `finish` runs after `settle`, for an adapter's own derived state. `compaction_marker`,
    bytes found once in each compaction record and nowhere else (quotes inside JSON strings
    are escaped), lets a cold read count the compactions of the part it skips with a byte
    scan, so `compactions_total` covers the whole file.
    """
    st = os.stat(ref.path)
    if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
        raise ValueError(f"{ref.path} is not a regular file")
    if cursor is None or cursor.path != ref.path or not _same_file(cursor, st):
        cursor = (tail_cursor(ref) if cold else None) or new_cursor(ref)
        cursor.session.unread_bytes = cursor.offset  # what came before stays unknown
        if cursor.offset and compaction_marker:
            cursor.session.compactions_total = count_marker(ref.path, compaction_marker,
                                                            cursor.offset)
            cursor.session.compactions_scanned = True
    elif cursor.head_len < HEAD_BYTES and st.st_size > cursor.head_len:
        cursor.head_len, cursor.head_sha = _digest(ref.path)  # the file grew past the old head
    session, extra = cursor.session, cursor.extra
    reader = ForwardReader(ref.path, cursor.offset, include_tail=include_tail)
    try:
        for line in reader:
            session.records += 1
            try:
                fold(session, extra, line)
            except (msgspec.DecodeError, msgspec.ValidationError, UnicodeDecodeError, ValueError,
                    KeyError, TypeError, AttributeError, IndexError):
                session.bad_lines += 1
        session.bad_lines += reader.skipped_long
        cursor.offset = reader.offset
    finally:  # the caller's cursor holds this Session even when the read is interrupted
        settle(session, extra)
        if finish is not None:
            finish(session, extra)
    return cursor


def count_marker(path: str, marker: bytes, end: int, block: int = 1 << 20) -> int:
    """How often `marker` occurs in the first `end` bytes of `path`: a page-cache-speed scan
    in bounded blocks (a match across two blocks is found by keeping the marker's length).

    The scan looks for the marker's longest word and checks the whole marker at each hit:
    CPython searches a word several times faster than a needle with quotes around it.
    """
    word = max(re.findall(rb"\w+", marker) or [marker], key=len)
    at = marker.find(word)
    count, pos, keep = 0, 0, len(marker) - 1
    carry = b""
    with open(path, "rb") as f:
        while pos < end:
            chunk = f.read(min(block, end - pos))
            if not chunk:
                break
            pos += len(chunk)
            data = carry + chunk
            hit = data.find(word, at)
            while hit >= 0:
                start = hit - at
                count += data.startswith(marker, start)
                hit = data.find(word, hit + 1)
            # what could start a match in the next block; never a whole match (counted)
            carry = data[-keep:] if keep else b""
    return count


# --- capped edits: every adapter keeps a Session bounded the same way -----------------------

def add_compaction(session: Session, compaction: Compaction) -> None:
    """A compaction: counted in `compactions_total`; the newest few are kept."""
    session.compactions.append(compaction)
    session.compactions_total += 1
    del session.compactions[: -limits.COMPACTIONS]


def clip(text: str, limit: int = limits.TEXT) -> str:
    if len(text) <= limit:
        return text
    return text[: limit - 20] + f" … [{len(text) - limit + 20} chars cut]"


def _pending(extra: dict[str, Any]) -> dict[str, Any]:
    pending: dict[str, Any] = extra.setdefault(PENDING, {})
    return pending


def add_request(
    session: Session, extra: dict[str, Any], text: str, timestamp: str | None = None
) -> None:
    """A request the user typed: kept verbatim in `requests` and as a message (redacted later)."""
    session.requests.append(text)
    del session.requests[: -limits.REQUESTS]
    pending = _pending(extra)
    pending["requests"] = pending.get("requests", 0) + 1
    add_message(session, extra, "user", text, kind="request", timestamp=timestamp)


def add_message(
    session: Session, extra: dict[str, Any], role: Any, text: str, *, kind: Any = "response",
    timestamp: str | None = None,
) -> None:
    """A message, clipped when settled unless it is a request."""
    session.messages.append(Message(role=role, text=text, kind=kind, timestamp=timestamp))
    del session.messages[: -limits.MESSAGES]
    pending = _pending(extra)
    pending["messages"] = pending.get("messages", 0) + 1


def drop_request(session: Session, extra: dict[str, Any]) -> None:
    """Take the newest request back (a rewind); its message is dropped on its own."""
    _drop(session.requests, extra, "requests")


def drop_message(session: Session, extra: dict[str, Any]) -> None:
    """Take the newest message back (a rewind or a replaced answer)."""
    _drop(session.messages, extra, "messages")


def _drop(items: list[Any], extra: dict[str, Any], key: str) -> None:
    if items:
        items.pop()
        pending = _pending(extra)
        if pending.get(key):  # this read added it: it no longer waits for `settle`
            pending[key] -= 1


def _touch(extra: dict[str, Any], key: str, call_id: str) -> None:
    touched: dict[str, None] = _pending(extra).setdefault(key, {})
    touched.pop(call_id, None)
    touched[call_id] = None
    if len(touched) > 2 * limits.TOOL_CALLS:  # more than the calls a session keeps
        del touched[next(iter(touched))]


def add_call(session: Session, extra: dict[str, Any], call: ToolCall) -> None:
    """Record a call (or replace the one with its id); its input is redacted and clipped later."""
    _touch(extra, "inputs", call.id)
    if call.output is not None:
        _touch(extra, "outputs", call.id)
    for i, old in enumerate(session.tool_calls):
        if old.id == call.id:
            session.tool_calls[i] = call
            return
    session.tool_calls.append(call)
    del session.tool_calls[: -limits.TOOL_CALLS]


def set_result(
    session: Session, extra: dict[str, Any], call_id: str, output: str, *, is_error: bool = False
) -> bool:
    """Record a tool result; False when the call is not (or no longer) kept."""
    for call in reversed(session.tool_calls):
        if call.id == call_id:
            call.output, call.is_error = output, is_error
            _touch(extra, "outputs", call_id)
            return True
    return False


def set_todos(session: Session, extra: dict[str, Any], todos: list[TodoItem]) -> None:
    """Replace the todo list; its contents are redacted when settled."""
    session.todos = todos
    _pending(extra)["todos"] = True


def settle(session: Session, extra: dict[str, Any]) -> None:
    """Redact and clip what the edits above added since the last settle and `session` keeps."""
    pending = extra.pop(PENDING, None)
    if not pending:
        return
    new = min(pending.get("requests", 0), len(session.requests))
    for i in range(len(session.requests) - new, len(session.requests)):
        session.requests[i] = redact(session.requests[i])
    new = min(pending.get("messages", 0), len(session.messages))
    for m in session.messages[len(session.messages) - new :]:
        m.text = redact(m.text) if m.kind == "request" else clip(redact(m.text))
    inputs, outputs = pending.get("inputs", {}), pending.get("outputs", {})
    for call in session.tool_calls if inputs or outputs else ():
        if call.id in inputs:
            call.input = clip_obj(redact_obj(call.input))
        if call.id in outputs and call.output is not None:
            call.output = clip(redact(call.output))
    if pending.get("todos"):
        for todo in session.todos:
            todo.content = redact(todo.content)


def clip_obj(value: Any, limit: int = limits.TEXT) -> Any:
    """Long strings inside a structure (a tool's input: a whole file for Write) cut like text."""
    if isinstance(value, str):
        return clip(value, limit)
    if isinstance(value, dict):
        return {k: clip_obj(v, limit) for k, v in value.items()}
    if isinstance(value, list):
        return [clip_obj(v, limit) for v in value]
    return value


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


def project_relative(session: Session, root: Any) -> Session:
    """`session` with its edited files relative to the project root, not to the folder the
    agent ran in: a session started in `docs/` edits `docs/index.md`, which is what the next
    agent, started at the root, needs. A session run outside `root` is returned as it is."""
    cwd, top = session.cwd, os.path.abspath(str(root))
    if not cwd or not os.path.isabs(cwd) or not session.files_edited:
        return session
    base = _inside(cwd, top)
    if base is None or base == ".":
        return session

    def rebase(path: str | None) -> str | None:
        if not path or os.path.isabs(path):
            return path
        return os.path.normpath(os.path.join(base, path)).replace(os.sep, "/")

    edits = [msgspec.structs.replace(f, path=rebase(f.path) or f.path, moved_to=rebase(f.moved_to))
             for f in session.files_edited]
    return msgspec.structs.replace(session, files_edited=edits)


def _inside(cwd: str, top: str) -> str | None:
    """`cwd` relative to `top` ("." for `top` itself), symlinks resolved if need be; None
    outside it."""
    for a, b in ((os.path.abspath(cwd), top), (os.path.realpath(cwd), os.path.realpath(top))):
        if a == b:
            return "."
        if a.startswith(b.rstrip(os.sep) + os.sep):
            return os.path.relpath(a, b)
    return None
