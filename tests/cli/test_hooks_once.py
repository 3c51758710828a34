"""Project and user-level hooks both installed: each event runs once (issue 22, item 3).

The agent calls the same command twice with the same payload, once per settings level; the
real `baker` hook commands run here as separate processes, as the agent runs them.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from continuity_core import hookonce
from tests.conftest import BAKER, run_baker


def real_payload(fixtures: Path, name: str, root: Path, **changes: str) -> bytes:
    data = json.loads((fixtures / "claude" / "hook_payloads" / name).read_text())
    data["cwd"] = str(root)
    data.update(changes)
    return json.dumps(data, indent=2).encode()


@pytest.fixture
def project(repo: Path) -> Path:
    assert run_baker("init", cwd=repo).returncode == 0
    return repo


def checkpoints(root: Path) -> list[Path]:
    return sorted((root / ".baker" / "checkpoints").glob("2*.json"))


def seen(home: Path) -> list[str]:
    folder = home / ".baker" / "cache" / "hooks-seen"
    return sorted(os.listdir(folder)) if folder.is_dir() else []


def test_a_duplicate_checkpoint_does_nothing(
    project: Path, fixtures: Path, isolated_home: Path
) -> None:
    pytest.importorskip("continuity_claude")
    stop = real_payload(fixtures, "Stop.json", project)
    for _ in range(2):
        done = run_baker("checkpoint", "--agent", "claude", cwd=project, input=stop)
        assert done.returncode == 0 and done.stdout == "" and done.stderr == ""
    assert len(checkpoints(project)) == 1
    assert len(seen(isolated_home)) == 1

    # The next turn (another prompt_id) and the agent-less form are other events: both run.
    later = real_payload(fixtures, "Stop.json", project, prompt_id="next-turn")
    assert run_baker("checkpoint", "--agent", "claude", cwd=project, input=later).returncode == 0
    assert len(checkpoints(project)) == 2
    plain = run_baker("checkpoint", cwd=project, input=stop)
    assert plain.returncode == 0 and plain.stdout.startswith("checkpoint ")
    assert len(checkpoints(project)) == 3


def test_a_duplicate_pickup_prints_nothing(project: Path, fixtures: Path) -> None:
    pytest.importorskip("continuity_claude")
    start = real_payload(fixtures, "SessionStart.json", project)
    first = run_baker("pickup", "--agent", "claude", cwd=project, input=start)
    second = run_baker("pickup", "--agent", "claude", cwd=project, input=start)
    assert first.returncode == second.returncode == 0
    assert json.loads(first.stdout)["hookSpecificOutput"]["additionalContext"]
    assert second.stdout == "" and second.stderr == ""

    other = real_payload(fixtures, "SessionStart.json", project, session_id="another-session")
    assert run_baker("pickup", "--agent", "claude", cwd=project, input=other).stdout


def test_concurrent_duplicates_run_once(project: Path, fixtures: Path) -> None:
    """Claude runs the matching hooks of both levels in parallel: one of them wins."""
    pytest.importorskip("continuity_claude")
    stop = real_payload(fixtures, "Stop.json", project)
    procs = [
        subprocess.Popen(
            [BAKER, "checkpoint", "--agent", "claude"],
            cwd=project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(4)
    ]
    for proc in procs:
        out, err = proc.communicate(stop, timeout=60)
        assert proc.returncode == 0 and out == b"" and err == b""
    assert len(checkpoints(project)) == 1


def test_a_person_and_an_old_marker_always_run(
    project: Path, fixtures: Path, isolated_home: Path
) -> None:
    pytest.importorskip("continuity_claude")
    for _ in range(2):  # no input: a person's `baker checkpoint`, never deduplicated
        assert run_baker("checkpoint", cwd=project).stdout.startswith("checkpoint ")
    assert len(checkpoints(project)) == 2 and seen(isolated_home) == []

    stop = real_payload(fixtures, "Stop.json", project)
    assert run_baker("checkpoint", "--agent", "claude", cwd=project, input=stop).returncode == 0
    [name] = seen(isolated_home)
    marker = isolated_home / ".baker" / "cache" / "hooks-seen" / name
    old = time.time() - hookonce.WINDOW_S - 1
    os.utime(marker, (old, old))  # the same bytes much later are a new event
    assert run_baker("checkpoint", "--agent", "claude", cwd=project, input=stop).returncode == 0
    assert len(checkpoints(project)) == 4


def test_first_call_in_process(isolated_home: Path) -> None:
    payload = b'{"session_id": "s", "prompt_id": "p"}'
    assert hookonce.first_call("pretool", "claude", payload, [])
    assert not hookonce.first_call("pretool", "claude", payload, [])
    assert hookonce.first_call("pretool", "gemini", payload, [])  # another agent
    assert hookonce.first_call("checkpoint", "claude", payload, [])  # another event
    assert hookonce.first_call("checkpoint", None, b"", ['{"turn-id": "1"}'])  # Codex notify
    assert not hookonce.first_call("checkpoint", None, b"", ['{"turn-id": "1"}'])
    assert hookonce.first_call("checkpoint", None, b"", ['{"turn-id": "2"}'])
    folder = isolated_home / ".baker" / "cache" / "hooks-seen"
    assert oct(folder.stat().st_mode & 0o777) == "0o700"

    old = time.time() - hookonce.SWEEP_AGE_S - 1
    for name in os.listdir(folder):
        os.utime(folder / name, (old, old))
    from continuity_core import trust

    trust.sweep(folder, hookonce.SWEEP_AGE_S)
    assert os.listdir(folder) == []


def test_an_unusable_home_never_blocks(isolated_home: Path) -> None:
    home = isolated_home / ".baker"
    home.parent.mkdir(parents=True, exist_ok=True)
    home.symlink_to(isolated_home / "elsewhere")  # refused by the trust check: run anyway
    assert hookonce.first_call("pickup", "claude", b"{}", [])
    assert hookonce.first_call("pickup", "claude", b"{}", [])


def test_every_tool_call_has_its_own_marker(fixtures: Path, tmp_path: Path) -> None:
    """Markers are `fs.checksum`s (CRC-32, Adler-32, length), not digests: what keeps two events
    apart is the id the agent gives each call, which the model does not pick. One call per id
    over a long session: no two share a marker, and the same bytes always do."""
    names = {
        hookonce.marker_name(
            "pretool",
            "claude",
            real_payload(fixtures, "PreToolUse.json", tmp_path, tool_use_id=f"toolu_{i:024x}"),
            [],
        )
        for i in range(5000)
    }
    assert len(names) == 5000
    again = real_payload(fixtures, "PreToolUse.json", tmp_path, tool_use_id=f"toolu_{7:024x}")
    assert hookonce.marker_name("pretool", "claude", again, []) in names
