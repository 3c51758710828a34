"""`baker note`, `now`, `block` and `trap add/list/rm` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_core.schemas.session import Session, ToolCall
from tests.conftest import run_baker
from tests.helpers.invoke import Invoke
from tests.helpers.stub_adapter import SessionsAdapter


@pytest.fixture
def project(repo: Path) -> Path:
    assert run_baker("init", cwd=repo).returncode == 0
    return repo


def test_now_set_and_show_without_a_transcript(project: Path) -> None:
    assert run_baker("now", "Add", "the", "index", cwd=project).returncode == 0
    shown = run_baker("now", cwd=project)
    assert shown.returncode == 0
    assert shown.stdout.splitlines()[0] == "Add the index"
    assert "Execution was not checked" in shown.stdout
    data = json.loads(run_baker("now", "--json", cwd=project).stdout)
    assert data["now"] == "Add the index" and data["checked"] is False and not data["suspect"]


def test_now_flags_suspect_when_the_transcript_already_did_it(
    project: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    from continuity_core import adapters

    run_baker("now", "Run `alembic upgrade head`", cwd=project)
    ran = Session(
        agent="fake",
        session_id="s-9",
        cwd=str(project),
        tool_calls=[
            ToolCall(
                id="1",
                name="Bash",
                input={"command": "alembic upgrade head"},
                output="Running upgrade -> 42",
                timestamp="2999-01-01T00:00:00Z",
            )
        ],
    )
    monkeypatch.setattr(adapters, "load_all", lambda: ({"fake": SessionsAdapter([ran])}, {}))
    result = cli("now")
    assert "SUSPECT: fake session s-9 already ran Bash `alembic upgrade head`" in result.output

    monkeypatch.setattr(
        adapters,
        "load_all",
        lambda: (
            {"fake": SessionsAdapter([Session(agent="fake", session_id="s-1", cwd=str(project))])},
            {},
        ),
    )
    result = cli("now")
    assert "SUSPECT" not in result.output and "not done there yet" in result.output


def test_block_and_the_cap(project: Path) -> None:
    assert run_baker("block", "waiting", "on", "DBA", cwd=project).returncode == 0
    assert "- waiting on DBA (since" in (project / "memory" / "hot.md").read_text()
    note = project / "memory" / "hot.md"
    note.write_text(note.read_text() + "\n".join(f"- filler {i}" for i in range(100)) + "\n")
    before = note.read_bytes()
    refused = run_baker("block", "one more", cwd=project)
    assert refused.returncode == 1
    assert "120-line cap" in refused.stderr
    assert note.read_bytes() == before
    shown = run_baker("note", cwd=project)
    assert "over the 120-line cap" in shown.stderr


def test_note_json_reports_unknown_sections(project: Path) -> None:
    note = project / "memory" / "hot.md"
    note.write_text(note.read_text() + "# Scratch\nmine\n")
    data = json.loads(run_baker("note", "--json", cwd=project).stdout)
    assert data["unknown_sections"] == ["Scratch"]
    assert data["cap"] == 120 and "Goal" in data["sections"]


def test_trap_add_list_rm(project: Path) -> None:
    (project / "settings.py").write_text("DEBUG = False\n")
    added = run_baker("trap", "add", "settings.py", "DEBUG=True leaks stack traces", cwd=project)
    assert added.returncode == 0, added.stderr
    trap_id = added.stdout.split()[1]
    assert "watching 1 file(s)" in added.stdout
    run_baker(
        "trap", "add", "--command", "docker compose down -v*", "wipes the db volume", cwd=project
    )
    listed = run_baker("trap", "list", cwd=project).stdout
    assert f"{trap_id}  `settings.py` (path" in listed and "docker compose down" in listed
    (project / "settings.py").write_text("DEBUG = True\n")
    assert "needs re-check: settings.py changed" in run_baker("trap", "list", cwd=project).stdout
    data = json.loads(run_baker("trap", "list", "--json", cwd=project).stdout)
    assert data[0]["changed_files"] == ["settings.py"]
    assert run_baker("trap", "rm", trap_id, cwd=project).returncode == 0
    assert trap_id not in run_baker("trap", "list", cwd=project).stdout
    missing = run_baker("trap", "rm", "nope", cwd=project)
    assert missing.returncode == 1 and "no trap with id" in missing.stderr


def test_trap_outside_a_project(repo: Path) -> None:
    result = run_baker("trap", "list", cwd=repo)
    assert result.returncode == 1 and "baker init" in result.stderr


def file_claude_session(
    fixtures: Path, claude_dir: Path, project: Path, src: str, name: str
) -> None:
    import os

    from continuity_claude.discovery import project_slug

    text = (fixtures / "claude" / ".claude" / "projects" / src / name).read_text()
    text = text.replace(
        "/home/dev/src/" + src.removeprefix("-home-dev-src-"), os.path.realpath(project)
    )
    folder = claude_dir / "projects" / project_slug(os.path.realpath(project))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def set_note(project: Path, now: str, updated: str) -> None:
    from continuity_core import note as note_mod

    note = note_mod.read(project)
    assert note is not None
    note.sections["Now"] = now
    note.meta["updated"] = updated
    note_mod.write(project, note)


def test_now_suspect_against_a_real_claude_transcript(
    project: Path, fixtures: Path, tmp_path: Path
) -> None:
    pytest.importorskip("continuity_claude")
    claude_dir = tmp_path / "claude-config"
    env = {"CLAUDE_CONFIG_DIR": str(claude_dir)}
    file_claude_session(
        fixtures,
        claude_dir,
        project,
        "-home-dev-src-weather-cli",
        "48f0d34d-61b5-40aa-aac6-73b6722315eb.jsonl",
    )
    # Set before the session ran (the capture's clock): the session then did it.
    set_note(
        project,
        "Check `from weather.units import celsius_to_fahrenheit` works",
        "2026-11-30T00:00:00Z",
    )
    shown = run_baker("now", cwd=project, env=env).stdout
    assert "SUSPECT: claude session 48f0d34d-61b5-40aa-aac6-73b6722315eb already ran Bash" in shown
    # Set after it: the earlier run does not count against the new action.
    set_note(
        project,
        "Check `from weather.units import celsius_to_fahrenheit` works",
        "2026-11-30T23:00:00Z",
    )
    assert "SUSPECT" not in run_baker("now", cwd=project, env=env).stdout
    # Writing the file is doing it.
    set_note(project, "Create weather/units.py", "2026-11-30T00:00:00Z")
    shown = run_baker("now", "--json", cwd=project, env=env).stdout
    assert json.loads(shown)["suspect"] is True  # the Write call did create it


def test_now_reports_a_real_interrupted_call(project: Path, fixtures: Path, tmp_path: Path) -> None:
    pytest.importorskip("continuity_claude")
    claude_dir = tmp_path / "claude-config"
    file_claude_session(
        fixtures,
        claude_dir,
        project,
        "-home-dev-src-data-pipeline",
        "42f346a0-12c0-4151-9060-6bcb27b8e815.jsonl",
    )
    set_note(project, "Run ./scripts/integration.sh", "2026-11-30T23:00:00Z")
    shown = run_baker("now", cwd=project, env={"CLAUDE_CONFIG_DIR": str(claude_dir)}).stdout
    assert "started Bash `sleep 60 && ./scripts/integration.sh` and never got its result" in shown
    assert "SUSPECT" not in shown


def test_in_a_repository_never_set_up_every_note_command_refuses_alike(repo: Path) -> None:
    """`now` and `block` once created memory/hot.md without its .gitignore line (so `git add
    -A` committed the private note) where `note` and `trap add` refused: all refuse alike,
    and nothing is written."""
    before = sorted(p.relative_to(repo) for p in repo.rglob("*") if ".git" not in p.parts)
    commands = [
        ("now", "Run the migration"),
        ("now",),
        ("block", "deploy waits on the DBA"),
        ("note",),
        ("trap", "add", "scripts/deploy.sh", "needs a VPN"),
    ]
    for args in commands:
        result = run_baker(*args, cwd=repo)
        assert result.returncode == 1, args
        assert result.stderr == (
            f"Error: {repo} is not in a Continuity project: run `baker init` at the "
            "repository root first\n"
        ), args
    after = sorted(p.relative_to(repo) for p in repo.rglob("*") if ".git" not in p.parts)
    assert after == before
    assert run_baker("status", "--json", cwd=repo).returncode == 0  # read-only facts still work
