"""`baker resume claude`: the brief as the first turn, another account, a native continuation."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from continuity_claude import ClaudeAdapter
from continuity_claude.discovery import project_slug
from continuity_core.adapters import INLINE_PROMPT_MAX, Account, LaunchOptions
from continuity_core.schemas.session import SessionRef


def test_small_brief_goes_inline(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text("# Brief\n\nContinue the parser work.\n")
    spec = adapter.launch(tmp_path, brief, LaunchOptions())
    assert spec.argv == ["claude", "# Brief\n\nContinue the parser work.\n"]
    assert spec.cwd == str(tmp_path) and spec.env == {}


def test_large_brief_is_read_from_its_file(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text("y" * INLINE_PROMPT_MAX)
    spec = adapter.launch(tmp_path, brief, LaunchOptions())
    assert len(spec.argv) == 2 and str(brief) in spec.argv[1]
    assert "whole" in spec.argv[1] and len(spec.argv[1]) < 1000


def test_a_brief_outside_the_project_is_readable_without_a_prompt(
    adapter: ClaudeAdapter, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    brief = tmp_path / "home" / ".baker" / "handoffs" / "brief.md"
    brief.parent.mkdir(parents=True)
    brief.write_text("y" * INLINE_PROMPT_MAX)
    spec = adapter.launch(project, brief, LaunchOptions())
    # --add-dir swallows every argument after it, so it must come after the prompt.
    assert spec.argv[0] == "claude" and str(brief) in spec.argv[1]
    assert spec.argv[2:] == ["--add-dir", str(brief.parent)]


def test_other_account_gets_its_config_dir(adapter: ClaudeAdapter, tmp_path: Path,
                                           isolated_home: Path) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text("go on")
    work = Account(agent="claude", name="work", dir=str(tmp_path / ".claude-work"))
    assert adapter.launch(tmp_path, brief, LaunchOptions(account=work)).env == {
        "CLAUDE_CONFIG_DIR": str(tmp_path / ".claude-work")}
    # the default dir stays implicit: setting it would move Claude's login state
    default = Account(agent="claude", name="~/.claude", dir=str(isolated_home / ".claude"))
    assert adapter.launch(tmp_path, brief, LaunchOptions(account=default)).env == {}


def test_native_resume_under_another_account(adapter: ClaudeAdapter, account: Account,
                                             claude_dir: Path, tmp_path: Path) -> None:
    project = tmp_path / "utils-lib"
    project.mkdir()
    sid = "1eaad959-5ccb-4d3c-9780-4543a308bad6"
    source = claude_dir / "projects" / "-home-dev-src-utils-lib" / f"{sid}.jsonl"
    ref = SessionRef(agent="claude", account=account.name, session_id=sid, path=str(source),
                     mtime=0, cwd="/home/dev/src/utils-lib")  # recorded cwd is gone here
    target = Account(agent="claude", name="work", dir=str(tmp_path / ".claude-work"))
    brief = tmp_path / "brief.md"
    brief.write_text("unused")
    dry = adapter.launch(project, brief, LaunchOptions(account=target, native=ref,
                                                       extra={"dry_run": True}))
    assert dry.notes[0].startswith("would copy") and not Path(target.dir).exists()
    spec = adapter.launch(project, brief, LaunchOptions(account=target, native=ref))
    assert spec.argv == ["claude", "--resume", sid]
    assert spec.env == {"CLAUDE_CONFIG_DIR": target.dir} and spec.cwd == str(project)
    folder = Path(target.dir) / "projects" / project_slug(str(project.resolve()))
    copy = folder / f"{sid}.jsonl"
    assert copy.read_bytes() == source.read_bytes()
    assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    agents = sorted(p.name for p in (folder / sid / "subagents").iterdir())
    assert agents == ["agent-a08309a9a72495f50.jsonl", "agent-a08309a9a72495f50.meta.json"]
    assert spec.notes and target.dir in spec.notes[0]
    again = adapter.launch(project, brief, LaunchOptions(account=target, native=ref))
    assert again.notes == []  # nothing left to copy


def test_native_resume_carries_task_state(adapter: ClaudeAdapter, account: Account,
                                          claude_dir: Path, tmp_path: Path) -> None:
    sid = "33a02ecd-55d9-4fb9-9e95-0437adbb6f17"
    source = claude_dir / "projects" / "-home-dev-src-notes-app" / f"{sid}.jsonl"
    ref = SessionRef(agent="claude", account=account.name, session_id=sid, path=str(source),
                     mtime=0)
    target = Account(agent="claude", name="work", dir=str(tmp_path / "w"))
    brief = tmp_path / "b.md"
    brief.write_text("x")
    adapter.launch(tmp_path, brief, LaunchOptions(account=target, native=ref))
    assert sorted(p.name for p in (tmp_path / "w" / "tasks" / sid).iterdir()) == [
        ".lock", "1.json", "2.json", "3.json"]


def test_cli_version(adapter: ClaudeAdapter, tmp_path: Path,
                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert adapter.cli_version() is None
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\necho '2.1.197 (Claude Code)'\n")
    fake.chmod(0o755)
    assert adapter.cli_version() == "2.1.197"
    assert os.environ["PATH"] == str(tmp_path)
