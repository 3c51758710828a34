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

import functools
import os
import stat
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import msgspec
from msgspec import Struct, field

from continuity_core import jsonl
from continuity_core.fs import hexdigest
from continuity_core.jsonl import HEAD_LINE, ForwardReader, close_prefix, scan_backward
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

if TYPE_CHECKING:
    from collections.abc import Callable

    Fold = Callable[[Session, dict[str, Any], bytes], None]

HEAD_BYTES = 256
COLD_MAX = 4 << 20  # the most a first read takes, from the end (docs/decisions.md)
PENDING = "_pending"  # the key in `extra` of what waits for `settle`; never saved
SETTLED = "_settled"  # the key in `extra` of the Session's own strings as last redacted
# (kept as `Cursor.settled`)

# What an adapter's `fold` raises on a line it cannot read (a UnicodeDecodeError is a
# ValueError, a KeyError or IndexError a LookupError): the line counts as bad, the read goes on.
FOLD_ERRORS = (ValueError, LookupError, TypeError, AttributeError)


def fold_line(fold: Fold, session: Session, extra: dict[str, Any], line: bytes) -> None:
    """One more record folded into `session`; one `fold` cannot read is counted as bad."""
    session.records += 1
    try:
        fold(session, extra, line)
    except FOLD_ERRORS:
        session.bad_lines += 1


class NoState(Struct):
    """The state of an adapter that keeps none between reads."""


S = TypeVar("S")  # an adapter's own Struct: what its fold keeps between reads


class Cursor(Struct, Generic[S], kw_only=True):
    """Where the next read of a transcript starts, the Session so far, and the adapter's own
    state between reads (its Struct, `read_incremental(state=...)`); the fold works on that
    state as a scratch dict whose declared fields are kept."""

    path: str
    offset: int = 0
    ino: int = 0
    # A digest of the file's first `head_len` bytes: other first bytes mean a replaced file.
    # Only the digest is kept, so no transcript text reaches the cursor unredacted.
    head_len: int = 0
    head_sha: str = ""
    session: Session
    state: S
    settled: dict[str, str] = field(default_factory=dict)  # the Session's strings as redacted


def _digest(path: str, length: int = HEAD_BYTES) -> tuple[int, str]:
    with open(path, "rb") as f:
        head = f.read(length)
    return len(head), hexdigest(head, "sha256")


def new_cursor(ref: SessionRef, offset: int = 0, state: type[Any] = NoState) -> Cursor[Any]:
    head_len, head_sha = _digest(ref.path)
    return Cursor(
        path=ref.path,
        offset=offset,
        ino=os.stat(ref.path).st_ino,
        head_len=head_len,
        head_sha=head_sha,
        state=state(),
        # The ref's agent, session id, path, account and cwd: every field the two share.
        session=msgspec.convert(ref, Session, from_attributes=True),
    )


def tail_cursor(
    ref: SessionRef, cold_max: int | None = None, state: type[Any] = NoState
) -> Cursor[Any] | None:
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
            f.seek(size - cold_max)
            while (part := f.readline(1 << 20)) and part[-1:] != b"\n":
                pass  # the rest of the line the seek cut, in bounded reads
            offset = f.tell()
    except OSError:
        return None
    return new_cursor(ref, offset, state)


def scratch(cursor: Cursor[Any]) -> dict[str, Any]:
    """The dict a fold works on: the cursor's state, by field, and core's own keys."""
    extra = msgspec.structs.asdict(cursor.state)
    extra[SETTLED] = cursor.settled
    return extra


def keep(cursor: Cursor[Any], extra: dict[str, Any], state: type[Any]) -> None:
    """What of a fold's scratch dict the cursor keeps: the state's declared fields (what else
    the fold put there is dropped) and core's record of what was redacted."""
    cursor.settled = extra.pop(SETTLED, None) or {}
    names = state.__struct_fields__
    try:
        cursor.state = msgspec.convert({k: v for k, v in extra.items() if k in names}, state)
    except msgspec.ValidationError:  # data the fold kept as read: the next read starts over
        cursor.state, cursor.ino = state(), 0


def _same_file(cursor: Cursor[Any], st: os.stat_result) -> bool:
    if st.st_size < cursor.offset or cursor.ino != st.st_ino:
        return False
    return _digest(cursor.path, cursor.head_len) == (cursor.head_len, cursor.head_sha)


def read_incremental(
    ref: SessionRef,
    cursor: Cursor[Any] | None,
    fold: Fold,
    *,
    finish: Callable[[Session, dict[str, Any]], None] | None = None,
    compaction_marker: bytes = b"",
    request_markers: tuple[bytes, ...] = (),
    state: type[Any] = NoState,
) -> Cursor[Any]:
    """Fold the lines of `ref.path` appended since `cursor` into its Session; a file never read
    (or replaced) over `COLD_MAX` bytes is read from its last `COLD_MAX` bytes (a cold read).

    `finish` runs after `settle`, for an adapter's own derived state; `state` is the adapter's
    Struct of what its fold keeps between reads (a saved cursor whose state is not one is
    read again from the start). A cold read scans the
    part it skipped once, backward from the cut (`scan_skipped`): `compaction_marker`, bytes
    found once in each compaction record and nowhere else (quotes inside JSON strings are
    escaped), is counted there, so `compactions_total` covers the whole file; and when the
    part read holds no request, the newest line there holding one of `request_markers`
    (bytes every typed-request record holds) that `fold` takes as a request gives the latest
    request.
    """
    st = os.stat(ref.path)
    if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
        raise ValueError(f"{ref.path} is not a regular file")
    skipped = 0  # a cold read's cut: the bytes before it are scanned once this read is done
    if cursor is not None and not isinstance(cursor.state, state):
        try:  # as decoded from disk: plain data
            cursor.state = msgspec.convert(cursor.state, state)
        except msgspec.ValidationError:
            cursor = None  # another adapter's or another build's state: read it again
    if cursor is None or cursor.path != ref.path or not _same_file(cursor, st):
        cursor = tail_cursor(ref, state=state) or new_cursor(ref, 0, state)
        cursor.session.unread_bytes = skipped = cursor.offset  # scanned, not read
    elif cursor.head_len < HEAD_BYTES and st.st_size > cursor.head_len:
        cursor.head_len, cursor.head_sha = _digest(ref.path)  # the file grew past the old head
    session, extra = cursor.session, scratch(cursor)
    reader = ForwardReader(ref.path, cursor.offset)
    try:
        for line in reader:
            fold_line(fold, session, extra, line)
        session.bad_lines += reader.skipped_long
        cursor.offset = reader.offset
        if skipped:
            scan_skipped(ref, session, extra, skipped, fold, compaction_marker, request_markers)
    finally:  # the caller's cursor holds this Session even when the read is interrupted
        settle(session, extra)
        if finish is not None:
            finish(session, extra)
        keep(cursor, extra, state)
    return cursor


def scan_skipped(
    ref: SessionRef,
    session: Session,
    extra: dict[str, Any],
    end: int,
    fold: Fold,
    compaction_marker: bytes = b"",
    request_markers: tuple[bytes, ...] = (),
) -> None:
    """The part a cold read skipped (its first `end` bytes): its compactions counted into
    `compactions_total` by a byte search over the mapped file (a file with none costs no line
    scan), and, when the part read holds no request, the latest request found there in one
    backward pass, stopping at it (`request_sought` says how that went).

    A candidate line is folded alone into a scratch Session, so the adapter's own rules (a
    typed request, not an injected or a sub-agent's one) decide. A line over `HEAD_LINE` bytes
    is read from its start only: its string cut is closed, and the request says its size.
    """
    want = bool(request_markers) and not session.requests
    if compaction_marker:  # at memory speed, before and apart from any line-by-line scan
        session.compactions_total += count_bytes(ref.path, end, compaction_marker)
        session.compactions_scanned = True
    if not want:
        if not session.requests:
            session.request_sought = "unsearched"
        return
    session.request_sought = "none"
    for _, size, head in scan_backward(ref.path, end, find=request_markers, max_line=HEAD_LINE):
        text = _request_in(ref, size, head, fold)
        if text is None and size > len(head) and close_prefix(head) is None:
            session.request_sought = "unreadable"  # a long line cut where it cannot close
        if text is not None:
            session.requests.append(text)  # redacted by `settle`; older than any message
            _count(extra, "requests")
            session.request_sought = "found"
            break


def count_bytes(path: str, end: int, needle: bytes) -> int:
    """How often `needle` occurs in the first `end` bytes of `path`: a byte search in bounded
    reads (a map counts the file into the RSS); the longer `needle`, the quicker the search."""
    if end <= 0 or not needle:
        return 0
    keep = len(needle) - 1  # the bytes a match across two reads begins with
    chunk = jsonl.CHUNK
    buf = bytearray(chunk + keep)
    found = have = pos = 0
    with open(path, "rb", buffering=0) as f, memoryview(buf) as view:
        while pos < end:
            got = f.readinto(view[have : have + min(chunk, end - pos)])
            if not got:
                break
            pos, filled = pos + got, have + got
            found += buf.count(needle, 0, filled)  # `keep` bytes hold no whole match
            have = min(keep, filled)
            buf[:have] = buf[filled - have : filled]
    return found


def _request_in(ref: SessionRef, size: int, head: bytes, fold: Fold) -> str | None:
    """The typed request of a line of `size` bytes (`head`: the line, or its first bytes), as
    `fold` reads it alone; None when it holds none."""
    cut = size > len(head)
    line = close_prefix(head) if cut else head
    if line is None:
        return None
    scratch = Session(agent=ref.agent, session_id=ref.session_id, path=ref.path)
    try:
        fold(scratch, {}, line)
    except FOLD_ERRORS:
        return None
    if not scratch.requests:
        return None
    text = scratch.requests[-1]
    if cut:
        text += (
            f"\n\n[… cut: this request's transcript line is {size:,} bytes; only "
            f"its first {len(head):,} were read]"
        )
    return text


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


def _count(extra: dict[str, Any], key: str) -> None:
    """One more of `key` (requests, messages) for `settle` to redact."""
    pending = extra.setdefault(PENDING, {})
    pending[key] = pending.get(key, 0) + 1


def add_request(
    session: Session, extra: dict[str, Any], text: str, timestamp: str | None = None
) -> None:
    """A request the user typed: kept verbatim in `requests` and as a message (redacted later)."""
    session.requests.append(text)
    session.requests_total += 1
    del session.requests[: -limits.REQUESTS]
    _count(extra, "requests")
    add_message(session, extra, "user", text, kind="request", timestamp=timestamp)


def add_message(
    session: Session,
    extra: dict[str, Any],
    role: Any,
    text: str,
    *,
    kind: Any = "response",
    timestamp: str | None = None,
) -> None:
    """A message, clipped when settled unless it is a request."""
    session.messages.append(Message(role=role, text=text, kind=kind, timestamp=timestamp))
    del session.messages[: -limits.MESSAGES]
    _count(extra, "messages")


def drop_request(session: Session, extra: dict[str, Any]) -> None:
    """Take the newest request back (a rewind); its message is dropped on its own."""
    if session.requests:
        session.requests_total = max(0, session.requests_total - 1)
    _drop(session.requests, extra, "requests")


def drop_message(session: Session, extra: dict[str, Any]) -> None:
    """Take the newest message back (a rewind or a replaced answer)."""
    _drop(session.messages, extra, "messages")


def _drop(items: list[Any], extra: dict[str, Any], key: str) -> None:
    if items:
        items.pop()
        pending = extra.setdefault(PENDING, {})
        if pending.get(key):  # this read added it: it no longer waits for `settle`
            pending[key] -= 1


def _touch(extra: dict[str, Any], key: str, call_id: str) -> None:
    touched: dict[str, None] = extra.setdefault(PENDING, {}).setdefault(key, {})
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
    extra.setdefault(PENDING, {})["todos"] = True


def settle(session: Session, extra: dict[str, Any]) -> None:
    """Redact and clip what the edits above added since the last settle and `session` keeps."""
    pending = extra.pop(PENDING, None) or {}
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
            call.name = redact(call.name)
        if call.id in outputs and call.output is not None:
            call.output = clip(redact(call.output))
    if pending.get("todos"):
        for todo in session.todos:
            todo.content = redact(todo.content)
    # What an adapter sets on the Session directly: redacted when it changed since last time.
    seen = extra.setdefault(SETTLED, {})
    for name in ("cwd", "git_branch", "model"):
        value = getattr(session, name)
        if value and seen.get(name) != value:
            value = redact(value)
            setattr(session, name, value)
            seen[name] = value


def clip_obj(value: Any) -> Any:
    """Long strings inside a structure (a tool's input: a whole file for Write) cut like text."""
    if isinstance(value, str):
        return clip(value)
    if isinstance(value, dict):
        return {k: clip_obj(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clip_obj(v) for v in value]
    return value


def add_edit(
    session: Session,
    path: str,
    action: Any = "edit",
    tool: str = "",
    moved_to: str | None = None,
) -> None:
    """Note a file edit; the same path edited again counts up and moves to the end. A path is
    redacted here (a file may be named after a token), once per distinct path."""
    top = session.cwd.rstrip("/") + "/" if session.cwd else None
    rel = _redact_path(path[len(top) :] if top and path.startswith(top) else path)
    moved_to = _redact_path(moved_to) if moved_to else moved_to
    tool = _redact_path(tool)
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


_redact_path = functools.lru_cache(maxsize=1024)(redact)  # a session edits the same files again


def add_error(session: Session, error: ApiError) -> None:
    error.message = clip(redact(error.message), 1000)
    session.errors.append(error)
    del session.errors[: -limits.ERRORS]


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

    edits = [
        msgspec.structs.replace(f, path=rebase(f.path) or f.path, moved_to=rebase(f.moved_to))
        for f in session.files_edited
    ]
    return msgspec.structs.replace(session, files_edited=edits)


def _inside(cwd: str, top: str) -> str | None:
    """`cwd` relative to `top` ("." for `top` itself), symlinks resolved if need be; None
    outside it."""
    for a, b in ((os.path.abspath(cwd), top), (os.path.realpath(cwd), os.path.realpath(top))):
        if os.path.commonpath([a, b]) == b:
            return os.path.relpath(a, b)
    return None
