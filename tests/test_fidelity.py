"""The shared fidelity tool: every ground-truth fact of every captured transcript reaches the
brief of `baker handoff`, and no planted secret does."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import BAKER, FIXTURES, lingering

TOOL = Path(__file__).resolve().parents[2] / "shared" / "tools" / "fidelity.py"


def test_every_fact_and_no_leak() -> None:
    if not TOOL.is_file():  # a clone with nothing beside it: each adapter's own suite checks
        # its parser against tests/fixtures/ground_truth.json; this adds the end-to-end brief
        pytest.skip(f"{TOOL} is absent (the shared folder is not beside the repository)")
    result = subprocess.run(
        [sys.executable, str(TOOL), BAKER, str(FIXTURES)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    last = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert last.startswith("fidelity: ") and " 0 leaks" in last
    time.sleep(0.2)
    # The tool runs `baker` in homes of its own (`truth-home.*`): nothing of it may be left.
    assert lingering("/truth-home.") == []
