"""`.baker/traps.jsonl`: approaches already tried and rejected, keyed by path or command.

A plain record (`continuity_core.records`): `baker handoff` reads the traps of the files a
session touched within its start-up budget (docs/decisions.md, "Hook start-up budget").
"""

from __future__ import annotations

from continuity_core.records import Record, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal


class Trap(Record, omit_defaults=True):
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
