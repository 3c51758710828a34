"""Fixtures of the end-to-end harness (the machinery is in harness.py and mock_models.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import Agent, MakeAgent, make_agent, require_cli
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
        mock = MOCKS[name](script, root=project).start()
        mocks.append(mock)
        return make_agent(name, isolated_home, project, mock, account=account)

    yield make
    for m in mocks:
        m.stop()
