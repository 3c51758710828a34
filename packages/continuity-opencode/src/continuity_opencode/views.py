"""Tolerant views of what OpenCode 1.18.33 stores (formats/opencode.md): only the fields baker
reads, every one optional, unknown fields ignored. The same shapes are the `data` column of
the `message` and `part` tables and the files of the legacy `storage/` tree."""

from __future__ import annotations

from typing import Any

import msgspec


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


MESSAGE = msgspec.json.Decoder(MessageView)
PART = msgspec.json.Decoder(PartView)
TODOS = msgspec.json.Decoder(list[TodoView])
MODEL = msgspec.json.Decoder(ModelRef)
SESSION = msgspec.json.Decoder(SessionInfo)
