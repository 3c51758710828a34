"""The harness proves itself: each real CLI completes a scripted turn with tool calls, headless
and in a pseudo-terminal, and leaves its transcript where the adapter's discovery finds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.harness import (
    Agent,
    MakeAgent,
    discovered,
    newest_session,
    session_id,
    transcript_files,
)
from tests.e2e.mock_models import Turn, shell, todos, write

pytestmark = pytest.mark.e2e

AGENTS = ["claude", "codex", "gemini"]
PROMPT = "E2E: run the shell check, then write hello.txt"
# The command prints what its own text does not contain: seeing it proves the result went back.
COMMAND, OUTPUT = "printf 'e2e-%d\\n' 42", "e2e-42"


TODOS = (("Run the shell check", "in_progress"), ("Write hello.txt", "pending"))


def script() -> list[Turn]:
    return [
        Turn(calls=[shell(COMMAND)]),
        Turn(calls=[write("hello.txt", "hello from the mock\n")]),
        Turn(text="All done: hello.txt written."),
    ]


@pytest.mark.parametrize("name", AGENTS)
def test_headless_turn_with_tool_calls(
    name: str, agent: MakeAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    a: Agent = agent(name, script())
    proc = a.run(PROMPT)

    # What reached the model: the prompt first, then each tool's result in the next request.
    reqs = a.mock.main_requests
    assert len(reqs) == 3, [r.path for r in reqs]
    assert a.mock.sent(PROMPT)[0] is reqs[0]
    assert OUTPUT not in reqs[0].text
    assert OUTPUT in reqs[1].text
    assert "hello.txt" in reqs[2].text
    assert (a.project / "hello.txt").read_text() == "hello from the mock\n"

    # The transcript is where the formats file says, and discovery finds exactly it.
    sid = session_id(a, proc.stdout)
    files = [f for f in transcript_files(a) if sid in f.name or sid[:8] in f.name]
    assert len(files) == 1, transcript_files(a)
    assert PROMPT in files[0].read_text()
    refs = discovered(a, monkeypatch)
    assert refs, f"{name} discovery found nothing for {a.project}"
    assert Path(refs[0].path).resolve() == files[0].resolve()
    assert refs[0].session_id == sid

    # What the adapter reads back from the real transcript.
    session = newest_session(a, monkeypatch)
    assert session.requests == [PROMPT]
    assert any(c.output and OUTPUT in c.output for c in session.tool_calls)
    assert [e.path for e in session.files_edited] == ["hello.txt"]


# Claude Code batches TaskCreate, TaskCreate, TaskUpdate(1) in one message: the update comes
# before the create's result has given the task its id.
@pytest.mark.parametrize("name", AGENTS)
def test_todo_list_reaches_the_adapter(
    name: str, agent: MakeAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    a: Agent = agent(name, [Turn(calls=[todos(*TODOS)]), Turn(text="Planned.")])
    a.run("E2E: plan the work")
    assert a.mock.played() == 2
    session = newest_session(a, monkeypatch)
    assert [(t.content, t.status) for t in session.todos] == list(TODOS)


@pytest.mark.parametrize("name", AGENTS)
def test_interactive_turn_in_a_terminal(name: str, agent: MakeAgent) -> None:
    a: Agent = agent(name, [Turn(calls=[shell(COMMAND)]), Turn(text="Interactive turn done.")])
    tui = a.interactive(PROMPT)
    try:
        assert a.mock.wait_for(lambda: a.mock.played() == 2, timeout=45), tui.text[-2000:]
        assert tui.proc.poll() is None  # a TUI stays open after its first turn
    finally:
        tui.stop()
    assert tui.proc.returncode is not None
    reqs = a.mock.main_requests
    assert a.mock.sent(PROMPT)[0] is reqs[0]
    assert OUTPUT in reqs[1].text
    files = [f for f in transcript_files(a) if PROMPT in f.read_text()]
    assert len(files) == 1, transcript_files(a)
    lines = [json.loads(x) for x in files[0].read_text().splitlines() if x.strip()]
    assert lines  # a well-formed JSONL transcript, written by the TUI
