"""The fourth adapter meets the same contract as the real three (`continuity_core.testing`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from continuity_core.adapters import Account
from continuity_core.testing import AdapterContract, ContractSample
from tests.helpers.fake_agent import FakeAdapter


def _session(home: Path, sid: str, cwd: Path, request: str, mtime: float) -> None:
    path = home / "sessions" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        {"type": "meta", "id": sid, "cwd": str(cwd)},
        {"type": "user", "text": request},
        {"type": "assistant", "text": "on it"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    os.utime(path, (mtime, mtime))


class TestFakeAgentContract(AdapterContract):
    @pytest.fixture
    def sample(self, tmp_path: Path) -> ContractSample:
        home = tmp_path / ".fake-agent"
        project, other = tmp_path / "project", tmp_path / "other"
        project.mkdir()
        other.mkdir()
        _session(home, "older", project, "first ask", 1_000)
        _session(home, "newest", project / "sub", "the latest ask", 2_000)
        _session(home, "elsewhere", other, "unrelated", 3_000)
        return ContractSample(
            adapter=FakeAdapter(),
            accounts=[Account(agent="fake", name=str(home), dir=str(home))],
            project=project,
            session_id="newest",
            latest_request="the latest ask",
            hook_payloads={
                "pre_tool": json.dumps(
                    {"event": "pre_tool", "session_id": "newest", "tool": "edit", "path": "a.py"}
                ).encode()
            },
        )
