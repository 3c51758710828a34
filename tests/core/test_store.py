from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from continuity_core.errors import NotAProject, StoreError
from continuity_core.fs import atomic_write, ensure_private_dir
from continuity_core.schemas.checkpoint import Checkpoint
from continuity_core.stamps import new_id
from continuity_core.store import Store, decode_document, project_root, project_root_for_init
from continuity_core.transcript import NoState


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def make_store(root: Path) -> Store:
    ensure_private_dir(root / ".baker")
    return Store(root)


def test_project_is_found_from_a_subfolder_and_stops_at_git(repo: Path) -> None:
    sub = repo / "a" / "b"
    sub.mkdir(parents=True)
    assert project_root(sub) is None
    make_store(repo)
    assert project_root(sub) == str(repo)
    nested = sub / "nested"
    nested.mkdir()
    (nested / ".git").mkdir()
    assert project_root(nested) is None
    assert project_root_for_init(sub) == repo


def test_here_outside_a_project_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(NotAProject, match="baker init"):
        Store.here(tmp_path)


def test_private_modes(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    cp = Checkpoint(id=new_id(), created_at="2026-11-30T00:00:00Z")
    path = Path(store.write_checkpoint(cp))
    assert mode(store.path()) == 0o700
    assert mode(path.parent) == 0o700
    assert mode(path) == 0o600


def test_retention_keeps_the_newest(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    ids = []
    for _ in range(25):
        cp = Checkpoint(id=new_id(), created_at="t")
        store.write_checkpoint(cp)
        ids.append(cp.id)
    kept = [p.stem for p in store.checkpoint_paths()]
    assert kept == sorted(ids, reverse=True)[:20]
    latest = store.latest_checkpoint()
    assert latest is not None and latest.id == ids[-1]
    assert not list(store.path("checkpoints").glob("*.tmp"))


def test_corrupt_newest_checkpoint_is_skipped_not_lost(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    good = Checkpoint(id="20260101T000000000000Z-aaaaaa", created_at="t")
    store.write_checkpoint(good)
    bad = store.path("checkpoints") / "20991231T000000000000Z-ffffff.json"
    bad.write_text("{not json")
    latest = store.latest_checkpoint()
    assert latest is not None and latest.id == good.id
    assert bad.exists()
    with pytest.raises(StoreError, match="corrupt"):
        decode_document(bad.read_bytes(), Checkpoint, bad)


def test_future_schema_version_is_refused_by_name(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    path = store.path("checkpoints") / "x.json"
    ensure_private_dir(path.parent)
    path.write_text('{"schema_version": 99, "id": "x", "created_at": "t"}')
    with pytest.raises(StoreError, match="update baker"):
        decode_document(path.read_bytes(), Checkpoint, path)


def test_unknown_fields_are_tolerated(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    path = store.path("c.json")
    path.write_text('{"id": "x", "created_at": "t", "from_the_future": [1, 2]}')
    assert decode_document(path.read_bytes(), Checkpoint, path).id == "x"


def test_lock_held_elsewhere_is_a_readable_error(tmp_path: Path) -> None:
    import subprocess
    import sys

    store = make_store(tmp_path)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; "
            "from continuity_core.store import Store\n"
            "with Store(Path(sys.argv[1])).lock():\n print('held', flush=True); sys.stdin.read()",
            str(tmp_path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(StoreError, match="held by another process"), store.lock(timeout=0.1):
            pass
    finally:
        holder.communicate("")
    with store.lock(timeout=1):  # released when its holder ended
        pass


def test_atomic_write_keeps_existing_mode_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_text("old")
    target.chmod(0o644)
    atomic_write(target, "new")
    assert target.read_text() == "new"
    assert mode(target) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores folder permissions")
def test_read_only_folder_fails_cleanly(tmp_path: Path) -> None:  # pragma: no cover - non-root
    folder = tmp_path / "ro"
    folder.mkdir()
    (folder / "f").write_text("kept")
    folder.chmod(0o500)
    try:
        with pytest.raises(OSError):
            atomic_write(folder / "f", "new")
        assert (folder / "f").read_text() == "kept"
    finally:
        folder.chmod(0o700)


def test_cursor_round_trip_and_garbage(tmp_path: Path) -> None:
    from continuity_core.schemas.session import Session
    from continuity_core.transcript import Cursor

    store = make_store(tmp_path)
    cur = Cursor(
        path="/x.jsonl", offset=10, session=Session(agent="a", session_id="s"), state=NoState()
    )
    store.save_cursor("a", "/x.jsonl", cur)
    loaded = store.load_cursor("a", "/x.jsonl", Cursor)
    assert loaded is not None and loaded.offset == 10
    path = Path(store.cursor_path("a", "/x.jsonl"))
    written = path.stat().st_ino
    store.save_cursor("a", "/x.jsonl", loaded)  # nothing new read: the file is left alone
    assert path.stat().st_ino == written
    loaded.offset = 20
    store.save_cursor("a", "/x.jsonl", loaded)
    assert path.stat().st_ino != written
    reloaded = store.load_cursor("a", "/x.jsonl", Cursor)
    assert reloaded is not None and reloaded.offset == 20
    path.write_bytes(b"garbage")
    assert store.load_cursor("a", "/x.jsonl", Cursor) is None


def test_a_cursor_written_as_json_removes_the_msgpack_one_of_0_1_0(tmp_path: Path) -> None:
    from continuity_core.schemas.session import Session
    from continuity_core.transcript import Cursor

    store = make_store(tmp_path)
    path = Path(store.cursor_path("a", "/x.jsonl"))
    path.parent.mkdir(mode=0o700, exist_ok=True)
    old = path.with_suffix(".msgpack")
    old.write_bytes(b"\x81\xa4path\xa8/x.jsonl")  # what 0.1.0 kept for the same transcript
    other = path.with_name("b-0123456789abcdef.msgpack")  # another transcript's: left alone
    other.write_bytes(b"\x80")
    store.save_cursor(
        "a",
        "/x.jsonl",
        Cursor(path="/x.jsonl", session=Session(agent="a", session_id="s"), state=NoState()),
    )
    assert path.exists() and not old.exists() and other.exists()


def test_log_is_redacted_and_appended(tmp_path: Path) -> None:
    store = make_store(tmp_path)
    store.log("hook_error", error="token ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6 failed")
    try:
        raise ValueError("boom")
    except ValueError as e:
        store.log_exception("checkpoint", e)
    lines = store.path("log", "events.jsonl").read_text().splitlines()
    assert len(lines) == 2
    assert "ghp_" not in lines[0]
    assert '"ValueError: boom"' in lines[1]


def test_scratch_writes_skip_fsync_but_stay_atomic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    monkeypatch.setattr(os, "fsync", synced.append)
    path = tmp_path / "seen.json"
    atomic_write(path, b"[1]", durable=False)
    assert synced == [] and path.read_bytes() == b"[1]"
    atomic_write(path, b"[1,2]")
    assert len(synced) == 2 and path.read_bytes() == b"[1,2]"  # the file and its folder
    assert [p.name for p in tmp_path.iterdir()] == ["seen.json"]
