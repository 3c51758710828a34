"""The normalized session: what every adapter reads a transcript into.

msgspec Structs: every checkpoint builds and stores one.
"""

from typing import Any, Literal

from msgspec import Struct, field

Role = Literal["user", "assistant", "system", "tool"]
TodoStatus = Literal["pending", "in_progress", "completed", "cancelled"]
EditAction = Literal["write", "edit", "delete", "move"]
ErrorKind = Literal["usage_limit", "rate_limit", "overloaded", "auth", "api", "other"]
ForkHistory = Literal["all", "part", "none"]  # how much of a fork's parent history was read


class SessionRef(Struct, kw_only=True, frozen=True):
    """A session found on disk, before it is read."""

    agent: str
    account: str  # the config dir the session came from, e.g. "~/.claude-work"
    session_id: str
    path: str
    mtime: float  # seconds since the epoch; discovery sorts on it, newest first
    cwd: str | None = None
    size: int = 0


class Message(Struct, kw_only=True, omit_defaults=True):
    """One turn of text. `kind` tells a typed request from injected or tool text."""

    role: Role
    text: str
    kind: Literal["request", "response", "tool_result", "meta", "summary"] = "response"
    timestamp: str | None = None


class ToolCall(Struct, kw_only=True, omit_defaults=True):
    id: str
    name: str
    input: dict[str, Any] = field(default_factory=dict)
    output: str | None = None  # None while no result was recorded
    is_error: bool = False
    timestamp: str | None = None


class TodoItem(Struct, kw_only=True, omit_defaults=True):
    content: str
    status: TodoStatus = "pending"
    id: str | None = None


class FileEdit(Struct, kw_only=True, omit_defaults=True):
    path: str  # relative to the session cwd where it lies inside it, else absolute
    action: EditAction = "edit"
    tool: str = ""
    count: int = 1
    moved_to: str | None = None


class ApiError(Struct, kw_only=True, omit_defaults=True):
    """An error the model API returned, such as a usage limit, with its reset time if known."""

    kind: ErrorKind
    message: str
    status: int | None = None
    reset_at: str | None = None  # ISO 8601 when the agent recorded it
    timestamp: str | None = None


class Usage(Struct, kw_only=True, omit_defaults=True):
    """Context usage of the last turn against the model's window."""

    context_tokens: int
    context_window: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_creation_tokens: int | None = None


class Compaction(Struct, kw_only=True, omit_defaults=True):
    trigger: str = "auto"  # "manual" or "auto"
    pre_tokens: int | None = None
    summary: str | None = None
    timestamp: str | None = None


class CommandRun(Struct, kw_only=True, omit_defaults=True):
    """A shell command the agent ran, with its outcome as the agent recorded it; consecutive
    runs of one command with the same outcome are one record with their `count`.

    Fill it with `continuity_core.adapters.kit.add_command`, never by hand: it merges runs,
    picks the error line and redacts, the same way for every adapter.
    """

    command: str  # redacted, on one line
    # The exit status the agent's own tool wrote around the output ("Exit code 1"); None
    # where it wrote none.
    exit_code: int | None = None
    # True/False from `exit_code`, else from the agent's own failed/ok signal (an `is_error`
    # flag, a status field); None when the agent recorded neither: unknown, never guessed
    # from what the command printed.
    failed: bool | None = None
    error: str = ""  # a failed run's one line that says what went wrong, redacted, ~100 chars
    count: int = 1  # runs merged into this record
    timestamp: str | None = None  # of the newest run


class SubagentResult(Struct, kw_only=True, omit_defaults=True):
    """A sub-agent the session started: its task and the first lines of what it returned.

    Fill it with `continuity_core.adapters.kit.add_subagent` (redacted and clipped there).
    """

    task: str  # its short description, else the start of its prompt
    result: str | None = None  # the first lines of its answer; None while none arrived
    id: str | None = None  # the agent's own id for it (the launching call's id)
    timestamp: str | None = None  # when it was started


class Session(Struct, kw_only=True, omit_defaults=True):
    """A transcript read into vendor-neutral facts, bounded in size whatever the transcript's.

    Lists that grow with the transcript keep only their newest entries (see `limits`).
    """

    schema_version: int = 1
    agent: str
    session_id: str
    path: str = ""
    account: str = ""
    cwd: str | None = None
    model: str | None = None
    git_branch: str | None = None
    started_at: str | None = None
    updated_at: str | None = None
    # Typed user requests, oldest first: every one of the session's, across compactions
    # (an adapter never clears them on a compaction), the newest `limits.REQUESTS` kept.
    requests: list[str] = field(default_factory=list)
    requests_total: int = 0  # every request `add_request` saw, those no longer kept included
    messages: list[Message] = field(default_factory=list)  # the newest few
    tool_calls: list[ToolCall] = field(default_factory=list)  # the newest few
    todos: list[TodoItem] = field(default_factory=list)  # the current list
    files_edited: list[FileEdit] = field(default_factory=list)
    errors: list[ApiError] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    # Shell commands, oldest first (`kit.add_command`): across compactions, failed ones kept
    # before others when the newest `limits.COMMANDS` lines are kept.
    commands: list[CommandRun] = field(default_factory=list)
    commands_total: int = 0  # every run seen, those no longer in `commands` included
    subagents: list[SubagentResult] = field(default_factory=list)  # oldest first (`kit`)
    usage: Usage | None = None
    turn_incomplete: bool = False  # a turn started and never completed
    records: int = 0
    unknown_records: dict[str, int] = field(default_factory=dict)
    bad_lines: int = 0
    unread_bytes: int = 0  # a first read of a long transcript starts this far in (COLD_MAX)
    compactions_total: int = 0  # every compaction seen; `compactions` keeps the newest few
    compactions_scanned: bool = False  # the total covers `unread_bytes` too (a byte scan)
    # Where a cold read whose part read holds no request looked for it in the part skipped:
    # "found" there, "none" (no typed request in the whole file), "unreadable" (none found, and
    # a long line there could not be read from its start), "unsearched" (the adapter cannot
    # tell a request line); "" when not needed.
    request_sought: str = ""
    cost_usd: float | None = None  # the agent's own running cost estimate, where it keeps one
    model_tokens: dict[str, int] = field(default_factory=dict)  # tokens by model, ditto
    # The agent archived the session: its transcript is still read, but the agent cannot
    # continue it natively until it is unarchived.
    archived: bool = False
    # The session this one was forked from; its history before the fork is read from there.
    forked_from: str | None = None
    # How much of that history was read: "all", "part" (a parent over the first read's budget
    # was read from its end, or a parent further up is gone), "none" (the parent is gone).
    fork_history: ForkHistory | None = None

    @property
    def latest_request(self) -> str | None:
        return self.requests[-1] if self.requests else None

    @property
    def pending_calls(self) -> list[ToolCall]:
        """Tool calls with no recorded result: what was running when the session died."""
        return [c for c in self.tool_calls if c.output is None]

    @property
    def last_error(self) -> ApiError | None:
        return self.errors[-1] if self.errors else None

    @property
    def ended_on_limit(self) -> bool:
        err = self.last_error
        return err is not None and err.kind in ("usage_limit", "rate_limit")


class limits:
    """How much of a long transcript a Session keeps."""

    REQUESTS = 50
    MESSAGES = 16
    TOOL_CALLS = 40
    ERRORS = 10
    COMPACTIONS = 10
    COMMANDS = 60  # distinct command lines (runs merged)
    SUBAGENTS = 20
    TEXT = 4000  # characters per message or tool output kept
