"""The note's small writes (`now`, `block`) and the SUSPECT check of Now against a transcript."""

from __future__ import annotations

from pathlib import Path

import pytest

from continuity_core import note as note_mod
from continuity_core.errors import BakerError
from continuity_core.schemas.session import Session, ToolCall
from continuity_core.store import Store


@pytest.fixture(autouse=True)
def _set_up(repo: Path) -> None:
    """The note is written only in a project set up with `baker init`: its store is enough."""
    Store(repo).folder_path("log")


def test_set_now_supersedes_and_updates_front_matter(repo: Path) -> None:
    note_mod.set_now(repo, "Write the migration", agent="claude")
    note_mod.set_now(repo, "  Run   the\nmigration  ", agent="codex")
    note = note_mod.read(repo)
    assert note is not None
    assert note.get("Now") == "Run the migration"
    assert note.meta["agent"] == "codex"
    assert note.meta["branch"] == "main"
    assert note.meta["updated"].endswith("Z")
    assert "Write the migration" not in (repo / "memory" / "hot.md").read_text()


def test_block_appends_dated_items(repo: Path) -> None:
    note_mod.add_blocked(repo, "deploy waits on the DBA")
    note_mod.add_blocked(repo, "staging is down")
    note = note_mod.read(repo)
    assert note is not None
    blocked = note.get("Blocked").splitlines()
    assert blocked[0].startswith("- deploy waits on the DBA (since 20")
    assert blocked[1].startswith("- staging is down")


def test_over_the_cap_is_refused_and_nothing_is_lost(repo: Path) -> None:
    note = note_mod.parse(note_mod.template())
    note.sections["Done"] = "\n".join(f"- step {i}" for i in range(85))
    note_mod.write(repo, note)
    path = repo / "memory" / "hot.md"
    added = []
    with pytest.raises(note_mod.NoteTooLong, match="over the 120-line cap"):
        for i in range(20):
            note_mod.add_blocked(repo, f"blocker {i}")
            added.append(f"blocker {i}")
    text = path.read_text()
    assert text.count("\n") <= note_mod.CAP
    assert all(item in text for item in added)  # every accepted write is there, whole
    assert f"blocker {len(added)}" not in text  # the refused one was not half-written
    assert "- step 84" in text


def test_unknown_sections_survive_a_write(repo: Path) -> None:
    path = repo / "memory" / "hot.md"
    path.parent.mkdir()
    path.write_text("---\nupdated: x\n---\n# Goal\nShip it\n# Scratch\nmy own notes\n")
    note_mod.set_now(repo, "Ship it")
    text = path.read_text()
    assert "# Scratch\nmy own notes" in text and "Ship it" in text


def test_empty_actions_are_refused(repo: Path) -> None:
    with pytest.raises(BakerError):
        note_mod.set_now(repo, "   ")
    with pytest.raises(BakerError):
        note_mod.add_blocked(repo, "")


def session(*calls: ToolCall) -> Session:
    return Session(agent="fake", session_id="s", tool_calls=list(calls))


@pytest.mark.parametrize(
    ("now", "command", "suspect"),
    [
        ("Run `./scripts/integration.sh`", "sleep 1 && ./scripts/integration.sh", True),
        ("Run ./scripts/integration.sh and fix what fails", "./scripts/integration.sh", True),
        ("Run `pytest -x tests/api`", "pytest -x tests/api", True),
        ("Run `pytest -x tests/api`", "pytest tests/db", False),
        ("Think about the design", "ls", False),
    ],
)
def test_executed_matches_the_action(now: str, command: str, suspect: bool) -> None:
    call = ToolCall(
        id="1",
        name="Bash",
        input={"command": command},
        output="ok",
        timestamp="2026-11-30T05:00:00Z",
    )
    assert (note_mod.executed(now, session(call)) is call) is suspect


def test_executed_ignores_unfinished_failed_and_older_calls() -> None:
    now = "Run `make release`"
    pending = ToolCall(id="1", name="Bash", input={"command": "make release"})
    failed = ToolCall(
        id="2", name="Bash", input={"command": "make release"}, output="boom", is_error=True
    )
    old = ToolCall(
        id="3",
        name="Bash",
        input={"command": "make release"},
        output="ok",
        timestamp="2026-11-30T04:00:00Z",
    )
    assert note_mod.executed(now, session(pending, failed)) is None
    assert note_mod.executed(now, session(old), since="2026-11-30T04:30:00Z") is None
    assert note_mod.executed(now, session(old), since="2026-11-30T03:30:00Z") is old


def test_executed_sees_file_edits() -> None:
    edit = ToolCall(id="1", name="Edit", input={"file_path": "/p/src/db/schema.sql"}, output="ok")
    assert note_mod.executed("Edit src/db/schema.sql to add the index", session(edit)) is edit


def test_a_todo_list_mentioning_the_action_is_not_doing_it() -> None:
    todo = ToolCall(
        id="1",
        name="TodoWrite",
        output="ok",
        input={"todos": [{"content": "Run ./scripts/integration.sh", "status": "in_progress"}]},
    )
    assert note_mod.executed("Run ./scripts/integration.sh", session(todo)) is None


def test_started_finds_the_call_that_never_returned() -> None:
    pending = ToolCall(
        id="1",
        name="Bash",
        input={"command": "sleep 60 && ./scripts/integration.sh"},
        timestamp="2000-01-01T00:00:00Z",
    )
    assert (
        note_mod.executed("Run ./scripts/integration.sh", session(pending), finished=False)
        is pending
    )
    assert note_mod.executed("Run ./scripts/integration.sh", session(pending)) is None
