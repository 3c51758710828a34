"""`baker pickup`: facts, the note and a structured summary of the interrupted session only."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from continuity_core import hooks, pickup
from continuity_core import note as note_mod
from continuity_core.adapters import registry
from continuity_core.schemas.session import (
    ApiError,
    FileEdit,
    Message,
    Session,
    SessionRef,
    TodoItem,
    ToolCall,
)
from tests.helpers.stub_adapter import SessionsAdapter

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
RAW_TAIL = "TAIL-ONLY: the agent said it would now delete the staging database"


def interrupted_session(cwd: Path, session_id: str = "prev-1") -> Session:
    return Session(
        agent="fake",
        session_id=session_id,
        cwd=str(cwd),
        updated_at="2026-11-30T04:00:00Z",
        requests=["Run the integration suite with ./scripts/integration.sh and fix failures."],
        messages=[Message(role="assistant", text=RAW_TAIL)],
        todos=[
            TodoItem(content="Run ./scripts/integration.sh", status="in_progress"),
            TodoItem(content="Fix the failing tests", status="pending"),
        ],
        tool_calls=[
            ToolCall(id="t1", name="Read", input={"file_path": "a.py"}, output="..."),
            ToolCall(
                id="t2",
                name="Bash",
                input={"command": f"GITHUB_TOKEN={TOKEN} sleep 60 && ./scripts/integration.sh"},
            ),
        ],
        files_edited=[FileEdit(path="tests/test_api.py")],
        errors=[
            ApiError(
                kind="rate_limit",
                status=429,
                message="rate limited",
                reset_at="2026-11-30T05:00:00Z",
            )
        ],
    )


@pytest.fixture
def project(repo: Path) -> Path:
    (repo / ".baker").mkdir(mode=0o700)
    note = note_mod.parse(note_mod.template())
    note.sections["Goal"] = "Ship the pagination API."
    note.sections["Now"] = "Run `./scripts/integration.sh`"
    note_mod.write(repo, note)
    return repo


def test_structured_summary_never_the_raw_tail(project: Path) -> None:
    fake = SessionsAdapter([interrupted_session(project)])
    text = pickup.build(project, {"fake": fake})
    assert "# Continuity pickup" in text
    assert "- branch: main" in text  # environment facts
    assert "Ship the pagination API." in text  # the note
    assert "session: fake prev-1" in text
    assert "interrupted: a tool call never returned a result" in text
    assert "todo in progress: Run ./scripts/integration.sh" in text
    assert "tool call with no result: Bash" in text and "sleep 60" in text
    assert "ended with error: rate_limit 429, resets at 2026-11-30T05:00:00Z" in text
    assert "was working on (the user's last request): Run the integration suite" in text
    assert "`tests/test_api.py`" in text
    assert RAW_TAIL not in text
    assert TOKEN not in text


def test_current_session_is_excluded(project: Path) -> None:
    current = Session(agent="fake", session_id="now-1", cwd=str(project))
    fake = SessionsAdapter([current, interrupted_session(project)])
    assert "session: fake prev-1" in pickup.build(project, {"fake": fake}, exclude="now-1")
    # Not excluded, the newer empty session did no work: it is named, never taken for the work.
    text = pickup.build(project, {"fake": fake})
    assert "session: fake prev-1" in text
    assert "in fake (~/.fake, session now-1) failed: nothing was asked" in text


def test_a_clean_previous_session_is_one_line(project: Path) -> None:
    done = Session(
        agent="fake",
        session_id="ok-1",
        cwd=str(project),
        requests=["Add a test."],
        tool_calls=[ToolCall(id="t", name="Bash", input={"command": "pytest"}, output="1 passed")],
    )
    text = pickup.build(project, {"fake": SessionsAdapter([done])})
    assert "it ended normally" in text and "tool call with no result" not in text


def test_sessions_of_other_projects_never_count(project: Path, tmp_path: Path) -> None:
    elsewhere = interrupted_session(tmp_path / "other-project")
    no_cwd = Session(
        agent="fake",
        session_id="unknown",
        cwd=None,
        tool_calls=[ToolCall(id="x", name="Bash", input={"command": "rm -rf build"})],
    )
    for sessions in ([elsewhere], [no_cwd], []):
        text = pickup.build(project, {"fake": SessionsAdapter(sessions)})
        assert "Execution was not checked" in text
        assert "sleep 60" not in text and "rm -rf" not in text
    assert "Execution was not checked" in pickup.build(project, {})


def test_a_session_in_a_subfolder_counts(project: Path) -> None:
    (project / "docs").mkdir()
    text = pickup.build(project, {"fake": SessionsAdapter([interrupted_session(project / "docs")])})
    assert "session: fake prev-1" in text


def test_slow_transcript_read_stays_within_the_latency_ceiling(project: Path) -> None:
    fake = SessionsAdapter([interrupted_session(project)], delay=5)
    start = time.monotonic()
    text = pickup.build(project, {"fake": fake}, read_limit_s=0.5)
    assert time.monotonic() - start < 3
    assert "was not read within the time limit" in text


def test_a_checkpoint_stands_in_when_the_transcript_is_slow(project: Path) -> None:
    from continuity_core.schemas.checkpoint import Checkpoint
    from continuity_core.stamps import new_id
    from continuity_core.store import Store

    store = Store(project)
    store.write_checkpoint(
        Checkpoint(id=new_id(), created_at="t", session=interrupted_session(project))
    )
    fake = SessionsAdapter([interrupted_session(project)], delay=5)
    text = pickup.build(project, {"fake": fake}, store=store, read_limit_s=0.3)
    assert "(from its checkpoint " in text and "tool call with no result: Bash" in text


def test_redacted_then_capped(project: Path) -> None:
    note = note_mod.read(project)
    assert note is not None
    note.sections["Done"] = "\n".join(f"- step {i}: pushed with token {TOKEN}" for i in range(90))
    note_mod.write(project, note)
    (project / ".baker" / "probes.json").write_text(
        json.dumps({"probes": [{"name": "leak", "command": f"echo {TOKEN}"}]})
    )
    text = pickup.build(
        project, {"fake": SessionsAdapter([interrupted_session(project)])}, cap=3000
    )
    assert len(text) <= 3000
    assert TOKEN not in text and "ghp_" not in text
    assert "cut to" in text
    assert "interrupted:" in text  # the bounded sections survive the note's cut


def test_pickup_hook_plain_and_with_an_adapter(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = SessionsAdapter([interrupted_session(project, "now-1"), interrupted_session(project)])
    monkeypatch.setattr(registry, "load_all", lambda: ({"fake": fake}, {}))
    payload = json.dumps({"session_id": "now-1", "cwd": str(project), "source": "startup"})
    text = hooks.pickup(None, payload.encode(), [])
    assert "session: fake prev-1" in text

    def parse(agent: str | None, p: bytes, a: list[str]) -> tuple[Any, Any]:
        return fake, hooks.plain_event(p, "session_start")

    # a pickup parses with the agent's hook module (`parse_light`); outside a project, with
    # the adapter (`parse_event`)
    monkeypatch.setattr(hooks, "parse_light", parse)
    monkeypatch.setattr(hooks, "parse_event", parse)
    out = hooks.pickup("fake", payload.encode(), [])
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "session: fake prev-1" in context
    garbage = hooks.pickup("fake", b"\x00garbage", [])
    assert garbage == ""


def test_pickup_outside_a_project_says_nothing(repo: Path) -> None:
    assert hooks.pickup(None, b"{}", []) == ""


def test_sessions_with_the_same_time_keep_discovery_order(project: Path) -> None:
    from continuity_core.schemas.config import GlobalConfig
    from continuity_core.sessions import find

    class SameTime(SessionsAdapter):
        def discover(
            self, project: str | os.PathLike[str], accounts: object
        ) -> Iterator[SessionRef]:
            for s in self.sessions:
                yield SessionRef(
                    agent="fake",
                    account="~/.fake",
                    session_id=s.session_id,
                    path=f"/nonexistent/{s.session_id}.jsonl",
                    mtime=5.0,
                    cwd=s.cwd,
                )

    fake = SameTime([interrupted_session(project, "a"), interrupted_session(project, "b")])
    found = find(project, {"fake": fake}, GlobalConfig())
    assert [c.ref.session_id for c in found.candidates] == ["a", "b"]
