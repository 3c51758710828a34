"""Fixtures of the end-to-end harness (the machinery is in harness.py and mock_models.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import Agent, MakeAgent, agent_env, require_cli, seed
from tests.e2e.mock_models import MOCKS, MockModel, Turn


@pytest.fixture
def agent(isolated_home: Path, repo: Path) -> Iterator[MakeAgent]:
    """Factory: `agent("codex", [Turn(...), ...], account="work")` -> a ready `Agent`.

    Every agent of a test shares HOME and the project (the suite's scratch `repo`); each gets
    its own mock, and `account` gives it a second config dir beside the default one.
    """
    project = repo.resolve()  # Claude and Gemini key their folders on the real path
    mocks: list[MockModel] = []

    def make(name: str, script: list[Turn] | None = None, *, account: str = "") -> Agent:
        require_cli(name)
        suffix = f"-{account}" if account else ""
        home = isolated_home
        config_dir = {
            "claude": home / f".claude{suffix}",
            "codex": home / f".codex{suffix}",
            "gemini": home / f"gemini-home{suffix}" if account else home,
            "copilot": home / f".copilot{suffix}",
        }[name]
        mock = MOCKS[name](script, root=project).start()
        mocks.append(mock)
        seed(name, config_dir, project, mock)
        return Agent(name, home, config_dir, project, mock, agent_env(name, home, config_dir, mock))

    yield make
    for m in mocks:
        m.stop()
