"""Context usage from Claude Code's statusline JSON: the Claude adapter's usage feed."""

from __future__ import annotations

import pytest

from continuity_claude.adapter import ClaudeAdapter
from continuity_core import usage
from continuity_core.schemas.session import Usage
from tests.helpers.samples import statusline

DEFAULTS = usage.thresholds()


def _measure(payload: bytes) -> tuple[Usage | None, str | None, str | None]:
    feed = ClaudeAdapter().usage_source
    assert feed is not None and feed.label == "claude statusline"
    found = feed.measure(payload)
    return found.usage, found.session_id, found.reason


@pytest.mark.parametrize(
    ("read", "level"),
    [
        (20_000, "ok"),
        (98_000, "prepare"),
        (120_000, "refresh"),
        (145_000, "rotate"),
    ],
)
def test_statusline_levels(read: int, level: str) -> None:
    current = {
        "input_tokens": 500,
        "output_tokens": 700,
        "cache_creation_input_tokens": 4_500,
        "cache_read_input_tokens": read,
    }
    measured, session_id, reason = _measure(statusline(current))
    assert reason is None and session_id == "0f1e2d3c"
    assert measured == Usage(
        context_tokens=read + 5_000,
        context_window=200_000,
        input_tokens=500,
        output_tokens=700,
        cache_read_tokens=read,
        cache_creation_tokens=4_500,
    )
    assert usage.level_for(measured, DEFAULTS).level == level


def test_statusline_before_the_first_reply_is_unknown() -> None:
    measured, _, reason = _measure(statusline(None))
    assert measured is None and reason and "no usage yet" in reason


def test_statusline_percentage_when_current_usage_is_missing() -> None:
    measured, _, _ = _measure(statusline(None, used_percentage=63))
    assert measured == Usage(context_tokens=126_000, context_window=200_000)


@pytest.mark.parametrize("payload", [b"", b"not json", b"[1, 2]", b'{"model": {}}'])
def test_statusline_garbage_is_unknown_with_a_reason(payload: bytes) -> None:
    measured, _, reason = _measure(payload)
    assert measured is None and reason
