"""A hook invocation, parsed by the adapter of the agent that sent it."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

EventKind = Literal[
    "session_start", "pre_tool", "post_tool", "stop", "pre_compact", "session_end", "notify",
    "prompt", "other",
]


class HookEvent(msgspec.Struct, kw_only=True, omit_defaults=True):
    agent: str
    kind: EventKind
    native: str = ""  # the agent's own event name, e.g. "PreToolUse", "BeforeTool"
    session_id: str | None = None
    transcript_path: str | None = None
    cwd: str | None = None
    source: str | None = None  # SessionStart: startup / resume / clear / compact / fork
    tool_name: str | None = None
    tool_input: dict[str, Any] = msgspec.field(default_factory=dict)
    paths: list[str] = msgspec.field(default_factory=list)  # files the tool call touches
    command: str | None = None  # the shell command the tool call runs
    turn_id: str | None = None
    # A turn that ended on an API error (Claude's StopFailure): its kind as in ApiError
    # ("usage_limit", "rate_limit", ...), the text shown, and the reset time when it names one.
    error: str | None = None
    error_message: str | None = None
    reset_at: str | None = None
