"""Tolerant views of what OpenCode 1.18.33 stores (formats/opencode.md): only the fields baker
reads, every one optional, unknown fields ignored. The same shapes are the `data` column of
the `message` and `part` tables and the files of the legacy `storage/` tree. Beside them, the
state a cursor keeps between reads (`OpenCodeState`).

No `from __future__ import annotations` here: msgspec would compile and evaluate each string
annotation the first time it meets a type (every checkpointed handoff converts the state).
"""

import functools
from typing import Any, TypeVar

import msgspec

T = TypeVar("T")

VERSION = 1  # of what the cursor's `state` holds; another version reads the session afresh


class Times(msgspec.Struct):
    created: int | None = None
    updated: int | None = None
    completed: int | None = None
    start: int | None = None
    end: int | None = None


class Cache(msgspec.Struct):
    read: int = 0
    write: int = 0


class Tokens(msgspec.Struct):
    input: int = 0
    output: int = 0
    reasoning: int = 0
    cache: Cache = msgspec.field(default_factory=Cache)


class ErrorData(msgspec.Struct):
    message: str | None = None
    statusCode: int | None = None
    responseHeaders: dict[str, Any] | None = None


class MessageError(msgspec.Struct):
    name: str = ""
    data: ErrorData | None = None


class MessageView(msgspec.Struct):
    """A `message` row's data: a user turn or one assistant step."""

    role: str = ""
    time: Times = msgspec.field(default_factory=Times)
    # bool on an assistant message (a compaction's summary), {diffs: […]} on a user message
    summary: Any = None
    finish: str | None = None
    error: MessageError | None = None
    tokens: Tokens | None = None
    modelID: str | None = None
    providerID: str | None = None
    cost: float | None = None


class ToolState(msgspec.Struct):
    status: str = ""  # pending → running → completed | error
    input: dict[str, Any] = msgspec.field(default_factory=dict)
    output: str | None = None
    error: str | None = None
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    time: Times = msgspec.field(default_factory=Times)


class PartView(msgspec.Struct):
    """A `part` row's data: text, tool, patch, compaction, step-start/-finish, …"""

    type: str = ""
    text: str | None = None
    synthetic: bool = False
    ignored: bool = False
    time: Times = msgspec.field(default_factory=Times)
    tool: str | None = None
    callID: str | None = None
    state: ToolState | None = None
    files: list[str] = msgspec.field(default_factory=list)
    auto: bool | None = None


class SessionInfo(msgspec.Struct):
    """A legacy `storage/session/<project>/<id>.json` file."""

    id: str = ""
    directory: str | None = None
    parentID: str | None = None
    time: Times = msgspec.field(default_factory=Times)


class TodoView(msgspec.Struct):
    content: str = ""
    status: str = "pending"


class ModelRef(msgspec.Struct):
    id: str | None = None
    providerID: str | None = None


# --- what baker keeps: the cursor's state --------------------------------------------------


class Watermark(msgspec.Struct):
    """The typed cursor of one session: how far `message` and `part` were read."""

    m: int = -1  # newest message time_updated read
    mi: list[str] = msgspec.field(default_factory=list)  # message ids read at `m`
    p: int = -1
    pi: list[str] = msgspec.field(default_factory=list)
    open: list[str] = msgspec.field(default_factory=list)  # part ids to read again
    usage_at: int = -1  # time_created of the message the usage came from
    errors: list[str] = msgspec.field(default_factory=list)  # message ids whose error is kept
    last: int = -1  # time_created of the newest assistant message
    last_done: bool = True  # whether that message finished (completed or failed)
    # the files the newest message edited through tools: its patch part repeats them
    files_msg: str = ""
    files: list[str] = msgspec.field(default_factory=list)
    todowrite: list[list[str]] = msgspec.field(default_factory=list)  # latest todowrite's list
    window_for: str = ""  # the model `window` was looked up for
    window: int | None = None
    # The session's last `event_sequence.seq` read: OpenCode logs every change of a session
    # in its `event` table, so the same seq means nothing changed (no row is scanned).
    seq: int | None = None


class OpenCodeState(msgspec.Struct, kw_only=True):
    """What a cursor keeps between reads (`Cursor.state`): the watermark and its version."""

    v: int = VERSION
    w: Watermark = msgspec.field(default_factory=Watermark)


@functools.cache
def decoder(kind: type[T]) -> msgspec.json.Decoder[T]:
    """The decoder of `kind`, built where first used: a read that meets no row of a kind
    builds none (a checkpointed handoff decodes no message or part)."""
    return msgspec.json.Decoder(kind)
