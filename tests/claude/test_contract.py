"""The core AdapterContract, run against the captured Claude Code sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from continuity_claude import ClaudeAdapter
from continuity_core.adapters import Account
from continuity_core.testing import AdapterContract, ContractSample
from tests.claude.helpers import CLAUDE, TRANSCRIPTS, payload
from tests.conftest import copy_tree

WEATHER = (
    "claude/.claude/projects/-home-dev-src-weather-cli/48f0d34d-61b5-40aa-aac6-73b6722315eb.jsonl"
)


class TestClaudeContract(AdapterContract):
    @pytest.fixture
    def sample(self, tmp_path: Path) -> ContractSample:
        home = copy_tree(CLAUDE / ".claude", tmp_path / "account")
        gt = TRANSCRIPTS[WEATHER]
        return ContractSample(
            adapter=ClaudeAdapter(),
            accounts=[Account(agent="claude", name="work", dir=str(home))],
            # a path that exists only in the transcripts: discovery goes by slug and cwd
            project=Path(gt["cwd"]),
            session_id=gt["session_id"],
            latest_request=gt["latest_user_request"],
            hook_payloads={
                "session_start": payload("SessionStart.startup.json"),
                "pre_tool": payload("PreToolUse.Edit.json"),
                "post_tool": payload("PostToolUse.Bash.json"),
                "stop": payload("Stop.json"),
                "pre_compact": payload("PreCompact.json"),
                "session_end": payload("SessionEnd.json"),
                "prompt": payload("UserPromptSubmit.json"),
            },
        )


def test_the_archive_reads_claudes_own_keys_through_the_adapter() -> None:
    from continuity_core.archive.extraction import strings

    record = {
        "lastPrompt": "ship the release",
        "parentUuid": "0b1c",
        "message": {"content": "done", "logicalParentUuid": "9f2e"},
    }
    assert ClaudeAdapter().archive_text(record) == ["ship the release", "done"]
    assert strings(record) == ["done"]  # core alone knows only the common keys
