"""Replaying a Gemini CLI chat log into a core Session.

The `.jsonl` is an append-only log: a header (`sessionId` + `projectHash`) merged into metadata;
a message (string `id`) inserted, or replacing the earlier record of that id; `{"$set": {...}}`
merged into metadata, where `messages` replaces the CLI's whole view (start-up, resume,
compression); `{"$rewindTo": id}` dropping that message and everything after it.

The Session keeps what compression summarised away: `$set.messages` only adds what it newly
introduces (the `<state_snapshot>` summary) and never a request, since the kept tail it carries
comes back under fresh ids. `cursor.state.view` remembers, for the newest messages, what
each contributed, so a replaced message or a rewind can take its part back out; it is capped,
so memory stays bounded whatever the transcript's size.

The core's capped edits keep text raw until the end of a read redacts what the Session still
keeps; `finish` does the same for the todo lists `extra` keeps for rewinds, which reach disk
with the cursor.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from msgspec import Struct, convert, field, to_builtins

from continuity_core import jsonl, stamps
from continuity_core.adapters import kit
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
    drop_message,
    drop_request,
    keep,
    read_incremental,
    set_result,
    set_todos,
    settle,
)
from continuity_gemini.discovery import CONTEXT_ID

TYPE_CHECKING = False
if TYPE_CHECKING:
    from continuity_core.schemas.session import ErrorKind

VIEW_MAX = 400  # messages whose contributions a rewind or replacement can still take back
TODO_STACK = 8
DEFAULT_WINDOW = 1_048_576  # tokenLimit() for every Gemini model and unknown ones
WINDOWS = {"gemma-4-31b-it": 256_000, "gemma-4-26b-a4b-it": 256_000}

# Tools that change files, and what they do to them (0.61.0 names plus earlier ones).
EDIT_TOOLS = {"write_file": "write", "replace": "edit", "edit": "edit", "smart_edit": "edit"}
TODO_TOOLS = frozenset({"write_todos"})
FAILED = ("error", "cancelled")
SHELL_TOOLS = frozenset({"run_shell_command"})
AGENT_TOOLS = frozenset({"invoke_agent"})  # {agent_name, prompt}: a sub-agent's run
ARG_CHARS = 2000  # a write_file's whole content is no use in a brief; its start is
_TURN_KINDS = frozenset({"request", "result", "response", "error", "summary"})
_HOOK_CONTEXT = re.compile(r"(?s)<hook_context>.*?</hook_context>\s*")
_RETRY = re.compile(
    r"(?i)(?:retry|try again|reset)s?\s+(?:in|after)\s+((?:\d+(?:\.\d+)?\s*[hms]\w*\s*)+)"
)
_DURATION = re.compile(r"(?i)(\d+(?:\.\d+)?)\s*([hms])")
_STATUS = re.compile(r"\b(4\d\d|5\d\d)\b")
_IDS = "ids"  # the transient key of `_ids`
# In every typed request (text first; a tool result's parts start with `functionResponse`): a
# cold read finds the latest one in the part it skips; the fold tells a request from the
# session context or a snapshot.
REQUEST_MARKERS = (b'"type":"user","content":[{"text"', b'"type":"user","content":"')


def window(model: str | None) -> int:
    return WINDOWS.get(model or "", DEFAULT_WINDOW)


class GeminiState(Struct, kw_only=True, omit_defaults=True):
    """What the fold keeps between reads (`Cursor.state`): the newest messages' view (what a
    rewind goes back to) and the todo lists saved for rewinds."""

    view: list[dict[str, Any]] = field(default_factory=list)
    todos: list[list[Any]] = field(default_factory=list)  # [message id, todos]


def read(ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
    """Read (or continue reading) a chat file; a legacy `.json` is one object, read whole."""
    if ref.path.endswith(".json"):
        return read_legacy(ref)
    return read_incremental(
        ref, cursor, fold, finish=finish, request_markers=REQUEST_MARKERS, state=GeminiState
    )


def compaction_triggers(session: Session, ref: SessionRef) -> None:
    """Say which compressions the user asked for: the chat file does not, but the project's
    `logs.json` (every prompt typed, beside `chats/`) holds `/compress` just before one."""
    unknown = [c for c in session.compactions if c.trigger == "unknown" and c.timestamp]
    if not unknown:
        return
    folder = os.path.dirname(os.path.dirname(ref.path))  # tmp/<folder>, above chats/
    try:
        with open(os.path.join(folder, "logs.json"), "rb") as f:
            logged = jsonl.loads(f.read())
    except (OSError, ValueError):
        return
    prompts = sorted(
        (e["timestamp"], str(e.get("message") or "").strip())
        for e in logged
        if isinstance(logged, list)
        and isinstance(e, dict)
        and e.get("sessionId") == session.session_id
        and isinstance(e.get("timestamp"), str)
    )
    for c in unknown:
        before = [text for stamp, text in prompts if stamp <= (c.timestamp or "")]
        if before:
            c.trigger = "manual" if before[-1].startswith("/compress") else "auto"


def read_legacy(ref: SessionRef) -> Cursor[Any]:
    """A pre-JSONL session file: `{sessionId, ..., messages: [...]}` in one object."""
    session = Session(
        agent=ref.agent, session_id=ref.session_id, path=ref.path, account=ref.account, cwd=ref.cwd
    )
    extra: dict[str, Any] = {}
    try:
        with open(ref.path, "rb") as f:
            data = jsonl.loads(f.read())
    except ValueError:  # UnicodeDecodeError among them
        data = None  # half-written or corrupt: an empty session that says so
    if isinstance(data, dict):
        _header(session, extra, data)
        for msg in data.get("messages") or []:
            session.records += 1
            if isinstance(msg, dict) and isinstance(msg.get("id"), str):
                _message(session, extra, msg)
            else:
                session.bad_lines += 1
    else:
        session.bad_lines += 1
    settle(session, extra)
    finish(session, extra)
    st = os.stat(ref.path)
    cursor = Cursor(
        path=ref.path, offset=st.st_size, ino=st.st_ino, session=session, state=GeminiState()
    )
    keep(cursor, extra, GeminiState)
    return cursor


# --- the fold -------------------------------------------------------------------------------


def fold(session: Session, extra: dict[str, Any], line: bytes) -> None:
    rec = jsonl.loads(line)
    if not isinstance(rec, dict):
        raise ValueError("not an object")
    if isinstance(rec.get("id"), str):
        _message(session, extra, rec)
    elif "$set" in rec:
        _set(session, extra, rec["$set"])
    elif "$rewindTo" in rec:
        _rewind(session, extra, rec["$rewindTo"])
    elif "sessionId" in rec and "projectHash" in rec:
        _header(session, extra, rec)
    else:
        _unknown(session, "record")


def finish(session: Session, extra: dict[str, Any]) -> None:
    """Redact the todo lists this read saved for rewinds; and whether the last turn ended (not
    when a prompt or a tool result was never answered)."""
    for saved in extra.get("todos") or []:
        if len(saved) > 2:  # [message id, todos, raw]: added by this read
            saved[1] = [{**t, "content": redact(t["content"])} for t in saved[1]]
            del saved[2:]
    extra.pop(_IDS, None)
    turns = [e for e in extra.get("view") or [] if e.get("k") in _TURN_KINDS]
    session.turn_incomplete = bool(turns) and turns[-1]["k"] in ("request", "result")


def _unknown(session: Session, what: str) -> None:
    session.unknown_records[what] = session.unknown_records.get(what, 0) + 1


def _header(session: Session, extra: dict[str, Any], rec: dict[str, Any]) -> None:
    # `--resume` appends another header mid-file (same minute); the first start time stands.
    if isinstance(rec.get("startTime"), str) and not session.started_at:
        session.started_at = rec["startTime"]
    if isinstance(rec.get("lastUpdated"), str):
        session.updated_at = rec["lastUpdated"]


def _set(session: Session, extra: dict[str, Any], changes: Any) -> None:
    if not isinstance(changes, dict):
        raise ValueError("$set without an object")
    if isinstance(changes.get("lastUpdated"), str):
        session.updated_at = changes["lastUpdated"]
    messages = changes.get("messages")
    if isinstance(messages, list):
        _snapshot(session, extra, messages)


def _snapshot(session: Session, extra: dict[str, Any], messages: list[Any]) -> None:
    """A full replacement of the CLI's view: keep our history, add only what is new in it."""
    view: list[dict[str, Any]] = extra.setdefault("view", [])
    known = {e["id"] for e in view}
    for msg in messages:
        if not isinstance(msg, dict) or not isinstance(msg.get("id"), str):
            continue
        if msg["id"] in known or msg["id"] == CONTEXT_ID:
            continue
        known.add(msg["id"])
        text = _user_text(msg.get("content")) if msg.get("type") == "user" else ""
        if text.startswith("<state_snapshot>"):
            # The file does not say whether /compress or the threshold did it (PreCompress
            # does). Inside a turn (after a prompt, a tool result, or a reply that called
            # tools) nobody typed /compress: the threshold did. Between turns, logs.json may
            # tell (`compaction_triggers`).
            last: dict[str, Any] = next(
                (e for e in reversed(view) if e.get("k") in _TURN_KINDS), {}
            )
            inside = last.get("k") in ("request", "result") or "c" in last
            add_compaction(
                session,
                Compaction(
                    trigger="auto" if inside else "unknown",
                    summary=clip(redact(text)),
                    timestamp=msg.get("timestamp"),
                    pre_tokens=session.usage.context_tokens if session.usage else None,
                ),
            )
            add_message(
                session, extra, "user", text, kind="summary", timestamp=msg.get("timestamp")
            )
            _push(extra, {"id": msg["id"], "k": "summary", "m": 1})
        else:
            _push(extra, {"id": msg["id"], "k": "view"})  # a re-id'd copy: a rewind target


def _ids(extra: dict[str, Any]) -> dict[str, int]:
    """How many view entries each id has, so that a miss (most lookups) needs no scan.

    Built on a read's first lookup and dropped by `finish`: the view stays the saved truth.
    """
    ids: dict[str, int] | None = extra.get(_IDS)
    if ids is None:
        ids = extra[_IDS] = {}
        for e in extra.get("view") or []:
            ids[e["id"]] = ids.get(e["id"], 0) + 1
    return ids


def _drop(extra: dict[str, Any], start: int, stop: int | None = None) -> None:
    """Delete `view[start:stop]`, keeping the id counts in step."""
    view: list[dict[str, Any]] = extra["view"]
    ids = _ids(extra)
    for entry in view[start:stop]:
        ids[entry["id"]] = ids.get(entry["id"], 0) - 1
    del view[start:stop]


def _push(extra: dict[str, Any], entry: dict[str, Any]) -> None:
    ids = _ids(extra)
    view: list[dict[str, Any]] = extra.setdefault("view", [])
    view.append(entry)
    ids[entry["id"]] = ids.get(entry["id"], 0) + 1
    if len(view) > VIEW_MAX:
        _drop(extra, 0, len(view) - VIEW_MAX)


def _find(extra: dict[str, Any], msg_id: str) -> int:
    """The index of the newest view entry for `msg_id`, or -1."""
    if _ids(extra).get(msg_id, 0) <= 0:
        return -1
    view = extra["view"]
    for i in range(len(view) - 1, -1, -1):  # a message re-appended is near the end
        if view[i]["id"] == msg_id:
            return i
    return -1


def _rewind(session: Session, extra: dict[str, Any], target: Any) -> None:
    """Drop `target` and everything after it; an unknown id changes nothing and is counted."""
    i = _find(extra, target) if isinstance(target, str) else -1
    if i < 0:
        _unknown(session, "$rewindTo unknown id")
        return
    view: list[dict[str, Any]] = extra["view"]
    for entry in reversed(view[i:]):
        _take_back(session, extra, entry)
    _drop(extra, i)
    _restore(session, extra)


def _take_back(session: Session, extra: dict[str, Any], entry: dict[str, Any]) -> None:
    """Remove what one message contributed (it is the newest still counted)."""
    if entry.get("r"):
        drop_request(session, extra)
    for _ in range(entry.get("m", 0)):
        drop_message(session, extra)
    calls = set(entry.get("c", ()))
    if calls:
        session.tool_calls = [c for c in session.tool_calls if c.id not in calls]
    stack = extra.get("todos") or []
    extra["todos"] = [t for t in stack if t[0] != entry["id"]]


def _restore(session: Session, extra: dict[str, Any]) -> None:
    """Todos and usage as of the newest message still in the view."""
    stack = extra.get("todos") or []
    # a saved todo is read as strictly as the schema: one that is not a todo fails its line
    set_todos(session, extra, [convert(t, TodoItem) for t in stack[-1][1]] if stack else [])
    for entry in reversed(extra.get("view") or []):
        if entry.get("u"):
            session.usage = _usage(entry["u"], session.model)
            return
    session.usage = None


# --- messages -------------------------------------------------------------------------------


def _message(session: Session, extra: dict[str, Any], msg: dict[str, Any]) -> None:
    kind = msg.get("type")
    if kind == "user":
        _user(session, extra, msg)
    elif kind == "gemini":
        _gemini(session, extra, msg)
    elif kind == "error":
        _error(session, extra, msg)
    elif kind in ("info", "warning"):
        if _find(extra, msg["id"]) < 0:
            _push(extra, {"id": msg["id"], "k": "info"})
    else:
        _unknown(session, f"message:{kind}")


def _parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]
    if isinstance(content, list):
        return [p for p in content if isinstance(p, dict)]
    if isinstance(content, dict):
        return [content]
    return []


def _user_text(content: Any) -> str:
    """The text a user typed: <hook_context> stripped, function responses left out."""
    texts = []
    for part in _parts(content):
        text = part.get("text")
        if isinstance(text, str) and not part.get("thought"):
            if "<hook_context>" in text:
                text = _HOOK_CONTEXT.sub("", text)
            text = text.strip("\n")
            if text.strip():
                texts.append(text)
    return "\n".join(texts)


def _user(session: Session, extra: dict[str, Any], msg: dict[str, Any]) -> None:
    msg_id: str = msg["id"]
    if _find(extra, msg_id) >= 0:
        return  # the same prompt appended again changes nothing we keep
    parts = _parts(msg.get("content"))
    results = [p["functionResponse"] for p in parts if isinstance(p.get("functionResponse"), dict)]
    for resp in results:  # normally a copy of toolCalls[].result; fills a call still without one
        call_id = resp.get("id")
        if isinstance(call_id, str) and any(
            c.id == call_id and c.output is None for c in session.tool_calls
        ):
            failed = "error" in (resp.get("response") or {})
            set_result(session, extra, call_id, _output(resp), is_error=failed)
    text = _user_text(msg.get("content"))
    ts = msg.get("timestamp")
    if msg_id == CONTEXT_ID or text.startswith("<session_context>"):
        _push(extra, {"id": msg_id, "k": "context"})
    elif text.startswith("<state_snapshot>"):
        _snapshot(session, extra, [msg])
    elif text:
        add_request(session, extra, text, ts)
        _push(extra, {"id": msg_id, "k": "request", "r": 1, "m": 1})
    else:
        _push(extra, {"id": msg_id, "k": "result" if results else "view"})


def _gemini_text(content: Any) -> str:
    return "".join(
        p["text"]
        for p in _parts(content)
        if isinstance(p.get("text"), str) and not p.get("thought")
    )


def _gemini(session: Session, extra: dict[str, Any], msg: dict[str, Any]) -> None:
    msg_id: str = msg["id"]
    i = _find(extra, msg_id)
    view: list[dict[str, Any]] = extra.setdefault("view", [])
    if i < 0:
        entry: dict[str, Any] = {"id": msg_id, "k": "response"}
        _push(extra, entry)
    else:
        entry = view[i]
    ts = msg.get("timestamp")
    if isinstance(msg.get("model"), str):
        session.model = msg["model"]
    text = _gemini_text(msg.get("content")).strip()
    if text:
        newest = entry is view[-1]
        if (
            entry.get("m")
            and newest
            and session.messages
            and session.messages[-1].role == "assistant"
        ):
            # the same turn re-appended: its latest text wins
            drop_message(session, extra)
            entry["m"] = 0
        if not entry.get("m"):
            add_message(session, extra, "assistant", text, timestamp=ts)
            entry["m"] = 1
    tokens = msg.get("tokens")
    if isinstance(tokens, dict) and isinstance(tokens.get("input"), int):
        entry["u"] = [tokens.get("input"), tokens.get("output"), tokens.get("cached")]
        if entry is view[-1]:  # an older message re-appended does not set the current usage
            session.usage = _usage(entry["u"], session.model)
    for call in msg.get("toolCalls") or []:
        if isinstance(call, dict) and isinstance(call.get("id"), str):
            _tool_call(session, extra, entry, call)


def _usage(u: list[Any], model: str | None) -> Usage:
    return Usage(
        context_tokens=u[0],
        context_window=window(model),
        input_tokens=u[0],
        output_tokens=u[1] if isinstance(u[1], int) else None,
        cache_read_tokens=u[2] if isinstance(u[2], int) else None,
    )


def _slim(value: Any) -> Any:
    """Tool arguments with long strings clipped, so a Session stays small."""
    if isinstance(value, str):
        # Redact before the cut: a secret across it would otherwise keep its first half.
        return clip(redact(value), ARG_CHARS) if len(value) > ARG_CHARS else value
    if isinstance(value, dict):
        return {k: _slim(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_slim(v) for v in value[:100]]
    return value


def _output(resp: dict[str, Any]) -> str:
    body = resp.get("response")
    if isinstance(body, dict):
        for key in ("output", "error", "llmContent"):
            value = body.get(key)
            if isinstance(value, str):
                return value
        return json.dumps(body, ensure_ascii=False, separators=(",", ":"))
    return "" if body is None else str(body)


def _tool_call(
    session: Session, extra: dict[str, Any], entry: dict[str, Any], call: dict[str, Any]
) -> None:
    call_id: str = call["id"]
    name = str(call.get("name") or "?")
    raw_args = call.get("args")
    args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
    status = call.get("status")
    add_call(
        session,
        extra,
        ToolCall(id=call_id, name=name, input=_slim(args), timestamp=call.get("timestamp")),
    )
    calls: list[str] = entry.setdefault("c", [])
    if call_id not in calls:
        calls.append(call_id)
    responses = [
        p["functionResponse"]
        for p in _parts(call.get("result"))
        if isinstance(p.get("functionResponse"), dict)
    ]
    failed = status in FAILED
    done = status == "success" or failed
    display = call.get("resultDisplay")
    output = "\n".join(_output(r) for r in responses)
    if responses:
        set_result(session, extra, call_id, output, is_error=failed)
    elif isinstance(display, str) and done:
        set_result(session, extra, call_id, display, is_error=failed)
    elif failed:
        set_result(session, extra, call_id, f"[{status}]", is_error=True)
    output = output or str(display or "")
    if name in SHELL_TOOLS and done:
        _command(session, entry, call_id, args, call, output, failed)
    elif name in AGENT_TOOLS:
        _subagent(session, call_id, args, call, output if done else None, status)
    # Any other status (scheduled, executing, awaiting_approval…) is a call still running.
    if status != "success":
        return
    credited: list[str] = entry.setdefault("e", [])
    if call_id in credited:
        return  # a re-appended message must not count its edits twice
    credited.append(call_id)
    if name in EDIT_TOOLS:
        path = args.get("file_path") or args.get("absolute_path") or args.get("path")
        if isinstance(path, str) and path:
            add_edit(session, path, EDIT_TOOLS[name], name)
    elif name in TODO_TOOLS and isinstance(args.get("todos"), list):
        todos = [
            TodoItem(
                content=str(t.get("description") or t.get("content") or ""),
                status=kit.TODO_STATUS.get(str(t.get("status")), "pending"),
            )
            for t in args["todos"]
            if isinstance(t, dict)
        ]
        set_todos(session, extra, todos)
        stack: list[Any] = extra.setdefault("todos", [])
        stack.append([entry["id"], [to_builtins(t) for t in todos], True])  # raw until `finish`
        del stack[:-TODO_STACK]


def _command(
    session: Session,
    entry: dict[str, Any],
    call_id: str,
    args: dict[str, Any],
    call: dict[str, Any],
    output: str,
    failed: bool,
) -> None:
    """A finished run_shell_command into `session.commands`, once (a message is re-appended
    as its calls progress): `Exit Code: N` where Gemini CLI wrote it, else its status."""
    ran: list[str] = entry.setdefault("r", [])
    command = args.get("command")
    if call_id in ran or not isinstance(command, str):
        return
    ran.append(call_id)
    # A failing command's only signal (formats/gemini.md, "A failed shell command"), written
    # after the output (the last one is Gemini CLI's); exit 0 writes none, and the call's
    # status stays "success".
    cut = output.rfind("\nExit Code: ")
    kit.add_command(
        session,
        command,
        exit_code=kit.exit_code_after(output[cut + 1 :], "Exit Code: ") if cut >= 0 else None,
        failed=failed,  # "success" when no exit code was written: exit 0
        output=output,
        timestamp=call.get("timestamp"),
    )


def _subagent(
    session: Session,
    call_id: str,
    args: dict[str, Any],
    call: dict[str, Any],
    output: str | None,
    status: Any,
) -> None:
    """An invoke_agent call: the sub-agent's task when it starts, its result (`output`, None
    while it runs) once done ("Subagent 'x' finished.\nTermination Reason: GOAL\nResult:\n…")."""
    prompt, agent = args.get("prompt"), args.get("agent_name")
    task = prompt if isinstance(prompt, str) and prompt.strip() else ""
    if isinstance(agent, str) and agent:
        task = f"{agent}: {task}" if task else agent
    result = None if output is None else _agent_result(output)
    if result is not None and status in FAILED:
        result = f"({status}) {result}"
    kit.add_subagent(
        session, task or "invoke_agent", id=call_id, result=result, timestamp=call.get("timestamp")
    )


def _agent_result(output: str) -> str:
    """What a sub-agent returned: the text after `Result:`, its one string when that is a JSON
    object holding one (`{"response": "…"}`)."""
    _, found, rest = output.partition("Result:\n")
    text = rest if found else output
    if text.lstrip().startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, dict):
            strings = [v for v in value.values() if isinstance(v, str)]
            if len(value) == 1 and strings:
                return strings[0]
    return text


# --- errors ---------------------------------------------------------------------------------


# What an error's text says about the kind of failure, the first match winning.
ERROR_KINDS: tuple[tuple[tuple[str, ...], ErrorKind], ...] = (
    (("quota", "usage limit"), "usage_limit"),
    (("429", "rate limit", "resource_exhausted", "rate-limit"), "rate_limit"),
    (("overloaded", "503", "unavailable"), "overloaded"),
    (("api key", "401", "403", "permission denied", "auth"), "auth"),
)


def classify(text: str) -> ErrorKind:
    low = text.lower()
    return next((kind for words, kind in ERROR_KINDS if any(w in low for w in words)), "api")


def reset_time(text: str, at: str | None) -> str | None:
    """`retry in 1h2m3s` / `resets after 30s` from the message, made absolute from `at`."""
    m = _RETRY.search(text)
    if not m or not at:
        return None
    seconds = 0.0
    for amount, unit in _DURATION.findall(m.group(1)):
        seconds += float(amount) * {"h": 3600, "m": 60, "s": 1}[unit.lower()]
    import datetime as dt  # only here: the module is imported by every Stop hook's checkpoint

    try:
        base = dt.datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return None
    when = base + dt.timedelta(seconds=round(seconds))
    return stamps.iso(when)


def _error(session: Session, extra: dict[str, Any], msg: dict[str, Any]) -> None:
    if _find(extra, msg["id"]) >= 0:
        return
    text = _gemini_text(msg.get("content"))
    code = _STATUS.search(text)
    add_error(
        session,
        ApiError(
            kind=classify(text),
            message=text,
            status=int(code.group(1)) if code else None,
            reset_at=reset_time(text, msg.get("timestamp")),
            timestamp=msg.get("timestamp"),
        ),
    )
    _push(extra, {"id": msg["id"], "k": "error"})
