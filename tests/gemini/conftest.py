"""A Gemini CLI home holding the captured fixture sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIXTURES, copy_tree

pytest.importorskip("continuity_gemini")


@pytest.fixture
def gemini_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`GEMINI_CLI_HOME` with the fixture `.gemini` tree copied below it; returns `.gemini`."""
    home = tmp_path / "gemini-home"
    copy_tree(FIXTURES / "gemini" / ".gemini", home / ".gemini")
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    return home / ".gemini"
