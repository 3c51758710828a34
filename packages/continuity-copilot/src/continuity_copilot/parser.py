"""A Copilot CLI session (`events.jsonl` and its `session.db`) into the core Session.

`fold` takes one event at a time (core's `read_incremental` owns offsets, cold reads and
redaction); `finish` reads the todo list, which Copilot keeps in the session's own SQLite
database (written by the model's `sql` tool), not in the log. Event types the adapter does not
read are counted in `unknown_records`, never fatal: the schema has about 200.
"""

from __future__ import annotations

import functools
import os

import msgspec

from continuity_copilot import views
from continuity_copilot.discovery import TODOS_DB
from continuity_copilot.hooks import LIMITS, error_kind
from continuity_core.adapters.kit import add_command, add_subagent
from continuity_core.redact import redact
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
    clip,
    read_incremental,
    set_result,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from continuity_core.schemas.session import TodoStatus

# The prompts `baker resume copilot` types (the brief, or the pointer to it): not the user's.
HANDOFF_PROMPTS = ("# Handoff brief", "Continue this session. A handoff brief")
# In each compaction record once (a cold read counts the part it skips with it: the record's
# head, as long as it is sure, for a quicker byte search), and in every line holding a typed
# request.
COMPACTION_MARKER = b'"type":"session.compaction_complete","data":{'
REQUEST_MARKERS = (b'"type":"user.message"',)
# Events read for nothing: counted as known, not as unknown.
QUIET = frozenset(
    {
        "session.permissions_changed",
        "system.message",
        "assistant.turn_retry",
        "hook.end",
        "session.shutdown",
        "session.todos_changed",
        "session.plan_changed",
        "session.truncation",
        "session.warning",
        "session.workspace_file_changed",
        "session.skills_loaded",
        "assistant.reasoning",
        "assistant.intent",
        "model.call_failure",
        "subagent.selected",
        "subagent.configured",
        "session.model_change",
        # the trace of a compaction's own model call (`/compact`, 1.0.102)
        "model.turn_started",
        "model.model_call_started",
        "model.model_call_success",
        "model.message",
        "model.response",
        "model.turn_ended",
        "model.messages_snapshot",
    }
)
STATUS: dict[str, TodoStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "done": "completed",
    "blocked": "pending",  # core has no "blocked": the text says it
}
BLOCKED = {"blocked": " (blocked)"}
SHELLS = frozenset({"bash", "powershell"})  # the tools that run a command line
RUNNING = "subagents_running"  # in `extra`: sub-agents started and not yet ended
RETRYING = "retrying"  # in `extra`: the newest error is a retried limit from a hook's log
EDIT_KIND = {"create": "write", "edit": "edit", "delete": "delete"}
TODO_ROWS = 200  # a todo list is a plan, not a log: more is cut

_ENVELOPE = msgspec.json.Decoder(views.Envelope)


@functools.cache
def _decoder(view: type[Any]) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(view)


class CopilotState(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What the fold keeps between reads (`Cursor.state`)."""

    subagents_running: int = 0  # RUNNING
    retrying: bool = False  # RETRYING
    window: int | None = None  # the model's context window, from `session.usage_info`
    reset_at: str | None = None  # a quota's reset, until an error takes it
    compaction: list[str | int | None] | None = None  # [trigger, tokens] of a compaction begun


def read(ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
    """Read (or continue reading) a session's events, then its todo list."""
    return read_incremental(
        ref,
        cursor,
        fold,
        finish=finish,
        compaction_marker=COMPACTION_MARKER,
        request_markers=REQUEST_MARKERS,
        state=CopilotState,
    )


def fold(session: Session, extra: dict[str, Any], line: bytes) -> None:
    """One event of events.jsonl into `session`."""
    event = _ENVELOPE.decode(line)
    ts = event.timestamp
    if ts:
        session.started_at = session.started_at or ts
        session.updated_at = ts
    handle = HANDLERS.get(event.type)
    if handle is not None:
        handle(session, extra, event.data, ts)
    elif event.type not in QUIET:
        key = event.type or "?"
        session.unknown_records[key] = session.unknown_records.get(key, 0) + 1


# --- handlers --------------------------------------------------------------------------------


def _start(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.StartData).decode(raw)
    session.model = data.selectedModel or session.model
    ctx = data.context
    if ctx is not None:
        session.cwd = ctx.cwd or session.cwd
        session.git_branch = ctx.branch or session.git_branch


def _context(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.ContextChanged).decode(raw)
    session.cwd = data.cwd or session.cwd
    session.git_branch = data.branch or session.git_branch


def _user(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.UserMessage).decode(raw)
    # A sub-agent's task (`source: "agent-<id>"`) and autopilot's own nudge are not typed by
    # the user. (`parentAgentTaskId` is set on the user's own prompts too, in 1.0.102.)
    if data.isAutopilotContinuation or (data.source or "").startswith("agent-"):
        return
    text = data.content
    if not text.strip():
        return
    if text.startswith(HANDOFF_PROMPTS):
        add_message(session, extra, "user", text, kind="meta", timestamp=ts)
        return
    add_request(session, extra, text, ts)


def _turn_start(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    if not extra.get(RUNNING):  # a sub-agent's turns run inside the main one
        session.turn_incomplete = True


def _turn_end(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    if not extra.get(RUNNING):
        session.turn_incomplete = False


def _sub_start(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.SubagentStarted).decode(raw)
    extra[RUNNING] = extra.get(RUNNING, 0) + 1
    task = data.agentDescription or data.agentDisplayName or ""
    if data.toolCallId:
        add_subagent(session, task, id=data.toolCallId, timestamp=ts)


def _sub_end(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    extra[RUNNING] = max(0, extra.get(RUNNING, 0) - 1)


def _assistant(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.AssistantMessage).decode(raw)
    if data.parentToolCallId:
        return  # a sub-agent's answer
    extra.pop(RETRYING, None)  # an answer came: the retried limit is past
    session.model = data.model or session.model
    if data.content.strip():
        add_message(session, extra, "assistant", data.content, timestamp=ts)


def _tool_start(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.ToolStart).decode(raw)
    if not data.toolCallId or data.parentToolCallId:
        return
    args = data.arguments if isinstance(data.arguments, dict) else {}
    add_call(
        session, extra, ToolCall(id=data.toolCallId, name=data.toolName, input=args, timestamp=ts)
    )


def _tool_done(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.ToolComplete).decode(raw)
    if not data.toolCallId:
        return
    call = next((c for c in reversed(session.tool_calls) if c.id == data.toolCallId), None)
    name = call.name if call is not None else ""
    for edit in data.fileEdits:
        if edit.path:
            add_edit(session, edit.path, EDIT_KIND.get(edit.kind, "edit"), name)
    if data.success:
        output = (data.result.content if data.result is not None else None) or ""
    else:
        err = data.error
        output = (err.message if err is not None else None) or "failed"
    if data.parentToolCallId:
        return  # a sub-agent's own call: its answer is what the brief keeps
    set_result(session, extra, data.toolCallId, output, is_error=not data.success)
    command = call.input.get("command") if call is not None else None
    if name in SHELLS and isinstance(command, str) and command.strip():
        shell = data.shellExecution
        add_command(
            session,
            command,
            exit_code=shell.exitCode if shell is not None else None,
            failed=None if shell is not None else not data.success,
            output=output,
            timestamp=ts,
        )
    elif name == "task":
        add_subagent(session, "", id=data.toolCallId, result=output, timestamp=ts)


def _usage(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    usage = _decoder(views.UsageRecord).decode(raw).usage
    if usage is None:
        return
    total = usage.inputTokens + usage.outputTokens
    if usage.model:
        session.model = usage.model
        session.model_tokens[usage.model] = session.model_tokens.get(usage.model, 0) + total
    window = extra.get("window") or usage.maxPromptTokens
    session.usage = Usage(
        context_tokens=total,
        context_window=window,
        input_tokens=usage.inputTokens,
        output_tokens=usage.outputTokens,
        cache_read_tokens=usage.cacheReadTokens,
        cache_creation_tokens=usage.cacheWriteTokens,
    )


def _usage_info(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.UsageInfo).decode(raw)
    if data.tokenLimit:
        extra["window"] = data.tokenLimit
    if data.currentTokens is not None:
        old = session.usage
        session.usage = Usage(
            context_tokens=data.currentTokens,
            context_window=data.tokenLimit or (old.context_window if old else None),
        )


def _hook(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    """An `errorOccurred` hook call logs the model's error before Copilot retries: the only
    record of a limit when the run is ended mid-retry (`baker run` switching on it), before
    Copilot writes its `session.error`. One per failing turn: each retry replaces it."""
    data = _decoder(views.HookStart).decode(raw)
    err = data.input.error if data.input is not None else None
    if data.hookType != "errorOccurred" or err is None or not err.message:
        return
    kind = error_kind(err.message)
    if kind not in LIMITS:
        return
    if extra.get(RETRYING) and session.errors:
        session.errors.pop()
    extra[RETRYING] = True
    add_error(session, ApiError(kind=kind, message=_said(err.message), timestamp=ts))


def _said(message: str) -> str:
    """The text of an API error body Copilot passes on as JSON (`{"message": …}`)."""
    try:
        return _decoder(views.HookError).decode(message).message or message
    except msgspec.DecodeError:  # not such a body
        return message


def _error(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.SessionError).decode(raw)
    if extra.pop(RETRYING, None) and session.errors:
        session.errors.pop()  # the retries' record: this one says how the turn ended
    kind = error_kind(f"{data.errorType} {data.errorCode or ''}".strip(), data.statusCode)
    if kind == "rate_limit" and error_kind(data.message or "") == "usage_limit":
        kind = "usage_limit"  # a 429 whose last error says the quota is spent (insufficient_quota)
    reset = extra.get("reset_at") if kind in LIMITS else None
    message = data.message or data.errorType or "error"
    add_error(
        session,
        ApiError(kind=kind, message=message, status=data.statusCode, reset_at=reset, timestamp=ts),
    )


def _quota(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    obs = _decoder(views.QuotaObservation).decode(raw).observation
    if obs is None:
        return
    budget = obs.budgetMetadata
    reset = None
    if budget is not None and budget.resetAtEpochMs:
        import datetime as dt

        at = dt.datetime.fromtimestamp(budget.resetAtEpochMs / 1000, dt.UTC)
        reset = at.isoformat().replace("+00:00", "Z")
    if obs.capacityState == "exhausted":
        extra["reset_at"] = reset
        what = obs.quotaId or "quota"
        add_error(
            session,
            ApiError(
                kind="usage_limit",
                message=f"Copilot reports its {what} exhausted",
                reset_at=reset,
                timestamp=ts,
            ),
        )
    elif obs.capacityState == "available":
        extra.pop("reset_at", None)


def _credits(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.CreditsExhausted).decode(raw)
    used = f"{data.usedAiCredits:g}/{data.maxAiCredits:g} " if data.maxAiCredits else ""
    add_error(
        session,
        ApiError(
            kind="usage_limit", message=f"Session limits: {used}AI credits used", timestamp=ts
        ),
    )


def _abort(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    reason = _decoder(views.Abort).decode(raw).reason
    session.turn_incomplete = True
    add_message(session, extra, "system", f"turn aborted ({reason or 'interrupted'})", kind="meta")
    if reason == "autopilot_credit_limit":
        add_error(
            session,
            ApiError(kind="usage_limit", message="autopilot credit limit reached", timestamp=ts),
        )


def _interrupted(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.Interrupted).decode(raw)
    session.turn_incomplete = True
    what = data.activity or "work"
    add_message(session, extra, "system", f"interrupted by the user during {what}", kind="meta")


def _compacting(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.CompactionStart).decode(raw)
    extra["compaction"] = [data.trigger, data.currentTokens]


def _compacted(session: Session, extra: dict[str, Any], raw: msgspec.Raw, ts: str | None) -> None:
    data = _decoder(views.CompactionComplete).decode(raw)
    trigger, tokens = extra.pop("compaction", None) or [None, None]
    trigger = data.trigger or trigger
    if not data.success:
        return
    add_compaction(
        session,
        Compaction(
            trigger="manual" if trigger == "manual" else "auto",
            pre_tokens=data.preCompactionTokens or tokens,
            summary=clip(redact(data.summaryContent), 2000) if data.summaryContent else None,
            timestamp=ts,
        ),
    )


HANDLERS: dict[str, Callable[[Session, dict[str, Any], msgspec.Raw, str | None], None]] = {
    "session.start": _start,
    "session.resume": _start,
    "session.context_changed": _context,
    "user.message": _user,
    "assistant.turn_start": _turn_start,
    "assistant.turn_end": _turn_end,
    "assistant.message": _assistant,
    "tool.execution_start": _tool_start,
    "tool.execution_complete": _tool_done,
    "session.usage_record": _usage,
    "session.usage_info": _usage_info,
    "session.error": _error,
    "hook.start": _hook,
    "session.quota_observation": _quota,
    "session_limits_exhausted.requested": _credits,
    "abort": _abort,
    "agent.interrupted": _interrupted,
    "session.compaction_start": _compacting,
    "session.compaction_complete": _compacted,
    "subagent.started": _sub_start,
    "subagent.completed": _sub_end,
    "subagent.failed": _sub_end,
}


# --- the todo list ---------------------------------------------------------------------------


def finish(session: Session, extra: dict[str, Any]) -> None:
    """The todo list from the session's `session.db`, when the model has written one."""
    todos = read_todos(os.path.join(os.path.dirname(session.path), TODOS_DB))
    if todos is not None:
        session.todos = todos


def read_todos(db: str) -> list[TodoItem] | None:
    """The `todos` table, oldest first, read-only and redacted; None when there is none."""
    if not os.path.isfile(db):
        return None
    import sqlite3
    from pathlib import Path

    uri = Path(db).resolve().as_uri()
    rows: list[Any] = []
    for mode in ("?mode=ro", "?mode=ro&immutable=1"):  # immutable: a folder we cannot write
        try:
            conn = sqlite3.connect(uri + mode, uri=True, timeout=0.25)
        except sqlite3.Error:
            continue
        try:
            rows = conn.execute(
                "SELECT id, title, description, status FROM todos "
                "ORDER BY created_at, rowid LIMIT ?",
                (TODO_ROWS,),
            ).fetchall()
            break
        except sqlite3.Error:
            rows = []
        finally:
            conn.close()
    else:
        return None
    return [
        TodoItem(
            content=redact(f"{title or description or todo_id or ''}{BLOCKED.get(status, '')}"),
            status=STATUS.get(str(status), "pending"),
            id=str(todo_id) if todo_id is not None else None,
        )
        for todo_id, title, description, status in rows
    ]
