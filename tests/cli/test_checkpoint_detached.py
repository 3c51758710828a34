"""The agent's way: a checkpoint hook answers at once and finishes in a detached child.

Without `BAKER_HOOK_WAIT` (which the rest of the suite sets), `baker checkpoint --agent A`
exits 0 having printed nothing while its forked child, off the agent's streams and in a
session of its own, writes the checkpoint; then nothing of it is left running.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import BAKER, FIXTURES, copy_tree, lingering, run_baker

TRANSCRIPT = ".claude/projects/-home-dev-src-weather-cli/48f0d34d-61b5-40aa-aac6-73b6722315eb.jsonl"


def wait_for(check: object, seconds: float = 20) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if callable(check) and check():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork: the checkpoint runs in place")
def test_the_agent_gets_its_answer_and_the_child_writes_the_checkpoint(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("continuity_claude")
    assert run_baker("init", cwd=repo).returncode == 0
    home = copy_tree(FIXTURES / "claude" / ".claude", tmp_path / ".claude")
    stop = json.loads((FIXTURES / "claude" / "hook_payloads" / "Stop.json").read_text())
    stop.update(cwd=str(repo), transcript_path=str(home.parent / TRANSCRIPT))
    monkeypatch.delenv("BAKER_HOOK_WAIT")
    marker = f"detached-{os.getpid()}"
    # Pipes, as the agent gives them: run() returns only once every writer has closed them,
    # so the child must have left them.
    answer = subprocess.run(
        [BAKER, "checkpoint", "--agent", "claude"],
        cwd=repo,
        input=json.dumps(stop).encode(),
        capture_output=True,
        env={**os.environ, "CLAUDE_CONFIG_DIR": str(home), "BAKER_TEST_MARK": marker},
        timeout=60,
    )
    assert answer.returncode == 0 and answer.stdout == b"" and answer.stderr == b""
    folder = repo / ".baker" / "checkpoints"
    # `*.json`: the child's temp file (`.<name>.<pid>.<hex>.tmp`) stands beside it until renamed.
    assert wait_for(lambda: folder.is_dir() and any(folder.glob("*.json"))), "no checkpoint"
    written = json.loads(next(folder.glob("*.json")).read_text())
    assert written["agent"] == "claude" and written["session"]["records"]
    assert wait_for(lambda: lingering(marker) == []), "the child is still running"
    log = repo / ".baker" / "log" / "events.jsonl"
    assert not log.exists() or "hook_error" not in log.read_text()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork: the bookkeeping runs in place")
def test_a_pretool_call_answers_first_and_its_child_keeps_the_books(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The traps reach the agent from the answering process; the call in flight and the
    traps marked seen are written by its detached child, which then exits."""
    pytest.importorskip("continuity_gemini")
    assert run_baker("init", cwd=repo).returncode == 0
    trap = run_baker("trap", "add", "*.py", "float maths broke the golden files", cwd=repo)
    assert trap.returncode == 0
    payload = json.loads((FIXTURES / "gemini/hook_payloads/BeforeTool.write_file.json").read_text())
    payload["cwd"] = str(repo)
    payload["tool_input"]["file_path"] = str(repo / "weather" / "units.py")
    monkeypatch.delenv("BAKER_HOOK_WAIT")
    marker = f"pretool-{os.getpid()}"
    answer = subprocess.run(
        [BAKER, "pretool", "--agent", "gemini"],
        cwd=repo,
        input=json.dumps(payload).encode(),
        capture_output=True,
        env={**os.environ, "BAKER_TEST_MARK": marker},
        timeout=60,
    )
    assert answer.returncode == 0 and b"float maths broke" in answer.stdout
    assert wait_for(lambda: lingering(marker) == []), "the child is still running"
    assert len(list((repo / ".baker" / "inflight").iterdir())) == 1
    assert any((repo / ".baker" / "traps-seen").iterdir())
    log = (repo / ".baker" / "log" / "events.jsonl").read_text()
    assert "traps_delivered" in log and "hook_error" not in log
