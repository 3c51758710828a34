"""The pre-tool hook records the call it sees start; a finished turn clears it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_baker

pytest.importorskip("continuity_gemini")  # the agent whose hooks this runs


def test_hooks_record_and_a_finished_turn_clears(repo: Path) -> None:
    run_baker("init", cwd=repo)
    before = json.loads(
        (FIXTURES / "gemini/hook_payloads/BeforeTool.run_shell_command.json").read_text()
    )
    before["cwd"] = str(repo)
    assert (
        run_baker("pretool", "--agent", "gemini", cwd=repo, input=json.dumps(before)).returncode
        == 0
    )
    files = list((repo / ".baker" / "inflight").iterdir())
    assert len(files) == 1 and "celsius_to_fahrenheit" in files[0].read_text()
    after = json.loads((FIXTURES / "gemini/hook_payloads/AfterAgent.json").read_text())
    after.update(cwd=str(repo), session_id=before["session_id"])
    run_baker("checkpoint", "--agent", "gemini", "--quiet", cwd=repo, input=json.dumps(after))
    assert list((repo / ".baker" / "inflight").iterdir()) == []
