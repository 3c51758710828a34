"""Issue 19, case 8: a brief without noise. Over every captured transcript in tests/fixtures:
each fact once, a compaction summary without its instructions to the model, no empty section
or placeholder, correct plurals; and, through `baker init` and `baker handoff`, a repo state
without Continuity's own files."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from continuity_core import brief
from continuity_core.adapters import Account, load
from continuity_core.schemas.checkpoint import GitFacts
from continuity_core.schemas.session import SessionRef
from continuity_core.sessions import read_session
from tests.conftest import FIXTURES, git, run_baker

NATIVE = {"claude": ".claude", "codex": ".codex", "gemini": ".gemini"}
for _agent in NATIVE:  # reads every agent's fixtures: absent with core installed alone
    pytest.importorskip(f"continuity_{_agent}")
INSTRUCTIONS = re.compile(
    r"without asking the user|continue the conversation|resume directly|do not acknowledge"
    r"|this session is being continued|if you need specific details",
    re.I,
)


def captured() -> list[tuple[str, SessionRef]]:
    out = []
    for agent, native in NATIVE.items():
        account = Account(agent=agent, name="fixtures", dir=str(FIXTURES / agent / native))
        out += [(agent, ref) for ref in load(agent).all_sessions([account])]
    # codex-cli 0.171's archived thread, fork and the fork's parent (`tests/fixtures/releases`)
    account = Account(agent="codex", name="releases", dir=str(FIXTURES / "releases/codex/.codex"))
    out += [("codex", ref) for ref in load("codex").all_sessions([account])]
    return out


SESSIONS = captured()


def test_every_agent_has_captured_sessions() -> None:
    assert Counter(agent for agent, _ in SESSIONS) == {"claude": 19, "codex": 10, "gemini": 8}


@pytest.mark.parametrize(
    ("agent", "ref"), SESSIONS, ids=[f"{a}-{r.session_id[:8]}" for a, r in SESSIONS]
)
def test_fixture_brief_has_each_fact_once_and_no_instructions(agent: str, ref: SessionRef) -> None:
    session = read_session(load(agent), ref)
    text = brief.render(
        brief.build(
            project="/p",
            created_at="t",
            git=GitFacts(),
            note_text=None,
            session=session,
            ref=ref,
            budget_tokens=100_000,
        )
    )
    facts = [
        line.strip()
        for line in text.splitlines()
        if len(line.strip()) >= 30 and not line.startswith("_source")
    ]
    repeated = [line for line, n in Counter(facts).items() if n > 1]
    assert repeated == []
    assert not INSTRUCTIONS.search(text), INSTRUCTIONS.search(text)
    assert "time(s)" not in text and "file(s)" not in text and "<!--" not in text
    assert not re.search(r":\s*\n\s*\n## ", text), "a line announcing what never follows"
    assert "trigger not recorded" not in text  # each capture says how it was compacted
    if session.compactions:
        assert "compacted once; the last time by the user (manual)" in text


def test_compaction_summary_is_the_work_part(tmp_path: Path) -> None:
    [(agent, ref)] = [
        (a, r) for a, r in SESSIONS if a == "claude" and r.session_id.startswith("d6782a42")
    ]
    session = read_session(load(agent), ref)
    text = brief.render(
        brief.build(
            project="/p", created_at="t", git=GitFacts(), note_text=None, session=session, ref=ref
        )
    )
    compaction = text.split("## Compaction")[1].split("\n## ")[0]
    assert "1. Primary request: add a GET /rooms endpoint" in compaction
    assert "4. Pending: nothing yet." in compaction
    assert text.count("Primary request: add a GET /rooms endpoint") == 1


def test_repo_state_leaves_out_continuitys_own_files(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("print(1)\n")
    (root / ".gitignore").write_text("__pycache__/\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "initial commit")
    assert run_baker("init", cwd=root).returncode == 0
    assert git(root, "status", "--porcelain")  # init did leave files behind for git

    def repo_state() -> str:
        out = json.loads(run_baker("handoff", "--json", cwd=root).stdout)
        return str(next(s["body"] for s in out["sections"] if s["key"] == "repo"))

    assert "working tree clean" in repo_state()
    (root / "app.py").write_text("print(2)\n")
    state = repo_state()
    assert "- uncommitted: 1 file, +1 −1 in 1 tracked file" in state
    assert "AGENTS.md" not in state and ".gitignore" not in state and ".claude" not in state
    (root / "notes.txt").write_text("mine\n")
    as_init_wrote = (root / ".gitignore").read_text()
    (root / ".gitignore").write_text(as_init_wrote + "build/\n")
    state = repo_state()
    assert "- uncommitted: 3 files, +5 −1 in 2 tracked files" in state
    assert "`?? notes.txt`" in state and "` M .gitignore`" in state  # edited since: the user's
    (root / "app.py").write_text("print(1)\n")
    (root / ".gitignore").write_text(as_init_wrote)
    assert "- uncommitted: 1 file\n" in repo_state() + "\n"  # untracked only: no "+0 −0"


def test_the_note_in_the_brief_has_no_empty_sections(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    assert run_baker("init", cwd=root).returncode == 0
    assert run_baker("now", "Add pagination to GET /rooms", cwd=root).returncode == 0
    out = json.loads(run_baker("handoff", "--json", cwd=root).stdout)
    [note] = [s["body"] for s in out["sections"] if s["key"] == "note"]
    assert "### Now\nAdd pagination to GET /rooms" in note
    assert "<!--" not in note and "### Goal" not in note and "### Done" not in note
