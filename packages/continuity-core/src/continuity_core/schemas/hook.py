"""A hook invocation, parsed by the adapter of the agent that sent it.

A plain class, not a msgspec Struct: the pre-tool hook builds one on every tool call and its
start-up budget has no room for msgspec (docs/decisions.md, "How the hooks stay fast"). It never
reaches disk as such (`inflight` writes the few fields it keeps).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    EventKind = Literal[
        "session_start",
        "pre_tool",
        "post_tool",
        "stop",
        "pre_compact",
        "session_end",
        "notify",
        "prompt",
        "other",
    ]
else:
    EventKind = str


class HookEvent:
    def __init__(
        self,
        *,
        agent: str,
        kind: EventKind,
        native: str = "",  # the agent's own event name, e.g. "PreToolUse", "BeforeTool"
        session_id: str | None = None,
        transcript_path: str | None = None,
        cwd: str | None = None,
        source: str | None = None,  # SessionStart: startup / resume / clear / compact / fork
        tool_name: str | None = None,
        tool_input: dict[str, Any] | None = None,
        paths: list[str] | None = None,  # files the tool call touches
        command: str | None = None,  # the shell command the tool call runs
        turn_id: str | None = None,
        # A turn that ended on an API error (Claude's StopFailure): its kind as in ApiError
        # ("usage_limit", "rate_limit", ...), the text shown, and the reset time it names.
        error: str | None = None,
        error_message: str | None = None,
        reset_at: str | None = None,
    ) -> None:
        self.agent = agent
        self.kind: EventKind = kind
        self.native = native
        self.session_id = session_id
        self.transcript_path = transcript_path
        self.cwd = cwd
        self.source = source
        self.tool_name = tool_name
        self.tool_input: dict[str, Any] = {} if tool_input is None else tool_input
        self.paths: list[str] = [] if paths is None else paths
        self.command = command
        self.turn_id = turn_id
        self.error = error
        self.error_message = error_message
        self.reset_at = reset_at
