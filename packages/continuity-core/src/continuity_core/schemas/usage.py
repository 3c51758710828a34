"""`baker usage`'s report, which the checkpoint hook also keeps as `.baker/reminder.json`.

A plain record (`continuity_core.records`): the checkpoint after every turn builds one, and
its budget has no room for msgspec's import (docs/decisions.md, "Hook start-up budget").
"""

from __future__ import annotations

from continuity_core.records import Record, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    UsageLevel = Literal["ok", "prepare", "refresh", "rotate", "unknown"]

# The values of the Literal alias above, by name, for the record's checks and its schema.
CHOICES = {"UsageLevel": ("ok", "prepare", "refresh", "rotate", "unknown")}
if not TYPE_CHECKING:
    UsageLevel = CHOICES["UsageLevel"]


class UsageReport(Record, omit_defaults=True):
    """`baker usage`: the level context usage has reached; no numbers when `unknown`."""

    level: UsageLevel
    action: str
    source: str = ""
    agent: str | None = None
    session_id: str | None = None
    context_tokens: int | None = None
    context_window: int | None = None
    percent: float | None = None
    thresholds: dict[str, int] = field(default_factory=dict)  # tokens, as applied
    reason: str | None = None
