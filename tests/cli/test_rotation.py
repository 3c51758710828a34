"""`[rotation]` in config.toml, `baker limits`, `baker resume --next`."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from continuity_core import limits, stamps
from tests.conftest import run_baker


def _config(home: Path, text: str) -> None:
    (home / ".baker").mkdir(exist_ok=True)
    (home / ".baker" / "config.toml").write_text(text)


ROTATION = """
[accounts.work]
agent = "claude"
dir = "~/.claude-work"

[rotation]
order = ["claude", "claude:work", "codex"]
countdown = 5
max_hops = 2
"""


def test_rotation_is_read_and_checked(isolated_home: Path) -> None:
    from continuity_core.config import load_config
    from continuity_core.errors import ConfigError

    _config(isolated_home, ROTATION)
    rotation = load_config().rotation
    assert (rotation.order, rotation.countdown, rotation.max_hops) == (
        ["claude", "claude:work", "codex"],
        5,
        2,
    )
    _config(isolated_home, "[rotation]\ncountdown = -1\n")
    with pytest.raises(
        ConfigError, match=r"`countdown` in \[rotation\] must be a whole number >= 0"
    ):
        load_config()
    _config(isolated_home, "[rotation]\nhops = 1\n")
    with pytest.raises(ConfigError, match="unknown key `hops` in \\[rotation\\]"):
        load_config()


def test_limits_json_lists_every_entry(isolated_home: Path) -> None:
    pytest.importorskip("continuity_claude")
    pytest.importorskip("continuity_codex")
    _config(isolated_home, ROTATION)
    until = stamps.iso(limits.now() + dt.timedelta(hours=2))
    limits.record(
        limits.Limit(
            agent="claude",
            dir=str(isolated_home / ".claude-work"),
            account="work",
            since=stamps.now_iso(),
            until=until,
            source="hook",
        )
    )
    result = run_baker("limits", "--json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [r["entry"] for r in rows] == ["claude", "claude:work", "codex"]
    assert [r["limited"] for r in rows] == [False, True, False]
    assert rows[1] == {
        "entry": "claude:work",
        "agent": "claude",
        "account": "work",
        "limited": True,
        "since": rows[1]["since"],
        "until": until,
        "source": "hook",
        "kind": "usage_limit",
    }
    assert set(rows[0]) == set(rows[1])
    text = run_baker("limits").stdout
    assert "claude:work  limited since" in text and "codex        available" in text


def test_limits_names_a_bad_entry(isolated_home: Path) -> None:
    pytest.importorskip("continuity_claude")
    pytest.importorskip("continuity_codex")
    _config(isolated_home, '[rotation]\norder = ["claude:nobody"]\n')
    result = run_baker("limits")
    assert result.returncode == 1
    assert "no claude account named 'nobody'" in result.stderr


def test_resume_next_skips_limited_entries(isolated_home: Path, repo: Path) -> None:
    pytest.importorskip("continuity_claude")
    pytest.importorskip("continuity_codex")
    _config(isolated_home, ROTATION)
    for folder in (".claude", ".claude-work"):
        limits.record(
            limits.Limit(agent="claude", dir=str(isolated_home / folder), since=stamps.now_iso())
        )
    result = run_baker("resume", "--next", "--dry-run", "--json", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert "next in the rotation: codex" in result.stderr
    launch = json.loads(result.stdout)["launch"]
    assert launch["argv"][0] == "codex"


def test_resume_next_with_everything_limited_says_when(isolated_home: Path, repo: Path) -> None:
    pytest.importorskip("continuity_claude")
    pytest.importorskip("continuity_codex")
    _config(isolated_home, '[rotation]\norder = ["codex"]\n')
    until = stamps.iso(limits.now() + dt.timedelta(minutes=30))
    limits.record(
        limits.Limit(
            agent="codex",
            dir=str(isolated_home / ".codex"),
            since=stamps.now_iso(),
            until=until,
        )
    )
    result = run_baker("resume", "--next", "--dry-run", cwd=repo)
    assert result.returncode == 1
    assert f"every [rotation] entry is limited; the first resets at {until}" in result.stderr


def test_resume_needs_an_agent_or_next(repo: Path) -> None:
    result = run_baker("resume", cwd=repo)
    assert result.returncode != 0 and "--next" in result.stderr
