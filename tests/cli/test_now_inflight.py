"""Issue 19, case 7: `baker now` and the brief agree about a call the agent was killed in.
Gemini CLI writes a tool call only once it returns; the pre-tool hook's in-flight record is the
one source both read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.flows import payload
from tests.conftest import FIXTURES, run_baker

pytest.importorskip("continuity_gemini")  # the agent whose hooks this runs

SESSION = "da0b45a2-73a8-4367-a126-06926ec2b46d"  # S4: killed while the suite ran
CALL = "sleep 60 && ./scripts/integration.sh"


def gemini_session(home: Path, root: Path) -> None:
    """The captured Gemini CLI data-pipeline session (S4) as this project's."""
    src = FIXTURES / "gemini" / ".gemini" / "tmp" / "data-pipeline"
    dst = home / ".gemini" / "tmp" / "data-pipeline"
    shutil.copytree(src, dst)
    (dst / ".project_root").write_text(str(root))
    (home / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {str(root): "data-pipeline"}})
    )


def test_now_and_the_brief_name_the_same_interrupted_call(repo: Path, isolated_home: Path) -> None:
    assert run_baker("init", "--agent", "gemini", cwd=repo).returncode == 0
    gemini_session(isolated_home, repo)
    before = payload(
        "gemini",
        "BeforeTool.run_shell_command.json",
        isolated_home,
        repo,
        session_id=SESSION,
        timestamp="2026-11-30T03:58:55.000Z",
        tool_input={"command": CALL, "description": "Run the integration suite"},
    )
    assert run_baker("pretool", "--agent", "gemini", cwd=repo, input=before).returncode == 0
    # ... and the agent is killed: no AfterTool, no AfterAgent.
    assert (
        run_baker("now", "Run ./scripts/integration.sh and fix what fails", cwd=repo).returncode
        == 0
    )

    brief = run_baker("handoff", "--from", "gemini", cwd=repo).stdout
    assert SESSION in brief and CALL in brief and "pre-tool hook" in brief

    shown = run_baker("now", "--json", cwd=repo)
    result = json.loads(shown.stdout)
    assert result["checked"] and result["session"] == SESSION and not result["suspect"]
    assert CALL in result["detail"] and "never got its result" in result["detail"]
    assert "not done there yet" not in result["detail"]
    assert "pre-tool hook" in run_baker("now", cwd=repo).stdout
