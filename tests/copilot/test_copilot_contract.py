"""The core adapter contract, over the captured Copilot CLI home."""

from __future__ import annotations

from pathlib import Path

import pytest

from continuity_copilot import CopilotAdapter
from continuity_core.adapters import Account
from continuity_core.testing import AdapterContract, ContractSample
from tests.copilot.helpers import GREETER, PAYLOADS, TRUTH, home_copy

KINDS = {
    "sessionStart.json": "session_start",
    "userPromptSubmitted.json": "prompt",
    "preToolUse.json": "pre_tool",
    "postToolUse.json": "post_tool",
    "agentStop.json": "stop",
    "sessionEnd.json": "session_end",
    "errorOccurred.json": "stop",  # a rate limit: the limit is recorded at once
    "permissionRequest.json": "other",
}


class TestCopilotContract(AdapterContract):
    @pytest.fixture
    def sample(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ContractSample:
        home = home_copy(tmp_path)
        monkeypatch.setenv("COPILOT_HOME", str(home))
        truth = TRUTH[GREETER]
        return ContractSample(
            adapter=CopilotAdapter(),
            accounts=[Account(agent="copilot", name="COPILOT_HOME", dir=str(home))],
            project=Path(truth["cwd"]),  # never created: discovery must not need it on disk
            session_id=GREETER,
            latest_request=truth["requests"][-1],
            hook_payloads={kind: (PAYLOADS / name).read_bytes() for name, kind in KINDS.items()},
        )
