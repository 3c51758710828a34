"""The core adapter contract, over the captured OpenCode home."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("continuity_opencode")

from continuity_core.adapters import Account
from continuity_core.testing import AdapterContract, ContractSample
from continuity_opencode import OpenCodeAdapter
from tests.opencode.helpers import MAIN, PAYLOADS, home_copy

KINDS = {
    "session.start.json": "session_start",
    "tool.execute.before.bash.json": "pre_tool",
    "tool.execute.before.write.json": "pre_tool",
    "session.idle.json": "stop",
    "session.error.json": "stop",
}


class TestOpenCodeContract(AdapterContract):
    @pytest.fixture
    def sample(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ContractSample:
        data, work = home_copy(tmp_path)
        monkeypatch.setenv("XDG_DATA_HOME", str(data.parent))
        return ContractSample(
            adapter=OpenCodeAdapter(),
            accounts=[Account(agent="opencode", name="XDG_DATA_HOME", dir=str(data))],
            project=work / "proj",
            session_id=MAIN,
            latest_request="Run the slow build",
            hook_payloads={kind: (PAYLOADS / name).read_bytes() for name, kind in KINDS.items()},
        )
