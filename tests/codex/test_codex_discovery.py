"""Finding rollouts: the thread index, the scan it falls back to, accounts, scale."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from continuity_codex import CodexAdapter, discovery
from continuity_core.adapters import Account
from continuity_core.schemas.config import AccountConfig, GlobalConfig
from tests.codex.helpers import ROLLOUTS, by_scenario, home_copy, rollout

ADAPTER = CodexAdapter()


def account(home: Path, name: str = "test") -> Account:
    return Account(agent="codex", name=name, dir=str(home))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return home_copy(tmp_path)


def found(project: str | Path, *homes: Path) -> list[str]:
    return [r.session_id for r in ADAPTER.discover(Path(project), [account(h) for h in homes])]


@pytest.mark.parametrize("rel", sorted(ROLLOUTS), ids=lambda r: ROLLOUTS[r]["scenario"])
def test_each_project_finds_its_session_through_the_index_and_the_scan(
    home: Path, rel: str
) -> None:
    truth = ROLLOUTS[rel]
    assert found(truth["cwd"], home) == [truth["session_id"]]
    (home / "state_5.sqlite").unlink()
    assert found(truth["cwd"], home) == [truth["session_id"]]


def test_a_parent_folder_owns_the_sessions_below_it_but_a_sibling_prefix_does_not(
    home: Path,
) -> None:
    _, s7 = by_scenario("S7")  # cwd /home/dev/src/client work/acme_site.v1.2/docs
    for h in (home, None):
        if h is None:
            (home / "state_5.sqlite").unlink()
        assert s7["session_id"] in found("/home/dev/src/client work", home)
        assert found("/home/dev/src/client", home) == []
        assert len(found("/home/dev/src", home)) == len(ROLLOUTS)


def test_the_index_path_is_rerooted_into_the_home_it_lives_in(home: Path) -> None:
    # The index records /home/dev/.codex/...; this copy lives elsewhere.
    rel, truth = by_scenario("S1")
    ref = next(ADAPTER.discover(Path(truth["cwd"]), [account(home)]))
    assert ref.path == str(home / Path(rel).relative_to("codex/.codex"))
    assert ref.cwd == truth["cwd"] and ref.account == "test"


def test_a_home_mounted_elsewhere_falls_back_to_the_scan(home: Path, tmp_path: Path) -> None:
    # The rollouts' cwds name where the project lives now; state_5.sqlite still names the
    # old paths, so the index has no row for the project: the scan must find the session.
    rel, truth = by_scenario("S1")
    old = truth["cwd"]
    new = str(tmp_path / "mnt" / Path(old).name)
    for path in (home / "sessions").rglob("rollout-*.jsonl"):
        path.write_text(path.read_text().replace(f'"{old}', f'"{new}'))
    assert found(new, home) == [truth["session_id"]]
    assert found(old, home) == [truth["session_id"]]  # the index still answers for its paths
    ref = next(ADAPTER.discover(Path(new), [account(home)]))
    assert ref.path == str(home / Path(rel).relative_to("codex/.codex")) and ref.cwd == new


def test_index_rows_whose_rollouts_are_all_gone_fall_back_to_the_scan(
    home: Path, tmp_path: Path
) -> None:
    _, truth = by_scenario("S1")
    db = sqlite3.connect(home / "state_5.sqlite")
    try:  # the index points at a rollout that is not where it says, nor under this home
        db.execute(
            "UPDATE threads SET rollout_path = '/nowhere/r.jsonl', id = 'gone' WHERE cwd = ?",
            (truth["cwd"],),
        )
        db.commit()
    finally:
        db.close()
    assert found(truth["cwd"], home) == [truth["session_id"]]


def test_a_live_index_that_finds_nothing_is_trusted_without_a_scan(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = sqlite3.connect(home / "state_5.sqlite")
    try:  # the index names this home's own rollouts: it describes this home
        db.execute(
            "UPDATE threads SET rollout_path = replace(rollout_path, ?, ?)",
            ("/home/dev/.codex", str(home)),
        )
        db.commit()
    finally:
        db.close()

    def no_scan(*_: object) -> None:
        raise AssertionError("scanned although the index describes this home")

    monkeypatch.setattr(discovery, "_from_scan", no_scan)
    assert found("/home/dev/src/no-such-project", home) == []
    _, truth = by_scenario("S1")
    assert found(truth["cwd"], home) == [truth["session_id"]]


def test_newest_first_across_accounts(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    now = time.time()
    rollout(a, "01a00000-0000-7000-8000-000000000001", "/p", mtime=now - 300)
    rollout(b, "01a00000-0000-7000-8000-000000000002", "/p/sub", mtime=now - 100)
    rollout(
        a, "01a00000-0000-7000-8000-000000000003", "/p", mtime=now - 200, folder="archived_sessions"
    )
    rollout(b, "01a00000-0000-7000-8000-000000000004", "/other", mtime=now)
    assert found("/p", a, b) == [
        "01a00000-0000-7000-8000-000000000002",
        "01a00000-0000-7000-8000-000000000003",
        "01a00000-0000-7000-8000-000000000001",
    ]


def test_a_corrupt_index_falls_back_to_scanning(home: Path) -> None:
    (home / "state_5.sqlite").write_bytes(b"this is not a database" * 100)
    _, truth = by_scenario("S3")
    assert found(truth["cwd"], home) == [truth["session_id"]]


def test_an_index_of_an_unknown_schema_falls_back_to_scanning(home: Path) -> None:
    (home / "state_5.sqlite").unlink()
    with sqlite3.connect(home / "state_9.sqlite") as db:
        db.execute("CREATE TABLE threads (thread TEXT, path TEXT)")
    _, truth = by_scenario("S3")
    assert found(truth["cwd"], home) == [truth["session_id"]]


def test_a_locked_index_falls_back_to_scanning(home: Path) -> None:
    db = home / "state_5.sqlite"
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("PRAGMA journal_mode=DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        _, truth = by_scenario("S4")
        assert discovery.index_rows(str(home), [truth["cwd"]]) is None
        assert found(truth["cwd"], home) == [truth["session_id"]]
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_an_index_in_wal_mode_is_read_without_writing_to_it(home: Path) -> None:
    db = home / "state_5.sqlite"
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("UPDATE threads SET title = 'x'")
    writer.commit()  # the change sits in the -wal file
    try:
        home.chmod(0o500)  # read-only folder: no -shm can be created by us
        _, truth = by_scenario("S6")
        rows = discovery.index_rows(str(home), [truth["cwd"]])
        assert rows is not None and [r[0] for r in rows] == [truth["session_id"]]
    finally:
        home.chmod(0o700)
        writer.close()


def test_a_row_whose_rollout_is_gone_is_skipped(home: Path) -> None:
    rel, truth = by_scenario("S5")
    (home / Path(rel).relative_to("codex/.codex")).unlink()
    assert found(truth["cwd"], home) == []


def test_the_scan_reads_a_meta_line_with_an_unusual_key_order(tmp_path: Path) -> None:
    tid = "01a00000-0000-7000-8000-0000000000aa"
    rollout(tmp_path, tid, "/w/odd", meta_first=False)
    assert found("/w/odd", tmp_path) == [tid]


@pytest.mark.skipif(shutil.which("zstd") is None, reason="needs the zstd binary")
def test_compressed_archived_rollouts_are_found(tmp_path: Path) -> None:
    tid = "01a00000-0000-7000-8000-0000000000bb"
    path = rollout(tmp_path, tid, "/w/z", folder="archived_sessions")
    subprocess.run(["zstd", "-q", "--rm", str(path)], check=True)
    refs = list(ADAPTER.discover(Path("/w/z"), [account(tmp_path)]))
    assert [r.path for r in refs] == [f"{path}.zst"]


def test_accounts_from_env_default_and_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "env-home"))
    config = GlobalConfig(
        transcripts={"codex": ["~/.codex-work", str(tmp_path / "env-home")]},
        accounts={
            "work": AccountConfig(agent="codex", dir="~/.codex-work"),
            "other": AccountConfig(agent="claude", dir="~/.claude"),
        },
    )
    accounts = ADAPTER.accounts(config)
    home = Path.home()
    assert [(a.name, a.dir) for a in accounts] == [
        ("CODEX_HOME", str(tmp_path / "env-home")),
        ("~/.codex", str(home / ".codex")),
        # listed twice: its place from [transcripts], its name from [accounts] (issue 31)
        ("work", str(home / ".codex-work")),
    ]


def test_find_by_thread_id_uses_the_date_folders_of_a_uuid7(tmp_path: Path) -> None:
    tid = "01a22a99-3138-74a2-beeb-885dc8136fd9"  # 2026-11-30 local (TZ=UTC in tests)
    path = rollout(tmp_path, tid, "/w", stamp="2026-11-30T03-56-52")
    assert discovery.find_by_id(str(tmp_path), tid) == str(path)
    assert discovery.find_by_id(str(tmp_path), "01a22a99-0000-7000-8000-000000000000") is None
    assert discovery.find_by_id(str(tmp_path), "../../etc") is None


# --- scale -----------------------------------------------------------------------------------

PROJECTS = 40


def _many(home: Path, count: int) -> Iterator[tuple[str, str, str, float]]:
    """`count` rollouts over PROJECTS projects, a session_meta longer than the head the scan reads."""
    base = time.time() - count
    big = "i" * 9_000  # past the head the scan reads, like the ~20 KB instructions
    for i in range(count):
        tid = str(uuid.UUID(int=(0x01A2 << 112) | (i << 32) | 0x7000))
        stamp = time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime(base + i))
        day = stamp[:10].replace("-", "/")
        cwd = f"/src/project-{i % PROJECTS}"
        path = home / "sessions" / day / f"rollout-{stamp}-{tid}.jsonl"
        yield tid, str(path), cwd, base + i
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = {"id": tid, "cwd": cwd, "base_instructions": {"text": big}}
        path.write_text(
            json.dumps(
                {"timestamp": "t", "ordinal": 0, "type": "session_meta", "payload": meta},
                separators=(",", ":"),
            )
            + "\n"
        )
        os.utime(path, (base + i, base + i))


@pytest.mark.slow
def test_twenty_thousand_rollouts(tmp_path: Path) -> None:
    home = tmp_path / ".codex"
    rows = list(_many(home, 20_000))
    with sqlite3.connect(home / "state_5.sqlite") as db:
        db.execute(
            "CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT, cwd TEXT, "
            "updated_at INTEGER, archived INTEGER DEFAULT 0)"
        )
        db.executemany(
            "INSERT INTO threads (id, rollout_path, cwd, updated_at) VALUES (?,?,?,?)",
            [(t, p, c, int(m)) for t, p, c, m in rows],
        )
    newest = {}
    for tid, _, cwd, _ in rows:
        newest[cwd] = tid  # rows are in time order: the last one per project is its newest
    project = "/src/project-7"
    accounts = [account(home)]

    started = time.perf_counter()
    first = next(ADAPTER.discover(Path(project), accounts))
    with_index = time.perf_counter() - started
    assert first.session_id == newest[project]
    assert len(list(ADAPTER.discover(Path(project), accounts))) == 20_000 // PROJECTS

    (home / "state_5.sqlite").unlink()
    started = time.perf_counter()
    first = next(ADAPTER.discover(Path(project), accounts))
    scanned = time.perf_counter() - started
    assert first.session_id == newest[project]
    print(
        f"\nnewest of 20,000 rollouts: index {with_index * 1000:.0f} ms, "
        f"scan {scanned * 1000:.0f} ms"
    )


def test_the_scan_reads_each_head_once_and_forgets_deleted_rollouts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / ".codex"
    first = rollout(home, "01a2aaaa-0000-7000-8000-000000000001", "/src/app", mtime=1_000)
    rollout(home, "01a2aaaa-0000-7000-8000-000000000002", "/src/other", mtime=2_000)
    reads: list[str] = []
    real = discovery.head_meta

    def counting(path: str) -> tuple[str | None, str | None]:
        reads.append(path)
        return real(path)

    monkeypatch.setattr(discovery, "head_meta", counting)

    assert found("/src/app", home) == ["01a2aaaa-0000-7000-8000-000000000001"]
    assert len(reads) == 2
    caches = list(Path(os.environ["HOME"], ".baker", "cache", "codex").glob("heads-*.json"))
    assert len(caches) == 1 and caches[0].stat().st_mode & 0o777 == 0o600

    newer = rollout(
        home,
        "01a2aaaa-0000-7000-8000-000000000003",
        "/src/app",
        stamp="2026-11-30T05-00-00",
        mtime=3_000,
    )
    assert found("/src/app", home) == [
        "01a2aaaa-0000-7000-8000-000000000003",
        "01a2aaaa-0000-7000-8000-000000000001",
    ]
    assert reads[2:] == [str(newer)]  # only the new rollout's head was read

    first.unlink()
    assert found("/src/app", home) == ["01a2aaaa-0000-7000-8000-000000000003"]
    cache = json.loads(caches[0].read_text())
    assert len(cache["heads"]) == 2 and cache["home"] == os.path.realpath(home)

    caches[0].write_text("{not json")  # a broken cache is only read again
    assert found("/src/app", home) == ["01a2aaaa-0000-7000-8000-000000000003"]


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="file names there are Unicode")
def test_a_folder_name_that_is_not_utf8_still_lets_the_scan_keep_its_cache(
    tmp_path: Path,
) -> None:
    """The head cache is written with the name escaped, and nothing fails; such a rollout's
    head is only read again at each scan."""
    home = tmp_path / ".codex"
    thread = "01a2aaaa-0000-7000-8000-000000000004"
    path = rollout(home, thread, "/src/app")
    odd = os.path.join(os.fsencode(path.parent), b"odd\xff")
    os.mkdir(odd)
    os.rename(os.fsencode(path), os.path.join(odd, os.fsencode(path.name)))
    assert found("/src/app", home) == [thread]
    (cache,) = Path(os.environ["HOME"], ".baker", "cache", "codex").glob("heads-*.json")
    assert "odd\\udcff" in cache.read_text()
    assert found("/src/app", home) == [thread]
