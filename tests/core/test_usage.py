"""Context-usage levels from explicit numbers, Claude Code's statusline JSON and real transcripts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_core import usage
from continuity_core.errors import AdapterError, ConfigError
from continuity_core.schemas.config import UsageConfig
from continuity_core.schemas.session import Usage

DEFAULTS = usage.thresholds()


@pytest.mark.parametrize(("tokens", "level"), [
    (99_999, "ok"), (100_000, "prepare"), (123_999, "prepare"), (124_000, "refresh"),
    (150_000, "rotate"), (400_000, "rotate"),
])
def test_levels_against_a_200k_window(tokens: int, level: str) -> None:
    report = usage.level_for(Usage(context_tokens=tokens, context_window=200_000), DEFAULTS)
    assert report.level == level
    assert report.thresholds == {"prepare": 100_000, "refresh": 124_000, "rotate": 150_000}
    assert report.percent == round(100 * tokens / 200_000, 1)


@pytest.mark.parametrize(("tokens", "level"), [
    (99_999, "ok"), (100_000, "prepare"), (125_000, "refresh"), (150_000, "rotate"),
])
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


@pytest.mark.parametrize(("raw", "expected"), [
    ("50%", usage.Threshold(percent=50.0)), ("100000", usage.Threshold(tokens=100_000)),
    ("120k", usage.Threshold(tokens=120_000)), ("1.5m", usage.Threshold(tokens=1_500_000)),
    ("90_000", usage.Threshold(tokens=90_000)), (80000, usage.Threshold(tokens=80_000)),
])
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


def statusline(current: dict[str, int] | None, size: int = 200_000, **extra: object) -> bytes:
    """Claude Code's statusline stdin, in the shape 2.1.x sends."""
    return json.dumps({
        "hook_event_name": "Status", "session_id": "0f1e2d3c", "cwd": "/work/app",
        "transcript_path": "/nonexistent/0f1e2d3c.jsonl",
        "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"},
        "workspace": {"current_dir": "/work/app", "project_dir": "/work/app"},
        "version": "2.1.197", "cost": {"total_cost_usd": 0.42},
        "context_window": {"total_input_tokens": 250_000, "total_output_tokens": 9_000,
                           "context_window_size": size, "current_usage": current, **extra},
    }).encode()


@pytest.mark.parametrize(("read", "level"), [
    (20_000, "ok"), (98_000, "prepare"), (120_000, "refresh"), (145_000, "rotate"),
])
def test_statusline_levels(read: int, level: str) -> None:
    current = {"input_tokens": 500, "output_tokens": 700, "cache_creation_input_tokens": 4_500,
               "cache_read_input_tokens": read}
    measured, data, reason = usage.from_statusline(statusline(current))
    assert reason is None and data["session_id"] == "0f1e2d3c"
    assert measured == Usage(context_tokens=read + 5_000, context_window=200_000,
                             input_tokens=500, output_tokens=700, cache_read_tokens=read,
                             cache_creation_tokens=4_500)
    assert usage.level_for(measured, DEFAULTS).level == level


def test_statusline_before_the_first_reply_is_unknown() -> None:
    measured, _, reason = usage.from_statusline(statusline(None))
    assert measured is None and reason and "no usage yet" in reason


def test_statusline_percentage_when_current_usage_is_missing() -> None:
    measured, _, _ = usage.from_statusline(statusline(None, used_percentage=63))
    assert measured == Usage(context_tokens=126_000, context_window=200_000)


@pytest.mark.parametrize("payload", [b"", b"not json", b"[1, 2]", b'{"model": {}}'])
def test_statusline_garbage_is_unknown_with_a_reason(payload: bytes) -> None:
    measured, _, reason = usage.from_statusline(payload)
    assert measured is None and reason


# --- real transcripts of each agent, read by its adapter ----------------------------------------

GROUND = json.loads((Path(__file__).parent.parent / "fixtures" / "ground_truth.json").read_text())
TRANSCRIPTS = {
    "claude": "claude/.claude/projects/-home-dev-src-weather-cli/"
              "48f0d34d-61b5-40aa-aac6-73b6722315eb.jsonl",
    "codex": "codex/.codex/sessions/2026/11/30/"
             "rollout-2026-11-30T03-57-00-01a22a99-520c-7f21-b282-ca967466c8a2.jsonl",
    "gemini": "gemini/.gemini/tmp/weather-cli/chats/session-2026-11-30T03-58-11b35675.jsonl",
}


def adapter_or_skip(agent: str) -> object:
    from continuity_core.adapters import load

    try:
        return load(agent)
    except AdapterError as e:
        pytest.skip(f"{agent} adapter not loadable yet: {e}")


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
        limits = usage.thresholds(None, {"prepare": str(prepare), "refresh": str(refresh),
                                         "rotate": str(rotate)})
        assert usage.level_for(measured, limits).level == level
    if measured.context_window:
        pct = 100 * n / measured.context_window
        at = usage.thresholds(None, {"prepare": f"{pct / 2}%", "refresh": f"{pct * 0.99}%",
                                     "rotate": "100%"})
        assert usage.level_for(measured, at).level == "refresh"
