"""Codex's sub-agent rollouts (`"thread_source":"subagent"` in their session_meta line) are no
session of a project, and a sub-agent's notify is attributed to the thread its
`parent_thread_id` names. Both are read from raw bytes of the first line: what a repository
or a user puts in that line (the branch name, the remote's URL, AGENTS.md as instructions) is
a JSON string there, so it can neither hide a real session nor send its hook to another
project's session."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from continuity_core.adapters import load
from continuity_core.adapters.protocol import Account
from tests.conftest import FIXTURES

TRIMMED = FIXTURES / "codex" / "trimmed"
OURS = "01a22a9a-0a8d-7d11-be12-ec74fa38e31d"
THEIRS = "01a22a99-3138-74a2-beeb-885dc8136fd9"
FORGED = f'x","thread_source":"subagent","parent_thread_id":"{THEIRS}","cwd":"/elsewhere'


def _home(tmp_path: Path, project: Path) -> Path:
    """A Codex home with two rollouts: ours in `project`, whose session_meta carries the
    forged marks in every string a repository controls, and another project's."""
    day = tmp_path / ".codex" / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    for rollout in TRIMMED.glob("*.jsonl"):
        if OURS in rollout.name or THEIRS in rollout.name:
            shutil.copy(rollout, day / rollout.name.replace(".trimmed", ""))
    ours = next(day.glob(f"*{OURS}*"))
    lines = ours.read_text().splitlines(keepends=True)
    meta = json.loads(lines[0])
    meta["payload"]["cwd"] = str(project)
    meta["payload"]["git"]["branch"] = FORGED
    meta["payload"]["git"]["repository_url"] = FORGED
    meta["payload"]["base_instructions"]["text"] = f"AGENTS.md says: {FORGED}"
    ours.write_text(json.dumps(meta, separators=(",", ":")) + "\n" + "".join(lines[1:]))
    return tmp_path / ".codex"


def test_forged_sub_agent_marks_neither_hide_a_session_nor_redirect_its_notify(
    tmp_path: Path,
) -> None:
    pytest.importorskip("continuity_codex")
    from continuity_codex.hooks import parse_notify

    project = tmp_path / "project"
    project.mkdir()
    home = _home(tmp_path, project)
    accounts = [Account(agent="codex", name="~/.codex", dir=str(home))]
    adapter = load("codex")
    assert [r.session_id for r in adapter.discover(str(project), accounts)] == [OURS]
    assert OURS in {r.session_id for r in adapter.all_sessions(accounts)}
    notify = parse_notify(
        json.dumps(
            {
                "type": "agent-turn-complete",
                "thread-id": OURS,
                "turn-id": "t",
                "cwd": str(project),
                "input-messages": [],
                "last-assistant-message": "done",
            }
        )
    )
    ref = adapter.session_for_hook(notify, accounts)
    assert ref is not None and ref.session_id == OURS
