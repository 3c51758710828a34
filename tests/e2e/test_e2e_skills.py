"""A skill placed in each of the adapter's `skill_dirs` is listed to the model by the real CLI."""

from __future__ import annotations

import pytest

from tests.e2e.harness import Agent, MakeAgent, load_adapter
from tests.e2e.mock_models import Turn

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("name", ["claude", "codex", "gemini"])
def test_project_skill_reaches_the_model(name: str, agent: MakeAgent) -> None:
    dirs = load_adapter(name).skill_dirs
    a: Agent = agent(name, [Turn(text="Skills seen.")])
    for folder in dirs:
        skill = a.project / folder / "e2e-probe"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: e2e-probe\ndescription: E2E probe skill from {folder}; use when asked "
            "about probes.\n---\nSay that the probe skill ran.\n"
        )
    a.run("Which skills do you have?")
    first = a.mock.main_requests[0]
    for folder in dirs:
        assert f"E2E probe skill from {folder}" in first.text, f"{name} does not list {folder}"
