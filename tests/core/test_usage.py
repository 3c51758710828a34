"""Context-usage levels from explicit numbers and real transcripts (statusline: tests/claude)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_core import usage
from continuity_core.adapters import Adapter
from continuity_core.errors import ConfigError
from continuity_core.schemas.config import UsageConfig
from continuity_core.schemas.session import Usage
from tests.helpers.samples import TRANSCRIPTS

DEFAULTS = usage.thresholds()


@pytest.mark.parametrize(
    ("tokens", "level"),
    [
        (99_999, "ok"),
        (100_000, "prepare"),
        (123_999, "prepare"),
        (124_000, "refresh"),
        (150_000, "rotate"),
        (400_000, "rotate"),
    ],
)
def test_levels_against_a_200k_window(tokens: int, level: str) -> None:
    report = usage.level_for(Usage(context_tokens=tokens, context_window=200_000), DEFAULTS)
    assert report.level == level
    assert report.thresholds == {"prepare": 100_000, "refresh": 124_000, "rotate": 150_000}
    assert report.percent == round(100 * tokens / 200_000, 1)


@pytest.mark.parametrize(
    ("tokens", "level"),
    [
        (99_999, "ok"),
        (100_000, "prepare"),
        (125_000, "refresh"),
        (150_000, "rotate"),
    ],
)
def test_token_defaults_when_the_window_is_unknown(tokens: int, level: str) -> None:
    report = usage.level_for(Usage(context_tokens=tokens), DEFAULTS)
    assert report.level == level
    assert report.context_window is None and report.percent is None
    assert report.thresholds == {"prepare": 100_000, "refresh": 125_000, "rotate": 150_000}


def test_a_large_window_scales_the_percentages() -> None:
    report = usage.level_for(Usage(context_tokens=600_000, context_window=1_000_000), DEFAULTS)
    assert report.level == "prepare" and report.percent == 60.0


def test_unknown_never_invents_a_number() -> None:
    report = usage.level_for(None, DEFAULTS, reason="no session found")
    assert report.level == "unknown" and report.reason == "no session found"
    assert report.context_tokens is None and report.percent is None
    assert report.thresholds == {}
    assert usage.level_for(Usage(context_tokens=0), DEFAULTS).level == "unknown"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("50%", usage.Threshold(percent=50.0)),
        ("100000", usage.Threshold(tokens=100_000)),
        ("120k", usage.Threshold(tokens=120_000)),
        ("1.5m", usage.Threshold(tokens=1_500_000)),
        ("90_000", usage.Threshold(tokens=90_000)),
        (80000, usage.Threshold(tokens=80_000)),
    ],
)
def test_parse_threshold(raw: str, expected: usage.Threshold) -> None:
    assert usage.parse_threshold(raw) == expected


@pytest.mark.parametrize("raw", ["", "half", "0", "150%", "-5k", "%"])
def test_bad_thresholds_are_named(raw: str) -> None:
    with pytest.raises(ConfigError, match="neither a percentage"):
        usage.parse_threshold(raw)


def test_flags_override_config_which_overrides_defaults() -> None:
    config = UsageConfig(prepare="40%", refresh="90000", rotate="75%")
    limits = usage.thresholds(config, {"rotate": "95000", "prepare": None})
    report = usage.level_for(Usage(context_tokens=92_000, context_window=200_000), limits)
    assert report.thresholds == {"prepare": 80_000, "refresh": 90_000, "rotate": 95_000}
    assert report.level == "refresh"


# --- real transcripts of each agent, read by its adapter ----------------------------------------

GROUND = json.loads((Path(__file__).parent.parent / "fixtures" / "ground_truth.json").read_text())


def adapter_or_skip(agent: str) -> Adapter:
    from continuity_core.adapters import load

    pytest.importorskip(f"continuity_{agent}")  # absent: skip; installed: it must load
    return load(agent)


@pytest.mark.parametrize("agent", sorted(TRANSCRIPTS))
def test_every_level_from_a_real_transcript(agent: str, fixtures: Path) -> None:
    adapter = adapter_or_skip(agent)
    path = fixtures / TRANSCRIPTS[agent]
    measured, session_id, reason = usage.from_file(adapter, path)
    assert measured is not None and reason is None
    assert GROUND[TRANSCRIPTS[agent]]["session_id"].split("-")[0] in session_id
    if agent == "claude":
        truth = GROUND[TRANSCRIPTS[agent]]["last_turn_usage"]
        assert measured.context_tokens == truth["context_tokens(input+cache_creation+cache_read)"]
    n = measured.context_tokens
    cases = {
        "ok": (n + 1, n + 2, n + 3),
        "prepare": (n, n + 1, n + 2),
        "refresh": (n - 2, n, n + 1),
        "rotate": (n - 3, n - 2, n),
    }
    for level, (prepare, refresh, rotate) in cases.items():
        limits = usage.thresholds(
            None, {"prepare": str(prepare), "refresh": str(refresh), "rotate": str(rotate)}
        )
        assert usage.level_for(measured, limits).level == level
    if measured.context_window:
        pct = 100 * n / measured.context_window
        at = usage.thresholds(
            None, {"prepare": f"{pct / 2}%", "refresh": f"{pct * 0.99}%", "rotate": "100%"}
        )
        assert usage.level_for(measured, at).level == "refresh"
