"""The installed `baker` hook commands fed Gemini CLI payloads, as the CLI runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_baker
from tests.gemini.chatlog import PAYLOADS, SESSIONS

pytest.importorskip("continuity_cli", reason="the baker command comes with continuity-cli")

S1 = next((k, v) for k, v in SESSIONS.items() if v["scenario"] == "S1")


def _payload(gemini_home: Path, repo: Path, name: str) -> str:
    data = json.loads((PAYLOADS / name).read_text())
    data["cwd"] = str(repo)
    data["transcript_path"] = str(gemini_home.parent / S1[0].removeprefix("gemini/"))
    return json.dumps(data)


def test_checkpoint_after_a_turn(gemini_home: Path, repo: Path) -> None:
    registry = json.loads((gemini_home / "projects.json").read_text())
    registry["projects"][str(repo)] = "weather-cli"  # Gemini ran in this repository
    (gemini_home / "projects.json").write_text(json.dumps(registry))
    assert run_baker("init", "--agent", "gemini", cwd=repo).returncode == 0
    proc = run_baker(
        "checkpoint",
        "--agent",
        "gemini",
        "--quiet",
        cwd=repo,
        input=_payload(gemini_home, repo, "AfterAgent.json"),
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    [path] = (repo / ".baker" / "checkpoints").glob("*.json")
    session = json.loads(path.read_text())["session"]
    assert session["session_id"] == S1[1]["session_id"]
    assert session["requests"] == S1[1]["user_requests"]
    assert [t["content"] for t in session["todos"]] == [t["description"] for t in S1[1]["todos"]]


def test_garbage_stdin_exits_zero_silently(gemini_home: Path, repo: Path) -> None:
    assert run_baker("init", "--agent", "gemini", cwd=repo).returncode == 0
    for command in ("checkpoint", "pickup", "pretool"):
        proc = run_baker(command, "--agent", "gemini", cwd=repo, input=b"\xff{not json")
        assert (proc.returncode, proc.stdout) == (0, "")
