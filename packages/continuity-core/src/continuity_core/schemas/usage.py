"""`baker usage`'s report, which the checkpoint hook also keeps as `.baker/reminder.json`."""

from __future__ import annotations

from typing import Literal

from msgspec import Struct, field

UsageLevel = Literal["ok", "prepare", "refresh", "rotate", "unknown"]


class UsageReport(Struct, kw_only=True, omit_defaults=True):
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
