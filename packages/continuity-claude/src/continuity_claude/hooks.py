"""Claude Code hook payloads in, hook output out.

Every payload is a JSON object on stdin with `hook_event_name`, `session_id`,
`transcript_path` and `cwd`. Other agents send look-alikes (Codex and Gemini use some of the
same event names), so a payload is ours only when its transcript path has Claude's layout.

The pre-tool hook imports this module alone (the `continuity_core.hooks` entry point), on
every tool call: nothing here imports `re`, `json`, `pathlib`, `typing` or msgspec at module
level (docs/decisions.md, "How the hooks stay fast").
"""

from __future__ import annotations

import json
import os

from continuity_core import jsonl
from continuity_core.schemas.hook import HookEvent

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from continuity_core.adapters import Account
    from continuity_core.schemas.hook import EventKind
    from continuity_core.schemas.session import SessionRef

AGENT = "claude"  # continuity_claude.discovery.AGENT

KINDS: dict[str, EventKind] = {
    "SessionStart": "session_start",
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "PostToolUseFailure": "post_tool",
    "Stop": "stop",
    "StopFailure": "stop",  # the turn ended on an API error (a usage or rate limit): no Stop
    "PreCompact": "pre_compact",
    "SessionEnd": "session_end",
    "UserPromptSubmit": "prompt",
}
# Events Claude Code 2.1.197 knows that map to no action of ours.
OTHER = frozenset(
    {
        "PostToolBatch",
        "Notification",
        "UserPromptExpansion",
        "SubagentStart",
        "SubagentStop",
        "PostCompact",
        "PermissionRequest",
        "PermissionDenied",
        "Setup",
        "TeammateIdle",
        "TaskCreated",
        "TaskCompleted",
        "Elicitation",
        "ElicitationResult",
        "ConfigChange",
        "WorktreeCreate",
        "WorktreeRemove",
        "InstructionsLoaded",
        "CwdChanged",
        "FileChanged",
        "MessageDisplay",
    }
)
PATH_KEYS = {
    "Edit": "file_path",
    "Write": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
    "Read": "file_path",
}
# Events whose `hookSpecificOutput.additionalContext` reaches the model (formats/claude.md §4).
CONTEXT_EVENTS = frozenset({"SessionStart", "PreToolUse", "PostToolUse", "UserPromptSubmit"})

# The payload's keys and the types they must have (a str, an object, or null where optional).
# Others are read as they come: `turn_id` (Codex's; Claude Code 2.1.3xx sends it with
# MessageDisplay only), StopFailure's `error`, `last_assistant_message` and `error_details`,
# and `timestamp` (Gemini's; never sent by Claude Code).
_REQUIRED = ("hook_event_name", "session_id")
_OPTIONAL_STR = ("transcript_path", "cwd", "source", "tool_name", "prompt_id")


def _payload(payload: bytes) -> dict[str, Any]:
    """The payload's JSON object with its typed keys checked; ValueError otherwise."""
    try:
        raw = jsonl.loads(payload)
    except ValueError as e:
        raise ValueError(f"not a Claude Code hook payload: {e}") from None
    if not isinstance(raw, dict):
        raise ValueError("not a Claude Code hook payload: not a JSON object")
    for key in _REQUIRED:
        if not isinstance(raw.get(key), str):
            raise ValueError(f"not a Claude Code hook payload: `{key}` is not a string")
    for key in _OPTIONAL_STR:
        if raw.get(key) is not None and not isinstance(raw[key], str):
            raise ValueError(f"not a Claude Code hook payload: `{key}` is not a string")
    if raw.get("tool_input") is not None and not isinstance(raw["tool_input"], dict):
        raise ValueError("not a Claude Code hook payload: `tool_input` is not an object")
    return raw


def is_claude_transcript(path: str) -> bool:
    """True for `<config>/projects/<slug>/<id>.jsonl` or a subagent file beneath it."""
    if not path.endswith(".jsonl") or os.path.basename(path) == ".jsonl":
        return False
    parts = [p for p in path.split("/") if p not in ("", ".")][:-1]
    if len(parts) >= 1 and parts[-1] == "subagents":
        return len(parts) >= 3 and parts[-3] == "projects"
    return len(parts) >= 2 and parts[-2] == "projects"


def parse_hook(payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
    """A Claude Code hook payload as a HookEvent; ValueError when it is not one."""
    raw = _payload(payload)
    name: str = raw["hook_event_name"]
    if name not in KINDS and name not in OTHER:
        raise ValueError(f"not a Claude Code hook event: {name!r}")
    # Codex sends `turn_id` (2.1.3xx's MessageDisplay does too, beside its `prompt_id`)
    if (raw.get("turn_id") is not None and raw.get("prompt_id") is None) or raw.get(
        "timestamp"
    ) is not None:
        raise ValueError("a payload of another agent (Codex or Gemini)")
    transcript = raw.get("transcript_path")
    if transcript is not None and not is_claude_transcript(transcript):
        raise ValueError("the transcript path is not a Claude Code transcript")
    tool_name = raw.get("tool_name")
    tool_input: dict[str, Any] = raw.get("tool_input") or {}
    key = PATH_KEYS.get(tool_name or "")
    path = tool_input.get(key) if key else None
    command = tool_input.get("command") if tool_name == "Bash" else None
    event = HookEvent(
        agent=AGENT,
        kind=KINDS.get(name, "other"),
        native=name,
        session_id=raw["session_id"],
        transcript_path=transcript,
        cwd=raw.get("cwd"),
        source=raw.get("source"),
        tool_name=tool_name,
        tool_input=tool_input,
        paths=[path] if isinstance(path, str) else [],
        command=command if isinstance(command, str) else None,
        turn_id=raw.get("prompt_id"),
    )
    if name == "StopFailure":
        _failure(event, raw)
    return event


def _failure(event: HookEvent, raw: dict[str, Any]) -> None:
    """StopFailure's error: its kind, the text shown, the reset time the text names."""
    import re

    from continuity_claude.parser import error_kind

    text = raw.get("last_assistant_message")
    text = text if isinstance(text, str) else ""
    code = raw.get("error") if isinstance(raw.get("error"), str) else None
    details = raw.get("error_details")
    details = details if isinstance(details, str) else ""
    # "You've hit your 5-hour limit" / "weekly limit": a plan's usage limit, whatever `error`.
    hit = re.search(r"\bhit your\b[^.·]*\blimit\b", text, re.I)
    event.error = "usage_limit" if hit else error_kind(code, None, f"{text} {details}".strip())
    event.error_message = text or details or code or "API error"
    # The reset time it names ("resets 5:41am (UTC)") is read by `limits.reset_in_text`.


def session_for(event: HookEvent, accounts: Sequence[Account]) -> SessionRef | None:
    """The transcript the event names; None while it does not exist yet (SessionStart)."""
    path = event.transcript_path
    from continuity_claude.discovery import read_cwd, ref

    if not path or not event.session_id:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not os.path.isfile(path):
        return None
    config = os.path.dirname(os.path.dirname(os.path.dirname(path)))  # <config>/projects/<slug>/
    account = next(
        (a.name for a in accounts if os.path.realpath(a.dir) == os.path.realpath(config)),
        config,
    )
    return ref(account, path, st.st_mtime, st.st_size, event.cwd or read_cwd(path))


def render_context(event: HookEvent, text: str) -> str | None:
    """`additionalContext` JSON where it reaches the model; nothing for Stop and the rest.

    Plain stdout never reaches the model from a tool hook, and a Stop hook's context would
    make the conversation continue.
    """
    if not text or event.native not in CONTEXT_EVENTS:
        return None
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": event.native, "additionalContext": text}}
    )
