"""Steps several end-to-end test modules share: install baker, stop a source agent on a usage
limit, resume into a target and read what it was told, drive a TUI."""

from __future__ import annotations

import re
import threading
import time

from tests.e2e.harness import VENV_BIN, Agent, Interactive, baker, wait_until
from tests.e2e.mock_models import Turn, _strings, todos, write


def install(a: Agent) -> None:
    """`baker init`, and for Codex the user-level hooks it reads (with trusted hashes)."""
    commands = [["init"]]
    if a.name == "codex":  # Codex reads hooks and notify from the user config.toml only
        commands.append(["global", "sync", "--trust"])
    if a.name == "copilot":  # user-level hooks run with no trust prompt (also: .github/hooks)
        commands.append(["global", "sync"])
    for args in commands:
        proc = baker(a, *args)
        assert proc.returncode == 0, f"baker {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"


REQUEST = (
    "E2E handoff: make the parser accept empty lines (keep `parse()` pure), "
    "then add a regression test"
)
TODOS = (
    ("Make the parser accept empty lines", "in_progress"),
    ("Add a regression test", "pending"),
)
EDITED = "parser.py"


def source_script() -> list[Turn]:
    """Set the todo list, write a file, then hit the usage limit mid-task."""
    return [
        Turn(calls=[todos(*TODOS)]),
        Turn(calls=[write(EDITED, "def parse(text):\n    return text.splitlines()\n")]),
        Turn(error="usage_limit"),
    ]


def stopped_on_a_limit(a: Agent) -> None:
    """Run the source turn headless until the usage limit stops it."""
    proc = a.run(REQUEST, check=False)
    assert proc.returncode != 0, proc.stdout[-2000:]
    assert a.mock.played() == 3, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert (a.project / EDITED).is_file()


def resume(target: Agent, *args: str, env: dict[str, str] | None = None) -> Interactive:
    """`baker resume ...` in a terminal, in the target's env: baker becomes the target CLI."""
    tui = target.terminal(str(VENV_BIN / "baker"), "resume", *args, env=env)
    if target.name == "claude":
        threading.Thread(target=_trust_added_dir, args=(tui,), daemon=True).start()
    return tui


def _trust_added_dir(tui: Interactive) -> None:
    """Claude Code 2.1.3xx asks once whether to trust an `--add-dir` folder (the brief's):
    the user says yes. 2.1.197 does not ask; the question then never comes."""
    if _wait_text(tui, "Is this a directory you created or one you trust?", 20):
        settle(tui, 0.5)
        tui.send(b"\x1b[B")  # down to "Yes, add it"
        settle(tui, 0.3)
        tui.send(b"\r")


def first_request(target: Agent, tui: Interactive, timeout: float = 60) -> str:
    """Every string of the first main-loop request the target sent its mock; stops the TUI."""
    try:
        sent = target.mock.wait_for(lambda: bool(target.mock.main_requests), timeout)
        assert sent, _plain(tui.text)[-3000:]
    finally:
        tui.stop()
    req = target.mock.main_requests[0]
    return req.text + "\n" + _strings(req.body)


def assert_holds_the_brief(text: str, source: str, limit: str = "usage limit") -> None:
    """`limit`: what the brief says the session ended on ("rate limit" for a plain 429)."""
    assert "# Handoff brief" in text
    assert REQUEST in text  # verbatim, backticks and all
    for item, _ in TODOS:
        assert item in text
    assert EDITED in text
    assert f"agent: {source}" in text
    if source == "gemini":
        # Gemini CLI 0.61 prints the quota error but never writes it to its session file: the
        # brief can only say the turn stopped part-way.
        assert "## Interrupted" in text
    else:
        assert f"ended on a {limit}" in text


def settle(tui: Interactive, quiet: float = 1.0, timeout: float = 20) -> None:
    """Wait until the screen has not changed for `quiet` seconds (the TUI waits for input).

    Screen text is no signal: the TUIs redraw by diff and skip characters already there.
    """
    deadline = time.monotonic() + timeout
    seen, since = len(tui.output), time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - since < quiet:
        time.sleep(0.1)
        if len(tui.output) != seen:
            seen, since = len(tui.output), time.monotonic()


def type_line(tui: Interactive, line: str) -> None:
    """Type a line, then Enter on its own: text and Enter in one burst reads as a paste."""
    settle(tui)
    tui.send(line.encode())
    settle(tui, 0.5)
    tui.send(b"\r")


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def _wait_text(tui: Interactive, needle: str, timeout: float) -> bool:
    # TUIs move the cursor instead of printing spaces: compare without any whitespace.
    squeezed = "".join(needle.split())
    return wait_until(lambda: squeezed in "".join(_plain(tui.text).split()), timeout)
