"""OpenCode end to end: the real `opencode` (opencode-ai, pinned in package.json) against a
loopback OpenAI chat-completions mock, with baker's plugin installed by `baker init`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from continuity_core import limits
from tests.e2e.flows import (
    REQUEST,
    _plain,
    assert_holds_the_brief,
    first_request,
    install,
    resume,
    source_script,
    stopped_on_a_limit,
)
from tests.e2e.harness import (
    NODE_BIN,
    OPENCODE_ENV,
    VENV_BIN,
    Agent,
    MakeAgent,
    baker,
    load_adapter,
    require_cli,
    session_id,
    wait_until,
)
from tests.e2e.mock_models import Turn, _strings, shell, todos, write
from tests.e2e.test_e2e_run import rotation

pytestmark = pytest.mark.e2e


def _checkpoint_of(project: Path, sid: str) -> dict[str, Any] | None:
    for path in sorted((project / ".baker" / "checkpoints").glob("*.json"), reverse=True):
        data = json.loads(path.read_text())
        session = data.get("session") or {}
        if session.get("session_id") == sid:
            return dict(session)
    return None


def test_the_plugin_checkpoints_after_an_opencode_run_turn(agent: MakeAgent) -> None:
    oc: Agent = agent(
        "opencode",
        [
            Turn(calls=[todos(("Write the notes", "in_progress"), ("Check them", "pending"))]),
            Turn(calls=[write("notes.txt", "first notes\n")]),
            Turn(calls=[shell("ls")]),
            Turn(text="Notes written."),
        ],
    )
    install(oc)
    assert (oc.project / ".opencode" / "plugin" / "baker-continuity.js").is_file()
    # a trap on the file the agent writes: pretool shows it after the tool's output
    assert baker(oc, "trap", "add", "notes.txt", "keep it short").returncode == 0
    sid = session_id(oc, oc.run("E2E: write the notes file").stdout)
    # session.idle starts `baker checkpoint` detached: it lands after `opencode run` exits
    assert wait_until(lambda: _checkpoint_of(oc.project, sid) is not None, 30)
    session = _checkpoint_of(oc.project, sid) or {}
    assert session["agent"] == "opencode"
    assert session["requests"] == ["E2E: write the notes file"]
    assert [t["content"] for t in session["todos"]] == ["Write the notes", "Check them"]
    assert [f["path"] for f in session["files_edited"]] == ["notes.txt"]
    main = oc.mock.main_requests
    # pickup's context went into the system prompt of the session's first turn
    system = [m for m in main[0].body["messages"] if m["role"] == "system"]
    assert len(system) >= 2 and any("Continuity" in _strings(m) for m in system[1:])
    # the trap reached the model with the write's result
    assert any("keep it short" in _strings(r.body["messages"][-1]) for r in main[2:])


def test_after_opencode_compacts_the_model_gets_what_the_summary_dropped(
    agent: MakeAgent,
) -> None:
    """A step reports the context full: OpenCode compacts by itself and goes on. Told
    `session.compacted`, baker's plugin asks for the compact pickup, and the system prompt of
    the model calls after it holds the request verbatim and the command that failed."""
    ask = "E2E: check the build, then carry on"
    oc: Agent = agent(
        "opencode",
        [
            Turn(calls=[shell("ls no-such-build-dir")]),
            Turn(calls=[shell("echo full")], input_tokens=99_000),  # of the 100,000 window
            Turn(text="Carrying on after the compaction."),
        ],
    )
    install(oc)
    oc.run(ask)
    after = [r for r in oc.mock.main_requests if "Continue if you have next steps" in r.text]
    assert after, [r.text[-300:] for r in oc.mock.main_requests]
    system = "\n".join(_strings(m) for m in after[0].body["messages"] if m["role"] == "system")
    before = system.split("## Before the compaction")[1]
    assert f"```text\n{ask}\n```" in before
    assert (
        "`ls no-such-build-dir` — failed, exit 2: ls: cannot access 'no-such-build-dir'" in before
    )


def test_an_opencode_429_continues_in_codex(agent: MakeAgent) -> None:
    """OpenCode retries the 429 (retry-after: 1) six times, gives the turn up and exits 1;
    its assistant message keeps the APIError (status 429, OpenAI's `insufficient_quota`: a
    spent quota, a usage limit): the brief says the session ended on it."""
    src: Agent = agent("opencode", source_script())
    stopped_on_a_limit(src)
    assert len(src.mock.main_requests) > 3  # the retries: the error was not taken at once
    dst: Agent = agent("codex", [Turn(text="I will confirm the plan first.")])
    text = first_request(dst, resume(dst, "codex", "--from", "opencode"), timeout=90)
    assert_holds_the_brief(text, "opencode")


def test_run_continues_in_opencode_after_claude_hits_its_limit(
    agent: MakeAgent, isolated_home: Path
) -> None:
    """`[rotation] order = ["claude", "opencode"]`: `baker run` ends Claude Code on its limit
    and starts `opencode --prompt BRIEF` in the same terminal by itself."""
    src: Agent = agent("claude", source_script())
    dst: Agent = agent("opencode", [Turn(text="I will confirm the plan first.")])
    install(src)  # the project's Claude hooks: StopFailure records the limit
    rotation(isolated_home, '["claude", "opencode"]')

    env = {**dst.env, **src.env}  # OpenCode's config folder; its launch sets PWD
    argv = [str(VENV_BIN / "baker"), "run", "--", "--dangerously-skip-permissions", REQUEST]
    tui = src.terminal(*argv, env=env)
    try:
        assert src.mock.wait_for(lambda: src.mock.played() >= 3, 90), _plain(tui.text)[-3000:]
        text = first_request(dst, tui, timeout=120)
    finally:
        tui.stop()
    assert_holds_the_brief(text, "claude")
    assert "continuing in OpenCode" in _plain(tui.text), _plain(tui.text)[-3000:]
    (recorded,) = limits.read()
    assert (recorded.agent, recorded.source) == ("claude", "hook")


def test_native_copies_an_opencode_session_into_another_account(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`baker resume opencode --native --account alt`: the real `opencode export`/`import`
    copy the captured session (its id kept) into the other account's database."""
    require_cli("opencode")
    from continuity_core.adapters import Account, LaunchOptions
    from tests.opencode.helpers import MAIN, home_copy

    data, work = home_copy(tmp_path)
    for var, value in OPENCODE_ENV.items():
        monkeypatch.setenv(var, value)
    monkeypatch.setenv("PATH", f"{NODE_BIN}{os.pathsep}{os.environ['PATH']}")
    adapter = load_adapter("opencode")
    source = [Account(agent="opencode", name="default", dir=str(data))]
    ref = next(r for r in adapter.discover(work / "proj", source) if r.session_id == MAIN)
    brief = tmp_path / "brief.md"
    brief.write_text("# Handoff brief\n")
    alt = Account(agent="opencode", name="alt", dir=str(tmp_path / "alt" / "opencode"))
    spec = adapter.launch(work / "proj", brief, LaunchOptions(native=ref, account=alt))
    assert spec.argv[:3] == ["opencode", "-s", MAIN]
    assert spec.env["XDG_DATA_HOME"] == str(tmp_path / "alt")
    copied = list(adapter.discover(work / "proj", [alt]))
    assert [r.session_id for r in copied] == [MAIN]
    here, there = adapter.read(ref).session, adapter.read(copied[0]).session
    assert there.requests == here.requests and there.todos == here.todos
    assert there.pending_calls == here.pending_calls
