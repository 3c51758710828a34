"""A checkpoint after a turn has a budget of three bare interpreter starts (issue 29): the
process the agent waits for reads the payload, forks and exits, so it must import nothing
that costs a share of one, nor the adapter; the forked child does the work with the ordinary
libraries (docs/decisions.md, "How the hooks stay fast"). Each agent's `baker checkpoint`
runs as the agent runs it, before and after a first call has left a cursor, and the answering
process's imports are read from `python -X importtime` (the child's stderr is /dev/null)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, copy_tree, run_baker
from tests.helpers.child import imported_modules, run_importtime
from tests.helpers.gitindex import age_index

# Each costs the checkpoint a sizeable share of a bare start (or pulls in one that does).
FORBIDDEN = {
    "heapq",
    "subprocess",
    "dataclasses",
    "tomllib",
    "click",
    "continuity_core.machines",
    "continuity_core.note",
    "continuity_core.adapters.kit_install",
}
TRANSCRIPTS = {  # scenario S1 of each agent (tests/fixtures/MANIFEST.md): a turn that completed
    "claude": ".claude/projects/-home-dev-src-weather-cli/48f0d34d-61b5-40aa-aac6-73b6722315eb.jsonl",
    "codex": ".codex/sessions/2026/11/30/"
    "rollout-2026-11-30T03-56-52-01a22a99-3138-74a2-beeb-885dc8136fd9.jsonl",
}


def setup(agent: str, repo: Path, tmp_path: Path) -> tuple[bytes, dict[str, str]]:
    """A Stop payload naming a copy of a real transcript of `agent`, and the env that finds it."""
    folder = TRANSCRIPTS[agent].split("/", 1)[0]
    home = copy_tree(FIXTURES / agent / folder, tmp_path / folder)
    transcript = home.parent / TRANSCRIPTS[agent]
    stop = json.loads((FIXTURES / agent / "hook_payloads" / "Stop.json").read_text())
    stop.update(cwd=str(repo), transcript_path=str(transcript))
    env = {"CLAUDE_CONFIG_DIR": str(home)} if agent == "claude" else {"CODEX_HOME": str(home)}
    return json.dumps(stop).encode(), env


def imported(agent: str, repo: Path, payload: bytes, env: dict[str, str]) -> set[str]:
    """The modules one `baker checkpoint` call imported."""
    report, _ = run_importtime("checkpoint", "--agent", agent, cwd=repo, stdin=payload, env=env)
    return imported_modules(report)


@pytest.mark.parametrize("agent", sorted(TRANSCRIPTS))
def test_a_checkpoint_imports_none_of_the_costly_modules(
    repo: Path, tmp_path: Path, isolated_home: Path, agent: str
) -> None:
    pytest.importorskip(f"continuity_{agent}")  # the CLI installed alone has no adapter
    assert run_baker("init", cwd=repo).returncode == 0
    age_index(repo)  # as a turn usually finds it (`trust.RACY_S`)
    payload, env = setup(agent, repo, tmp_path)
    first = imported(agent, repo, payload, env)  # reads the transcript, leaves a cursor
    assert not first & FORBIDDEN, sorted(first & FORBIDDEN)
    assert not {n for n in first if n.startswith(f"continuity_{agent}")}, "the adapter loaded"
    checkpoints = list((repo / ".baker" / "checkpoints").iterdir())  # BAKER_HOOK_WAIT: done
    written = json.loads(checkpoints[0].read_text())
    assert len(checkpoints) == 1 and written["agent"] == agent and written["session"]["records"]
    shutil.rmtree(isolated_home / ".baker" / "cache" / "hooks-seen")  # a new event, not a repeat
    names = imported(agent, repo, payload, env)  # the next turn: the cursor is read
    assert len(list((repo / ".baker" / "checkpoints").iterdir())) == 2
    assert not names & FORBIDDEN, sorted(names & FORBIDDEN)
