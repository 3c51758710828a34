"""SessionStart's budget is three bare interpreter starts (issue 17): `baker pickup` must not
import what costs as much as a good part of one (docs/decisions.md, "How the hooks stay fast").
Each agent's pickup runs as the agent runs it, after another agent's session of the project,
its imports read from `python -X importtime`: on the first read of that session and again
once its cursor is cached."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.cli.flows import claude_session, payload
from tests.conftest import run_baker
from tests.helpers.child import run_importtime
from tests.helpers.gitindex import age_index

AGENTS = ("claude", "codex", "gemini")
FORBIDDEN = {
    "click",
    "continuity_core.machines",  # no `.baker/machines.json`: no `baker pull` was run
    "importlib.metadata",  # entry points come from the index the first hook wrote
    "email",
}


def importers(stderr: str) -> dict[str, list[str]]:
    """Each module a `-X importtime` run imported, with the modules whose import brought it
    in, innermost first (a nested import is listed before its parent, indented deeper)."""
    rows: list[tuple[int, str]] = []
    for line in stderr.splitlines():
        if not line.startswith("import time:") or "imported package" in line:
            continue
        name = line.rsplit("|", 1)[1]
        rows.append(((len(name) - len(name.lstrip()) - 1) // 2, name.strip()))
    found: dict[str, list[str]] = {}
    for i, (depth, name) in enumerate(rows):
        chain: list[str] = []
        below = depth
        for level, parent in rows[i + 1 :]:
            if level < below:
                chain.append(parent)
                below = level
        found[name] = chain
    return found


def pickup(agent: str, home: Path, repo: Path, session: str) -> tuple[dict[str, list[str]], str]:
    """The modules the pickup of a new `session` imported (with their importers), and what
    it printed."""
    start = payload(agent, "SessionStart.json", home, repo, session_id=session)
    report, out = run_importtime("pickup", "--agent", agent, cwd=repo, stdin=start.encode())
    return importers(report), out  # the agent's hook JSON


@pytest.mark.parametrize("agent", AGENTS)
def test_pickup_imports_none_of_the_costly_modules(
    repo: Path, isolated_home: Path, agent: str
) -> None:
    pytest.importorskip(f"continuity_{agent}")
    assert run_baker("init", cwd=repo).returncode == 0
    age_index(repo)  # a fresh index's verdict is not remembered: each call would ask git
    # The previous session's hooks ran here: the first remembered that git tracks nothing
    # under .baker (a pickup in a fresh clone asks git once, as any first hook does).
    assert run_baker("pretool", cwd=repo, input="{}").returncode == 0
    claude_session(isolated_home, repo)  # the previous session: Claude Code's, whoever starts
    for session in ("first-new-session", "second-new-session"):  # the second: cursor cached
        names, text = pickup(agent, isolated_home, repo, session)
        assert "48f0d34d" in text and "branch: main" in text  # the work was done
        assert "continuity_core.pickup" in names and f"continuity_{agent}.adapter" in names
        costly = FORBIDDEN & names.keys()
        assert not costly, {m: names[m] for m in costly}  # each with what imported it
        parsers = {m for m in names if m.startswith("continuity_") and m.endswith(".parser")}
        assert parsers == {"continuity_claude.parser"}  # the session read, no other agent's


SERVED = FORBIDDEN | {"msgspec", "typing"}  # what the last checkpoint prepared stands in


def test_a_served_pickup_imports_neither_msgspec_nor_typing(
    repo: Path, isolated_home: Path
) -> None:
    """SessionStart after a checkpoint reads what it prepared (`pickup.json`, the note's
    digest included) plus live git: none of the schemas it would parse them with."""
    from tests.cli.test_pickup_prepared import checkpoint

    assert run_baker("init", cwd=repo).returncode == 0
    assert run_baker("now", "run the served-note check", cwd=repo).returncode == 0
    checkpoint(repo, isolated_home)
    venv = repo / ".venv"  # a Python project's: its interpreter is checked, by plain values
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n")
    (venv / "bin" / "python").symlink_to(sys.executable)
    for agent in AGENTS:
        if importlib.util.find_spec(f"continuity_{agent}") is None:
            continue
        # A new session's own transcript (not there yet) plays no part in a served pickup.
        start = payload(
            agent,
            "SessionStart.json",
            isolated_home,
            repo,
            session_id=f"served-{agent}",
            transcript_path=None,
        )
        report, text = run_importtime("pickup", "--agent", agent, cwd=repo, stdin=start.encode())
        names = importers(report)
        assert "48f0d34d" in text and "branch: main" in text and "served-note check" in text
        assert "- interpreters:\\n  - [ok] .venv: " in text
        costly = SERVED & names.keys()
        assert not costly, {m: names[m] for m in costly}
