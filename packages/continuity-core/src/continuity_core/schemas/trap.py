"""`.baker/traps.jsonl`: approaches already tried and rejected, keyed by path or command."""

from __future__ import annotations

from typing import Literal

from msgspec import Struct, field


class Trap(Struct, kw_only=True, omit_defaults=True):
    schema_version: int = 1
    id: str
    pattern: str  # a glob over paths, or over shell commands when kind == "command"
    kind: Literal["path", "command"] = "path"
    why: str
    created_at: str
    session: str | None = None  # the evidence: the session where it was learnt
    agent: str | None = None
    file_hashes: dict[str, str] = field(default_factory=dict)
    machine: str | None = None  # set on traps fetched from another machine (`baker pull`)
