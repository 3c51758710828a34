"""The shared fidelity tool: every ground-truth fact of every captured transcript reaches the
brief of `baker handoff`, and no planted secret does."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import BAKER, FIXTURES, server_processes

TOOL = Path(__file__).resolve().parents[2] / "shared" / "tools" / "fidelity.py"


def test_every_fact_and_no_leak() -> None:
    assert TOOL.exists(), f"{TOOL} is missing: the shared folder must sit beside the repository"
    try:
        result = subprocess.run([sys.executable, str(TOOL), BAKER, str(FIXTURES)],
                                capture_output=True, text=True, timeout=600)
    finally:
        stop_servers_of_the_tool()
    last = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert last.startswith("fidelity: ") and " 0 leaks" in last


def stop_servers_of_the_tool() -> None:
    """The tool runs `baker` in homes of its own (`truth-home.*`) with a bare environment, so
    the warm server is on there: stop those servers rather than leave them to their idle time."""
    for pid in server_processes("/truth-home."):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
