"""What the agents' release notes announced, through the real CLIs and baker's hooks.

Gemini CLI rotates the session id on a model fallback; Codex has `codex archive` (an archived
thread cannot be resumed) and `codex exec fork`. Each is captured as fixtures too
(`scripts/capture.py`: Gemini S9, Codex S10 and S11); here the pinned CLIs run them live, so
the canary notices when a release changes them.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.harness import Agent, MakeAgent, baker, session_id, transcript_files
from tests.e2e.mock_models import GeminiFallbackMock, Turn, shell, todos, write

pytestmark = pytest.mark.e2e

PLAN = [("Write slug() in slug.py", "in_progress"), ("Run it", "pending")]
FIRST = "Add a slug() helper in slug.py."


def codex_first_turn(a: Agent) -> str:
    """One finished Codex thread: a plan and a new file; its id."""
    return session_id(a, a.run(FIRST).stdout)


def codex_script() -> list[Turn]:
    return [
        Turn(calls=[todos(*PLAN)]),
        Turn(calls=[write("slug.py", "def slug(s):\n    return s.lower()\n")]),
        Turn(text="Wrote slug.py."),
    ]


def test_codex_fork_is_its_own_session_with_its_parents_history(agent: MakeAgent) -> None:
    a: Agent = agent(
        "codex",
        [
            *codex_script(),
            Turn(calls=[shell("python3 -c 'print(1)'")]),
            Turn(text="Ran it from the fork."),
        ],
    )
    assert baker(a, "init").returncode == 0
    parent = codex_first_turn(a)
    forked = a.cli(
        "codex",
        "exec",
        "fork",
        parent,
        "--skip-git-repo-check",
        "--json",
        "--dangerously-bypass-approvals-and-sandbox",
        "Now run it in a fork.",
    )
    fork = session_id(a, forked.stdout)
    assert fork != parent
    listed = json.loads(baker(a, "sessions", "--json").stdout)["sessions"]
    assert [(s["id"], s["forked_from"], s["chosen"]) for s in listed] == [
        (fork, parent, True),
        (parent, None, False),
    ]
    brief = baker(a, "handoff", "--from", "codex").stdout
    assert f"- session: {fork}" in brief and f"forked from session {parent}" in brief
    assert FIRST in brief and "Now run it in a fork." in brief  # both parts
    assert "slug.py" in brief and PLAN[0][0] in brief  # the parent's edit and plan


def test_codex_fork_resumed_natively_in_another_account_brings_its_parent(
    agent: MakeAgent, tmp_path: Path
) -> None:
    """Codex resumes a fork only with its parent's rollout ("missing source rollout"): `baker
    resume codex --native --account OTHER` copies both, and Codex there sees the whole thread."""
    a: Agent = agent("codex", [*codex_script(), Turn(text="Forked."), Turn(text="Resumed.")])
    assert baker(a, "init").returncode == 0
    parent = codex_first_turn(a)
    fork = session_id(
        a,
        a.cli(
            "codex",
            "exec",
            "fork",
            parent,
            "--skip-git-repo-check",
            "--json",
            "--dangerously-bypass-approvals-and-sandbox",
            "Now run it in a fork.",
        ).stdout,
    )
    other = a.config_dir.parent / "codex-other"
    other.mkdir()
    for f in a.config_dir.iterdir():  # the account's own settings and login, not its threads
        if f.is_file() and not f.name.startswith(("state_", "logs_")):
            shutil.copy2(f, other / f.name)
    stub = tmp_path / "bin"  # `baker resume` ends by exec'ing codex: here a no-op
    stub.mkdir()
    (stub / "codex").write_text("#!/bin/sh\nexit 0\n")
    (stub / "codex").chmod(0o755)
    done = baker(
        a,
        "resume",
        "codex",
        "--native",
        "--session",
        fork,
        "--account",
        str(other),
        env={"PATH": f"{stub}:{a.env['PATH']}"},
    )
    assert done.returncode == 0, done.stderr
    resumed = subprocess.run(
        [
            "codex",
            "exec",
            "--skip-git-repo-check",
            "--json",
            "--dangerously-bypass-approvals-and-sandbox",
            "resume",
            fork,
            "Go on.",
        ],
        cwd=a.project,
        env={**a.env, "CODEX_HOME": str(other)},
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    last = a.mock.main_requests[-1].text
    assert FIRST in last and "Now run it in a fork." in last and "Go on." in last


def test_codex_archived_thread_is_briefed_but_not_resumed_natively(agent: MakeAgent) -> None:
    a: Agent = agent("codex", codex_script())
    assert baker(a, "init").returncode == 0
    thread = codex_first_turn(a)
    assert "Archived session" in a.cli("codex", "archive", thread).stdout
    again = a.cli("codex", "exec", "--skip-git-repo-check", "resume", thread, "Go on.", check=False)
    assert again.returncode != 0 and f"codex unarchive {thread}" in again.stderr
    [row] = json.loads(baker(a, "sessions", "--json").stdout)["sessions"]
    assert row["id"] == thread and row["archived"] and "/archived_sessions/" in row["path"]
    brief = baker(a, "handoff", "--from", "codex").stdout
    assert FIRST in brief and "slug.py" in brief and "archived by the agent" in brief
    refused = baker(a, "resume", "codex", "--native", "--dry-run")
    assert f"codex unarchive {thread}" in refused.stdout + refused.stderr
    refused = baker(a, "resume", "codex", "--native")
    assert refused.returncode == 1 and f"codex unarchive {thread}" in refused.stderr


def test_gemini_fallback_checkpoints_under_the_chat_files_id(agent: MakeAgent) -> None:
    script = [
        Turn(calls=[write("greet.py", "def greet():\n    return 'hi'\n")]),
        # flash-lite's quota ends here: Gemini CLI goes on with flash and a new id
        Turn(calls=[shell("ls")]),
        Turn(text="Added greet()."),
    ]
    a: Agent = agent("gemini")
    a.mock.stop()
    a.mock = GeminiFallbackMock(script, root=a.project).start()
    try:
        a.env["GOOGLE_GEMINI_BASE_URL"] = a.mock.url
        assert baker(a, "init").returncode == 0
        out = a.cli(
            "gemini",
            "-p",
            "Add greet() in greet.py.",
            "-o",
            "json",
            "--yolo",
            "-m",
            "gemini-3.1-flash-lite",
        )
        printed = session_id(a, out.stdout)
        [chat] = transcript_files(a)
        own = json.loads(chat.read_bytes().split(b"\n", 1)[0])["sessionId"]
        models = [
            json.loads(line).get("model")
            for line in chat.read_text().splitlines()
            if '"type":"gemini"' in line
        ]
        assert len(set(models)) == 2, models  # it did fall back
        assert printed != own  # -o json (and every later hook) carries a new id
        checkpoints = sorted((a.project / ".baker" / "checkpoints").glob("*.json"))
        assert checkpoints, "no checkpoint after the turn"
        session = json.loads(checkpoints[-1].read_text())["session"]
        assert session["session_id"] == own  # not the id the hooks carried after the fallback
        assert session["requests"] == ["Add greet() in greet.py."]
        listed = json.loads(baker(a, "sessions", "--json").stdout)["sessions"]
        assert [s["id"] for s in listed] == [own]
        resumed = a.cli(
            "gemini", "-p", "Go on.", "-o", "json", "--yolo", "--resume", printed, check=False
        )
        assert resumed.returncode != 0  # the printed id is no session Gemini CLI knows
    finally:
        a.mock.stop()
