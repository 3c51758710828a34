"""Copilot CLI hook payloads (JSON on stdin, camelCase) and hook output.

A Copilot payload names no event: each event's keys tell it (formats/copilot.md, 2.2), and
`sessionId` is in every one. The pre-tool hook imports this module alone, so it imports
nothing at module level beyond the HookEvent class.
"""

from __future__ import annotations

from continuity_core.schemas.hook import HookEvent

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from continuity_core.schemas.hook import EventKind
    from continuity_core.schemas.session import ErrorKind

AGENT = "copilot"
# Events whose `{"additionalContext": …}` output reaches the model (changelog of 1.0.102).
CONTEXT_EVENTS = frozenset({"sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse"})
# What an error's type, code or text says about the kind of failure.
ERROR_MARKERS: tuple[tuple[str, ErrorKind], ...] = (
    ("rate_limit", "rate_limit"),
    ("rate limit", "rate_limit"),
    ("quota", "usage_limit"),
    ("usage_limit", "usage_limit"),
    ("usage limit", "usage_limit"),
    ("credit", "usage_limit"),
    ("unauthorized", "auth"),
    ("authentication", "auth"),
    ("overloaded", "overloaded"),
)
LIMITS = ("rate_limit", "usage_limit")
# How long a live `agentStop`'s checkpoint waits for Copilot to append the turn (`flushed`).
FLUSH_WAIT_S = 3.0
LIVE_S = 120.0  # a payload stamped this close to now is a live hook, not a replayed capture


def error_kind(text: str, status: int | None = None) -> ErrorKind:
    """The ApiError kind of a Copilot error from its type, code or text and HTTP status."""
    low = text.lower()
    for marker, kind in ERROR_MARKERS:
        if marker in low:
            return kind
    if status == 429 or " 429 " in f" {low} ":
        return "rate_limit"
    if status in (401, 403):
        return "auth"
    if status in (503, 529):
        return "overloaded"
    return "api" if status or text else "other"


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def event_name(data: dict[str, Any]) -> str:
    """The Copilot hook event a payload belongs to, told by its keys; ValueError when none."""
    if "toolResult" in data:
        return "postToolUse"
    if "hookName" in data:
        return str(data["hookName"])  # permissionRequest names itself
    if "trigger" in data and "customInstructions" in data:
        return "preCompact"  # it carries `transcriptPath` too
    if "transcriptPath" in data or "stopReason" in data:
        return "agentStop"
    if "errorContext" in data:
        return "errorOccurred"
    if "reason" in data:
        return "sessionEnd"
    if "initialPrompt" in data or "source" in data:
        return "sessionStart"
    if "prompt" in data:
        return "userPromptSubmitted"
    if "toolName" in data or "toolCalls" in data:
        return "preToolUse"
    raise ValueError("not a Copilot hook payload")


def parse_hook(payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
    """A HookEvent from a Copilot hook's stdin; ValueError when it is not Copilot's."""
    import json

    data = json.loads(payload)  # a ValueError when it is no JSON (or no UTF-8)
    # Claude-shaped payloads (Copilot also runs a project's .claude hooks) are Claude's.
    if not isinstance(data, dict) or "hook_event_name" in data or not _str(data.get("sessionId")):
        raise ValueError("not a Copilot hook payload")
    name = event_name(data)
    tool_name = _str(data.get("toolName"))
    raw_args = data.get("toolArgs")
    if tool_name is None and isinstance(data.get("toolCalls"), list) and data["toolCalls"]:
        first = data["toolCalls"][0]  # the shape Copilot logs in hook.start
        if isinstance(first, dict):
            tool_name, raw_args = _str(first.get("name")), first.get("args")
    tool_input: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
    kind: EventKind = KINDS.get(name, "other")
    stamp = data.get("timestamp")  # milliseconds, not a bool
    error = message = None
    if name == "errorOccurred":
        err = data.get("error")
        message = _str(err.get("message")) if isinstance(err, dict) else _str(err)
        found = error_kind(message or "")
        if found in LIMITS:
            error = found  # the limit reaches the ledger now; the session.error comes later
        elif data.get("recoverable") is not False:
            kind = "other"  # a retried or tool error: the turn goes on, nothing to save
    return HookEvent(
        agent=AGENT,
        kind=kind,
        native=name,
        session_id=_str(data.get("sessionId")),
        transcript_path=_str(data.get("transcriptPath")),
        cwd=_str(data.get("cwd")),
        source=_str(data.get("source")),
        tool_name=tool_name,
        tool_input=tool_input,
        paths=_paths(tool_input),
        command=_str(tool_input.get("command")),
        error=error,
        error_message=message,
        # agentStop: the call's own stamp, which Copilot also logs with it (`flushed`)
        turn_id=str(stamp) if name == "agentStop" and type(stamp) is int and stamp > 0 else None,
    )


def flushed(event: HookEvent, wait_s: float = FLUSH_WAIT_S) -> bool:
    """Wait (at most `wait_s`) until a live `agentStop`'s turn is in its `events.jsonl`.

    Copilot appends to the log from a buffer: when it runs `agentStop` the turn may not be in
    the file yet, or the file not exist (seen with 1.0.102 `-p`). It logs each hook call
    before running it, a `hook.start` line holding the call's input and so its `timestamp`;
    once that line is in the file, so is the turn before it. False when it did not come (an
    older payload replayed, or a log without it): the file is read as it is.
    """
    path = event.transcript_path
    if event.native != "agentStop" or not path or not event.turn_id:
        return False
    import time

    if abs(time.time() * 1000 - int(event.turn_id)) > LIVE_S * 1000:
        return False
    stamp = f'"timestamp":{event.turn_id}'.encode()
    end = time.monotonic() + wait_s
    while True:
        try:
            with open(path, "rb") as f:
                f.seek(max(0, f.seek(0, 2) - (256 << 10)))
                tail = f.read()
            if any(stamp in x and b'"hookType":"agentStop"' in x for x in tail.splitlines()):
                return True
        except OSError:
            pass  # not written yet
        if time.monotonic() >= end:
            return False
        time.sleep(0.02)


KINDS: dict[str, EventKind] = {
    "sessionStart": "session_start",
    "userPromptSubmitted": "prompt",
    "preToolUse": "pre_tool",
    "postToolUse": "post_tool",
    "agentStop": "stop",
    "errorOccurred": "stop",
    "sessionEnd": "session_end",
    "preCompact": "pre_compact",
}


def _paths(tool_input: dict[str, Any]) -> list[str]:
    """The files a tool call names (`create`, `edit`, `view`: `path`)."""
    return [p for key in ("path", "file_path") if (p := _str(tool_input.get(key)))]


def render_context(event: HookEvent, text: str) -> str | None:
    """`{"additionalContext": text}` for the events that take it; None for the rest."""
    if not text or event.native not in CONTEXT_EVENTS:
        return None
    import json

    return json.dumps({"additionalContext": text}, ensure_ascii=False)
