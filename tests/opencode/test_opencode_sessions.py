"""Reading OpenCode's sessions: discovery, every fact of the captured sessions, the typed
incremental cursor, and reading safely beside a live OpenCode."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("continuity_opencode")

from continuity_core.adapters import Account
from continuity_core.schemas.config import AccountConfig, GlobalConfig
from continuity_core.schemas.session import Session
from continuity_opencode import OpenCodeAdapter, discovery
from tests.opencode.helpers import CHILD, LIMITED, MAIN, OTHER, home_copy, legacy_tree

ADAPTER = OpenCodeAdapter()


def _account(data: Path, name: str = "test") -> list[Account]:
    return [Account(agent="opencode", name=name, dir=str(data))]


def _read(data: Path, project: Path, sid: str = MAIN) -> Session:
    ref = next(r for r in ADAPTER.discover(project, _account(data)) if r.session_id == sid)
    return ADAPTER.read(ref).session


def test_discover_lists_top_level_sessions_of_the_project_newest_first(tmp_path: Path) -> None:
    data, work = home_copy(tmp_path)
    refs = list(ADAPTER.discover(work / "proj", _account(data)))
    assert [r.session_id for r in refs] == [MAIN, LIMITED]  # the sub-agent is its parent's
    assert refs[0].path == f"{data / 'opencode.db'}#{MAIN}"
    assert refs[0].cwd == str(work / "proj")
    assert [r.session_id for r in ADAPTER.discover(work / "other", _account(data))] == [OTHER]
    # a folder inside the project holds none of them; the project's parent holds all
    assert list(ADAPTER.discover(work / "proj" / "docs", _account(data))) == []
    assert {r.session_id for r in ADAPTER.discover(work, _account(data))} == {MAIN, LIMITED, OTHER}
    assert CHILD not in {r.session_id for r in ADAPTER.all_sessions(_account(data))}


def test_main_session_facts(tmp_path: Path) -> None:
    data, work = home_copy(tmp_path)
    s = _read(data, work / "proj")
    assert s.requests == [
        "Create hello.txt with a todo list",  # `opencode run` stored it in quotes
        "Now write the notes, please",
        "Grow the context",
        "Run the long check",
        "Run the long check",
        "Run the slow build",
    ]
    assert [(t.content, t.status) for t in s.todos] == [
        ("Create hello.txt", "completed"),
        ("Write notes", "completed"),
        ("Old idea", "cancelled"),
        ("Check the long job", "in_progress"),
    ]
    # write then edit through tools; the sub-agent's file through the step's patch part
    assert [(f.path, f.action, f.count) for f in s.files_edited] == [
        ("hello.txt", "write", 2),
        ("docs/notes.md", "edit", 1),
    ]
    (pending,) = s.pending_calls  # killed while `sleep 100` ran
    assert pending.name == "bash" and pending.input["command"] == "sleep 100"
    assert s.turn_incomplete
    assert s.compactions_total == 1
    assert s.compactions[0].trigger == "auto"
    assert s.compactions[0].summary == "Summary: hello.txt was created; the long check remains."
    assert [m.kind for m in s.messages if m.text.startswith("Continue if you have")] == ["meta"]
    assert s.model == "mock/m1"
    assert s.usage is not None and s.usage.context_tokens == 1200  # input + cached
    assert s.usage.cache_read_tokens == 200
    assert s.model_tokens == {"mock/m1": 113_860}
    assert [c.command for c in s.commands] == ["ls", "echo big", "sleep 120"]
    assert s.commands[0].exit_code == 0
    (sub,) = s.subagents
    assert (sub.task, sub.result, sub.id) == (
        "Write notes file",
        "Notes written by the subagent.",
        CHILD,
    )
    # the second long check outlived its mock: OpenCode's next step could not connect
    (err,) = s.errors
    assert (err.kind, err.status) == ("api", None) and err.message.startswith(
        "Cannot connect to API"
    )
    assert not s.ended_on_limit
    assert s.bad_lines == 0 and s.unknown_records == {}


def test_a_429_is_a_rate_limit_with_its_retry_after(tmp_path: Path) -> None:
    data, work = home_copy(tmp_path)
    s = _read(data, work / "proj", LIMITED)
    assert s.requests == ["Hit the limit now"]
    (err,) = s.errors
    assert (err.kind, err.status) == ("rate_limit", 429)
    assert err.timestamp is not None and err.reset_at is not None
    assert err.reset_at > err.timestamp  # retry-after: 1
    assert s.ended_on_limit


def test_context_window_from_the_provider_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, work = home_copy(tmp_path)
    config = tmp_path / "config"
    (config / "opencode").mkdir(parents=True)
    (config / "opencode" / "opencode.json").write_text(
        '{"provider": {"mock": {"models": {"m1": {"limit": {"context": 100000}}}}}}'
    )
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    usage = _read(data, work / "proj").usage
    assert usage is not None and usage.context_window == 100_000
    assert usage.context_tokens / usage.context_window == pytest.approx(0.012)


def _cut(db: Path, before_ms: int) -> None:
    """The database as it was at `before_ms`: newer rows out, as OpenCode had not yet written
    (its event log one change behind)."""
    conn = sqlite3.connect(db)
    for table in ("part", "message"):
        conn.execute(f"DELETE FROM {table} WHERE time_created >= ?", (before_ms,))  # noqa: S608
    conn.execute("UPDATE event_sequence SET seq = seq - 1")
    conn.commit()
    conn.close()


def test_incremental_read_matches_a_fresh_one_and_reads_only_new_rows(tmp_path: Path) -> None:
    data, work = home_copy(tmp_path)
    db = data / "opencode.db"
    full = tmp_path / "full.db"
    shutil.copy(db, full)
    conn = sqlite3.connect(db)
    (slow,) = conn.execute(
        "SELECT time_created FROM message WHERE id = (SELECT message_id FROM part "
        "WHERE data LIKE '%Run the slow build%')"
    ).fetchone()
    total = (
        conn.execute("SELECT count(*) FROM message").fetchone()[0]
        + conn.execute("SELECT count(*) FROM part").fetchone()[0]
    )
    conn.close()
    _cut(db, slow)
    ref = next(iter(ADAPTER.discover(work / "proj", _account(data))))
    first = ADAPTER.read(ref)
    assert first.session.requests[-1] == "Run the long check"
    read_before, offset = first.session.records, first.offset
    shutil.copy(full, db)  # OpenCode went on: the slow build started and was cut off
    again = ADAPTER.read(ref, first)
    fresh = ADAPTER.read(ref).session
    for name in ("requests", "todos", "files_edited", "tool_calls", "compactions", "subagents"):
        assert getattr(again.session, name) == getattr(fresh, name), name
    assert again.session.pending_calls and again.session.turn_incomplete
    assert again.offset >= offset
    assert again.session.records - read_before < total - read_before  # not a whole re-read


def test_reading_never_writes_and_ignores_an_unfinished_transaction(tmp_path: Path) -> None:
    data, work = home_copy(tmp_path)
    db = data / "opencode.db"
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("BEGIN IMMEDIATE")  # OpenCode in the middle of a write
    writer.execute(
        "INSERT INTO part VALUES ('prt_zzzzzzzzzzzzzzzzzzzzzzzzzz', "
        "(SELECT id FROM message WHERE session_id = ? ORDER BY time_created DESC LIMIT 1), "
        '?, 9999999999999, 9999999999999, \'{"type":"text","text":"half"\')',
        (MAIN, MAIN),
    )
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    s = _read(data, work / "proj")
    assert s.requests[-1] == "Run the slow build" and s.bad_lines == 0
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    writer.execute("COMMIT")  # a row whose JSON is cut short: counted, never fatal
    ref = next(iter(ADAPTER.discover(work / "proj", _account(data))))
    assert ADAPTER.read(ref).session.bad_lines == 1
    writer.close()


def test_a_read_only_folder_is_read_as_immutable(tmp_path: Path) -> None:
    data, work = home_copy(tmp_path)
    data.chmod(0o555)
    try:
        assert _read(data, work / "proj").requests[-1] == "Run the slow build"
    finally:
        data.chmod(0o755)


def test_a_folder_named_with_uri_characters_is_read(tmp_path: Path) -> None:
    # "?", "#" and "%" mean something in SQLite's `file:` URI: such a path is quoted (pathlib),
    # any other opened as written
    for folder in ("plain", "odd ?mode=rw#x %41"):
        data, work = home_copy(tmp_path / folder)
        assert _read(data, work / "proj").requests[-1] == "Run the slow build"


def test_accounts_opencode_db_channels_and_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, work = home_copy(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(data.parent))
    elsewhere = tmp_path / "elsewhere.db"
    shutil.copy(data / "opencode.db", elsewhere)
    monkeypatch.setenv("OPENCODE_DB", str(elsewhere))
    accounts = ADAPTER.accounts(GlobalConfig())
    assert [(a.name, a.dir) for a in accounts] == [
        ("OPENCODE_DB", str(elsewhere)),
        (str(data), str(data)),
    ]
    # listed twice: its place from the environment, its name from [accounts] (issue 31)
    config = GlobalConfig(accounts={"work": AccountConfig(agent="opencode", dir=str(data))})
    assert [a.name for a in ADAPTER.accounts(config)] == ["OPENCODE_DB", "work"]
    # a dev/preview build's channel database beside the default one
    (data / "opencode.db").rename(data / "opencode-beta.db")
    refs = list(ADAPTER.discover(work / "proj", accounts))
    assert {r.path.rpartition("#")[0] for r in refs} == {
        str(elsewhere),
        str(data / "opencode-beta.db"),
    }


def test_legacy_storage_tree(tmp_path: Path) -> None:
    data, work = home_copy(tmp_path)
    legacy = tmp_path / "legacy" / "opencode"
    legacy.mkdir(parents=True)
    legacy_tree(data / "opencode.db", legacy)
    refs = list(ADAPTER.discover(work / "proj", _account(legacy)))
    assert [r.session_id for r in refs] == [MAIN, LIMITED]
    assert refs[0].path.endswith(f"storage/session/{refs[0].path.split('/')[-2]}/{MAIN}.json")
    s = ADAPTER.read(refs[0]).session
    db = _read(data, work / "proj")
    assert s.requests == db.requests
    assert s.todos == db.todos
    assert s.files_edited == db.files_edited
    assert s.pending_calls == db.pending_calls
    assert s.compactions_total == 1


def test_hook_session_of_a_subagent_is_its_parent(tmp_path: Path) -> None:
    data, _ = home_copy(tmp_path)
    ref = discovery.by_id(CHILD, _account(data))
    assert ref is not None and ref.session_id == MAIN
    assert discovery.by_id("ses_nonexistent", _account(data)) is None


def test_an_unchanged_session_is_not_scanned_again(tmp_path: Path) -> None:
    """OpenCode logs every change of a session in `event` (its seq in `event_sequence`): the
    same seq reads no message or part row; a database without that log is scanned."""
    data, work = home_copy(tmp_path)
    ref = next(iter(ADAPTER.discover(work / "proj", _account(data))))
    first = ADAPTER.read(ref)
    read, requests = first.session.records, list(first.session.requests)
    again = ADAPTER.read(ref, first)  # the same cursor, read on
    assert again.session.records == read  # nothing read
    conn = sqlite3.connect(data / "opencode.db")
    conn.execute("UPDATE event_sequence SET seq = seq + 1 WHERE aggregate_id = ?", (MAIN,))
    conn.execute(  # OpenCode rewrites a part: a newer time_updated, a new event
        "UPDATE part SET time_updated = (SELECT max(time_updated) + 1000 FROM part), "
        "data = replace(data, 'Slow build', 'Slow build, again') WHERE data LIKE '%sleep 100%'"
    )
    conn.commit()
    changed = ADAPTER.read(ref, again).session
    assert changed.records == read + 1  # the one row that changed
    assert changed.pending_calls[0].input["description"] == "Slow build, again"
    conn.execute("DROP TABLE event")
    conn.execute("DROP TABLE event_sequence")  # an OpenCode without the event log
    conn.commit()
    conn.close()
    assert ADAPTER.read(ref).session.requests == requests
    assert ADAPTER.read(ref, ADAPTER.read(ref)).session.requests == requests
