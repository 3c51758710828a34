"""`baker recall` and `baker audit` as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_core.schemas.checkpoint import Checkpoint
from continuity_core.schemas.session import Message, Session
from continuity_core.stamps import new_id
from continuity_core.store import Store
from tests.conftest import copy_tree
from tests.helpers.invoke import Invoke


@pytest.fixture
def project(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An initialised project with one checkpoint, and no agent adapters in play."""
    monkeypatch.setenv("BAKER_ADAPTERS", "")
    store = Store(repo)
    session = Session(
        agent="claude",
        session_id="5e55-10n",
        requests=["Shard the queue workers"],
        messages=[
            Message(
                role="assistant",
                text="Split workers by tenant hash; "
                "the token is ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6",
            )
        ],
    )
    store.write_checkpoint(
        Checkpoint(id=new_id(), created_at="2026-11-30T05:00:00Z", session=session)
    )
    return repo


def test_help(cli: Invoke) -> None:
    assert "--all-projects" in cli("recall", "--help").output
    assert "DAYS" in cli("audit", "--help").output


def test_recall_json_has_what_a_tool_needs(cli: Invoke, project: Path) -> None:
    result = cli("recall", "tenant", "hash", "--json")
    assert result.exit_code == 0, result.output
    [hit] = json.loads(result.output)
    assert (hit["agent"], hit["session_id"], hit["kind"]) == ("claude", "5e55-10n", "checkpoint")
    assert hit["project"] == str(project) and hit["time"] == "2026-11-30T05:00:00Z"
    assert "«tenant» «hash»" in hit["snippet"] and "ghp_FAKE" not in result.output
    assert hit["open"] == "baker recall --show 5e55-10n"


def test_recall_for_people_and_the_empty_answer(cli: Invoke, project: Path) -> None:
    out = cli("recall", "queue").output
    assert "claude · 5e55-10n (checkpoint)" in out and "→ baker recall --show 5e55-10n" in out
    out = cli("recall", "kubernetes").output
    assert "No archived session" in out and "--all-projects" in out


def test_show_and_forget(cli: Invoke, project: Path) -> None:
    cli("recall", "--index")
    shown = cli("recall", "--show", "5e55")
    assert "Shard the queue workers" in shown.output and "[REDACTED]" in shown.output
    assert "Forgot session 5e55-10n" in cli("recall", "--forget", "5e55").output
    assert json.loads(cli("recall", "queue", "--json").output) == []
    missing = cli("recall", "--show", "nope")
    assert missing.exit_code == 1 and "no archived session matches 'nope'" in missing.output


def test_a_rebuilt_archive_is_said_once(cli: Invoke, project: Path) -> None:
    from continuity_core import archive as archive_mod

    cli("recall", "--index")
    archive_mod.db_path().write_bytes(b"this is not a database" * 500)
    result = cli("recall", "queue")
    assert result.exit_code == 0 and "5e55-10n" in result.output, result.output
    assert result.output.count("the recall archive was unreadable") == 1, result.output
    assert "unreadable" not in cli("recall", "queue").output  # said once, not again
    archive_mod.db_path().write_bytes(b"this is not a database" * 500)
    refused = cli("recall")  # a usage error after the rebuild still says it
    assert refused.exit_code == 2 and refused.output.count("was unreadable") == 1, refused.output


def test_recall_needs_words(cli: Invoke, project: Path) -> None:
    result = cli("recall")
    assert result.exit_code == 2 and "give words to search for" in result.output


def test_index_reports_and_is_incremental(cli: Invoke, project: Path) -> None:
    first = json.loads(cli("recall", "--index", "--json").output)
    assert first["indexed"] == 1 and first["rows"] == 1
    again = json.loads(cli("recall", "--index", "--json").output)
    assert again["indexed"] == 0 and again["sources"] == 1


def test_recall_all_projects_finds_other_projects_sessions_of_every_agent(
    cli: Invoke, repo: Path, fixtures: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("continuity_claude")
    pytest.importorskip("continuity_codex")
    pytest.importorskip("continuity_gemini")
    copy_tree(fixtures / "claude" / ".claude", isolated_home / ".claude")
    codex = copy_tree(fixtures / "codex" / ".codex", isolated_home / "codex-home")
    copy_tree(fixtures / "gemini" / ".gemini", isolated_home / ".gemini")
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("BAKER_ADAPTERS", "claude,codex,gemini")
    # the scratch repo has no sessions: only --all-projects reaches the captured chat-server
    assert json.loads(cli("recall", "pagination", "--json").output) == []
    result = cli("recall", "pagination", "--all-projects", "--json")
    assert result.exit_code == 0, result.output
    hits = {h["agent"]: h for h in json.loads(result.output)}
    assert set(hits) == {"claude", "codex", "gemini"}
    assert {h["project"] for h in hits.values()} == {"/home/dev/src/chat-server"}
    assert hits["claude"]["session_id"] == "d6782a42-5c90-4a01-9811-8946dd346920"


def test_audit_reports_hook_failures(cli: Invoke, project: Path) -> None:
    Store(project).log("hook_error", command="pickup", error="ValueError: boom", where="x.py:1")
    data = json.loads(cli("audit", "3", "--json").output)
    assert data["healthy"] is False and data["days"] == 3
    assert data["events"] == {"hook_error": 1}
    assert data["problems"][0]["check"] == "hooks"
    out = cli("audit").output
    assert "✗ [hooks] `baker pickup` error 1×" in out and "ValueError: boom" in out


def test_audit_of_a_healthy_project(cli: Invoke, project: Path) -> None:
    result = cli("audit")
    assert result.exit_code == 0 and "healthy" in result.output


def test_progress_bar_only_for_long_runs_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import contextlib
    import io

    from continuity_cli.commands import archive as commands

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    err = Tty()
    monkeypatch.setattr("sys.stderr", err)
    with contextlib.ExitStack() as stack:
        assert commands._progress(stack)([(None, 1000)]) is None
        tick = commands._progress(stack)([(None, commands.PROGRESS_BYTES)])
        tick(commands.PROGRESS_BYTES)
    assert "Indexing 1 files" in err.getvalue() and "100%" in err.getvalue()
    monkeypatch.setattr("sys.stderr", io.StringIO())
    with contextlib.ExitStack() as stack:
        assert commands._progress(stack)([(None, commands.PROGRESS_BYTES * 4)]) is None
