"""`baker resume claude`: the brief as the first turn, another account, a native continuation."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from continuity_claude import ClaudeAdapter
from continuity_claude.discovery import project_slug
from continuity_core.adapters import Account, LaunchOptions
from continuity_core.adapters.kit import INLINE_PROMPT_MAX
from continuity_core.brief import render
from continuity_core.schemas.session import SessionRef
from tests.helpers.invoke import Invoke
from tests.helpers.samples import brief_of


def test_small_brief_goes_inline(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    small = brief_of("Continue the parser work.")
    spec = adapter.launch(tmp_path, tmp_path / "brief.md", LaunchOptions(brief=small))
    assert spec.argv == ["claude", render(small)]
    assert spec.cwd == str(tmp_path) and spec.env == {}
    assert spec.notes == ["the brief is the first prompt"]  # as every adapter says it


def test_large_brief_is_read_from_its_file(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    brief = tmp_path / "brief.md"
    spec = adapter.launch(tmp_path, brief, LaunchOptions(brief=brief_of("y" * INLINE_PROMPT_MAX)))
    assert len(spec.argv) == 2 and str(brief) in spec.argv[1]
    assert "whole" in spec.argv[1] and len(spec.argv[1]) < INLINE_PROMPT_MAX
    assert spec.notes == [
        "the brief's essentials are the first prompt; Claude Code is told to read the rest "
        f"in {brief}"
    ]


def test_a_brief_outside_the_project_is_readable_without_a_prompt(
    adapter: ClaudeAdapter, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    brief = tmp_path / "home" / ".baker" / "handoffs" / "brief.md"
    brief.parent.mkdir(parents=True)
    spec = adapter.launch(project, brief, LaunchOptions(brief=brief_of("y" * INLINE_PROMPT_MAX)))
    # --add-dir swallows every argument after it, so it must come after the prompt.
    assert spec.argv[0] == "claude" and str(brief) in spec.argv[1]
    assert spec.argv[2:] == ["--add-dir", str(brief.parent)]


def test_other_account_gets_its_config_dir(
    adapter: ClaudeAdapter, tmp_path: Path, isolated_home: Path
) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text("go on")
    work = Account(agent="claude", name="work", dir=str(tmp_path / ".claude-work"))
    assert adapter.launch(tmp_path, brief, LaunchOptions(account=work)).env == {
        "CLAUDE_CONFIG_DIR": str(tmp_path / ".claude-work")
    }
    # the default dir stays implicit: setting it would move Claude's login state
    default = Account(agent="claude", name="~/.claude", dir=str(isolated_home / ".claude"))
    assert adapter.launch(tmp_path, brief, LaunchOptions(account=default)).env == {}


def test_native_resume_under_another_account(
    adapter: ClaudeAdapter, account: Account, claude_dir: Path, tmp_path: Path
) -> None:
    project = tmp_path / "utils-lib"
    project.mkdir()
    sid = "1eaad959-5ccb-4d3c-9780-4543a308bad6"
    source = claude_dir / "projects" / "-home-dev-src-utils-lib" / f"{sid}.jsonl"
    ref = SessionRef(
        agent="claude",
        account=account.name,
        session_id=sid,
        path=str(source),
        mtime=0,
        cwd="/home/dev/src/utils-lib",
    )  # recorded cwd is gone here
    target = Account(agent="claude", name="work", dir=str(tmp_path / ".claude-work"))
    brief = tmp_path / "brief.md"
    brief.write_text("unused")
    dry = adapter.launch(project, brief, LaunchOptions(account=target, native=ref, dry_run=True))
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


def test_native_resume_carries_task_state(
    adapter: ClaudeAdapter, account: Account, claude_dir: Path, tmp_path: Path
) -> None:
    sid = "33a02ecd-55d9-4fb9-9e95-0437adbb6f17"
    source = claude_dir / "projects" / "-home-dev-src-notes-app" / f"{sid}.jsonl"
    ref = SessionRef(
        agent="claude", account=account.name, session_id=sid, path=str(source), mtime=0
    )
    target = Account(agent="claude", name="work", dir=str(tmp_path / "w"))
    brief = tmp_path / "b.md"
    brief.write_text("x")
    adapter.launch(tmp_path, brief, LaunchOptions(account=target, native=ref))
    assert sorted(p.name for p in (tmp_path / "w" / "tasks" / sid).iterdir()) == [
        ".lock",
        "1.json",
        "2.json",
        "3.json",
    ]


def test_cli_version(
    adapter: ClaudeAdapter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert adapter.cli_version() is None
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\necho '2.1.197 (Claude Code)'\n")
    fake.chmod(0o755)
    assert adapter.cli_version() == "2.1.197"
    assert os.environ["PATH"] == str(tmp_path)


# --- --native never loses a session (issue 17 §4) ---------------------------------------------

S2 = "44ae8173-9864-40e7-9ac5-2e1fa6656166"  # three prompts across a resume


def _native_setup(
    claude_dir: Path, tmp_path: Path, source_lines: slice, target_lines: slice
) -> tuple[Path, Path, SessionRef, Account, Path]:
    """The captured S2 session moved to a project: the source account holds `source_lines` of
    it, the target account (`~/.claude-work`) `target_lines`."""
    project = tmp_path / "user-service"
    project.mkdir()
    slug = project_slug(str(project.resolve()))
    full = (claude_dir / "projects" / "-home-dev-src-user-service" / f"{S2}.jsonl").read_bytes()
    full = full.replace(b"/home/dev/src/user-service", str(project).encode())
    lines = full.splitlines(keepends=True)
    source = claude_dir / "projects" / slug / f"{S2}.jsonl"
    source.parent.mkdir(parents=True)
    source.write_bytes(b"".join(lines[source_lines]))
    work = tmp_path / ".claude-work"
    target = work / "projects" / slug / f"{S2}.jsonl"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"".join(lines[target_lines]))
    ref = SessionRef(
        agent="claude",
        account="~/.claude",
        session_id=S2,
        path=str(source),
        mtime=0,
        cwd=str(project),
    )
    return project, source, ref, Account(agent="claude", name="work", dir=str(work)), target


def test_native_refuses_to_replace_turns_found_only_in_the_target(
    adapter: ClaudeAdapter, claude_dir: Path, tmp_path: Path
) -> None:
    from continuity_core.errors import BakerError

    project, source, ref, work, target = _native_setup(
        claude_dir, tmp_path, slice(0, 12), slice(None)
    )
    before = target.read_bytes()
    brief = tmp_path / "brief.md"
    brief.write_text("unused")
    dry = adapter.launch(project, brief, LaunchOptions(account=work, native=ref, dry_run=True))
    assert (
        f"would refuse (the target's copy differs; --force to replace it): {source}" in dry.notes[0]
    )
    refusal = dry.notes[-1]
    assert "refusing to overwrite session" in refusal and "--force" in refusal
    assert "source (~/.claude): 1 request(s), last at 2026-11-30T" in refusal
    assert "target (work): 3 request(s), last at 2026-11-30T" in refusal
    assert "--from-account work --account work" in refusal
    with pytest.raises(BakerError, match="refusing to overwrite session"):
        adapter.launch(project, brief, LaunchOptions(account=work, native=ref))
    assert target.read_bytes() == before and list(target.parent.iterdir()) == [target]
    forced = adapter.launch(project, brief, LaunchOptions(account=work, native=ref, force=True))
    assert target.read_bytes() == source.read_bytes()
    [backup] = [p for p in target.parent.iterdir() if p != target]
    assert backup.name.startswith(f"{S2}.jsonl.baker-backup-") and backup.read_bytes() == before
    assert any(str(backup) in note for note in forced.notes)


def test_native_overwrites_a_copy_the_source_only_extends(
    adapter: ClaudeAdapter, claude_dir: Path, tmp_path: Path
) -> None:
    project, source, ref, work, target = _native_setup(
        claude_dir, tmp_path, slice(None), slice(0, 12)
    )
    brief = tmp_path / "brief.md"
    brief.write_text("unused")
    dry = adapter.launch(project, brief, LaunchOptions(account=work, native=ref, dry_run=True))
    assert dry.notes[0] == f"would overwrite (the source extends it): {source} -> {target}"
    adapter.launch(project, brief, LaunchOptions(account=work, native=ref))
    assert target.read_bytes() == source.read_bytes()
    assert list(target.parent.iterdir()) == [target]  # nothing to keep: no backup


def test_resume_native_refusal_exits_1_with_both_sides(
    claude_dir: Path, tmp_path: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, _, _, work, target = _native_setup(claude_dir, tmp_path, slice(0, 12), slice(None))
    monkeypatch.chdir(project)
    result = cli("resume", "claude", "--account", work.dir, "--native")
    assert result.exit_code == 1
    assert "source (~/.claude): 1 request(s)" in result.output
    assert "target (" in result.output and "3 request(s)" in result.output
    assert len(list(target.parent.iterdir())) == 1
