"""Every Codex rollout of every project, for the recall archive: the index first, heads last."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from continuity_codex import CodexAdapter, discovery
from continuity_core.adapters import Account
from tests.codex.helpers import ROLLOUTS, home_copy, rollout

ADAPTER = CodexAdapter()
TRUTH = {v["session_id"]: v["cwd"] for v in ROLLOUTS.values()}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return home_copy(tmp_path)


def listed(*homes: Path) -> dict[str, str | None]:
    accounts = [Account(agent="codex", name=str(h), dir=str(h)) for h in homes]
    return {r.session_id: r.cwd for r in ADAPTER.all_sessions(accounts)}


def test_every_captured_rollout_with_its_cwd(home: Path) -> None:
    assert listed(home) == TRUTH


def test_heads_are_read_only_for_rollouts_the_index_lacks(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = rollout(home, "5e551011-0000-4000-8000-000000000001", "/srv/new-project")
    read: list[str] = []
    real = discovery.head_meta

    def counting(path: str) -> tuple[str | None, str | None]:
        read.append(path)
        return real(path)

    monkeypatch.setattr(discovery, "head_meta", counting)
    found = listed(home)
    assert read == [str(extra)]
    assert found == {**TRUTH, "5e551011-0000-4000-8000-000000000001": "/srv/new-project"}


def test_without_an_index_every_head_is_read(home: Path) -> None:
    (home / "state_5.sqlite").unlink()
    assert listed(home) == TRUTH


def test_a_title_thread_without_a_rollout_is_left_out(home: Path) -> None:
    db = sqlite3.connect(home / "state_5.sqlite")
    # a copy of a real row, as Codex writes it, for a thread that never got a rollout
    db.execute("CREATE TEMP TABLE title AS SELECT * FROM threads LIMIT 1")
    db.execute(
        "UPDATE title SET id = ?, cwd = ?, rollout_path = ?",
        (
            "5e551011-0000-4000-8000-0000000000ff",
            "/srv/x",
            str(home / "sessions/2026/11/30/rollout-none.jsonl"),
        ),
    )
    db.execute("INSERT INTO threads SELECT * FROM title")
    db.commit()
    db.close()
    assert listed(home) == TRUTH


def test_archived_rollouts_and_a_second_account(home: Path, tmp_path: Path) -> None:
    second = tmp_path / "second"
    rollout(second, "5e551011-0000-4000-8000-000000000002", "/srv/old", folder="archived_sessions")
    found = listed(home, second, tmp_path / "missing")
    assert found == {**TRUTH, "5e551011-0000-4000-8000-000000000002": "/srv/old"}
