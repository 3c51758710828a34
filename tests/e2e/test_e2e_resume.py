"""`baker resume`: a real session stops mid-task, and the next real agent starts from the brief.

Each test runs a source CLI headless against its mock until a usage limit stops it, then runs
`baker resume TARGET` in a pseudo-terminal: `baker` exec's the target's interactive CLI, which
talks to its own mock. What the target's first request holds is what the new agent was told.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.e2e.flows import (
    EDITED,
    REQUEST,
    TODOS,
    _plain,
    _wait_text,
    assert_holds_the_brief,
    first_request,
    resume,
    source_script,
    stopped_on_a_limit,
    type_line,
)
from tests.e2e.harness import Agent, MakeAgent, baker, session_id
from tests.e2e.mock_models import Turn, _strings, raw, shell, write

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(
    ("source", "target", "head", "timeout"),
    [
        ("claude", "codex", ["codex"], 60),
        ("codex", "gemini", ["gemini"], 60),
        ("gemini", "claude", ["claude"], 60),
        # OpenCode's and Copilot CLI's TUIs take longer to send their first request
        ("claude", "opencode", ["opencode", "--prompt"], 90),
        ("claude", "copilot", ["copilot", "-i"], 90),
    ],
)
def test_resume_after_a_usage_limit(
    source: str, target: str, head: list[str], timeout: float, agent: MakeAgent
) -> None:
    src: Agent = agent(source, source_script())
    stopped_on_a_limit(src)
    dst: Agent = agent(target, [Turn(text="I will confirm the plan first.")])

    dry = baker(dst, "resume", target, "--from", source, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    spec = json.loads(dry.stdout)
    assert spec["launch"]["argv"][: len(head)] == head
    assert spec["brief_bytes"] < 24_000  # small: the brief itself is the first prompt

    text = first_request(dst, resume(dst, target, "--from", source), timeout=timeout)
    assert_holds_the_brief(text, source)


def test_native_resume_under_a_second_claude_account(agent: MakeAgent, isolated_home: Path) -> None:
    first: Agent = agent(
        "claude", [Turn(calls=[write(EDITED, "x = 1\n")]), Turn(error="usage_limit")]
    )
    sid = session_id(first, first.run(REQUEST, check=False).stdout)
    second: Agent = agent("claude", [Turn(text="Continuing where we stopped.")], account="second")
    seen_by_first = len(first.mock.requests)

    # baker finds the session in the first account; the launch points Claude at the second.
    args = ["claude", "--from", "claude", "--account", str(second.config_dir), "--native"]
    env = {"CLAUDE_CONFIG_DIR": str(first.config_dir)}
    dry = baker(second, "resume", *args, "--dry-run", "--json", env=env)
    spec = json.loads(dry.stdout)["launch"]
    assert spec["argv"] == ["claude", "--resume", sid]
    assert spec["env"]["CLAUDE_CONFIG_DIR"] == str(second.config_dir)
    # the agent's SessionStart pickup leaves the session to the brief it was started with
    assert spec["env"]["BAKER_BRIEF_SESSION"] == f"claude session {sid}"

    tui = resume(second, *args, env=env)
    try:
        # `claude --resume ID` shows the old conversation and waits for the user's next line.
        assert _wait_text(tui, REQUEST[:30], 45), _plain(tui.text)[-3000:]
        type_line(tui, "carry on")
        text = first_request(second, tui)
    finally:
        tui.stop()
    assert REQUEST in text  # the earlier conversation went to the second account's mock
    assert "carry on" in text
    assert len(first.mock.requests) == seen_by_first  # nothing reached the first account
    copied = list((second.config_dir / "projects").glob(f"*/{sid}.jsonl"))
    assert len(copied) == 1


# A hand-written note of ~300 KB: 300 lines of ~1 KB of plain prose (no secrets to redact;
# lines under the 2,000 characters past which the file-read tools shorten a line).
NOTE_LINES = [
    f"- {n:03d} "
    + " ".join(f"step {n}.{i} keeps parse() pure and the tests green." for i in range(20))
    for n in range(300)
]
BRIEF_FILE = re.compile(r"/\S*/handoffs/brief-[0-9TZ]+\.md")
ACK = "I will read the brief first."


def reads(target: str, path: str) -> list[Turn]:
    """The turn in which the agent reads the brief file with its own tool."""
    if target == "claude":
        # Read stops at 25k tokens a call: five reads of 80 lines each cover the file.
        return [
            Turn(calls=[raw("Read", file_path=path, offset=1 + 80 * k, limit=80) for k in range(5)])
        ]
    if target == "gemini":
        return [Turn(calls=[raw("read_file", file_path=path)])]
    # Codex reads through its shell, whose output the model sees cut short: a digest instead.
    return [Turn(calls=[shell(f"wc -c < {path}; sha256sum < {path}; tail -c 200 {path}")])]


@pytest.mark.parametrize("target", ["claude", "codex", "gemini"])
def test_a_300_kb_brief_arrives_whole(target: str, agent: MakeAgent, repo: Path) -> None:
    (repo / "memory").mkdir()
    (repo / "memory" / "hot.md").write_text(
        "---\nagent: e2e\n---\n# Goal\n" + "\n".join(NOTE_LINES) + "\n# Now\n- read it\n"
    )
    dst: Agent = agent(target, [Turn(text=ACK)])
    if target == "codex":
        _trust_codex_tools(dst)

    tui = resume(dst, target, "--budget", "200000")
    try:
        assert dst.mock.wait_for(lambda: dst.mock.played() == 1, 60), _plain(tui.text)[-3000:]
        first = dst.mock.main_requests[0]
        # The prompt names the brief's file instead of carrying 300 KB inline.
        found = BRIEF_FILE.findall(_strings(first.body))
        assert found, _strings(first.body)[-3000:]
        brief = Path(found[0])
        data = brief.read_bytes()
        assert len(data) > 300_000
        assert "\n".join(NOTE_LINES).encode() in data  # the note whole, unredacted, uncut
        assert len(first.text.encode()) < 100 * 1024

        # The user says go on; the agent reads the file with its own tool.
        dst.mock.script += [*reads(target, str(brief)), Turn(text="Read it all.")]
        if target == "gemini":
            # The brief's folder is outside the workspace: Gemini asks to trust it first.
            assert _wait_text(tui, "Do you trust the following folders", 30)
            tui.send(b"\r")  # 1. Yes
        type_line(tui, "go on")
        assert dst.mock.wait_for(lambda: dst.mock.played() == 3, 60), _plain(tui.text)[-3000:]
    finally:
        tui.stop()
    result = _strings(dst.mock.main_requests[2].body)
    if target == "codex":
        assert str(len(data)) in result
        assert hashlib.sha256(data).hexdigest() in result
        assert data[-150:].decode() in result
    else:
        missing = [line[:12] for line in NOTE_LINES if line not in result]
        assert not missing, result[-3000:]

    # The command line stays far below what one argument may hold (128 KiB on Linux).
    dry = baker(dst, "resume", target, "--budget", "200000", "--dry-run", "--json")
    argv = json.loads(dry.stdout)["launch"]["argv"]
    assert sum(len(a.encode()) for a in argv) < 100 * 1024


def _trust_codex_tools(a: Agent) -> None:
    """No approval prompts and no sandbox (bubblewrap needs user namespaces a box may lack)."""
    config = a.config_dir / "config.toml"
    config.write_text(
        'approval_policy = "never"\nsandbox_mode = "danger-full-access"\n' + config.read_text()
    )


def test_a_300_kb_request_still_gives_todos_and_files_inline(agent: MakeAgent) -> None:
    """Issue 21: a latest request of ~300 KB makes the brief go through its file, but the
    first turn the next agent gets still carries the essentials inline: the request's start
    (cut, with a pointer), the todos and the files edited."""
    src: Agent = agent("claude", source_script())
    huge = (
        REQUEST
        + "\n"
        + "\n".join(
            f"Context line {n}: keep parse() pure and every test green." for n in range(5_500)
        )
    )
    assert len(huge.encode()) > 300_000
    # Claude Code takes a `-p` prompt from stdin: no argument could hold 300 KB.
    proc = subprocess.run(
        ["claude", "-p", "--output-format", "json", "--dangerously-skip-permissions"],
        input=huge,
        cwd=src.project,
        env=src.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert src.mock.played() == 3, (proc.stdout[-2000:], proc.stderr[-2000:])
    dst: Agent = agent("codex", [Turn(text="I will confirm the plan first.")])

    text = first_request(dst, resume(dst, "codex", "--from", "claude"))
    assert BRIEF_FILE.search(text), text[-3000:]  # the rest is in the file it names
    assert REQUEST in text  # the request's start, inline
    assert "Context line 5499" not in text  # ... cut: its end is only in the file
    for item, _ in TODOS:
        assert item in text
    assert EDITED in text
