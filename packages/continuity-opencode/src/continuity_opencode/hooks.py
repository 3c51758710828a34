"""The payloads baker's OpenCode plugin (`baker-continuity.js`) sends on stdin, and what the
hooks print back to it.

OpenCode's hooks are in-process JavaScript: the plugin turns its events into one JSON object
`{"agent": "opencode", "hook_event_name": …, "session_id": …, "cwd": …}` (plus `tool`, `args`
before a tool, `error` with a `session.error`, `source: "compact"` with the pickup it asks for
once OpenCode says `session.compacted`) and reads back `{"context": TEXT}`, which it puts in
the system prompt (pickup) or after the tool's output (traps).
"""

from __future__ import annotations

from continuity_core.schemas.hook import HookEvent

TYPE_CHECKING = False
if TYPE_CHECKING:  # the pre-tool hook imports this module alone: no typing at run time
    from collections.abc import Sequence
    from typing import Any

    from continuity_core.schemas.hook import EventKind

AGENT = "opencode"
KINDS: dict[str, EventKind] = {
    "session.start": "session_start",  # the session's first model call (system transform)
    "tool.execute.before": "pre_tool",
    "session.idle": "stop",
    "session.error": "stop",
    # OpenCode waiting out a long retry-after (session.status "retry"): a limit until `next`
    "session.retry": "stop",
    "session.compacted": "other",
}
CONTEXT_EVENTS = ("session.start", "tool.execute.before")
PATH_KEYS = ("filePath", "path")


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def parse_hook(payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
    """A HookEvent from the plugin's payload; ValueError when it is not the plugin's."""
    import json

    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        raise ValueError("not JSON") from None
    if not isinstance(data, dict) or data.get("agent") != AGENT:
        raise ValueError("not a payload of baker's OpenCode plugin")
    name = data.get("hook_event_name")
    if name not in KINDS:
        raise ValueError("not an OpenCode plugin event")
    raw_args = data.get("args")
    args: dict[str, Any] = raw_args if isinstance(raw_args, dict) else {}
    tool = _str(data.get("tool"))
    paths = [p for k in PATH_KEYS if (p := _str(args.get(k)))]
    command = _str(args.get("command")) if tool == "bash" else None
    if name == "session.retry":
        error, message, reset = _retry(data.get("retry"))
    else:
        error, message, reset = _error(data.get("error"))
    return HookEvent(
        agent=AGENT,
        kind=KINDS[name],
        native=name,
        session_id=_str(data.get("session_id")),
        cwd=_str(data.get("cwd")),
        source=_str(data.get("source")),
        tool_name=tool,
        tool_input=args,
        paths=paths,
        command=command,
        turn_id=_str(data.get("call_id")),
        error=error,
        error_message=message,
        reset_at=reset,
    )


def _error(raw: Any) -> tuple[str | None, str | None, str | None]:
    """(kind, message, reset time) of a `session.error`'s error: an APIError with status 429
    is a rate limit until `retry-after` from now."""
    if not isinstance(raw, dict):
        return None, None, None
    found = raw.get("data")
    data: dict[str, Any] = found if isinstance(found, dict) else {}
    status = data.get("statusCode")
    message = _str(data.get("message")) or _str(raw.get("name"))
    if status != 429:
        return ("api" if raw.get("name") == "APIError" else "other"), message, None
    if limit_kind(message) == "usage_limit":
        return "usage_limit", message, None  # a spent quota: no retry-after ends it
    given = data.get("responseHeaders")
    headers: dict[str, Any] = given if isinstance(given, dict) else {}
    lower = {str(k).lower(): v for k, v in headers.items()}
    reset = None
    try:
        seconds = float(lower["retry-after"])
    except (KeyError, TypeError, ValueError):
        seconds = None
    if seconds is not None:
        import time

        reset = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + seconds))
    return "rate_limit", message, reset


def limit_kind(message: str | None) -> str:
    """A 429's kind: OpenAI-compatible providers answer a spent quota (`insufficient_quota`,
    "You exceeded your current quota") with a 429 too, a usage limit; else a rate limit."""
    return "usage_limit" if "quota" in (message or "").lower() else "rate_limit"


def _retry(raw: Any) -> tuple[str | None, str | None, str | None]:
    """A retry OpenCode waits out: a rate limit until its `next` (ms since the epoch)."""
    if not isinstance(raw, dict):
        return None, None, None
    nxt = raw.get("next")
    reset = None
    if isinstance(nxt, int | float) and not isinstance(nxt, bool):
        import time

        reset = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(nxt / 1000))
    return "rate_limit", _str(raw.get("message")) or "retrying", reset


def render_context(event: HookEvent, text: str) -> str | None:
    """`{"context": text}` for the plugin to put before the model; None for other events."""
    if not text or event.native not in CONTEXT_EVENTS:
        return None
    import json

    return json.dumps({"context": text}, ensure_ascii=False)
