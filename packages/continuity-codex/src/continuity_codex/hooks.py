"""Codex hook payloads (JSON on stdin), notify (JSON as the last argument) and hook output."""

from __future__ import annotations

import json
import os

from continuity_codex import patch as patch_mod
from continuity_core import jsonl
from continuity_core.schemas.hook import HookEvent

TYPE_CHECKING = False
if TYPE_CHECKING:  # the pre-tool hook imports this module alone: no typing, json or re
    from collections.abc import Sequence
    from typing import Any

    from continuity_core.schemas.hook import EventKind

AGENT = "codex"
KINDS: dict[str, EventKind] = {
    "SessionStart": "session_start",
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "Stop": "stop",
    "PreCompact": "pre_compact",
    "PostCompact": "other",
    "SessionEnd": "session_end",
    "UserPromptSubmit": "prompt",
    "PermissionRequest": "other",
    "SubagentStart": "other",
    "SubagentStop": "other",
    "Interrupt": "other",
}
# Events whose hookSpecificOutput accepts additionalContext (formats/codex.md, section 4).
CONTEXT_EVENTS = {"SessionStart", "PreToolUse", "PostToolUse", "UserPromptSubmit", "SubagentStart"}


def _object(raw: bytes | str) -> dict[str, Any]:
    try:
        value = jsonl.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise ValueError("not JSON") from None
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def parse_hook(payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
    """A HookEvent from a hook's stdin or notify's argv; ValueError when it is not Codex's."""
    if argv and argv[-1].lstrip().startswith("{"):
        return parse_notify(argv[-1])
    data = _object(payload)
    name = data.get("hook_event_name")
    if not isinstance(name, str) or name not in KINDS:  # a list or object is no event name
        raise ValueError("not a Codex hook event")
    transcript = data.get("transcript_path")  # null for an --ephemeral thread
    if transcript is not None and not (
        isinstance(transcript, str) and os.path.basename(transcript).startswith("rollout-")
    ):
        raise ValueError("a hook payload of another agent")  # Claude's share the event names
    tool_name = _str(data.get("tool_name"))
    raw_input = data.get("tool_input")
    tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
    command, paths = _tool_facts(tool_name, tool_input)
    return HookEvent(
        agent=AGENT,
        kind=KINDS[name],
        native=name,
        session_id=_str(data.get("session_id")),
        transcript_path=_str(transcript),
        cwd=_str(data.get("cwd")),
        source=_str(data.get("source")) or _str(data.get("trigger")),
        tool_name=tool_name,
        tool_input=tool_input,
        paths=paths,
        command=command,
        turn_id=_str(data.get("turn_id")),
    )


def parse_notify(arg: str) -> HookEvent:
    data = _object(arg)
    kind = data.get("type")
    thread = data.get("thread-id")
    if not isinstance(kind, str) or not isinstance(thread, str) or not thread:
        raise ValueError("not a Codex notification")
    return HookEvent(
        agent=AGENT,
        kind="notify",
        native=kind,
        session_id=thread,
        cwd=_str(data.get("cwd")),
        turn_id=_str(data.get("turn-id")),
    )


def _tool_facts(tool_name: str | None, tool_input: dict[str, Any]) -> tuple[str | None, list[str]]:
    """The shell command a tool call runs and the files a patch touches."""
    command = tool_input.get("command")
    if isinstance(command, list):
        command = " ".join(str(c) for c in command)
    if not isinstance(command, str):
        return None, []
    if tool_name != "apply_patch" and patch_mod.BEGIN not in command:
        return command, []
    shown = None if tool_name == "apply_patch" else command  # a patch tool runs no command
    try:
        ops = patch_mod.parse(command)
    except patch_mod.PatchError:
        return shown, []
    return shown, [p for _, path, move_to in ops for p in (path, move_to) if p]


def render_context(event: HookEvent, text: str) -> str | None:
    """additionalContext JSON for events that take it; None for the rest (Stop, notify)."""
    if not text or event.native not in CONTEXT_EVENTS:
        return None
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": event.native, "additionalContext": text}},
        ensure_ascii=False,
    )
