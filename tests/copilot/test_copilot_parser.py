"""Copilot session folders into sessions: every captured session's ground truth, incremental
reads, the todo database, events the adapter does not know, and bad lines."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from continuity_copilot import CopilotAdapter, discovery
from continuity_core.adapters import Account
from continuity_core.limits import turn_ended_on_limit
from continuity_core.schemas.session import Session, SessionRef
from tests.copilot.helpers import COPILOT, GREETER, HOOKED, KILLED, TRUTH, home_copy

ADAPTER = CopilotAdapter()


def ref_of(home: Path, session_id: str) -> SessionRef:
    found = discovery.by_id(session_id, [Account(agent="copilot", name="t", dir=str(home))])
    assert found is not None
    return found


def event(kind: str, data: dict[str, Any], ts: str = "2026-12-05T09:00:00.000Z") -> str:
    return json.dumps({"type": kind, "data": data, "id": "x", "timestamp": ts, "parentId": None})


@pytest.mark.parametrize("session_id", sorted(TRUTH))
def test_every_captured_session_reads_its_ground_truth(tmp_path: Path, session_id: str) -> None:
    truth = TRUTH[session_id]
    home = home_copy(tmp_path)
    session: Session = ADAPTER.read(ref_of(home, session_id)).session
    assert session.agent == "copilot" and session.session_id == session_id
    assert session.cwd == truth["cwd"] and session.git_branch == truth["branch"]
    assert session.model == truth["model"]
    assert session.requests == truth["requests"]
    assert [(t.content, t.status) for t in session.todos] == [tuple(t) for t in truth["todos"]]
    assert [(f.path, f.action) for f in session.files_edited] == [
        tuple(f) for f in truth["files_edited"]
    ]
    pending = [(c.name, c.input.get("command")) for c in session.pending_calls]
    assert pending == [tuple(c) for c in truth["interrupted_tool_calls"]]
    assert session.model_tokens == truth["tokens"]
    assert [(c.command, c.exit_code, c.error) for c in session.commands] == [
        tuple(c) for c in truth["commands"]
    ]
    assert [(s.task, s.result) for s in session.subagents] == [tuple(s) for s in truth["subagents"]]
    if truth["error"]:
        err = session.last_error
        assert err is not None and err.kind == truth["error"]["kind"]
        assert err.status == truth["error"]["status"]
        assert turn_ended_on_limit(session) is err  # what `baker run` switches on
    else:
        assert session.errors == []
    assert session.bad_lines == 0 and session.unknown_records == {}


def test_a_run_ended_mid_retry_ended_on_the_limit_its_hook_call_logged(tmp_path: Path) -> None:
    # `baker run` ends Copilot as soon as the errorOccurred hook records the limit: the log
    # then stops after the hook calls, before Copilot's own session.error.
    home = home_copy(tmp_path)
    ref = ref_of(home, HOOKED)
    lines = Path(ref.path).read_bytes().splitlines(keepends=True)
    last_hook = max(i for i, ln in enumerate(lines) if b'"hookType":"errorOccurred"' in ln)
    Path(ref.path).write_bytes(b"".join(lines[: last_hook + 1]))
    session = ADAPTER.read(ref).session
    [err] = session.errors  # six retries, one record
    assert (err.kind, err.message) == (
        "rate_limit",
        "Rate limit reached: you have exceeded your usage limit (mock)",
    )
    assert turn_ended_on_limit(session) is err and session.turn_incomplete


def test_the_interrupted_session_is_a_turn_left_open(tmp_path: Path) -> None:
    session = ADAPTER.read(ref_of(home_copy(tmp_path), KILLED)).session
    assert session.turn_incomplete
    assert session.usage is not None and session.usage.context_tokens == 1020
    assert session.usage.context_window == 64000


def test_reading_again_reads_only_what_was_appended(tmp_path: Path) -> None:
    home = home_copy(tmp_path)
    ref = ref_of(home, KILLED)
    first = ADAPTER.read(ref)
    offset, size = first.offset, os.path.getsize(ref.path)
    assert offset == size
    with open(ref.path, "a") as f:
        f.write(
            event(
                "tool.execution_complete",
                {
                    "toolCallId": first.session.pending_calls[0].id,
                    "success": True,
                    "result": {"content": "done"},
                    "fileEdits": [{"path": "/home/dev/src/notes/db/schema.sql", "kind": "edit"}],
                },
            )
            + "\n"
            + event("user.message", {"content": "now run the tests"})
            + "\n"
        )
    again = ADAPTER.read(ref, first)
    assert again.offset == os.path.getsize(ref.path) > offset
    assert again.session.pending_calls == []
    assert again.session.requests == ["Run the long migration script", "now run the tests"]
    assert [f.path for f in again.session.files_edited] == ["db/schema.sql"]


def test_todos_follow_the_session_database_and_blocked_is_said(tmp_path: Path) -> None:
    home = home_copy(tmp_path)
    ref = ref_of(home, GREETER)
    first = ADAPTER.read(ref)
    db = Path(ref.path).parent / "session.db"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE todos SET status = 'done' WHERE id = 't1'")
        conn.execute("UPDATE todos SET status = 'blocked' WHERE id = 't2'")
    conn.close()
    again = ADAPTER.read(ref, first)  # the log did not grow: the todos are read anew
    assert [(t.content, t.status) for t in again.session.todos] == [
        ("Write the greeting", "completed"),
        ("Check it (blocked)", "pending"),
    ]


def test_todo_database_is_opened_read_only(tmp_path: Path) -> None:
    home = home_copy(tmp_path)
    folder = Path(ref_of(home, GREETER).path).parent
    before = sorted(p.name for p in folder.iterdir())
    folder.chmod(0o555)  # a folder we cannot write: no journal or WAL can be made
    try:
        session = ADAPTER.read(ref_of(home, GREETER)).session
    finally:
        folder.chmod(0o755)
    assert len(session.todos) == 2
    assert sorted(p.name for p in folder.iterdir()) == before


def test_unknown_events_are_counted_and_bad_lines_never_fatal(tmp_path: Path) -> None:
    home = home_copy(tmp_path)
    ref = ref_of(home, KILLED)
    with open(ref.path, "a") as f:
        f.write(event("session.mode_changed", {"mode": "plan"}) + "\n")
        f.write(event("session.mode_changed", {"mode": "autopilot"}) + "\n")
        f.write("{not json\n")
        f.write(event("user.message", {"content": 42}) + "\n")  # wrong type: a bad line
        f.write(event("user.message", {"content": "still read"}) + "\n")
    session = ADAPTER.read(ref).session
    assert session.unknown_records == {"session.mode_changed": 2}
    assert session.bad_lines == 2
    assert session.latest_request == "still read"


def test_compaction_quota_and_the_handoff_prompt(tmp_path: Path) -> None:
    # Shapes from Copilot 1.0.102's session-events.schema.json (not triggered in a capture).
    home = home_copy(tmp_path)
    ref = ref_of(home, KILLED)
    lines = [
        event("session.compaction_start", {"trigger": "threshold", "currentTokens": 120000}),
        event(
            "session.compaction_complete",
            {"success": True, "preCompactionTokens": 120500, "summaryContent": "Summary: x"},
        ),
        event("user.message", {"content": "# Handoff brief\n\nContinue the migration."}),
        event(
            "session.quota_observation",
            {
                "observation": {
                    "quotaId": "premium_interactions",
                    "capacityState": "exhausted",
                    "budgetMetadata": {"resetAtEpochMs": 1796540400000},
                }
            },
            ts="2026-12-05T09:01:00.000Z",
        ),
    ]
    with open(ref.path, "a") as f:
        f.write("\n".join(lines) + "\n")
    session = ADAPTER.read(ref).session
    assert session.compactions_total == 1
    assert session.compactions[0].trigger == "auto"
    assert session.compactions[0].pre_tokens == 120500
    assert session.latest_request == "Run the long migration script"  # baker's prompt is not one
    err = session.last_error
    assert err is not None and err.kind == "usage_limit"
    assert err.reset_at == "2026-12-06T07:00:00Z"


def test_workspace_yaml_decides_the_project_and_the_first_event_stands_in(
    tmp_path: Path,
) -> None:
    home = home_copy(tmp_path)
    folder = home / "session-state" / GREETER
    account = [Account(agent="copilot", name="t", dir=str(home))]
    assert [r.session_id for r in discovery.discover("/home/dev/src/greeter", account)] == [GREETER]
    (folder / "workspace.yaml").write_text("id: x\ncwd: '/home/dev/src/it''s'\nbranch: main\n")
    assert [r.session_id for r in discovery.discover("/home/dev/src/it's", account)] == [GREETER]
    os.remove(folder / "workspace.yaml")
    assert [r.session_id for r in discovery.discover("/home/dev/src/greeter", account)] == [GREETER]


def test_parse_workspace_reads_the_subset_copilot_writes() -> None:
    text = (COPILOT / ".copilot" / "session-state" / GREETER / "workspace.yaml").read_text()
    assert discovery.parse_workspace(text)["git_root"] == "/home/dev/src/greeter"
    odd = 'cwd: "/home/dev/a \\"b\\""\nname: |\n  two\n  lines\nbranch: feat/x # note\n'
    assert discovery.parse_workspace(odd) == {"cwd": '/home/dev/a "b"'}


def test_a_session_folder_without_a_log_or_with_an_odd_name_is_skipped(tmp_path: Path) -> None:
    home = home_copy(tmp_path)
    (home / "session-state" / "0123abcd-empty-folder").mkdir()
    shutil.copytree(
        home / "session-state" / GREETER, home / "session-state" / f"{GREETER}.baker-backup-1"
    )
    found = list(discovery.all_sessions([Account(agent="copilot", name="t", dir=str(home))]))
    assert sorted(r.session_id for r in found) == sorted(TRUTH)
