"""`baker recall` over OpenCode: a session is rows of one database (`<db>#<session id>`), which
the archive reads through `Adapter.session_records`, not as a file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from continuity_core.archive import Archive, refresh
from continuity_core.schemas.config import GlobalConfig
from continuity_opencode import OpenCodeAdapter
from tests.helpers.invoke import Invoke
from tests.opencode.helpers import LIMITED, MAIN, home_copy, legacy_tree

ADAPTERS = {"opencode": OpenCodeAdapter()}


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data, _ = home_copy(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(data.parent))
    return data


def _index(archive: Archive) -> int:
    return refresh(archive, None, adapters=ADAPTERS, config=GlobalConfig()).indexed


def test_recall_finds_requests_and_tool_output_of_opencode_sessions(
    data: Path, tmp_path: Path
) -> None:
    with Archive(tmp_path / "archive.sqlite") as archive:
        assert _index(archive) >= 3  # every top-level session of every project
        (hit,) = archive.search("slow build")  # a request of the main session
        assert (hit.agent, hit.session_id, hit.kind) == ("opencode", MAIN, "transcript")
        assert hit.path == f"{data / 'opencode.db'}#{MAIN}"
        assert hit.project is not None and hit.project.endswith("/proj")
        assert hit.time is not None and hit.time.startswith("20")
        # a tool's command and the rate-limit error of another session are text too
        assert [h.session_id for h in archive.search("sleep 120")] == [MAIN]
        assert LIMITED in [h.session_id for h in archive.search("Rate limit reached")]
        rows = archive.counts()

        # unchanged: nothing read again; a session that moved is re-read whole, not doubled
        assert _index(archive) == 0
        conn = sqlite3.connect(data / "opencode.db")
        conn.execute("UPDATE session SET time_updated = time_updated + 1 WHERE id = ?", (MAIN,))
        conn.commit()
        conn.close()
        assert _index(archive) == 1
        assert archive.counts() == rows
        assert archive.search("slow build")[0].matches == hit.matches


def test_recall_reads_the_legacy_storage_tree(data: Path, tmp_path: Path) -> None:
    legacy_tree(data / "opencode.db", data)
    (data / "opencode.db").unlink()
    with Archive(tmp_path / "archive.sqlite") as archive:
        assert _index(archive) >= 3
        (hit,) = archive.search("slow build")
        assert hit.session_id == MAIN and hit.path.endswith(f"{MAIN}.json")


def test_baker_recall_all_projects_json(
    data: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BAKER_ADAPTERS", "opencode")
    result = cli("recall", "long", "check", "--all-projects", "--json")
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert [(h["agent"], h["session_id"]) for h in hits] == [("opencode", MAIN)]
