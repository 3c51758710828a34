"""One choice of session everywhere (issue 19, cases 1-3), on real transcripts of the real CLIs.

The project holds the captured Claude and Codex S1 sessions (weather-cli) and a Codex retry
cut from the captured S3 rollout at its usage-limit error: a request, then the limit before any
answer. Their recorded cwd is moved to this test's repository, nothing else is changed.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from continuity_core import hooks
from tests.conftest import FIXTURES, git

pytest.importorskip("continuity_claude")  # real Claude and Codex transcripts, read by both
pytest.importorskip("continuity_codex")

from continuity_claude.discovery import project_slug
from tests.helpers.invoke import Invoke

CLAUDE_S1 = "48f0d34d-61b5-40aa-aac6-73b6722315eb"
CODEX_S1 = "01a22a99-3138-74a2-beeb-885dc8136fd9"
CODEX_S3 = "01a22a99-ac09-7a02-ae02-244879de3324"
RETRY = "01a22aff-0000-7000-8000-00000000beef"  # the failed retry's thread id
NEW_CODEX = "01a22aff-1111-7000-8000-000000000001"  # a Codex session starting now
CODEX_DAY = FIXTURES / "codex" / ".codex" / "sessions" / "2026" / "11" / "30"
CLAUDE_PROJECTS = FIXTURES / "claude" / ".claude" / "projects"


def relocated(src: Path, old_cwd: str, new_cwd: Path) -> bytes:
    return src.read_bytes().replace(old_cwd.encode(), str(new_cwd).encode())


def put(path: Path, data: bytes, mtime: float) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, (mtime, mtime))
    return path


def claude_work(home: Path, project: Path, mtime: float, folder: str = ".claude") -> Path:
    src = CLAUDE_PROJECTS / "-home-dev-src-weather-cli" / f"{CLAUDE_S1}.jsonl"
    dst = home / folder / "projects" / project_slug(os.path.realpath(project)) / src.name
    return put(dst, relocated(src, "/home/dev/src/weather-cli", project), mtime)


def codex_work(home: Path, project: Path, mtime: float) -> Path:
    name = f"rollout-2026-11-30T03-56-52-{CODEX_S1}.jsonl"
    return put(
        home / ".codex" / "sessions" / "2026" / "11" / "30" / name,
        relocated(CODEX_DAY / name, "/home/dev/src/weather-cli", project),
        mtime,
    )


def codex_failed_retry(home: Path, project: Path, mtime: float) -> Path:
    """The real S3 rollout up to its first request, then its usage-limit `task_complete`:
    what `codex exec` writes when the limit hits before any answer."""
    src = CODEX_DAY / f"rollout-2026-11-30T03-57-23-{CODEX_S3}.jsonl"
    lines = relocated(src, "/home/dev/src/invoice-parser", project).splitlines()
    kept = [*lines[:9], lines[-1]]
    assert b"usage_limit_exceeded" in kept[-1] and b'"function_call"' not in b"".join(kept)
    data = b"\n".join(kept).replace(CODEX_S3.encode(), RETRY.encode()) + b"\n"
    name = f"rollout-2026-11-30T05-10-00-{RETRY}.jsonl"
    return put(home / ".codex" / "sessions" / "2026" / "11" / "30" / name, data, mtime)


@pytest.fixture
def project(repo: Path) -> Path:
    (repo / ".baker").mkdir(mode=0o700)
    git(repo, "status")  # a repository the brief can describe
    return repo


def brief_json(cli: Invoke, *args: str) -> dict[str, Any]:
    result = cli("handoff", "--json", *args)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def source_body(data: dict[str, Any]) -> str:
    body: str = next(s["body"] for s in data["sections"] if s["key"] == "source")
    return body


def codex_session_start(project: Path, session_id: str = NEW_CODEX) -> bytes:
    payload = json.loads(
        (FIXTURES / "codex" / "hook_payloads" / "SessionStart.startup.json").read_text()
    )
    payload.update(session_id=session_id, cwd=str(project), transcript_path=None)
    return json.dumps(payload).encode()


# --- case 1: pickup in agent B after a session in agent A describes A's session -------------


def test_pickup_in_codex_describes_the_newer_claude_session(
    project: Path, isolated_home: Path, cli: Invoke
) -> None:
    codex_work(isolated_home, project, mtime=1_000_000)
    claude_work(isolated_home, project, mtime=2_000_000)
    data = brief_json(cli)
    assert "session" in data, data.get("searched")
    assert data["session"]["agent"] == "claude" and data["session"]["session_id"] == CLAUDE_S1
    out = json.loads(hooks.pickup("codex", codex_session_start(project), []))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert f"session: claude {CLAUDE_S1}" in context
    assert CODEX_S1 not in context


def test_an_agent_resume_started_is_not_told_a_second_story(
    project: Path, isolated_home: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_work(isolated_home, project, mtime=1_000_000)
    claude_work(isolated_home, project, mtime=2_000_000)
    result = cli("resume", "codex", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    launch = json.loads(result.stdout)
    env = launch["launch"]["env"]
    assert env["BAKER_BRIEF"] == launch["brief"]
    assert env["BAKER_BRIEF_SESSION"] == f"claude session {CLAUDE_S1}"
    assert not Path(launch["brief"]).exists()  # a dry run names the file, writes nothing
    brief = cli("handoff").stdout
    assert f"- session: {CLAUDE_S1}" in brief
    Path(launch["brief"]).parent.mkdir(mode=0o700)
    Path(launch["brief"]).write_text(brief)  # as the real resume leaves it
    for key, value in env.items():  # what the agent's SessionStart hook then sees
        monkeypatch.setenv(key, value)
    out = json.loads(hooks.pickup("codex", codex_session_start(project), []))
    context = out["hookSpecificOutput"]["additionalContext"]
    assert "started by `baker resume` with the handoff brief" in context
    assert f"describes claude session {CLAUDE_S1}" in context
    assert "last activity" not in context  # no second description of any session
    # After /clear the brief is gone from the model's context: the facts come back.
    payload = json.loads(codex_session_start(project))
    payload["source"] = "clear"
    out = json.loads(hooks.pickup("codex", json.dumps(payload).encode(), []))
    assert f"session: claude {CLAUDE_S1}" in out["hookSpecificOutput"]["additionalContext"]


# --- case 2: a failed retry never hides the real work ----------------------------------------


def test_a_failed_retry_is_named_and_does_not_replace_the_work(
    project: Path, isolated_home: Path, cli: Invoke
) -> None:
    claude_work(isolated_home, project, mtime=2_000_000)
    codex_failed_retry(isolated_home, project, mtime=3_000_000)
    data = brief_json(cli)
    assert data["session"]["session_id"] == CLAUDE_S1
    assert data["latest_request"] != "" and "invoice" not in data["latest_request"].lower()
    [failed] = data["failed_attempts"]
    assert failed["agent"] == "codex" and failed["session_id"] == RETRY
    assert failed["state"] == "limit" and failed["reset_at"].startswith("2026-11-30T")
    attempt = failed["summary"]
    assert (
        attempt.startswith("a retry at 2026-11-30")
        and f"in codex (~/.codex, session {RETRY})" in attempt
    )
    assert "failed: usage limit, resets at 2026-11-30T" in attempt
    assert attempt in source_body(data)
    text = cli("handoff").stdout
    assert f"- session: {CLAUDE_S1}" in text and f"session {RETRY}) failed: usage limit" in text
    # The SessionStart pickup of a new Claude session, and `now`/`usage`, choose the same way.
    out = hooks.pickup(None, json.dumps({"session_id": "x", "cwd": str(project)}).encode(), [])
    assert f"session: claude {CLAUDE_S1}" in out and f"session {RETRY}) failed" in out
    usage = json.loads(cli("usage", "--json").stdout)
    assert usage["session_id"] == CLAUDE_S1
    facts = json.loads(cli("facts", "--json").stdout)
    assert facts["front_matter"]["session"] == CLAUDE_S1


def test_sessions_lists_both_with_their_state_and_the_reset(
    project: Path, isolated_home: Path, cli: Invoke
) -> None:
    claude_work(isolated_home, project, mtime=2_000_000)
    codex_work(isolated_home, project, mtime=1_000_000)
    codex_failed_retry(isolated_home, project, mtime=3_000_000)
    result = cli("sessions", "--json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["sessions"]
    # listed by their own last activity (03:57, 03:56:59, 03:56:04), whatever their files'
    # times; the brief's choice goes by the files' (the Claude session, newer than Codex's)
    assert [(r["agent"], r["id"]) for r in rows] == [
        ("codex", RETRY),
        ("codex", CODEX_S1),
        ("claude", CLAUDE_S1),
    ]
    retry, older, work = rows
    assert retry["state"] == "limit" and retry["did_work"] is False
    assert retry["reset_at"].startswith("2026-11-30T") and not retry["chosen"]
    assert work["state"] == "did work" and work["chosen"] and work["requests"] == 1
    assert older["state"] == "did work" and not older["chosen"]
    assert work["started"] and work["size"] > 0 and work["account"] == "~/.claude"
    text = cli("sessions", "--limit", "2").stdout
    assert "* claude" in text and "limit (resets 2026-11-30T" in text
    assert "1 older (--limit)" in text
    # The ids it shows are what --session takes: an explicit choice is taken as it is.
    picked = brief_json(cli, "--session", RETRY[:18])
    assert picked["session"]["session_id"] == RETRY and picked["ended_on_limit"]


# --- case 3: the source account and the other filters are honoured --------------------------


def test_an_unknown_account_exits_1_listing_what_exists(
    project: Path, isolated_home: Path, cli: Invoke
) -> None:
    codex_work(isolated_home, project, mtime=1_000_000)
    result = cli("handoff", "--account", "nope")
    assert result.exit_code == 1
    assert "no account 'nope' is known" in result.output
    assert f"codex  ~/.codex  {CODEX_S1}" in result.output
    result = cli("resume", "claude", "--from-account", "nope", "--dry-run")
    assert result.exit_code == 1 and "no account 'nope' is known" in result.output


def test_an_account_with_no_sessions_exits_1_and_a_folder_path_is_an_account(
    project: Path, isolated_home: Path, cli: Invoke
) -> None:
    (isolated_home / ".baker").mkdir()
    (isolated_home / ".claude-work").mkdir()
    (isolated_home / ".baker" / "config.toml").write_text(
        '[accounts.work]\nagent = "claude"\ndir = "~/.claude-work"\n'
    )
    codex_work(isolated_home, project, mtime=1_000_000)
    assert cli("checkpoint").exit_code == 0  # it keeps the Codex session: never a stand-in here
    result = cli("handoff", "--account", "work")
    assert result.exit_code == 1, result.output
    assert "nothing matches account 'work'" in result.output
    assert str(isolated_home / ".claude-work") in result.output
    assert f"codex  ~/.codex  {CODEX_S1}" in result.output  # what exists instead
    assert cli("handoff", "--json", "--account", "work").exit_code == 1
    claude_work(isolated_home, project, mtime=2_000_000, folder=".claude-work")
    by_name = brief_json(cli, "--account", "work")
    by_path = brief_json(cli, "--account", str(isolated_home / ".claude-work"))
    assert by_name["session"]["session_id"] == by_path["session"]["session_id"] == CLAUDE_S1
    # the source filter is not the launch account: --account still names where to start
    result = cli(
        "resume", "codex", "--from-account", "work", "--account", "~/.codex", "--dry-run", "--json"
    )
    assert result.exit_code == 0, result.output
    assert (
        f"claude session {CLAUDE_S1}"
        in json.loads(result.stdout)["launch"]["env"]["BAKER_BRIEF_SESSION"]
    )


def test_from_and_session_fail_clearly(project: Path, isolated_home: Path, cli: Invoke) -> None:
    codex_work(isolated_home, project, mtime=1_000_000)
    result = cli("handoff", "--from", "claude")
    assert result.exit_code == 1 and "nothing matches --from claude" in result.output
    assert f"codex  ~/.codex  {CODEX_S1}" in result.output  # listed from every agent
    result = cli("handoff", "--session", "ffff0000")
    assert result.exit_code == 1 and "--session ffff0000" in result.output
    # the session's own last activity, as `baker sessions` shows it, not the file's time
    last = json.loads(cli("sessions", "--json").stdout)["sessions"][0]["last_activity"]
    assert last.startswith("2026-11-30T")
    assert f"{CODEX_S1}  last {last}" in result.output


def test_a_dry_run_warns_when_the_agent_is_not_on_path(
    project: Path, isolated_home: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_work(isolated_home, project, mtime=1_000_000)
    empty = isolated_home / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = cli("resume", "claude", "--dry-run")
    assert result.exit_code == 0, result.output
    warning = "warning: `claude` is not on PATH: install Claude Code first"
    assert warning in result.stderr and warning not in result.stdout
    assert "run: claude" in result.stdout
    (empty / "claude").write_text("#!/bin/sh\n")
    (empty / "claude").chmod(0o755)
    assert "not on PATH" not in cli("resume", "claude", "--dry-run").stderr


def test_json_and_text_name_the_same_session_from_a_checkpoint(
    project: Path, isolated_home: Path, cli: Invoke
) -> None:
    path = claude_work(isolated_home, project, mtime=2_000_000)
    assert cli("checkpoint").exit_code == 0
    path.unlink()  # the transcript is gone; the checkpoint kept its facts
    data = brief_json(cli)
    assert data["session"]["session_id"] == CLAUDE_S1
    assert f"- session: {CLAUDE_S1}" in cli("handoff").stdout
    # it stands in for a filter it matches, and only for one it matches
    assert (
        brief_json(cli, "--from", "claude", "--account", "~/.claude")["session"]["session_id"]
        == CLAUDE_S1
    )
    assert cli("handoff", "--from", "codex").exit_code == 1
    assert cli("handoff", "--account", "~/.codex").exit_code == 1


def test_agent_names_the_writer_and_never_narrows_the_session(
    project: Path, isolated_home: Path, cli: Invoke
) -> None:
    codex_work(isolated_home, project, mtime=1_000_000)
    claude_work(isolated_home, project, mtime=2_000_000)
    assert cli("now", "--agent", "codex", "Document the helper in README.md").exit_code == 0
    shown = json.loads(cli("now", "--agent", "codex", "--json").stdout)
    assert shown["checked"] and shown["session"] == CLAUDE_S1  # the one rule, not codex's own
    assert "codex" in (project / "memory" / "hot.md").read_text()  # recorded as the writer


def test_an_empty_account_is_no_account_not_the_current_folder(
    project: Path, isolated_home: Path, cli: Invoke
) -> None:
    """`--account "$ACCOUNT"` with the variable unset: an error, not the project read as a
    config folder of every agent."""
    codex_work(isolated_home, project, mtime=1_000_000)
    for args in (
        ("sessions", "--account", ""),
        ("handoff", "--account", " "),
        ("resume", "codex", "--from-account", "", "--dry-run"),
    ):
        result = cli(*args)
        assert result.exit_code == 1, (args, result.output)
        assert "is known" in result.output and str(project) + ";" not in result.output


def test_usage_agent_narrows_the_live_session(
    project: Path, isolated_home: Path, cli: Invoke
) -> None:
    """`baker usage --agent claude` measures Claude's newest session, not the newer Codex one,
    and a name no adapter has is said, not ignored."""
    claude_work(isolated_home, project, mtime=1_000_000)
    codex_work(isolated_home, project, mtime=2_000_000)

    def measured(*args: str) -> dict[str, Any]:
        result = cli("usage", "--json", *args)
        assert result.exit_code == 0, result.output
        found: dict[str, Any] = json.loads(result.stdout)
        return found

    assert measured()["session_id"] == CODEX_S1
    assert measured("--agent", "claude")["session_id"] == CLAUDE_S1
    typo = measured("--agent", "claud")
    assert typo["level"] == "unknown" and "no adapter named 'claud'" in typo["reason"]
    none = measured("--agent", "gemini")
    assert none["level"] == "unknown" and "nothing matches --from gemini" in none["reason"]


# --- a folder that is no project: its own sessions only, never a project's below it ----------


def test_a_plain_parent_folder_does_not_take_the_session_of_a_project_below(
    tmp_path: Path, isolated_home: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cd / && baker sessions` or `cd /tmp && baker handoff`: no git repository and no
    .baker/ there, so a session started in `/tmp/…/app` is app's, and the message says where."""
    top = tmp_path / "top"
    app = top / "x" / "app"
    app.mkdir(parents=True)
    codex_work(isolated_home, app, mtime=1_000_000)
    claude_work(isolated_home, app, mtime=2_000_000)
    monkeypatch.chdir(top)
    result = cli("sessions", "--json")
    assert result.exit_code == 0, result.output
    listed = json.loads(result.stdout)
    assert listed["sessions"] == [] and listed["elsewhere"] == [os.path.realpath(app)]
    text = cli("sessions").stdout
    assert f"No sessions of {top}" in text and "is not a project" in text
    assert f"sessions below it exist in {os.path.realpath(app)}" in text
    data = brief_json(cli)
    assert data["session"] is None
    assert f"below it exist in {os.path.realpath(app)}" in source_body(data)
    assert CODEX_S1 not in json.dumps(data) and CLAUDE_S1 not in json.dumps(data)
    result = cli("resume", "codex", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert CLAUDE_S1 not in result.stdout and CODEX_S1 not in result.stdout
    usage = json.loads(cli("usage", "--json").stdout)
    assert usage.get("session_id") is None and str(os.path.realpath(app)) in usage["reason"]
    # run where it was started, the same folder (still no repository) is the project
    monkeypatch.chdir(app)
    assert brief_json(cli)["session"]["session_id"] == CLAUDE_S1


def test_a_plain_folder_an_agent_ran_in_keeps_its_own_session(
    tmp_path: Path, isolated_home: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = tmp_path / "notes"
    (top / "sub").mkdir(parents=True)
    codex_work(isolated_home, top, mtime=1_000_000)
    claude_work(isolated_home, top / "sub", mtime=2_000_000)  # below: another folder's
    monkeypatch.chdir(top)
    rows = json.loads(cli("sessions", "--json").stdout)["sessions"]
    assert [(r["agent"], r["id"], r["chosen"]) for r in rows] == [("codex", CODEX_S1, True)]
    assert brief_json(cli)["session"]["session_id"] == CODEX_S1


def test_a_repository_keeps_the_sessions_of_its_subfolders(
    project: Path, isolated_home: Path, cli: Invoke
) -> None:
    sub = project / "pkg" / "lib"
    sub.mkdir(parents=True)
    claude_work(isolated_home, sub, mtime=2_000_000)
    codex_work(isolated_home, project, mtime=1_000_000)
    rows = json.loads(cli("sessions", "--json").stdout)["sessions"]
    # Codex's is listed first, its own last activity the newer; Claude's file is the newer
    assert [(r["agent"], r["chosen"]) for r in rows] == [("codex", False), ("claude", True)]
    assert brief_json(cli)["session"]["session_id"] == CLAUDE_S1
    # without .baker/ too: the git work tree alone makes it a project
    shutil.rmtree(project / ".baker")
    assert brief_json(cli)["session"]["session_id"] == CLAUDE_S1
