"""The `continuity` skill that `baker init` installs is listed to the model by each real CLI."""

from __future__ import annotations

import pytest

from continuity_core import skill
from tests.e2e.harness import Agent, MakeAgent, load_adapter
from tests.e2e.mock_models import Turn

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("name", ["claude", "codex", "gemini"])
def test_the_continuity_skill_reaches_the_model(name: str, agent: MakeAgent) -> None:
    a: Agent = agent(name, [Turn(text="Skills seen.")])
    changes = skill.install(a.project, load_adapter(name).skill_dirs)
    assert changes and all(c.action == "created" for c in changes)
    a.run("Which skills do you have?")
    first = a.mock.main_requests[0].text
    assert "continuity" in first
    assert "Save the current work as a checkpoint for a later session" in first, (
        f"{name} does not list the continuity skill"
    )
