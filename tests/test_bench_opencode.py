"""scripts/benchgen.py's OpenCode data (the captured database, moved to the bench's project,
grown by a turn as OpenCode writes one, or to a given size) and scripts/bench.py's OpenCode
rows."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from continuity_core.adapters import Account
from continuity_core.schemas.session import SessionRef
from continuity_opencode import OpenCodeAdapter

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
sys.path.insert(0, str(SCRIPTS))

import benchgen  # noqa: E402 - a script beside the package sources, not an installed module


def test_the_captured_session_moves_to_the_project_and_grows_by_a_turn(tmp_path: Path) -> None:
    adapter = OpenCodeAdapter()
    project = tmp_path / "weather-cli"
    project.mkdir()
    db = benchgen.write_opencode(tmp_path / "home", str(project))
    account = [Account(agent="opencode", name="bench", dir=str(db.parent))]
    refs = {r.session_id: r for r in adapter.discover(project, account)}
    ref = refs[benchgen.OPENCODE_SESSION]
    assert ref.cwd == str(project)
    cursor = adapter.read(ref)
    requests, todos = list(cursor.session.requests), list(cursor.session.todos)
    assert requests[-1] == "Run the slow build" and todos

    benchgen.append_opencode_turn(db, 1, 'Appended turn 1: run `make` with "quotes"')
    moved = next(iter(adapter.discover(project, account)))  # the newest now
    assert moved.session_id == benchgen.OPENCODE_SESSION and moved.mtime > ref.mtime
    after = adapter.read(moved, cursor).session  # incremental: the event log's seq moved on
    assert after.requests[-1] == 'Appended turn 1: run `make` with "quotes"'
    assert after.requests[:-1] == requests and after.todos == todos
    assert adapter.read(moved).session.requests == after.requests  # as a fresh read


def test_a_database_of_a_given_size_goes_on_turn_after_turn(tmp_path: Path) -> None:
    adapter = OpenCodeAdapter()
    data = benchgen.Data(tmp_path / "bench")
    gen = data.sized("opencode", 900_000, log=lambda _: None)
    assert gen.size >= 900_000 and gen.path.stat().st_size == gen.size and gen.turns > 3
    sid = benchgen.OPENCODE_SESSION
    conn = sqlite3.connect(gen.path)
    try:
        made = conn.execute(
            "SELECT count(*) FROM message WHERE session_id = ? AND id > 'msg_3'", (sid,)
        ).fetchone()[0]
        seqs = [r[0] for r in conn.execute("SELECT seq FROM event WHERE aggregate_id = ?", (sid,))]
        (seq,) = conn.execute("SELECT seq FROM event_sequence WHERE aggregate_id = ?", (sid,))
        newest = conn.execute(
            "SELECT (SELECT time_updated FROM session WHERE id = ?), max(time_updated) "
            "FROM message WHERE session_id = ?",
            (sid, sid),
        ).fetchone()
        (mode,) = conn.execute("PRAGMA journal_mode").fetchone()
    finally:
        conn.close()
    assert made == 6 * gen.turns  # the captured first turn's request and five answers, each turn
    assert sorted(seqs) == list(range(len(seqs))) and seq == (max(seqs),)  # one event log
    assert newest[0] >= newest[1] and mode == "wal"
    account = [Account(agent="opencode", name="bench", dir=str(gen.path.parent))]
    (ref,) = [r for r in adapter.discover(data.repo, account) if r.session_id == sid]
    session = adapter.read(ref).session
    assert session.requests[-1] == benchgen.FINAL_REQUEST
    assert session.requests[-2] == f"Step {gen.turns - 2}: tidy up the weather helpers"
    assert session.todos and not session.bad_lines and not session.unknown_records

    benchgen.append_opencode_turn(gen.path, gen.turns, "Appended after the generated turns")
    (ref,) = [r for r in adapter.discover(data.repo, account) if r.session_id == sid]
    assert adapter.read(ref).session.requests[-1] == "Appended after the generated turns"
    again = data.sized("opencode", 900_000, log=lambda _: None)  # reused, the turn taken out
    assert again == gen
    (ref,) = [r for r in adapter.discover(data.repo, account) if r.session_id == sid]
    assert adapter.read(ref).session.requests[-1] == benchgen.FINAL_REQUEST


def bench_session(tmp_path: Path) -> tuple[OpenCodeAdapter, benchgen.Generated, SessionRef]:
    """A database the bench grows to 1 MB, and its session as the adapter discovers it."""
    adapter = OpenCodeAdapter()
    data = benchgen.Data(tmp_path / "bench")
    gen = data.sized("opencode", 1_000_000, log=lambda _: None)
    account = [Account(agent="opencode", name="bench", dir=str(gen.path.parent))]
    found = adapter.discover(data.repo, account)
    (ref,) = [r for r in found if r.session_id == benchgen.OPENCODE_SESSION]
    return adapter, gen, ref


def _rows_bytes(db: Path, sid: str) -> int:
    conn = sqlite3.connect(db)
    try:
        return sum(
            conn.execute(
                f"SELECT total(length(CAST(data AS BLOB))) FROM {t} WHERE session_id = ?",  # noqa: S608
                (sid,),
            ).fetchone()[0]
            for t in ("message", "part")
        )
    finally:
        conn.close()


def test_a_grown_databases_first_read_takes_its_newest_rows_and_counts_the_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A never-read session over the first read's budget (made small here) is read from its
    newest rows, as a transcript file from its end: its newest requests as a whole read has
    them, the captured compaction (before the cut) counted by an aggregate, the bytes not
    read; an old row OpenCode rewrote (a pruned tool output) is never read after it, and
    reads go on from there."""
    from continuity_core import transcript

    adapter, gen, ref = bench_session(tmp_path)
    sid = benchgen.OPENCODE_SESSION
    whole = adapter.read(ref).session
    assert whole.compactions_total == 1 and not whole.unread_bytes
    conn = sqlite3.connect(gen.path)
    conn.execute(  # OpenCode prunes an old tool output: its row is the newest updated
        "UPDATE part SET time_updated = (SELECT max(time_updated) + 1000 FROM part) "
        "WHERE id = (SELECT min(id) FROM part WHERE session_id = ? AND data LIKE ?)",
        (sid, '{"type":"tool"%'),
    )
    conn.execute("UPDATE event_sequence SET seq = seq + 1 WHERE aggregate_id = ?", (sid,))
    conn.commit()
    conn.close()
    cold_max = 32 << 10
    monkeypatch.setattr(transcript, "COLD_MAX", cold_max)
    first = adapter.read(ref)
    cold = first.session
    assert cold.requests[-1] == benchgen.FINAL_REQUEST
    assert 2 < len(cold.requests) < len(whole.requests)
    assert cold.requests == whole.requests[-len(cold.requests) :]
    assert (cold.todos, cold.usage, cold.model) == (whole.todos, whole.usage, whole.model)
    assert cold.compactions_total == 1 and cold.compactions_scanned and not cold.compactions
    total = _rows_bytes(gen.path, sid)
    assert total - cold_max <= cold.unread_bytes < total - cold_max + 20_000  # a turn's rows
    read = cold.records  # the cursor and its Session are read on in place
    assert read < whole.records // 4
    conn = sqlite3.connect(gen.path)  # a change logged (the rows scanned again), no row new
    conn.execute("UPDATE event_sequence SET seq = seq + 1 WHERE aggregate_id = ?", (sid,))
    conn.commit()
    conn.close()
    again = adapter.read(ref, first)  # the pruned row counts as read: nothing new
    assert again.session.records == read
    benchgen.append_opencode_turn(gen.path, gen.turns, "Appended after a first read")
    after = adapter.read(ref, again).session
    assert after.requests[-2:] == [benchgen.FINAL_REQUEST, "Appended after a first read"]
    assert after.records - read < 10 and after.compactions_total == 1

    monkeypatch.setattr(transcript, "COLD_MAX", 1)  # the newest message alone: an answer
    newest = adapter.read(ref).session
    assert newest.requests == ["Appended after a first read"]  # looked for before the cut
    assert newest.request_sought == "found" and newest.compactions_total == 1


def test_payloads_are_the_plugins_pointed_at_the_project() -> None:
    adapter = OpenCodeAdapter()
    idle = adapter.parse_hook(benchgen.opencode_payload(0, "/w/p"))
    assert (idle.session_id, idle.cwd) == (benchgen.OPENCODE_SESSION, "/w/p")
    tool = adapter.parse_hook(benchgen.opencode_payload(2, "/w/p", "ses_benchx"))
    assert tool.session_id == "ses_benchx" and tool.kind == "pre_tool"
    assert tool.tool_input["filePath"] == "/w/p/weather/units.py"


def test_bench_measures_opencode_hooks_and_rows_by_size(tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    data = Path(tempfile.mkdtemp(prefix="bs-"))
    try:
        proc = subprocess.run(
            [
                sys.executable,
                str(SCRIPTS / "bench.py"),
                "--smoke",
                "--agents",
                "opencode",
                "--only",
                "hooks,checkpoint,handoff",
                "--data",
                str(data),
                "--out",
                str(tmp_path / "b.md"),
                "--baker",
                str(bin_dir / "baker"),
                "--python",
                sys.executable,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        shutil.rmtree(data, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line for line in proc.stdout.splitlines() if "| opencode |" in line]
    hooks = [r for r in rows if "| 64 KiB |" not in r]  # on the captured database
    sized = [r for r in rows if "| 64 KiB |" in r]  # grown to the size (--smoke: the final turn)
    expected = [
        (hooks, "`baker pretool`, 1,000 traps"),
        (hooks, "`baker checkpoint`, first (no cursor yet)"),
        (hooks, "`baker pickup`"),
        (hooks, "`baker checkpoint` after one turn"),
        (sized, "`baker checkpoint`, first (no cursor yet)"),
        (sized, "`baker handoff`, already checkpointed"),
        (sized, "`baker checkpoint` after one turn"),
        (sized, "`baker handoff`, never seen"),
    ]
    for group, what in expected:
        (row,) = [r for r in group if what in r]
        assert " s | " in row and "× |" in row, row  # measured, beside the bare interpreter
    assert not [r for r in rows if "wrong output" in r or "exit " in r or "not measured" in r]


@pytest.fixture(autouse=True)
def _no_real_opencode_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "no-data"))


def test_a_first_read_whose_newest_message_has_no_part_yet_reads_on_from_the_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first read that takes only a message OpenCode just created (its parts not written
    yet) leaves the part watermark at the cut: the next read takes that message's parts, not
    every part of the session (read twice over: the compaction counted again)."""
    from continuity_core import transcript

    adapter, gen, ref = bench_session(tmp_path)
    sid = benchgen.OPENCODE_SESSION
    conn = sqlite3.connect(gen.path)
    (at,) = conn.execute("SELECT max(time_updated) + 1000 FROM part").fetchone()
    conn.execute(
        "INSERT INTO message (id, session_id, time_created, time_updated, data) "
        "VALUES (?, ?, ?, ?, ?)",
        ("msg_zzzz_just_created", sid, at, at, '{"role":"assistant","time":{"created":1}}'),
    )
    conn.execute("UPDATE event_sequence SET seq = seq + 1 WHERE aggregate_id = ?", (sid,))
    conn.commit()
    conn.close()
    monkeypatch.setattr(transcript, "COLD_MAX", 1)  # the newest message alone
    first = adapter.read(ref)
    read = first.session.records
    assert first.session.compactions_total == 1 and read < 10
    conn = sqlite3.connect(gen.path)  # a change logged, no row new
    conn.execute("UPDATE event_sequence SET seq = seq + 1 WHERE aggregate_id = ?", (sid,))
    conn.commit()
    conn.close()
    again = adapter.read(ref, first)
    assert again.session.records == read and again.session.compactions_total == 1
    conn = sqlite3.connect(gen.path)  # its first part is written: read next time
    conn.execute(
        "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        ("prt_zzzz", "msg_zzzz_just_created", sid, at, at, '{"type":"step-start"}'),
    )
    conn.execute("UPDATE event_sequence SET seq = seq + 1 WHERE aggregate_id = ?", (sid,))
    conn.commit()
    conn.close()
    assert adapter.read(ref, again).session.records == read + 1
