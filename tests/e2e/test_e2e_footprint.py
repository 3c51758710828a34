"""A small footprint: hooks that Continuity installs say nothing where `baker` is absent.

A teammate who clones a repository set up with `baker init` (or a user whose PATH lost it)
runs the real CLIs, in their terminal interfaces, with the hooks in place but no `baker`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.e2e.harness import VENV_BIN, Agent, MakeAgent, baker, wait_until
from tests.e2e.mock_models import Turn

pytestmark = pytest.mark.e2e

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\x1b[=>]")


def without_baker(path: str) -> str:
    return os.pathsep.join(
        p for p in path.split(os.pathsep) if p and Path(p).resolve() != VENV_BIN.resolve()
    )


@pytest.mark.parametrize("name", ["claude", "codex", "gemini"])
def test_hooks_without_baker_on_path_fail_nothing(name: str, agent: MakeAgent) -> None:
    a: Agent = agent(name, [Turn(text="Done without baker.")])
    setup = [["init"], ["global", "sync", "--trust"]] if name == "codex" else [["init"]]
    for args in setup:
        proc = baker(a, *args)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    a.env["PATH"] = without_baker(a.env["PATH"])
    tui = a.interactive("E2E footprint: a turn with hooks but no baker")
    try:
        assert a.mock.wait_for(lambda: a.mock.played() == 1, timeout=60), ANSI.sub("", tui.text)[
            -3000:
        ]
        wait_until(lambda: False, timeout=4)  # the hooks that run after the turn, too
    finally:
        tui.stop()
    screen = ANSI.sub("", tui.text)
    assert not re.search(r"(?i)hook\W.{0,40}fail|fail\w*.{0,40}hook|not found|code 127", screen), (
        screen[-3000:]
    )
    # `init` put the skill where every agent reads it once: Gemini CLI, which reads
    # `.agents/skills/` as an alias of `.gemini/skills/`, reports no conflict.
    assert not re.search(r"(?i)skill\W+conflict", re.sub(r"\s+", " ", screen)), screen[-3000:]
    assert not list((a.project / ".baker" / "checkpoints").glob("*.json"))
