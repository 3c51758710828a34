"""The core adapter contract, over the captured Gemini CLI home."""

from __future__ import annotations

from pathlib import Path

import pytest

from continuity_core.schemas.config import GlobalConfig
from continuity_core.testing import AdapterContract, ContractSample
from continuity_gemini import GeminiAdapter
from tests.gemini.chatlog import PAYLOADS, SESSIONS

S2 = next(v for v in SESSIONS.values() if v["scenario"] == "S2")


class TestGeminiContract(AdapterContract):
    @pytest.fixture
    def sample(self, gemini_home: Path) -> ContractSample:
        adapter = GeminiAdapter()
        return ContractSample(
            adapter=adapter,
            accounts=adapter.accounts(GlobalConfig()),
            project=Path(S2["project_root"]),  # need not exist: the registry links it
            session_id=S2["session_id"],
            latest_request=S2["latest_user_request"],
            hook_payloads={
                "session_start": (PAYLOADS / "SessionStart.startup.json").read_bytes(),
                "stop": (PAYLOADS / "AfterAgent.json").read_bytes(),
                "pre_compact": (PAYLOADS / "PreCompress.manual.json").read_bytes(),
                "pre_tool": (PAYLOADS / "BeforeTool.replace.json").read_bytes(),
                "post_tool": (PAYLOADS / "AfterTool.run_shell_command.json").read_bytes(),
                "session_end": (PAYLOADS / "SessionEnd.exit.json").read_bytes(),
                "prompt": (PAYLOADS / "BeforeAgent.json").read_bytes(),
            },
        )
