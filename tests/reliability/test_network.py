"""Nothing in the project opens a network connection: every command runs under a guard
that records and refuses any attempt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import run_baker

GUARD = str(Path(__file__).parent / "netguard")


def guarded(log: Path) -> dict[str, str]:
    path = os.pathsep.join(p for p in (GUARD, os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, "BAKER_NETGUARD_LOG": str(log)}


def test_the_guard_catches_a_connection(tmp_path: Path) -> None:
    import subprocess
    import sys

    log = tmp_path / "net.log"
    code = "import socket; socket.create_connection(('127.0.0.1', 9), timeout=1)"
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **guarded(log)},
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0 and "refused by the test guard" in result.stderr
    assert log.read_text().startswith("socket.")


@pytest.mark.parametrize(
    "args",
    [
        ["init"],
        ["status", "--json"],
        ["checkpoint"],
        ["handoff", "--json"],
        ["doctor"],
        ["adapters"],
        ["resume", "claude", "--dry-run"],
        ["global", "sync", "--dry-run"],
    ],
)
def test_commands_open_no_connection(repo: Path, tmp_path: Path, args: list[str]) -> None:
    log = tmp_path / "net.log"
    run_baker("init", cwd=repo)
    result = run_baker(*args, cwd=repo, env=guarded(log))
    assert "network access refused" not in result.stderr
    assert not log.exists(), log.read_text()
