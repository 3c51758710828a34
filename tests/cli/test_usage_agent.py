"""`baker usage` names no agent by default: the agent comes from the feed, file or session."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import run_baker
from tests.helpers.samples import TRANSCRIPTS, statusline


def report(
    *args: str, cwd: Path, env: dict[str, str] | None = None, input: bytes | None = None
) -> dict[str, object]:
    result = run_baker("usage", *args, "--json", cwd=cwd, env=env, input=input)
    assert result.returncode == 0, result.stderr
    found: dict[str, object] = json.loads(result.stdout)
    return found


def test_the_statusline_is_the_one_installed_feeds(repo: Path) -> None:
    pytest.importorskip("continuity_claude")  # the bundled adapter with a usage feed
    fed = report("--statusline", cwd=repo, input=statusline({"input_tokens": 40_000}))
    assert fed["agent"] == "claude" and fed["context_tokens"] == 40_000
    none = report(
        "--statusline",
        cwd=repo,
        env={"BAKER_ADAPTERS": "codex,gemini"},
        input=statusline({"input_tokens": 40_000}),
    )
    assert none["level"] == "unknown" and "no installed agent has a usage feed" in str(
        none["reason"]
    )


@pytest.mark.parametrize("agent", ["claude", "codex", "gemini"])
def test_a_transcript_is_read_by_the_agent_whose_account_holds_it(
    repo: Path, fixtures: Path, isolated_home: Path, agent: str
) -> None:
    pytest.importorskip(f"continuity_{agent}")
    source = fixtures / TRANSCRIPTS[agent]
    inside = isolated_home / TRANSCRIPTS[agent].partition("/")[2]  # ~/.claude/projects/…
    inside.parent.mkdir(parents=True)
    shutil.copy(source, inside)
    found = report("--transcript", str(inside), cwd=repo)
    assert found["agent"] == agent and int(str(found["context_tokens"])) > 0
    elsewhere = repo.parent / "loose.jsonl"
    shutil.copy(source, elsewhere)
    unknown = report("--transcript", str(elsewhere), cwd=repo)
    assert unknown["level"] == "unknown" and "name its agent with --agent" in str(unknown["reason"])
    named = report("--transcript", str(elsewhere), "--agent", agent, cwd=repo)
    assert named["agent"] == agent and named["context_tokens"] == found["context_tokens"]
