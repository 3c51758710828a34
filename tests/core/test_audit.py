"""`baker audit`: the health report from the hook log, the note, checkpoints and adapters."""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from continuity_core.adapters import Account, Finding
from continuity_core.audit import audit
from continuity_core.schemas.checkpoint import Checkpoint
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.session import Session, SessionRef, ToolCall
from continuity_core.stamps import new_id
from continuity_core.store import Store
from continuity_core.transcript import Cursor, NoState
from tests.helpers.stub_adapter import StubAdapter

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC)


def log_line(store: Store, when: dt.datetime, event: str, **fields: Any) -> None:
    folder = Path(store.folder_path("log"))
    with (folder / "events.jsonl").open("a") as f:
        f.write(
            json.dumps({"t": when.isoformat().replace("+00:00", "Z"), "event": event, **fields})
            + "\n"
        )


class SessionAdapter(StubAdapter):
    """An adapter with one session of the project and a doctor that has a complaint."""

    name = "fake"

    def __init__(self, root: Path, session: Session, findings: list[Finding]) -> None:
        self.root, self.session, self.findings = root, session, findings

    def accounts(self, config: GlobalConfig) -> list[Account]:
        return [Account(agent="fake", name="default", dir="/nowhere")]

    def discover(
        self, project: str | os.PathLike[str], accounts: Sequence[Account]
    ) -> Iterator[SessionRef]:
        yield SessionRef(
            agent="fake",
            account="/nowhere",
            session_id=self.session.session_id,
            path=str(self.root / "t.jsonl"),
            mtime=NOW.timestamp(),
            cwd=str(project),
        )

    def read(self, ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
        return Cursor(path=ref.path, session=self.session, state=NoState())

    def doctor(self, project: Path, accounts: Sequence[Account]) -> list[Finding]:
        return self.findings


def test_a_quiet_project_is_healthy(repo: Path) -> None:
    Store(repo).folder_path("log")
    report = audit(repo, 7, adapters={}, config=GlobalConfig(), now=NOW)
    assert report.healthy and report.problems == [] and report.events == {}


def test_hook_failures_in_the_window_are_reported_once_per_command(repo: Path) -> None:
    store = Store(repo)
    for hours in (1, 2, 3):
        log_line(
            store,
            NOW - dt.timedelta(hours=hours),
            "hook_error",
            command="checkpoint",
            error="KeyError: 'message'",
            where="parser.py:88",
        )
    log_line(store, NOW - dt.timedelta(hours=1), "hook_bad_input", command="pretool", agent="codex")
    log_line(store, NOW - dt.timedelta(days=30), "hook_error", command="pickup", error="old")
    log_line(store, NOW - dt.timedelta(hours=1), "something_new", detail="x")
    with (store.path("log") / "events.jsonl").open("a") as f:
        f.write("not json\n")
    report = audit(repo, 7, adapters={}, config=GlobalConfig(), now=NOW)
    assert report.events == {"hook_bad_input": 1, "hook_error": 3, "something_new": 1}
    hooks = [p for p in report.problems if p.check == "hooks"]
    assert [(p.level, p.count) for p in hooks] == [("warn", 1), ("error", 3)]
    assert "`baker checkpoint` error 3×" in hooks[1].message
    assert "KeyError: 'message'" in hooks[1].message and "parser.py:88" in hooks[1].message
    assert not report.healthy


def test_noisy_traps_are_those_delivered_often_and_never_acted_on(repo: Path) -> None:
    store = Store(repo)
    traps = [
        {"id": "t1", "pattern": "migrations/*.sql", "why": "x", "created_at": "2026-11-01"},
        {"id": "t2", "pattern": "deploy.sh", "why": "y", "created_at": "2026-11-01"},
    ]
    Path(store.folder_path(), "traps.jsonl").write_text(
        "".join(json.dumps(t) + "\n" for t in traps)
    )
    for i in range(6):
        log_line(
            store,
            NOW - dt.timedelta(hours=i + 1),
            "traps_delivered",
            session=f"s{i}",
            ids=["t1", "t2", "removed-since"],
        )
    log_line(store, NOW - dt.timedelta(minutes=5), "trap_acted", trap="t2")
    report = audit(repo, 7, adapters={}, config=GlobalConfig(), now=NOW)
    [noisy] = [p for p in report.problems if p.check == "traps"]
    assert noisy.count == 6 and "t1 (migrations/*.sql)" in noisy.message
    assert "baker trap rm t1" in noisy.fix


def test_stale_suspect_markers_in_the_note(repo: Path) -> None:
    Store(repo).folder_path()
    note = repo / "memory" / "hot.md"
    note.parent.mkdir()
    note.write_text("---\nupdated: 2026-11-20\n---\n# Now\nRun the migration (SUSPECT: done?)\n")
    old = (NOW - dt.timedelta(days=3)).timestamp()
    os.utime(note, (old, old))
    report = audit(repo, 7, adapters={}, config=GlobalConfig(), now=NOW)
    [problem] = [p for p in report.problems if p.check == "note"]
    assert problem.level == "warn" and "untouched for 72 h" in problem.message


def test_turns_without_checkpoints_and_untrusted_hooks(repo: Path) -> None:
    store = Store(repo)
    session = Session(
        agent="fake",
        session_id="sess-1",
        requests=["a", "b", "c"],
        updated_at="2026-11-30T11:50:00Z",
        tool_calls=[
            ToolCall(
                id="1",
                name="Bash",
                input={"command": "make migrate"},
                output="ok",
                timestamp="2026-11-30T11:40:00Z",
            )
        ],
    )
    store.write_checkpoint(
        Checkpoint(id=new_id(), created_at="2026-11-30T11:00:00Z", session=session)
    )
    note = repo / "memory" / "hot.md"
    note.parent.mkdir()
    note.write_text("---\nupdated: 2026-11-30T11:00:00Z\n---\n# Now\nRun `make migrate`\n")
    adapter = SessionAdapter(
        repo,
        session,
        [
            Finding(level="warn", message="project hooks are not trusted", fix="codex trust"),
            Finding(level="ok", message="hooks installed"),
        ],
    )
    report = audit(repo, 7, adapters={"fake": adapter}, config=GlobalConfig(), now=NOW)
    by_check: dict[str, list[str]] = {}
    for p in report.problems:
        by_check.setdefault(p.check, []).append(p.message)
    assert any("1 checkpoint(s) for 3 turn(s)" in m for m in by_check["checkpoints"])
    assert any(
        "the last turn (2026-11-30T11:50:00Z) has no checkpoint" in m
        for m in by_check["checkpoints"]
    )
    assert by_check["install"] == ["fake: project hooks are not trusted"]
    assert any(m.startswith("Now is SUSPECT") and "Bash" in m for m in by_check["note"])


def test_a_project_without_a_store_says_so(repo: Path) -> None:
    report = audit(repo, 1, adapters={}, config=GlobalConfig(), now=NOW)
    assert [p.check for p in report.problems] == ["checkpoints"]
    assert "baker init" in report.problems[0].fix
