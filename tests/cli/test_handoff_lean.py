"""`baker handoff` on a session already read has a budget of three bare interpreter starts
(issue 17): an agent or a person runs it at every switch. Its plain form must not import what
costs a sizeable share of a bare start (docs/decisions.md, "Hook start-up budget"). Each
agent's captured weather-cli session is read once (the cursor is kept), then `baker handoff
--from AGENT` runs under `python -X importtime` with a note, a trap on the files the session
edited and, for one agent, a saved checkpoint: every part of the brief that reads a file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from continuity_core import saved, traps
from tests.cli.flows import claude_session, moved
from tests.conftest import FIXTURES, run_baker
from tests.helpers.child import imported_modules, run_importtime
from tests.helpers.drafts import make_draft

AGENTS = ("claude", "codex", "gemini")
CODEX_S1 = "rollout-2026-11-30T03-56-52-01a22a99-3138-74a2-beeb-885dc8136fd9.jsonl"
WHY = "float maths broke the golden files"
# Each costs the command a sizeable share of a bare start (or pulls in one that does).
FORBIDDEN = {
    # `re` and what it imports (enum, functools, collections) are allowed: the one redactor is
    # plain `re`, compiled on first use (issue 30 took the needles prefilter away).
    "msgspec",
    "pathlib",  # the plain handoff works on str paths
    "typing",
    "contextlib",
    "datetime",
    "json",
    "subprocess",
    "dataclasses",
    "inspect",
    "hashlib",
    "importlib.metadata",
    "click",
    "continuity_cli.app",
}


def place_session(agent: str, home: Path, repo: Path) -> None:
    """The agent's captured weather-cli session, as if run in `repo`."""
    if agent == "claude":
        claude_session(home, repo)
    elif agent == "codex":
        day = Path(".codex", "sessions", "2026", "11", "30")
        dst = home / day / CODEX_S1
        dst.parent.mkdir(parents=True)
        dst.write_text(moved((FIXTURES / "codex" / day / CODEX_S1).read_text(), home, repo))
    else:
        dst = home / ".gemini" / "tmp" / "weather-cli"
        shutil.copytree(FIXTURES / "gemini" / ".gemini" / "tmp" / "weather-cli", dst)
        (dst / ".project_root").write_text(str(repo))
        registry = {"projects": {str(repo): "weather-cli"}}
        (home / ".gemini" / "projects.json").write_text(json.dumps(registry))


def imported(agent: str, repo: Path) -> tuple[set[str], str]:
    """The modules one `baker handoff --from AGENT` imported, and the brief it printed."""
    report, out = run_importtime("handoff", "--from", agent, cwd=repo)
    return imported_modules(report), out


def checkpointed(agent: str, home: Path, repo: Path) -> None:
    """A project with a note, a trap on the Python files and the session's cursor kept."""
    pytest.importorskip(f"continuity_{agent}")  # the CLI installed alone has no adapter
    assert run_baker("init", cwd=repo).returncode == 0
    place_session(agent, home, repo)
    assert run_baker("now", "Run the unit tests before the release", cwd=repo).returncode == 0
    traps.add(repo, "*.py", WHY)
    first = run_baker("handoff", "--from", agent, cwd=repo)  # reads the session, keeps its cursor
    assert first.returncode == 0, first.stderr
    assert list((repo / ".baker" / "cursors").glob(f"{agent}-*.json"))


@pytest.mark.parametrize("agent", AGENTS)
def test_handoff_imports_none_of_the_costly_modules(
    repo: Path, isolated_home: Path, agent: str
) -> None:
    checkpointed(agent, isolated_home, repo)
    names, brief = imported(agent, repo)
    assert "Run the unit tests before the release" in brief  # the note
    assert WHY in brief  # the trap: the session edited Python files
    assert "continuity_core.traps" in names and "continuity_core.note" in names
    assert not names & FORBIDDEN, sorted(names & FORBIDDEN)


def test_a_saved_checkpoint_in_the_brief_costs_only_what_saved_imports(
    repo: Path, isolated_home: Path
) -> None:
    checkpointed("claude", isolated_home, repo)
    cid = saved.save(repo, make_draft(repo)).id
    names, brief = imported("claude", repo)
    assert f"- id: {cid} (" in brief and "Latest saved checkpoint" in brief
    assert "continuity_core.saved" in names
    assert "datetime" in names  # the front matter's time is checked as an ISO 8601 time
    paid = {"datetime", "pathlib", "re", "functools"}  # the saved module's, only when one exists
    assert not names & (FORBIDDEN - paid), sorted(names & FORBIDDEN)
