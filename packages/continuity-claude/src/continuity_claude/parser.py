"""Claude Code transcript records folded into a core Session, one line at a time.

Records form a `parentUuid` tree and one API message is split over several records sharing
`message.id`, each carrying the same usage; the fold keeps the newest usage it sees, so a
message is never counted twice. State that must survive between incremental reads (tool calls
waiting for their result) lives in the cursor's `extra`, bounded. The core's capped edits
keep text raw until the end of a read redacts what is still kept.
"""

from __future__ import annotations

import re
from typing import Any

from msgspec import Struct, field

from continuity_core import jsonl, stamps
from continuity_core.adapters import kit
from continuity_core.redact import redact
from continuity_core.schemas.session import (
    ApiError,
    Compaction,
    Session,
    TodoItem,
    ToolCall,
    Usage,
)
from continuity_core.transcript import (
    add_call,
    add_compaction,
    add_edit,
    add_error,
    add_message,
    add_request,
    clip,
    set_result,
    set_todos,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from continuity_core.schemas.session import ErrorKind, TodoStatus

_NONE = type(None)
# The fields of a record this parser reads (the vendor's names) and the JSON types each may
# hold; the rest is not looked at. A record holding another type in one of them cannot be read:
# `fold` raises TypeError and the line counts as bad.
RECORD: dict[str, tuple[type, ...]] = {
    "type": (str,),
    "subtype": (str, _NONE),
    "timestamp": (str, _NONE),
    "cwd": (str, _NONE),
    "gitBranch": (str, _NONE),
    "isSidechain": (bool,),
    "isMeta": (bool,),
    "isCompactSummary": (bool,),
    "isApiErrorMessage": (bool,),
    "apiErrorStatus": (int, _NONE),
    "message": (dict, _NONE),  # its own fields: MESSAGE
    "compactMetadata": (dict, _NONE),
    "apiError": (str, _NONE),  # 2.1.3xx: "usage_limit_reached" for a plan's limit
    "promptSource": (str, _NONE),  # 2.1.3xx: "typed", "sdk", or "system" (nobody typed it)
    "origin": (dict, _NONE),  # 2.1.3xx: {"kind": "human" | "task-notification"}
    "totalCostUSD": (float, int, _NONE),  # cost-state
    "modelUsage": (dict, _NONE),  # cost-state
}
# `message` of a user or assistant record (its `content` may be anything).
MESSAGE: dict[str, tuple[type, ...]] = {
    "id": (str, _NONE),
    "model": (str, _NONE),
    "usage": (dict, _NONE),
    "stop_reason": (str, _NONE),
}


def _check(obj: dict[str, Any], fields: dict[str, tuple[type, ...]]) -> None:
    for key, value in obj.items():
        types = fields.get(key)
        if types is not None and type(value) not in types:  # exact: a bool is no int here
            raise TypeError(f"{key} holds {type(value).__name__}")


def _record(line: bytes) -> dict[str, Any]:
    """The record on `line`, its fields' types checked; ValueError or TypeError when it is not
    one this parser can read."""
    rec = jsonl.loads(line)
    if type(rec) is not dict:
        raise TypeError(f"a record is an object, not {type(rec).__name__}")
    _check(rec, RECORD)
    msg = rec.get("message")
    if msg is not None:
        _check(msg, MESSAGE)
    return rec


# Record types Claude Code 2.1.197 writes or knows that carry nothing a Session holds.
KNOWN = frozenset(
    {
        "attachment",
        "queue-operation",
        "last-prompt",
        "mode",
        "permission-mode",
        "ai-title",
        "file-history-snapshot",
        "summary",
        "custom-title",
        "ended-by-model",
        "tag",
        "relocated",
        "agent-name",
        "agent-color",
        "agent-setting",
        "pr-link",
        "frame-link",
        "bridge-session",
        "attribution-snapshot",
        "speculation-accept",
        "isolation-latch",
        "worktree-state",
        "marble-origami-commit",
        "marble-origami-snapshot",
        "marble-origami-reset",
        "content-replacement",
        "fork-context-ref",
        "progress",
        # 2.1.3xx request bookkeeping: the API requests, their shapes and blobs, not conversation
        "atis-latch",
        "api-request",
        "api-request-shape",
        "api-request-blob",
        "tools-used",
    }
)
# In each compaction record once, nowhere else: a cold read counts the part it skips with it.
COMPACTION_MARKER = b'"subtype":"compact_boundary"'
# In every record of a typed request (text, or blocks starting with text or an image; a tool
# result's blocks start otherwise): a cold read finds the latest one in the part it skips.
REQUEST_MARKERS = (
    b'"role":"user","content":"',
    b'"role":"user","content":[{"type":"text"',
    b'"role":"user","content":[{"type":"image"',
)
# Tools that only prepare others (2.1.3xx loads deferred tool schemas with ToolSearch).
NOT_WORK = frozenset({"ToolSearch"})
_TOOLS_USED = (
    r"(?s)\s*(?:<system-reminder>\s*)?<tools-used-before-summary>.*?</tools-used-before-summary>"
    r"\s*(?:</system-reminder>\s*)?"
)
# Text the CLI writes as a user message that nobody typed.
NOT_TYPED = (
    "<command-name>",
    "<command-message>",
    "<local-command-",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "<user-memory-input>",
    "<task-notification>",
    "[Request interrupted by user",
    "Caveat: The messages below were generated",
)
EDIT_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
NATIVE_1M = (
    "claude-opus-4-8",
    "claude-opus-4-7",
    "claude-fable-5",
    "claude-sonnet-5",
    "claude-opus-5",
)
WINDOW, WINDOW_1M = 200_000, 1_000_000
PENDING_MAX = 200  # calls remembered while they wait for a result


# `resetsAt` as an epoch or ISO time, the legacy `limit reached|<epoch>`. Each pattern here
# is compiled where it is first used (`re` keeps it): a read with nothing new compiles none.
_RESET_EPOCH = rb'"resets?_?[aA]t"\s*:\s*"?(\d{9,13})'
_RESET_ISO = rb'"resets?_?[aA]t"\s*:\s*"(\d{4}-\d\d-\d\dT[^"]+)"'
_LEGACY_LIMIT = r"(?i)usage limit reached\|(\d{9,13})"
_TASK_ID = r"Task #(\w+)"
SHELL_TOOLS = frozenset({"Bash"})
AGENT_TOOLS = frozenset({"Agent", "Task"})  # "Task" before 2.1.x renamed it
_LAUNCHED = "Async agent launched"
# Patterns of a sub-agent's records.
_AGENT_ID = r"agentId: ([\w-]+)"
_TRAILER = r"(?m)^(?:agentId: |<usage>)"
_NOTICE = r"(?s)<(tool-use-id|task-id|status|summary|result)>(.*?)</\1>"


def context_window(model: str | None) -> int:
    """The model's context window as Claude Code sizes it (formats/claude.md section 6)."""
    if not model:
        return WINDOW
    if model.endswith("[1m]") or model.startswith(NATIVE_1M):
        return WINDOW_1M
    return WINDOW


class ClaudeState(Struct, kw_only=True, omit_defaults=True):
    """What the fold keeps between reads (`Cursor.state`): what waits for a tool's result, by
    call id, and task updates that came before their task."""

    edits: dict[str, list[str]] = field(default_factory=dict)  # [path, tool]
    creates: dict[str, str] = field(default_factory=dict)  # the task's subject, redacted
    updates: dict[str, dict[str, Any]] = field(default_factory=dict)
    early: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    # shell commands awaiting their result: [command (redacted), timestamp]
    shell: dict[str, list[str | None]] = field(default_factory=dict)
    agents: dict[str, str] = field(default_factory=dict)  # sub-agent calls awaiting theirs


def fold(session: Session, extra: dict[str, Any], line: bytes) -> None:
    rec = _record(line)
    kind: str = rec.get("type", "")
    timestamp = rec.get("timestamp")
    if timestamp:
        if session.started_at is None or timestamp < session.started_at:
            session.started_at = timestamp
        if session.updated_at is None or timestamp > session.updated_at:
            session.updated_at = timestamp
    if rec.get("isSidechain"):
        return  # a subagent's turn: its parent records the outcome as a tool result
    cwd = rec.get("cwd")
    if cwd and session.cwd is None:
        session.cwd = cwd
    if branch := rec.get("gitBranch"):
        session.git_branch = branch
    msg = rec.get("message")
    if kind == "user" and msg is not None:
        _user(session, extra, rec, msg)
    elif kind == "assistant" and msg is not None:
        _assistant(session, extra, rec, msg, line)
    elif kind == "system":
        _system(session, rec)
    elif kind == "cost-state":
        _cost(session, rec)
    elif kind not in KNOWN:
        session.unknown_records[kind or "?"] = session.unknown_records.get(kind or "?", 0) + 1


def _text(content: Any) -> str:
    """The text of a message or tool-result content: a string or a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if block.get("type") == "text" and isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif block.get("type") == "image":
                    parts.append("[image]")
        return "\n".join(parts)
    return ""


# What Claude Code wraps its compaction summary in: words to the model, not about the work.
# Kept out of the brief, where they would contradict its First move ("without asking the user
# any further questions").
_FRAMING = (
    "This session is being continued from a previous conversation",
    "If you need specific details from before compaction",
    "Continue the conversation from where it left off",
    "Please continue the conversation from where",
    "Resume directly",
    "The messages after this summary are",  # 2.1.332: about the verbatim tail that follows
)


def work_summary(text: str) -> str:
    """A compaction summary without the framing Claude Code adds for the model: the
    continuation preamble, the `Summary:` label, where to read the transcript and the order
    to go on without asking."""
    kept = [
        line
        for line in text.splitlines()
        if not line.lstrip().startswith(_FRAMING) and line.strip() != "Summary:"
    ]
    return "\n".join(kept).strip("\n")


def _user(
    session: Session, extra: dict[str, Any], rec: dict[str, Any], msg: dict[str, Any]
) -> None:
    content = msg.get("content")
    if rec.get("isCompactSummary"):
        summary = work_summary(re.sub(_TOOLS_USED, "\n\n", _text(content), count=1))
        if not session.compactions:
            add_compaction(session, Compaction(timestamp=rec.get("timestamp")))
        session.compactions[-1].summary = clip(redact(summary), 2000)
        add_message(session, extra, "user", summary, kind="summary", timestamp=rec.get("timestamp"))
        return
    blocks = content if isinstance(content, list) else []
    results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
    if results:
        for block in results:
            _result(session, extra, rec, block)
        return
    text = _text(content)
    if text.lstrip().startswith("<task-notification>"):
        _notification(session, extra, text, rec.get("timestamp"))
        return
    if rec.get("isMeta") or not text.strip() or text.lstrip().startswith(NOT_TYPED):
        return
    origin = rec.get("origin") or {}
    if rec.get("promptSource") == "system" or origin.get("kind") not in (None, "human"):
        return  # e.g. a background subagent's <task-notification>
    add_request(session, extra, text, rec.get("timestamp"))
    session.turn_incomplete = True


def _result(
    session: Session, extra: dict[str, Any], rec: dict[str, Any], block: dict[str, Any]
) -> None:
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str):
        return
    is_error = block.get("is_error") is True
    output = _text(block.get("content"))
    set_result(session, extra, call_id, output, is_error=is_error)
    shell = extra.get("shell", {}).pop(call_id, None)
    if shell is not None:
        kit.add_command(
            session,
            shell[0],
            # a failed Bash result starts with it (formats/claude.md, "A failed shell command")
            exit_code=kit.exit_code_after(output.lstrip()[:60], "Exit code ", "Error: Exit code "),
            failed=is_error,  # the agent's own signal where it wrote no exit code
            output=output,
            timestamp=shell[1] or rec.get("timestamp"),
        )
    if call_id in extra.get("agents", {}):
        _agent_result(session, extra, call_id, output, is_error)
    edit = extra.get("edits", {}).pop(call_id, None)
    if edit is not None and not is_error:
        path, tool = edit
        add_edit(session, path, "write" if tool == "Write" else "edit", tool)
    subject = extra.get("creates", {}).pop(call_id, None)
    if subject is not None and not is_error:
        task_id = None
        result = rec.get("toolUseResult")
        task = result.get("task") if isinstance(result, dict) else None
        if isinstance(task, dict) and task.get("id") is not None:
            task_id = str(task["id"])
        if task_id is None:
            m = re.search(_TASK_ID, output)
            task_id = m.group(1) if m else None
        session.todos = [t for t in session.todos if task_id is None or t.id != task_id]
        session.todos.append(TodoItem(content=subject, id=task_id))  # redacted when remembered
        for update in extra.get("early", {}).pop(task_id, []) if task_id else []:
            _task_update(session, extra, update)
    update = extra.get("updates", {}).pop(call_id, None)
    if update is not None and not is_error and _succeeded(rec):
        _task_update(session, extra, update)


def _agent_result(
    session: Session, extra: dict[str, Any], call_id: str, output: str, is_error: bool
) -> None:
    """An Agent call's result: the sub-agent's answer, or (2.1.332, in the background) only
    its launch, whose answer comes later in a <task-notification> or its sidechain file."""
    import re

    agents: dict[str, Any] = extra["agents"]
    if output.lstrip().startswith(_LAUNCHED):
        m = re.search(_AGENT_ID, output)
        agents[call_id] = m.group(1) if m else ""
        return
    del agents[call_id]
    answer = re.split(_TRAILER, output, maxsplit=1)[0]  # 2.1.197's agentId and usage lines
    kit.add_subagent(session, "", id=call_id, result=f"(failed) {answer}" if is_error else answer)


def _notification(session: Session, extra: dict[str, Any], text: str, when: Any) -> None:
    """A background sub-agent's <task-notification>: its answer, by the Agent call's id. Not
    a request (nobody typed it)."""
    import re

    fields = {m.group(1): m.group(2).strip() for m in re.finditer(_NOTICE, text)}
    call_id, result = fields.get("tool-use-id"), fields.get("result")
    if not call_id or result is None:
        return
    agents: dict[str, Any] = extra.get("agents", {})
    known = agents.pop(call_id, None) is not None or any(
        sub.id == call_id for sub in session.subagents
    )
    if not known and not fields.get("summary", "").startswith("Agent "):
        return  # a background shell command's notice, not a sub-agent's
    status = fields.get("status", "completed")
    kit.add_subagent(
        session,
        "" if known else fields.get("summary", "a sub-agent"),
        id=call_id,
        result=result if status == "completed" else f"({status}) {result}",
        timestamp=None if known else when,
    )


def waiting_agents(extra: dict[str, Any]) -> dict[str, str]:
    """Background sub-agents launched whose answer has not arrived: Agent call id -> agentId
    (the name of its sidechain file, `<session>/subagents/agent-<agentId>.jsonl`)."""
    agents: dict[str, str] = extra.get("agents", {})
    return {k: v for k, v in agents.items() if v}


def sidechain_answer(path: str, tail: int = 256 << 10) -> str | None:
    """The last assistant text of a sub-agent's sidechain file (its answer when it finished),
    read from the file's last `tail` bytes; None when there is none."""
    import json  # here: only a background sub-agent still waiting needs it

    try:
        with open(path, "rb") as f:
            size = f.seek(0, 2)
            f.seek(max(0, size - tail))
            lines = f.read().splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        msg = rec.get("message") if isinstance(rec, dict) else None
        if not isinstance(msg, dict) or rec.get("type") != "assistant":
            continue
        if msg.get("stop_reason") not in (None, "end_turn", "stop_sequence"):
            return None  # the last turn asked for a tool: it was still working
        text = _text(msg.get("content"))
        if text.strip():
            return text
    return None


def finish(session: Session, extra: dict[str, Any]) -> None:
    """After a read: a background sub-agent whose notification has not arrived gets its
    answer from its sidechain file where it finished there (the session may have ended
    before the notification came back)."""
    waiting = waiting_agents(extra)
    if not waiting or not session.path.endswith(".jsonl"):
        return
    folder = session.path[: -len(".jsonl")] + "/subagents/"
    for call_id, agent_id in waiting.items():
        answer = sidechain_answer(f"{folder}agent-{agent_id}.jsonl")
        if answer is not None:
            extra["agents"].pop(call_id, None)
            kit.add_subagent(session, "", id=call_id, result=answer)


def _succeeded(rec: dict[str, Any]) -> bool:
    """False when a tool's structured result says `success: false`."""
    result = rec.get("toolUseResult")
    return not (isinstance(result, dict) and result.get("success") is False)


def _assistant(
    session: Session, extra: dict[str, Any], rec: dict[str, Any], msg: dict[str, Any], line: bytes
) -> None:
    if rec.get("isApiErrorMessage"):
        _api_error(session, rec, msg, line)
        return
    model = msg.get("model")
    if model == "<synthetic>":
        return  # e.g. "No response requested." after /compact: no model, no usage
    if model:
        session.model = model
    if usage := msg.get("usage"):
        _usage(session, usage, model)
    content = msg.get("content")
    blocks = (
        content
        if isinstance(content, list)
        else [{"type": "text", "text": content}]
        if isinstance(content, str)
        else []
    )
    for block in blocks:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            if block["text"].strip():
                add_message(
                    session, extra, "assistant", block["text"], timestamp=rec.get("timestamp")
                )
        elif block.get("type") == "tool_use":
            _tool_use(session, extra, rec, block)
    stop = msg.get("stop_reason")
    if stop == "tool_use":
        session.turn_incomplete = True
    elif stop in ("end_turn", "stop_sequence", "max_tokens", "refusal"):
        session.turn_incomplete = False


def _usage(session: Session, usage: dict[str, Any], model: str | None) -> None:
    def n(key: str) -> int:
        v = usage.get(key)
        return v if isinstance(v, int) and not isinstance(v, bool) else 0

    inp = n("input_tokens")
    created, cached = n("cache_creation_input_tokens"), n("cache_read_input_tokens")
    session.usage = Usage(
        context_tokens=inp + created + cached,
        context_window=context_window(model or session.model),
        input_tokens=inp,
        output_tokens=n("output_tokens"),
        cache_read_tokens=cached,
        cache_creation_tokens=created,
    )


def _remember(extra: dict[str, Any], key: str, call_id: str, value: Any) -> None:
    pending: dict[str, Any] = extra.setdefault(key, {})
    pending[call_id] = value
    while len(pending) > PENDING_MAX:  # results that never came: forget the oldest
        del pending[next(iter(pending))]


def _tool_use(
    session: Session, extra: dict[str, Any], rec: dict[str, Any], block: dict[str, Any]
) -> None:
    call_id, name, raw = block.get("id"), block.get("name"), block.get("input")
    if not isinstance(call_id, str) or not isinstance(name, str):
        return
    args: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if name in NOT_WORK:
        return
    add_call(
        session, extra, ToolCall(id=call_id, name=name, input=args, timestamp=rec.get("timestamp"))
    )
    session.turn_incomplete = True
    key = EDIT_TOOLS.get(name)
    if name in SHELL_TOOLS and isinstance(args.get("command"), str):
        # redacted now: `extra` reaches the cursor file as it is
        _remember(extra, "shell", call_id, [redact(args["command"]), rec.get("timestamp")])
    elif name in AGENT_TOOLS:
        task = args.get("description") or args.get("prompt")
        task = task if isinstance(task, str) else name
        kit.add_subagent(session, task, id=call_id, timestamp=rec.get("timestamp"))
        _remember(extra, "agents", call_id, "")
    elif key and isinstance(args.get(key), str):
        _remember(extra, "edits", call_id, [args[key], name])
    elif name == "TodoWrite" and isinstance(args.get("todos"), list):
        set_todos(
            session,
            extra,
            [
                TodoItem(content=t["content"], status=_status(t.get("status")))
                for t in args["todos"]
                if isinstance(t, dict) and isinstance(t.get("content"), str)
            ],
        )
    elif name == "TaskCreate" and isinstance(args.get("subject"), str):
        _remember(extra, "creates", call_id, redact(args["subject"]))
    elif name == "TaskUpdate" and args.get("taskId") is not None:
        # Applied when its result arrives: a TaskUpdate batched with the TaskCreate of its
        # task comes before the create's result has given the task its id.
        status = args.get("status")
        update: dict[str, Any] = {
            "taskId": str(args["taskId"]),
            "status": status if isinstance(status, str) else None,
        }
        if isinstance(args.get("subject"), str):
            update["subject"] = redact(args["subject"])
        _remember(extra, "updates", call_id, update)


def _status(value: Any) -> TodoStatus:
    return kit.TODO_STATUS.get(value, "pending")


def _task_update(session: Session, extra: dict[str, Any], update: dict[str, Any]) -> None:
    """Apply a successful TaskUpdate (its subject already redacted).

    An update for a task not yet known waits for that task's create result.
    """
    task_id = update["taskId"]
    for i, todo in enumerate(session.todos):
        if todo.id != task_id:
            continue
        status = update.get("status")
        if status == "deleted":
            del session.todos[i]
            return
        if status in kit.TODO_STATUS:
            todo.status = _status(status)
        if isinstance(update.get("subject"), str):
            todo.content = update["subject"]
        return
    early: dict[str, list[dict[str, Any]]] = extra.setdefault("early", {})
    early.setdefault(task_id, []).append(update)
    while len(early) > PENDING_MAX:  # tasks created before a tail read began: forget
        del early[next(iter(early))]


def _system(session: Session, rec: dict[str, Any]) -> None:
    subtype = rec.get("subtype")
    if subtype == "compact_boundary":
        meta = rec.get("compactMetadata") or {}
        pre = meta.get("preTokens")
        add_compaction(
            session,
            Compaction(
                trigger=str(meta.get("trigger") or "auto"),
                pre_tokens=pre if isinstance(pre, int) else None,
                timestamp=rec.get("timestamp"),
            ),
        )
    elif subtype in ("turn_duration", "stop_hook_summary"):
        session.turn_incomplete = False


_COST_TOKENS = ("inputTokens", "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens")


def _cost(session: Session, rec: dict[str, Any]) -> None:
    """2.1.3xx `cost-state`: the session's cumulative cost and tokens by model."""
    cost = rec.get("totalCostUSD")
    if cost is not None:  # a float or an int (RECORD)
        session.cost_usd = float(cost)
    tokens: dict[str, int] = {}
    for model, use in (rec.get("modelUsage") or {}).items():
        if isinstance(use, dict):
            tokens[str(model)] = sum(
                v
                for k in _COST_TOKENS
                if isinstance(v := use.get(k), int) and not isinstance(v, bool)
            )
    if tokens:
        session.model_tokens = tokens


def _api_error(session: Session, rec: dict[str, Any], msg: dict[str, Any], line: bytes) -> None:
    error, status = rec.get("error"), rec.get("apiErrorStatus")
    text = _text(msg.get("content")) or str(error or "API error")
    kind: ErrorKind = (
        "usage_limit"
        if rec.get("apiError") == "usage_limit_reached"
        else error_kind(error, status, text)
    )
    add_error(
        session,
        ApiError(
            kind=kind,
            message=text,
            status=status,
            reset_at=_reset_at(line, text),
            timestamp=rec.get("timestamp"),
        ),
    )


def error_kind(code: Any, status: int | None, text: str) -> ErrorKind:
    """Sort an API error: a plan's usage limit, a rate limit, overload, auth, or other."""
    low = text.lower()
    code = str(code or "").lower()
    if "usage limit" in low or "limit reached" in low or "quota" in code:
        return "usage_limit"
    if code == "rate_limit" or status == 429 or "rate limit" in low:
        return "rate_limit"
    if "overloaded" in low or code == "overloaded" or status == 529:
        return "overloaded"
    if status in (401, 403) or "auth" in code or "login" in low or "api key" in low:
        return "auth"
    return "api"


def _reset_at(line: bytes, text: str) -> str | None:
    """When a limit resets, if the record says: `resetsAt` anywhere, or `limit reached|<epoch>`."""
    m = re.search(_RESET_ISO, line)
    if m:
        return m.group(1).decode(errors="replace")
    epoch = re.search(_RESET_EPOCH, line)
    legacy = re.search(_LEGACY_LIMIT, text)
    value = int(epoch.group(1)) if epoch else int(legacy.group(1)) if legacy else None
    if value is None:
        return None
    return stamps.iso(value // 1000 if value > 10**11 else value)  # > 10**11: milliseconds
