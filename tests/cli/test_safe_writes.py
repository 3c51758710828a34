"""Issue 19, case 6: writes never lose text and never crash. The note is edited under the store
lock keeping what it does not own; a read-only repository gives one line naming the path (hooks:
exit 0, logged), never a traceback; a dry run writes nothing anywhere; `--copy` without a
clipboard prints the brief; `init` refuses $HOME and ~/.baker and warns outside git."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from continuity_core.store import Store
from tests.cli.flows import claude_session, payload, read_only_run
from tests.conftest import BAKER, run_baker

NOTE = """---
updated: 2026-11-30T00:00:00Z
agent: claude
branch: main
---
Read ARCHITECTURE.md before touching the parser.

# Goal
Ship pagination.
<!-- keep the API stable -->

# Now
<!-- Exactly one next action. -->

## Decisions log
- 2026-11-29: offsets, not cursors
"""


@pytest.fixture
def project(repo: Path) -> Path:
    assert run_baker("init", cwd=repo).returncode == 0
    (repo / "memory" / "hot.md").write_text(NOTE)
    return repo


def test_now_keeps_what_it_does_not_own(project: Path) -> None:
    assert run_baker("now", "Add limit and offset", cwd=project).returncode == 0
    assert run_baker("block", "review by Ana", cwd=project).returncode == 0
    text = (project / "memory" / "hot.md").read_text()
    assert "Read ARCHITECTURE.md before touching the parser." in text
    assert "<!-- keep the API stable -->" in text
    assert "## Decisions log\n- 2026-11-29: offsets, not cursors" in text
    assert "# Now\nAdd limit and offset\n" in text and "- review by Ana (since " in text
    assert text.index("Read ARCHITECTURE") < text.index("# Goal")


def test_the_note_is_edited_under_the_store_lock(project: Path) -> None:
    with Store(project).lock():
        proc = subprocess.Popen(
            [BAKER, "now", "after the lock"],
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1.0)
        assert proc.poll() is None  # waiting for the lock
        assert "after the lock" not in (project / "memory" / "hot.md").read_text()
    assert proc.wait(timeout=30) == 0
    assert "# Now\nafter the lock\n" in (project / "memory" / "hot.md").read_text()


@pytest.mark.parametrize(
    ("args", "read_only", "path"),
    [
        (("now", "x"), "", ".baker/store.lock"),  # the whole repository
        (("now", "x"), "memory", "memory/hot.md"),
        (("block", "y"), "memory", "memory/hot.md"),
        (
            ("trap", "add", "src/db.py", "the migration locks the table"),
            ".baker",
            ".baker/store.lock",
        ),
    ],
)
def test_read_only_repository_is_one_line_naming_the_path(
    project: Path, args: tuple[str, ...], read_only: str, path: str
) -> None:
    before = (project / "memory" / "hot.md").read_text()
    result = read_only_run([project / read_only], *args, cwd=project)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"Error: cannot write {project / path}: "), line
    assert ".tmp" not in line  # the file meant, not the atomic writer's temp file
    assert (project / "memory" / "hot.md").read_text() == before


def test_read_only_repository_hooks_exit_0_and_still_warn(
    project: Path, isolated_home: Path
) -> None:
    transcript = claude_session(isolated_home, project)
    assert (
        run_baker(
            "trap", "add", "weather/units.py", "integer division lost the decimals", cwd=project
        ).returncode
        == 0
    )
    stop = payload("claude", "Stop.json", isolated_home, project, transcript_path=str(transcript))
    result = read_only_run([project], "checkpoint", "--agent", "claude", cwd=project, input=stop)
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert not list((project / ".baker" / "checkpoints").glob("*.json"))
    [logged] = (isolated_home / ".baker" / "log" / "events.jsonl").read_text().splitlines()
    assert json.loads(logged)["command"] == "checkpoint"
    assert json.loads(logged)["project"] == str(project)

    edit = payload("claude", "PreToolUse.Edit.json", isolated_home, project)
    result = read_only_run([project], "pretool", "--agent", "claude", cwd=project, input=edit)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "integer division lost the decimals" in result.stdout  # the trap still reaches it


def snapshot(*roots: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p): (p.stat().st_mtime_ns, p.stat().st_size)
        for root in roots
        for p in [root, *root.rglob("*")]
    }


def test_resume_dry_run_writes_nothing_anywhere(project: Path, isolated_home: Path) -> None:
    claude_session(isolated_home, project)
    before = snapshot(project, isolated_home)
    result = run_baker("resume", "codex", "--dry-run", cwd=project)
    assert result.returncode == 0, result.stderr
    assert "not written: dry run" in result.stdout and "Handoff brief" in result.stdout
    assert snapshot(project, isolated_home) == before
    as_json = json.loads(run_baker("resume", "codex", "--dry-run", "--json", cwd=project).stdout)
    assert as_json["brief_saved"] is False and not Path(as_json["brief"]).exists()
    assert snapshot(project, isolated_home) == before
    ro = read_only_run([project], "resume", "gemini", "--dry-run", cwd=project)
    assert ro.returncode == 0 and "Traceback" not in ro.stderr, ro.stderr


def test_copy_without_a_clipboard_prints_the_brief(project: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    git = subprocess.run(["which", "git"], capture_output=True, text=True).stdout.strip()
    (bin_dir / "git").symlink_to(git)
    env = {"PATH": str(bin_dir), "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    result = run_baker("handoff", "--copy", cwd=project, env=env)
    assert result.returncode == 0
    assert result.stdout.startswith("# Handoff brief")
    assert "No clipboard available" in result.stderr and "printed on stdout" in result.stderr


def test_init_refuses_home_and_the_user_store(isolated_home: Path, tmp_path: Path) -> None:
    result = run_baker("init", cwd=isolated_home)
    assert result.returncode == 1 and "your home folder" in result.stderr
    assert not (isolated_home / ".baker").exists()
    inside = isolated_home / ".baker" / "handoffs"
    inside.mkdir(parents=True)
    result = run_baker("init", cwd=inside)
    assert result.returncode == 1 and "per-user store" in result.stderr
    assert sorted(p.name for p in (isolated_home / ".baker").iterdir()) == ["handoffs"]
    plain = tmp_path / "not-git"
    plain.mkdir()
    result = run_baker("init", "--dry-run", cwd=plain)
    assert result.returncode == 0 and "not in a git repository" in result.stderr


def test_the_user_store_is_never_taken_for_a_project(isolated_home: Path) -> None:
    (isolated_home / ".baker").mkdir()
    folder = isolated_home / "notes"
    folder.mkdir()
    result = run_baker("trap", "add", "x.py", "why", cwd=folder)
    assert result.returncode == 1 and "not in a Continuity project" in result.stderr
    assert not (isolated_home / ".baker" / "traps.jsonl").exists()
    assert os.listdir(isolated_home / ".baker") == []
