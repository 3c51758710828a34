"""scripts/benchgen.py's OpenCode data (the captured database, moved to the bench's project,
grown by a turn as OpenCode writes one) and scripts/bench.py's OpenCode hook rows."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from continuity_core.adapters import Account
from continuity_opencode import OpenCodeAdapter

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
sys.path.insert(0, str(SCRIPTS))

import benchgen  # noqa: E402 - a script beside the package sources, not an installed module


def test_the_captured_session_moves_to_the_project_and_grows_by_a_turn(tmp_path: Path) -> None:
    adapter = OpenCodeAdapter()
    project = tmp_path / "weather-cli"
    project.mkdir()
    db = benchgen.write_opencode(tmp_path / "home", str(project))
    account = [Account(agent="opencode", name="bench", dir=str(db.parent))]
    refs = {r.session_id: r for r in adapter.discover(project, account)}
    ref = refs[benchgen.OPENCODE_SESSION]
    assert ref.cwd == str(project)
    cursor = adapter.read(ref)
    requests, todos = list(cursor.session.requests), list(cursor.session.todos)
    assert requests[-1] == "Run the slow build" and todos

    benchgen.append_opencode_turn(db, 1, 'Appended turn 1: run `make` with "quotes"')
    moved = next(iter(adapter.discover(project, account)))  # the newest now
    assert moved.session_id == benchgen.OPENCODE_SESSION and moved.mtime > ref.mtime
    after = adapter.read(moved, cursor).session  # incremental: the event log's seq moved on
    assert after.requests[-1] == 'Appended turn 1: run `make` with "quotes"'
    assert after.requests[:-1] == requests and after.todos == todos
    assert adapter.read(moved).session.requests == after.requests  # as a fresh read


def test_payloads_are_the_plugins_pointed_at_the_project() -> None:
    adapter = OpenCodeAdapter()
    idle = adapter.parse_hook(benchgen.opencode_payload(0, "/w/p"))
    assert (idle.session_id, idle.cwd) == (benchgen.OPENCODE_SESSION, "/w/p")
    tool = adapter.parse_hook(benchgen.opencode_payload(2, "/w/p", "ses_benchx"))
    assert tool.session_id == "ses_benchx" and tool.kind == "pre_tool"
    assert tool.tool_input["filePath"] == "/w/p/weather/units.py"


def test_bench_measures_opencode_hooks(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    data = Path(tempfile.mkdtemp(prefix="bs-"))
    try:
        proc = subprocess.run(
            [
                sys.executable,
                str(SCRIPTS / "bench.py"),
                "--smoke",
                "--agents",
                "opencode",
                "--only",
                "hooks",
                "--data",
                str(data),
                "--out",
                str(tmp_path / "b.md"),
                "--baker",
                str(bin_dir / "baker"),
                "--python",
                sys.executable,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        shutil.rmtree(data, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line for line in proc.stdout.splitlines() if "| opencode |" in line]
    for what in (
        "`baker pretool`, 1,000 traps",
        "`baker checkpoint`, first (no cursor yet)",
        "`baker pickup`",
        "`baker checkpoint` after one turn",
    ):
        (row,) = [r for r in rows if what in r]
        assert " s | " in row and "× |" in row, row  # measured, beside the bare interpreter
    assert not [r for r in rows if "wrong output" in r or "exit " in r], rows


@pytest.fixture(autouse=True)
def _no_real_opencode_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "no-data"))
