"""The core adapter contract, over the captured Codex home."""

from __future__ import annotations

from pathlib import Path

import pytest

from continuity_codex import CodexAdapter
from continuity_core.adapters import Account
from continuity_core.testing import AdapterContract, ContractSample
from tests.codex.helpers import PAYLOADS, by_scenario, home_copy

KINDS = {
    "SessionStart.json": "session_start",
    "PreToolUse.Bash.json": "pre_tool",
    "PostToolUse.apply_patch.json": "post_tool",
    "Stop.json": "stop",
    "PreCompact.json": "pre_compact",
    "SessionEnd.json": "session_end",
    "UserPromptSubmit.json": "prompt",
}


class TestCodexContract(AdapterContract):
    @pytest.fixture
    def sample(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ContractSample:
        home = home_copy(tmp_path)
        monkeypatch.setenv("CODEX_HOME", str(home))
        _, truth = by_scenario("S2")
        return ContractSample(
            adapter=CodexAdapter(),
            accounts=[Account(agent="codex", name="CODEX_HOME", dir=str(home))],
            project=Path(truth["cwd"]),  # never created: discovery must not need it on disk
            session_id=truth["session_id"],
            latest_request=truth["latest_user_request"],
            hook_payloads={kind: (PAYLOADS / name).read_bytes() for name, kind in KINDS.items()},
            notify_argv=[(PAYLOADS / "notify.json").read_text()],
        )


def test_the_archive_skips_codexs_injected_instructions_through_the_adapter() -> None:
    from continuity_core.archive.extraction import strings

    record = {"payload": {"base_instructions": {"text": "You are Codex"}, "content": "hi"}}
    assert CodexAdapter().archive_text(record) == ["hi"]
    assert strings(record) == ["You are Codex", "hi"]
