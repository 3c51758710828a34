"""Rollout JSONL into the core Session, one line at a time (`fold`), both history formats.

Paginated rollouts (0.171+) carry the user's words and the agent's answers as `item_completed`
events; legacy ones as `user_message` / `agent_message` events. `response_item` messages are
what the model saw, injected context included, so requests never come from them. The core's
capped edits keep text raw until the end of a read redacts what is still kept.

Lines are decoded by `continuity_core.jsonl.loads`: a line that is no JSON object, or whose
`type` or `timestamp` is no string, is a bad line.
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any

from msgspec import Struct, field

from continuity_codex import patch as patch_mod
from continuity_codex.launch import HANDOFF_PROMPTS
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
    fold_line,
    read_incremental,
    set_result,
    set_todos,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import tzinfo

    from continuity_core.schemas.session import ErrorKind, ForkHistory

# Bulky records that say nothing the brief needs: counted, never decoded.
SKIP = (b'"type":"world_state"', b'"type": "world_state"')
# Events whose type `_event` ignores: settings echoes and reasoning. They set nothing, so the
# usage records kept for later stay kept past them.
UNUSED = ("thread_settings_applied", "agent_reasoning")
KNOWN = {
    "inter_agent_communication_metadata",  # beside a sub-agent's message: nothing the brief needs
    "session_meta",
    "response_item",
    "event_msg",
    "turn_context",
    "world_state",
    "token_usage_record",
    "compacted",
}
# Where the framing an automatic compaction's summary starts with ends ("Another language model
# started to solve this problem…").
SUMMARY_AFTER = "use the information in this summary to assist with your own analysis:\n"
# What a `codex_error_info` or error text says about the kind of failure.
LIMIT_KINDS: tuple[tuple[str, ErrorKind], ...] = (
    ("usage_limit", "usage_limit"),
    ("usage limit", "usage_limit"),
    ("rate_limit", "rate_limit"),
    ("rate limit", "rate_limit"),
    ("quota", "usage_limit"),
    ("overloaded", "overloaded"),
    ("unauthorized", "auth"),
)
# How a usage-limit message names its reset, in the CLI's local time: "try again at 6:20 AM"
# the same day, "try again at Dec 4th, 2026 3:57 AM" (`%b %-d{suffix}, %Y %-I:%M %p`) later.
_TRY_AGAIN = re.compile(
    r"[Tt]ry again at (?:(?P<mon>[A-Z][a-z]{2}) (?P<day>\d{1,2})(?:st|nd|rd|th)?,? "
    r"(?:(?P<year>\d{4}) )?)?(?P<h>\d{1,2}):(?P<m>\d\d) ?(?P<ap>[AaPp][Mm])"
)
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


# Usage records (token_count events and token_usage_record lines, a third of a rollout) only
# replace the figures of the one before, so fold keeps the newest of each and applies it only
# when its figures are read: before an event that reads or sets them, and at the end.
LATEST = "_latest"  # in `extra`; emptied by `flush` before the cursor is saved
# In each compaction record once, nowhere else: a cold read counts the part it skips with it.
# The record's head as Codex writes it (the type tag, the payload and its first field): the
# longer the marker, the quicker the byte search over hundreds of MiB.
COMPACTION_MARKER = b'"type":"compacted","payload":{"message":'
# In every event that carries a typed request (paginated and legacy): a cold read finds the
# latest one in the part it skips.
REQUEST_MARKERS = (b'"type":"UserMessage"', b'"type":"user_message"')
READS_USAGE = ("task_started", "task_complete", "error")


class CodexState(Struct, kw_only=True, omit_defaults=True):
    """What the fold keeps between reads (`Cursor.state`); `LATEST` is flushed before."""

    meta: bool = False  # this thread's session_meta was read
    window: Any = None  # the model's context window, as the rollout states it
    turn_requests: int = 0  # typed requests since the turn began
    last_request: str | None = None  # its digest, not its words
    last_request_at: int = 0
    patches: dict[str, Any] = field(default_factory=dict)  # apply_patch calls awaiting a result
    resets_at: str | None = None
    turn_prompted: bool = False  # the turn began with a prompt (its start names a trigger)
    # shell commands awaiting their result: [command (redacted), timestamp]
    shell: dict[str, list[str | None]] = field(default_factory=dict)
    ran: dict[str, None] = field(default_factory=dict)  # calls whose result was taken


def read(ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
    return read_incremental(
        ref,
        cursor,
        fold,
        finish=flush,
        compaction_marker=COMPACTION_MARKER,
        request_markers=REQUEST_MARKERS,
        state=CodexState,
    )


def flush(session: Session, extra: dict[str, Any]) -> None:
    """Apply the usage records `fold` kept for later, oldest first."""
    latest = extra.pop(LATEST, None)
    for kind, (_, payload) in sorted(latest.items(), key=lambda item: item[1][0]) if latest else ():
        if not isinstance(payload, dict):
            continue
        try:
            if kind == "token_usage_record":
                _usage(session, extra, payload.get("usage"))
            else:
                _token_count(session, extra, payload)
        except (ValueError, KeyError, TypeError, AttributeError):
            session.bad_lines += 1  # as read_incremental counts a line fold could not take


def fold(session: Session, extra: dict[str, Any], line: bytes) -> None:
    head = line[:160]
    if b"world_state" in head and (SKIP[0] in head or SKIP[1] in head):
        return
    record = jsonl.loads(line)
    if not isinstance(record, dict):
        raise TypeError("a rollout line is a JSON object")
    kind = record.get("type", "")
    ts = record.get("timestamp")
    if not isinstance(kind, str) or not (ts is None or isinstance(ts, str)):
        raise TypeError("a rollout line's type and timestamp are strings")
    if ts:
        session.updated_at = ts
    if kind not in KNOWN:
        session.unknown_records[kind or "?"] = session.unknown_records.get(kind or "?", 0) + 1
        return
    payload = record.get("payload")
    if kind == "event_msg":
        # tuples, not sets: a type that is a list or an object is no event, never unhashable
        event = payload.get("type") if isinstance(payload, dict) else None
        if event in UNUSED:
            return
        if event == "token_count":
            extra.setdefault(LATEST, {})[kind] = (session.records, payload)
            return
        if LATEST in extra and event in READS_USAGE:
            flush(session, extra)
    elif kind == "token_usage_record":
        extra.setdefault(LATEST, {})[kind] = (session.records, payload)
        return
    # `_item` ignores what the model saw (`message`, `reasoning`): requests and answers come
    # from events.
    if not isinstance(payload, dict):
        return
    if kind == "session_meta":
        _meta(session, extra, payload, ts)
    elif kind == "turn_context":
        if isinstance(payload.get("model"), str):
            session.model = payload["model"]
    elif kind == "event_msg":
        _event(session, extra, payload, ts)
    elif kind == "response_item":
        _item(session, extra, payload, ts)
    elif kind == "compacted":
        message = payload.get("message")
        if isinstance(message, str):  # the words Codex puts before the summary, to the model
            message = message.partition(SUMMARY_AFTER)[2] or message
        add_compaction(
            session,
            Compaction(
                # `/compact` is a turn nobody prompted (its task_started names no trigger); a
                # compaction in a prompted turn, before or after its request, is automatic.
                trigger="auto"
                if extra.get("turn_requests") or extra.get("turn_prompted")
                else "manual",
                summary=clip(redact(message), 2000)
                if isinstance(message, str) and message
                else None,
                timestamp=ts,
            ),
        )


def _meta(session: Session, extra: dict[str, Any], p: dict[str, Any], ts: str | None) -> None:
    if extra.get("meta"):
        return  # a forked rollout may embed its parent's meta; the first one is this thread
    extra["meta"] = True
    session.session_id = p.get("id") or session.session_id
    session.cwd = session.cwd or p.get("cwd")
    session.started_at = p.get("timestamp") or ts
    git = p.get("git")
    if isinstance(git, dict) and isinstance(git.get("branch"), str):
        session.git_branch = git["branch"]
    parent = p.get("forked_from_id")
    if isinstance(parent, str) and kit.plain_id(parent):  # what `find_by_id` looks up
        session.forked_from = parent
        cut = p.get("forked_from_ordinal_exclusive")
        if isinstance(cut, int) and not isinstance(cut, bool):
            session.fork_history = _fold_parent(
                session, extra, parent, cut, {session.session_id}, [_fork_budget(session)]
            )


# --- forks -----------------------------------------------------------------------------------

_ORDINAL = re.compile(rb'"ordinal"\s*:\s*(\d+)')


def _fork_budget(session: Session) -> int:
    """What a fork's own rollout leaves of a first read's `COLD_MAX` for its parents."""
    from continuity_core.transcript import COLD_MAX

    try:
        return COLD_MAX - os.stat(session.path).st_size if session.path else 0
    except OSError:
        return 0


def _fold_parent(
    session: Session,
    extra: dict[str, Any],
    parent: str,
    cut: int,
    seen: set[str],
    budget: list[int],
    depth: int = 0,
) -> ForkHistory:
    """Fold the history a fork starts from: its parent's records numbered below `cut`; how
    much of it was read.

    `codex exec fork` (0.171) writes a rollout that holds only the fork's own records, from
    `ordinal` `cut` on; its session_meta names the parent and `cut`. The parent's rollout is
    looked for beside the fork (its Codex home, `archived_sessions/` included); when it is gone
    the fork is read alone. A parent that is itself a fork brings its own parent's part first.
    The whole chain shares one first read's budget (`budget[0]` bytes, what the fork left of
    `COLD_MAX`): a parent larger than what is left is read from its last part, as a cold read
    is. A chain that loops back (A forked from B forked from A) is read once.
    """
    from continuity_codex import discovery
    from continuity_core.jsonl import ForwardReader
    from continuity_core.transcript import tail_cursor

    if depth >= discovery.FORK_DEPTH or not session.path or parent in seen or budget[0] <= 0:
        return "part" if depth else "none"
    seen.add(parent)
    path = discovery.find_by_id(discovery.home_of(session.path), parent)
    try:
        regular = path is not None and stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        regular = False
    if path is None or not regular or path.endswith(".zst"):
        return "part" if depth else "none"  # a FIFO there would never end
    ref = SessionRef(agent="codex", account="", session_id=parent, path=path, mtime=0)
    tail = tail_cursor(ref, budget[0])
    got: ForkHistory = "part" if tail is not None else "all"
    reader = ForwardReader(path, tail.offset if tail is not None else 0)
    for n, line in enumerate(reader):
        if n == 0 and tail is None and b"session_meta" in line[:200]:
            up = discovery.FORK.search(line[: discovery.HEAD_FORK])
            if up is not None:  # the parent is a fork too: its start first
                ancestor = up.group(1).decode()
                above = min(cut, int(up.group(2)))
                if _fold_parent(session, extra, ancestor, above, seen, budget, depth + 1) != "all":
                    got = "part"
            continue  # the parent's meta is not this thread's
        m = _ORDINAL.search(line[:160])
        if m is not None and int(m.group(1)) >= cut:
            break  # the parent went on after the fork: not this thread's history
        fold_line(fold, session, extra, line)
    budget[0] -= reader.offset - (tail.offset if tail is not None else 0)
    return got


def _event(session: Session, extra: dict[str, Any], p: dict[str, Any], ts: str | None) -> None:
    kind = p.get("type")
    if kind == "task_started":
        session.turn_incomplete = True
        if isinstance(p.get("model_context_window"), int):
            extra["window"] = p["model_context_window"]
        extra["turn_requests"] = 0
        who = p.get("turn_attribution")
        extra["turn_prompted"] = isinstance(who, dict) and bool(who.get("turn_trigger"))
    elif kind == "task_complete":
        session.turn_incomplete = False
        if isinstance(p.get("error"), dict):
            _error(session, extra, p["error"], ts)
    elif kind == "turn_aborted":
        session.turn_incomplete = True
        add_message(
            session,
            extra,
            "system",
            f"turn aborted ({p.get('reason', 'interrupted')})",
            kind="meta",
            timestamp=ts,
        )
    elif kind == "error":
        _error(session, extra, p, ts)
    elif kind == "token_count":
        _token_count(session, extra, p)
    elif kind == "item_completed" and isinstance(p.get("item"), dict):
        _completed(session, extra, p["item"], ts)
    elif kind == "user_message" and isinstance(p.get("message"), str):
        _request(session, extra, p["message"], ts)
    elif kind == "agent_message" and isinstance(p.get("message"), str):
        add_message(session, extra, "assistant", p["message"], timestamp=ts)
    elif kind == "exec_command_end":
        output = p.get("aggregated_output") or p.get("formatted_output") or p.get("stdout") or ""
        code = p.get("exit_code")
        _ran(session, extra, str(p.get("call_id")), str(output), code, None, ts, result=True)
    elif kind == "patch_apply_end":
        _changes(
            session,
            extra,
            str(p.get("call_id")),
            p.get("changes"),
            ok=p.get("success", True) is not False,
        )


def _request(session: Session, extra: dict[str, Any], text: str, ts: str | None) -> None:
    if text.startswith(HANDOFF_PROMPTS):  # typed by `baker resume`, so the user's is older
        add_message(session, extra, "user", text, kind="meta", timestamp=ts)
        return
    # A file written by one CLI and migrated or appended to by another may say it twice. The
    # cursor keeps a digest, not the words: `extra` reaches disk unredacted.
    import hashlib  # here: only a typed request needs it

    digest = hashlib.blake2b(text.encode(), digest_size=12).hexdigest()
    if (
        digest == extra.get("last_request")
        and session.records - extra.get("last_request_at", 0) < 6
    ):
        return
    extra["last_request"], extra["last_request_at"] = digest, session.records
    extra["turn_requests"] = extra.get("turn_requests", 0) + 1
    add_request(session, extra, text, ts)


def _text(content: Any) -> str:
    if not isinstance(content, list):
        return ""
    return "".join(
        c.get("text", "") for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)
    )


def _completed(
    session: Session, extra: dict[str, Any], item: dict[str, Any], ts: str | None
) -> None:
    kind = item.get("type")
    if kind == "UserMessage":
        text = _text(item.get("content"))
        if text:
            _request(session, extra, text, ts)
    elif kind == "AgentMessage":
        text = _text(item.get("content"))
        if text:
            add_message(session, extra, "assistant", text, timestamp=ts)
    elif kind == "CommandExecution":
        call_id = str(item.get("id"))
        if not any(c.id == call_id for c in session.tool_calls):
            command = item.get("command")
            add_call(
                session,
                extra,
                ToolCall(id=call_id, name="exec_command", timestamp=ts, input={"command": command}),
            )
        if call_id not in extra.get("shell", {}) and call_id not in extra.get("ran", {}):
            _remember_shell(extra, call_id, _argv_text(item.get("command")), ts)
        if item.get("status") != "in_progress":
            output = str(item.get("aggregated_output") or "")
            failed = True if item.get("status") in ("failed", "declined") else None
            _ran(session, extra, call_id, output, item.get("exit_code"), failed, ts, result=True)
    elif kind == "SubAgentActivity" and item.get("kind") == "started":
        # from here on the sub-agent is known by its path, which its answer names
        path = item.get("agent_path")
        for sub in session.subagents:
            if sub.id == item.get("id") and isinstance(path, str) and path:
                sub.id = path
    elif kind == "FileChange":
        _changes(
            session,
            extra,
            str(item.get("id")),
            item.get("changes"),
            ok=item.get("status") in (None, "completed"),
        )


ACTIONS = {"add": "write", "update": "edit", "delete": "delete"}


def _changes(
    session: Session, extra: dict[str, Any], call_id: str, changes: Any, *, ok: bool
) -> None:
    """Edits Codex reports as applied; they supersede what the patch text said."""
    extra.setdefault("patches", {}).pop(call_id, None)
    if not ok or not isinstance(changes, dict):
        return
    for path, raw in changes.items():
        change = raw if isinstance(raw, dict) else {}
        kind = change.get("type") or next(iter(change), "update")  # legacy: {"add": {...}}
        move = change.get("move_path")
        if not move and isinstance(change.get(kind), dict):
            move = change[kind].get("move_path")
        _patched(session, str(path), kind, _rel(session, move) if isinstance(move, str) else None)


def _patched(session: Session, path: str, action: Any, moved_to: str | None) -> None:
    """One file an applied patch added, updated, deleted or moved (to `moved_to`)."""
    kind = "move" if moved_to else ACTIONS.get(action, "edit")
    add_edit(session, path, kind, "apply_patch", moved_to=moved_to or None)


def _rel(session: Session, path: str) -> str:
    cwd = (session.cwd or "").rstrip("/")
    return path[len(cwd) + 1 :] if cwd and path.startswith(cwd + "/") else path


def _item(session: Session, extra: dict[str, Any], p: dict[str, Any], ts: str | None) -> None:
    kind = p.get("type")
    call_id = str(p.get("call_id") or p.get("id") or "")
    if kind == "function_call":
        name = str(p.get("name") or "?")
        raw = p.get("arguments") or "{}"
        if not isinstance(raw, str):
            raise TypeError("function_call arguments are a JSON string")
        try:
            args = jsonl.loads(raw)
        except ValueError:
            args = {"arguments": p.get("arguments")}
        args = args if isinstance(args, dict) else {"arguments": args}
        if name == "update_plan":
            _plan(session, extra, args)
        elif name == "spawn_agent":
            _spawn(session, call_id, args, ts)
        elif name in SHELL_TOOLS:
            _remember_shell(extra, call_id, _argv_text(args.get("cmd") or args.get("command")), ts)
        add_call(session, extra, ToolCall(id=call_id, name=name, input=args, timestamp=ts))
    elif kind == "custom_tool_call":
        name = str(p.get("name") or "?")
        raw = p.get("input")
        text = raw if isinstance(raw, str) else ""
        add_call(
            session, extra, ToolCall(id=call_id, name=name, input={"patch": text}, timestamp=ts)
        )
        if name == "apply_patch":
            try:
                ops = patch_mod.parse(text)
            except patch_mod.PatchError:
                session.bad_lines += 1  # a malformed patch: Codex rejected it too
            else:
                extra.setdefault("patches", {})[call_id] = [list(op) for op in ops]
    elif kind == "local_shell_call":
        action = p.get("action")
        command = action.get("command") if isinstance(action, dict) else None
        call = ToolCall(id=call_id, name="local_shell", input={"command": command}, timestamp=ts)
        add_call(session, extra, call)
        _remember_shell(extra, call_id, _argv_text(command), ts)
    elif kind == "agent_message":
        _agent_message(session, p, ts)
    elif kind in ("function_call_output", "custom_tool_call_output"):
        output = p.get("output")
        text = output if isinstance(output, str) else _output_text(output)
        set_result(session, extra, call_id, text, is_error=_failed(text))
        if call_id in extra.get("shell", {}):
            # `Process exited with code N` (exec_command) or `Exit code: N`, in the head
            code = kit.exit_code_after(text, "Process exited with code ", "Exit code: ")
            _ran(session, extra, call_id, text, code, None, ts)
        pending = extra.setdefault("patches", {}).pop(call_id, None)
        if pending and not _failed(text):  # no FileChange event followed: trust the patch
            for action, path, move_to in pending:
                _patched(session, path, action, move_to)


def _spawn(session: Session, call_id: str, args: dict[str, Any], ts: str | None) -> None:
    """A multi_agent_v2 `spawn_agent` call: the sub-agent's task, `<task_name>: <message>`."""
    name, message = args.get("task_name"), args.get("message")
    task = message.strip() if isinstance(message, str) else ""
    if isinstance(name, str) and name:
        task = f"{name}: {task}" if task else name
    kit.add_subagent(session, task or "spawn_agent", id=call_id, timestamp=ts)


FINAL_ANSWER = "Message Type: FINAL_ANSWER\n"


def _agent_message(session: Session, p: dict[str, Any], ts: str | None) -> None:
    """A sub-agent's final answer to this thread: `Message Type: FINAL_ANSWER`, then after
    `Payload:` what it returned; its author is the path `SubAgentActivity` gave it."""
    text = _text(p.get("content"))
    author = p.get("author")
    if not text.startswith(FINAL_ANSWER) or not isinstance(author, str):
        return
    _, _, answer = text.partition("Payload:\n")
    kit.add_subagent(session, "", id=author, result=answer, timestamp=ts)


def _output_text(output: Any) -> str:
    if isinstance(output, dict):
        return str(output.get("content") or output.get("output") or "")
    if isinstance(output, list):
        return _text(output)
    return "" if output is None else str(output)


SHELL_TOOLS = frozenset({"exec_command", "shell", "shell_command", "container.exec"})
SHELL_PENDING_MAX = 200  # commands remembered while they wait for their result


def _argv_text(command: Any) -> str:
    """A command as typed: `bash -lc "<it>"` unwrapped, an argv joined."""
    if isinstance(command, list):
        argv = [str(a) for a in command]
        if (
            len(argv) == 3
            and argv[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh")
            and argv[1] in ("-lc", "-c")
        ):
            return argv[2]
        return " ".join(argv)
    return command if isinstance(command, str) else ""


def _remember_shell(extra: dict[str, Any], call_id: str, command: str, ts: str | None) -> None:
    if not command:
        return
    shell: dict[str, Any] = extra.setdefault("shell", {})
    shell[call_id] = [redact(command), ts]  # redacted now: `extra` reaches the cursor file
    while len(shell) > SHELL_PENDING_MAX:
        del shell[next(iter(shell))]


def _ran(
    session: Session,
    extra: dict[str, Any],
    call_id: str,
    output: str,
    exit_code: Any,
    failed: bool | None,
    ts: str | None,
    *,
    result: bool = False,
) -> None:
    """A shell command's first result (the function output and the item event both say it)
    into `session.commands`: the exit status Codex wrote, else its failed status. An end
    event (`result`) is also the call's result."""
    if result:
        set_result(session, extra, call_id, output, is_error=exit_code not in (0, None))
    pending = extra.get("shell", {}).pop(call_id, None)
    if pending is None:
        return
    ran: dict[str, None] = extra.setdefault("ran", {})
    ran[call_id] = None
    while len(ran) > SHELL_PENDING_MAX:
        del ran[next(iter(ran))]
    code = exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None
    kit.add_command(
        session,
        pending[0],
        exit_code=code,
        failed=failed,
        output=output,
        timestamp=pending[1] or ts,
    )


def _failed(text: str) -> bool:
    first = text[:200]
    for marker in ("Process exited with code ", "Exit code: "):
        cut = first.find(marker)
        if cut >= 0:
            code = first[cut + len(marker) :].split("\n", 1)[0].strip()
            return code not in ("0", "")
    return False


def _plan(session: Session, extra: dict[str, Any], args: dict[str, Any]) -> None:
    plan = args.get("plan")
    if not isinstance(plan, list):
        return
    set_todos(
        session,
        extra,
        [
            TodoItem(
                content=str(step.get("step", "")),
                status=kit.TODO_STATUS.get(str(step.get("status")), "pending"),
            )
            for step in plan
            if isinstance(step, dict) and step.get("step")
        ],
    )


def _token_count(session: Session, extra: dict[str, Any], p: dict[str, Any]) -> None:
    info = p.get("info")
    if isinstance(info, dict):
        if isinstance(info.get("model_context_window"), int):
            extra["window"] = info["model_context_window"]
        _usage(session, extra, info.get("last_token_usage"))
    limits_ = p.get("rate_limits")
    if isinstance(limits_, dict):
        full = [
            w
            for w in (limits_.get("primary"), limits_.get("secondary"))
            if isinstance(w, dict) and (w.get("used_percent") or 0) >= 100
        ]
        resets = [w["resets_at"] for w in full if isinstance(w.get("resets_at"), int | float)]
        extra["resets_at"] = stamps.iso(max(resets)) if resets else None


def _usage(session: Session, extra: dict[str, Any], usage: Any) -> None:
    if not isinstance(usage, dict) or not isinstance(usage.get("total_tokens"), int):
        return
    session.usage = Usage(
        context_tokens=usage["total_tokens"],
        context_window=extra.get("window"),
        input_tokens=usage.get("input_tokens"),
        output_tokens=usage.get("output_tokens"),
        cache_read_tokens=usage.get("cached_input_tokens"),
        cache_creation_tokens=usage.get("cache_write_input_tokens"),
    )


def _error(session: Session, extra: dict[str, Any], err: dict[str, Any], ts: str | None) -> None:
    message = str(err.get("message") or err.get("codex_error_info") or "error")
    info = err.get("codex_error_info")
    probe = f"{info} {message}".lower() if isinstance(info, str) else message.lower()
    kind: ErrorKind = next((k for marker, k in LIMIT_KINDS if marker in probe), "api")
    reset = None
    if kind in ("usage_limit", "rate_limit"):
        # The rate-limit snapshot is exact; the message's words round to the minute.
        reset = extra.get("resets_at") or clock_reset(message, ts)
    add_error(session, ApiError(kind=kind, message=message, timestamp=ts, reset_at=reset))


def clock_reset(text: str, at: str | None, tz: tzinfo | None = None) -> str | None:
    """The reset a message names ("try again at 6:20 AM"), as UTC ISO 8601.

    The words are wall-clock time where the CLI ran, `tz` (default: this machine's zone); a
    bare clock time is its next occurrence at or after `at`, the record's timestamp.
    """
    m = _TRY_AGAIN.search(text)
    if not m or not at:
        return None
    import datetime as dt  # only for a usage-limit message: ~1 ms the checkpoint path saves

    try:
        base = dt.datetime.fromisoformat(at.replace("Z", "+00:00"))
    except ValueError:
        return None
    if base.tzinfo is None:
        base = base.replace(tzinfo=dt.UTC)
    # Naive wall time in `tz`; with no `tz`, Python reads a naive time as local, DST included.
    now = base.astimezone(tz).replace(tzinfo=None, second=0, microsecond=0)
    hour = int(m["h"]) % 12 + (12 if m["ap"].lower() == "pm" else 0)
    try:
        if m["mon"]:
            if m["mon"].title() not in _MONTHS:
                return None
            year = int(m["year"]) if m["year"] else now.year
            when = dt.datetime(
                year, _MONTHS.index(m["mon"].title()) + 1, int(m["day"]), hour, int(m["m"])
            )
            if not m["year"] and when < now - dt.timedelta(days=1):
                when = when.replace(year=year + 1)  # "Jan 2nd" read on Dec 31st
        else:
            when = now.replace(hour=hour, minute=int(m["m"]))
            if when < now:
                when += dt.timedelta(days=1)
    except ValueError:
        return None
    return stamps.iso(when.replace(tzinfo=tz) if tz else when)
