"""An OpenCode session read into core's Session, incrementally.

OpenCode rewrites rows in place (a tool part goes pending → running → completed; an assistant
message gets its tokens when its step ends), so the cursor is not a byte offset but a
watermark: the newest `time_updated` (ms) read from `message` and from `part`, with the ids
read at exactly that time (a later read asks for `time_updated >= watermark` and skips
those). `Cursor.offset` is the larger watermark. A row seen again replaces what it said
(a tool call by its id); an assistant text still streaming is read again once it ended.
The todo list is the `todo` table, whole, every read (it holds the list as it is now).
A first read takes only the newest rows, about `COLD_MAX` of them (`_cut`), and counts what the
brief states for the whole session by SQL aggregates (`_skipped`).
"""

from __future__ import annotations

import os

import msgspec

from continuity_core import stamps
from continuity_core.adapters import kit
from continuity_core.schemas.session import (
    ApiError,
    Compaction,
    Session,
    SessionRef,
    TodoItem,
    ToolCall,
    Usage,
)
from continuity_core.transcript import (
    Cursor,
    add_call,
    add_compaction,
    add_edit,
    add_error,
    add_message,
    add_request,
    keep,
    scratch,
    set_todos,
    settle,
)
from continuity_opencode import database, views
from continuity_opencode.launch import HANDOFF_PROMPTS
from continuity_opencode.views import VERSION, OpenCodeState, Watermark

TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
    from typing import Any

    # (part id, message id, time_updated, part data, message data)
    PartRow = tuple[str, str, int, str | bytes, str | bytes]

EDIT_TOOLS = {"write": "write", "edit": "edit", "multiedit": "edit"}
SHELL_TOOLS = ("bash",)
TODO_STATUSES = ("pending", "in_progress", "completed", "cancelled")
QUIET_PARTS = ("step-start", "step-finish", "reasoning", "snapshot", "file", "agent", "retry")
OPEN_MAX = 20  # assistant texts still streaming, read again next time


def fresh(ref: SessionRef) -> Cursor[OpenCodeState]:
    return Cursor(
        path=ref.path,
        session=Session(
            agent=ref.agent,
            session_id=ref.session_id,
            path=ref.path,
            account=ref.account,
            cwd=ref.cwd,
        ),
        state=OpenCodeState(),
    )


def _state(cursor: Cursor[Any] | None, ref: SessionRef) -> Cursor[OpenCodeState]:
    """`cursor` where it is this session's at this version (as read from disk its state is
    plain data), else a fresh one."""
    if cursor is None or cursor.path != ref.path:
        return fresh(ref)
    if not isinstance(cursor.state, OpenCodeState):
        try:
            cursor.state = msgspec.convert(cursor.state, OpenCodeState)
        except msgspec.ValidationError:
            return fresh(ref)
    return cursor if cursor.state.v == VERSION else fresh(ref)


def read(ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
    """Read (or continue reading) the session `ref` names into `cursor.session`."""
    db, sid = database.split_path(ref.path)
    if not db:
        return read_legacy(ref, cursor)
    cursor = _state(cursor, ref)
    conn = database.connect(db)
    try:
        with database.Snapshot(conn) as c:  # the fold too: a cold read looks again (`_skipped`)
            _read(c, sid, cursor)
    finally:
        conn.close()
    cursor.offset = max(cursor.state.w.m, cursor.state.w.p, 0)
    return cursor


def _read(c: sqlite3.Connection, sid: str, cursor: Cursor[OpenCodeState]) -> None:
    mark = cursor.state.w
    row = c.execute(
        "SELECT directory, model, cost, tokens_input, tokens_output, tokens_reasoning, "
        "tokens_cache_read, tokens_cache_write, time_created, time_updated, "
        "time_archived FROM session WHERE id = ?",
        (sid,),
    ).fetchone()
    if row is None:
        db = database.split_path(cursor.path)[0]
        raise FileNotFoundError(f"OpenCode session {sid} is not in {db}")
    seq = _seq(c, sid)
    unchanged = seq is not None and seq == mark.seq and not mark.open
    mark.seq = seq
    cut = _cut(c, sid) if not unchanged and mark.m < 0 and mark.p < 0 else None
    messages, parts = ([], []) if unchanged else _rows(c, sid, mark, cut)
    todos = c.execute(
        "SELECT content, status FROM todo WHERE session_id = ? ORDER BY position", (sid,)
    ).fetchall()
    session = cursor.session
    directory, model, cost, t_in, t_out, t_reason, t_read, t_write, created, updated, archived = row
    session.cwd = directory or session.cwd
    session.started_at = stamps.iso(created / 1000)
    session.updated_at = stamps.iso(updated / 1000)
    session.archived = archived is not None
    session.cost_usd = float(cost) if cost else session.cost_usd
    chosen = _model(model)
    total = t_in + t_out + t_reason + t_read + t_write
    if chosen and total:
        session.model_tokens = {chosen: total}
    extra = scratch(cursor)
    try:
        fold_messages(session, extra, mark, messages)
        fold_parts(session, extra, mark, parts)
        if cut is not None:
            _skipped(c, sid, session, mark, cut, read=(messages, parts))
        _todos(session, extra, mark, [views.TodoView(content=c, status=s) for c, s in todos])
        _finish(session, mark)
    finally:
        settle(session, extra)
    keep(cursor, extra, OpenCodeState)


def _rows(
    c: sqlite3.Connection, sid: str, mark: Watermark, cut: tuple[int, str, int] | None
) -> tuple[list[Any], list[Any]]:
    """The message and part rows to fold: those changed since `mark`, or a first read's newest
    from `cut` (the time_created and id of its oldest message) on."""
    if cut is not None:
        messages = c.execute(
            "SELECT id, time_created, time_updated, data FROM message WHERE session_id = ? "
            "AND (time_created, id) >= (?, ?) ORDER BY time_created, id",
            (sid, cut[0], cut[1]),
        ).fetchall()
        parts = c.execute(
            "SELECT p.id, p.message_id, p.time_updated, p.data, m.data FROM message m "
            "JOIN part p ON p.message_id = m.id WHERE m.session_id = ? AND "
            "(m.time_created, m.id) >= (?, ?) ORDER BY m.time_created, m.id, p.id",
            (sid, cut[0], cut[1]),
        ).fetchall()
        return messages, parts
    messages = c.execute(
        "SELECT id, time_created, time_updated, data FROM message "
        "WHERE session_id = ? AND time_updated >= ? ORDER BY time_created, id",
        (sid, mark.m),
    ).fetchall()
    parts = c.execute(
        "SELECT p.id, p.message_id, p.time_updated, p.data, m.data FROM part p "
        "JOIN message m ON m.id = p.message_id WHERE p.session_id = ? AND "
        "(p.time_updated >= ? OR p.id IN (SELECT value FROM json_each(?))) "
        "ORDER BY m.time_created, m.id, p.id",
        (sid, mark.p, msgspec.json.encode(mark.open).decode()),
    ).fetchall()
    return messages, parts


# --- a first read: the newest rows, whole-session figures by aggregate -----------------------

SIZE = "length(CAST(data AS BLOB))"  # a row's bytes (length() of text counts characters)
COMPACTION_HEAD = '{"type":"compaction"*'  # a compaction part's data as OpenCode writes it


def _cut(c: sqlite3.Connection, sid: str) -> tuple[int, str, int] | None:
    """Where a first read starts, as a cold read of a transcript file does
    (docs/decisions.md): the oldest of the newest messages whose rows (the message's and its
    parts' data) fit `COLD_MAX`, the newest one at least, with the bytes they hold; None
    when the whole session fits."""
    from continuity_core.transcript import COLD_MAX

    newest = c.execute(
        f"SELECT time_created, id, {SIZE} + (SELECT total({SIZE}) FROM part "  # noqa: S608 - constants
        "WHERE message_id = m.id) FROM message m WHERE session_id = ? "
        "ORDER BY time_created DESC, id DESC",
        (sid,),
    )
    cut, read = None, 0
    for created, mid, size in newest:  # stepped one row at a time: no more is fetched
        if cut is not None and read + size > COLD_MAX:
            return (*cut, read)
        cut, read = (created, mid), read + int(size)
    return None


def _skipped(
    c: sqlite3.Connection,
    sid: str,
    session: Session,
    mark: Watermark,
    cut: tuple[int, str, int],
    read: tuple[list[Any], list[Any]],
) -> None:
    """What a first read from `cut` knows of the rows before it, by aggregates SQLite runs
    over the whole session: its compactions (a compaction part's data begins with its
    type), the bytes not read, and the rows a later change (OpenCode prunes old tool
    outputs) moved past the newest read, which the watermark counts as read. When the rows
    read hold no request, the newest one before the cut is looked for."""
    total = count = 0
    for table, rows in (("message", read[0]), ("part", read[1])):
        newest = max((r[2] for r in rows), default=cut[0])  # of time_updated
        if table == "part" and not rows:  # the newest messages have none yet: on from the cut
            mark.p = cut[0]
        found, size, later = c.execute(
            f"SELECT count(*) FILTER (WHERE data GLOB ?), total({SIZE}), "  # noqa: S608 - constants
            "json_group_array(json_array(id, time_updated)) FILTER (WHERE time_updated >= ?) "
            f"FROM {table} WHERE session_id = ?",
            (COMPACTION_HEAD, newest, sid),
        ).fetchone()
        total, count = total + int(size), found  # the part table's count is the one kept
        for rid, updated in msgspec.json.decode(later):
            if table == "part":
                mark.p, mark.pi = _advance(mark.pi, mark.p, rid, updated)
            else:
                mark.m, mark.mi = _advance(mark.mi, mark.m, rid, updated)
    session.compactions_total, session.compactions_scanned = count, True
    session.unread_bytes = max(total - cut[2], 0)
    if not session.requests:
        _older_request(c, sid, session, cut)


def _older_request(
    c: sqlite3.Connection, sid: str, session: Session, cut: tuple[int, str, int]
) -> None:
    """The newest request before `cut`, each user part folded alone into a scratch Session
    (the parser's own rules decide), newest first, stopping at the first."""
    session.request_sought = "none"
    rows = c.execute(
        "SELECT p.id, m.id, p.data, m.data FROM message m JOIN part p ON p.message_id = m.id "
        "WHERE m.session_id = ? AND (m.time_created, m.id) < (?, ?) "
        "AND json_extract(m.data, '$.role') = 'user' "
        "ORDER BY m.time_created DESC, m.id DESC, p.id DESC",
        (sid, cut[0], cut[1]),
    )
    for pid, mid, data, mdata in rows:
        probe = Session(agent=session.agent, session_id=sid)
        extra: dict[str, Any] = {}
        try:
            msg = views.decoder(views.MessageView).decode(mdata)
            part = views.decoder(views.PartView).decode(data)
        except msgspec.DecodeError:
            continue
        fold_part(probe, extra, Watermark(), mid, msg, part, pid)
        settle(probe, extra)
        if probe.requests:
            session.requests.append(probe.requests[-1])  # redacted by its own `settle`
            session.request_sought = "found"
            return


def _seq(conn: sqlite3.Connection, sid: str) -> int | None:
    """The session's newest event seq; None where the database keeps no event log."""
    import sqlite3

    try:
        found = conn.execute(
            "SELECT seq FROM event_sequence WHERE aggregate_id = ?", (sid,)
        ).fetchone()
    except sqlite3.Error:
        return None
    return found[0] if found and isinstance(found[0], int) else None


def _model(raw: str | None) -> str | None:
    if not raw:
        return None
    try:
        ref = views.decoder(views.ModelRef).decode(raw)
    except msgspec.DecodeError:
        return None
    if not ref.id:
        return None
    return f"{ref.providerID}/{ref.id}" if ref.providerID else ref.id


# --- messages --------------------------------------------------------------------------------


def _advance(seen: list[str], at: int, row_id: str, updated: int) -> tuple[int, list[str]]:
    """The watermark after reading one row (rows come in any order of time_updated)."""
    if updated > at:
        return updated, [row_id]
    if updated == at and row_id not in seen:
        seen.append(row_id)
    return at, seen


def fold_messages(
    session: Session, extra: dict[str, Any], mark: Watermark, rows: list[tuple[Any, ...]]
) -> None:
    start, skip = mark.m, set(mark.mi)
    for mid, created, updated, data in rows:
        if updated == start and mid in skip:
            continue
        mark.m, mark.mi = _advance(mark.mi, mark.m, mid, updated)
        session.records += 1
        try:
            msg = views.decoder(views.MessageView).decode(data)
        except msgspec.DecodeError:
            session.bad_lines += 1
            continue
        if msg.role != "assistant":
            continue
        if msg.providerID and msg.modelID:
            session.model = f"{msg.providerID}/{msg.modelID}"
        if created >= mark.last:
            mark.last = created
            mark.last_done = bool(msg.time.completed or msg.error or msg.finish)
        tokens = msg.tokens
        if tokens is not None and created >= mark.usage_at:
            prompt = tokens.input + tokens.cache.read + tokens.cache.write
            if prompt:  # a step cut off records zeros: the usage is the step's before
                mark.usage_at = created
                session.usage = Usage(
                    context_tokens=prompt,
                    input_tokens=tokens.input,
                    output_tokens=tokens.output,
                    cache_read_tokens=tokens.cache.read,
                    cache_creation_tokens=tokens.cache.write,
                )
        if msg.error is not None and mid not in mark.errors:
            mark.errors = [*mark.errors, mid][-20:]
            add_error(session, api_error(msg.error, msg.time.completed or updated))


def api_error(error: views.MessageError, at_ms: int) -> ApiError:
    """An assistant message's error as core's ApiError: an APIError with status 429 is a rate
    limit, its reset time `retry-after` (seconds or an HTTP date) after the error, or a usage
    limit where it says the quota is spent."""
    from continuity_opencode.hooks import limit_kind

    data = error.data or views.ErrorData()
    status = data.statusCode
    message = data.message or error.name or "error"
    kind: Any
    if status == 429:
        kind = limit_kind(message)
    elif status in (529, 503):
        kind = "overloaded"
    elif status in (401, 403) or error.name == "ProviderAuthError":
        kind = "auth"
    elif error.name == "APIError":
        kind = "api"
    else:
        kind = "other"
    at = at_ms / 1000
    reset = _retry_after(data.responseHeaders or {}, at) if kind == "rate_limit" else None
    return ApiError(
        kind=kind,
        message=message,
        status=status,
        reset_at=stamps.iso(reset) if reset is not None else None,
        timestamp=stamps.iso(at),
    )


def _retry_after(headers: dict[str, Any], at: float) -> float | None:
    lower = {str(k).lower(): v for k, v in headers.items()}
    ms = lower.get("retry-after-ms")
    try:
        if ms is not None:
            return at + float(ms) / 1000
        value = lower.get("retry-after")
        if value is None:
            return None
        return at + float(value)
    except (TypeError, ValueError):
        pass
    from email.utils import parsedate_to_datetime

    try:
        return parsedate_to_datetime(str(lower.get("retry-after"))).timestamp()
    except (TypeError, ValueError, IndexError):
        return None


# --- parts -----------------------------------------------------------------------------------


def unquote(text: str) -> str:
    """`opencode run` stores its prompt wrapped in one pair of literal quotes: strip them."""
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return text


def fold_parts(session: Session, extra: dict[str, Any], mark: Watermark, rows: list[Any]) -> None:
    start, skip, reopen = mark.p, set(mark.pi), set(mark.open)
    still_open: list[str] = []
    decoded: dict[str, views.MessageView | None] = {}
    for pid, mid, updated, data, mdata in rows:
        if updated == start and pid in skip and pid not in reopen:
            continue
        mark.p, mark.pi = _advance(mark.pi, mark.p, pid, updated)
        session.records += 1
        if mid not in decoded:
            try:
                decoded[mid] = views.decoder(views.MessageView).decode(mdata)
            except msgspec.DecodeError:
                decoded[mid] = None
        msg = decoded[mid]
        try:
            part = views.decoder(views.PartView).decode(data)
        except msgspec.DecodeError:
            part = None
        if part is None or msg is None:
            session.bad_lines += 1
            continue
        if not fold_part(session, extra, mark, mid, msg, part, pid):
            still_open.append(pid)
    mark.open = still_open[-OPEN_MAX:]


def fold_part(
    session: Session,
    extra: dict[str, Any],
    mark: Watermark,
    mid: str,
    msg: views.MessageView,
    part: views.PartView,
    pid: str,
) -> bool:
    """One part into the session; False when it must be read again (a text still streaming)."""
    ts = stamps.iso(msg.time.created / 1000) if msg.time.created else None
    kind = part.type
    if kind == "text":
        text = part.text or ""
        if not text.strip() or part.ignored:
            return True
        if msg.role == "user":
            if part.synthetic:  # OpenCode's own ("Continue if you have next steps…")
                add_message(session, extra, "user", text, kind="meta", timestamp=ts)
                return True
            text = unquote(text)
            if text.startswith(HANDOFF_PROMPTS):  # typed by `baker resume`
                add_message(session, extra, "user", text, kind="meta", timestamp=ts)
            else:
                add_request(session, extra, text, ts)
            return True
        if part.time.end is None and not (msg.time.completed or msg.error):
            return False
        summary = msg.summary is True
        add_message(
            session,
            extra,
            "assistant",
            text,
            kind="summary" if summary else "response",
            timestamp=ts,
        )
        if summary and session.compactions and session.compactions[-1].summary is None:
            from continuity_core.redact import redact
            from continuity_core.transcript import clip

            session.compactions[-1].summary = clip(redact(text))
        return True
    if kind == "tool":
        _tool(session, extra, mark, mid, part, pid)
        return True
    if kind == "patch":
        for path in part.files:
            if not (mark.files_msg == mid and path in mark.files):
                add_edit(session, path, "edit", tool="patch")
        return True
    if kind == "compaction":
        add_compaction(
            session, Compaction(trigger="manual" if part.auto is False else "auto", timestamp=ts)
        )
        return True
    if kind not in QUIET_PARTS:
        session.unknown_records[kind or "?"] = session.unknown_records.get(kind or "?", 0) + 1
    return True


def _tool(
    session: Session,
    extra: dict[str, Any],
    mark: Watermark,
    mid: str,
    part: views.PartView,
    pid: str,
) -> None:
    state = part.state or views.ToolState()
    name = part.tool or "?"
    status = state.status
    output: str | None = None
    if status == "completed":
        output = state.output or ""
    elif status == "error":
        output = state.error or state.output or "error"
    ts = stamps.iso(state.time.start / 1000) if state.time.start else None
    add_call(
        session,
        extra,
        ToolCall(
            id=pid,  # unique; a provider's callID may repeat across turns
            name=name,
            input=dict(state.input),
            output=output,
            is_error=status == "error",
            timestamp=ts,
        ),
    )
    if output is None:
        return  # pending or running: nothing finished yet (an interrupted call stays so)
    path = state.input.get("filePath")
    if name in EDIT_TOOLS and status == "completed" and isinstance(path, str):
        exists = state.metadata.get("exists")
        add_edit(session, path, "write" if name == "write" and not exists else "edit", tool=name)
        if mark.files_msg != mid:
            mark.files_msg, mark.files = mid, []
        mark.files = [*mark.files, path][-50:]
    elif name in SHELL_TOOLS:
        command = state.input.get("command")
        if isinstance(command, str):
            code = state.metadata.get("exit")
            kit.add_command(
                session,
                command,
                exit_code=code if isinstance(code, int) else None,
                failed=True if status == "error" else None,
                output=output,
                timestamp=ts,
            )
    elif name == "task":
        task = state.input.get("description") or state.input.get("prompt") or ""
        child = state.metadata.get("sessionId")
        kit.add_subagent(
            session,
            task if isinstance(task, str) else "",
            id=child if isinstance(child, str) else part.callID,
            result=_task_result(output),
            timestamp=ts,
        )
    elif name == "todowrite":
        items = state.input.get("todos")
        if isinstance(items, list):
            mark.todowrite = [
                [str(t.get("content", "")), str(t.get("status", "pending"))]
                for t in items
                if isinstance(t, dict)
            ]


def _task_result(output: str) -> str:
    start, end = output.find("<task_result>"), output.rfind("</task_result>")
    if start >= 0 and end > start:
        return output[start + len("<task_result>") : end].strip()
    return output


def _todos(
    session: Session, extra: dict[str, Any], mark: Watermark, rows: list[views.TodoView]
) -> None:
    """The `todo` table's list; a home without one (legacy) keeps the latest todowrite's."""
    if not rows:
        rows = [views.TodoView(content=c, status=s) for c, s in mark.todowrite]
    items = [
        TodoItem(content=t.content, status=t.status if t.status in TODO_STATUSES else "pending")  # type: ignore[arg-type]
        for t in rows
        if t.content
    ]
    kept = [(t.content, t.status) for t in session.todos]
    if [(t.content, t.status) for t in items] == kept:
        return  # as kept, redacted (which leaves redacted text as it is): nothing to redact
    from continuity_core.redact import redact

    if [(redact(t.content), t.status) for t in items] != kept:
        set_todos(session, extra, items)


def _finish(session: Session, mark: Watermark) -> None:
    session.turn_incomplete = mark.last >= 0 and not mark.last_done
    if session.usage is not None and session.model:
        if mark.window_for != session.model:
            from continuity_opencode import models

            mark.window_for = session.model
            mark.window = models.context_window(session.model, session.cwd)
        session.usage.context_window = mark.window


# --- the legacy JSON tree --------------------------------------------------------------------


def read_legacy(ref: SessionRef, cursor: Cursor[Any] | None) -> Cursor[Any]:
    """A session of the legacy `storage/` tree (a file per session, message and part): read
    whole each time; OpenCode 1.x no longer writes it, so it does not grow."""
    session_file = ref.path
    base = os.path.dirname(os.path.dirname(os.path.dirname(session_file)))  # …/storage
    with open(session_file, "rb") as f:
        info = views.decoder(views.SessionInfo).decode(f.read())
    sid = info.id or ref.session_id
    cursor = fresh(ref)
    session = cursor.session
    session.cwd = info.directory or ref.cwd
    if info.time.created:
        session.started_at = stamps.iso(info.time.created / 1000)
    if info.time.updated:
        session.updated_at = stamps.iso(info.time.updated / 1000)
    messages: list[tuple[str, int, int, bytes]] = []
    for path in _files(os.path.join(base, "message", sid)):
        data = _bytes(path)
        try:
            view = views.decoder(views.MessageView).decode(data)
        except msgspec.DecodeError:
            session.bad_lines += 1
            continue
        created = view.time.created or 0
        messages.append((os.path.basename(path)[:-5], created, created, data))
    messages.sort(key=lambda m: (m[1], m[0]))
    parts: list[PartRow] = []
    for mid, _created, _updated, mdata in messages:
        for path in _files(os.path.join(base, "part", mid)):
            parts.append((os.path.basename(path)[:-5], mid, 0, _bytes(path), mdata))
    mark = cursor.state.w
    extra = scratch(cursor)
    try:
        fold_messages(session, extra, mark, list(messages))
        fold_parts(session, extra, mark, parts)
        todos: list[views.TodoView] = []
        todo_file = os.path.join(base, "todo", f"{sid}.json")
        if os.path.isfile(todo_file):
            try:
                todos = views.decoder(list[views.TodoView]).decode(_bytes(todo_file))
            except msgspec.DecodeError:
                session.bad_lines += 1
        _todos(session, extra, mark, todos)
        _finish(session, mark)
    finally:
        settle(session, extra)
    keep(cursor, extra, OpenCodeState)
    cursor.offset = info.time.updated or 0
    return cursor


def _files(folder: str) -> list[str]:
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names]


def _bytes(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()
