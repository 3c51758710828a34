"""Fixtures of the Claude adapter tests: the captured `.claude` tree in a tmp home."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("continuity_claude")

from continuity_claude import ClaudeAdapter
from continuity_core.adapters import Account
from tests.claude.helpers import CLAUDE
from tests.conftest import copy_tree


@pytest.fixture
def adapter() -> ClaudeAdapter:
    return ClaudeAdapter()


@pytest.fixture
def claude_dir(isolated_home: Path) -> Path:
    """A copy of the captured `/home/dev/.claude`, as this test's `~/.claude`."""
    return copy_tree(CLAUDE / ".claude", isolated_home / ".claude")


@pytest.fixture
def account(claude_dir: Path) -> Account:
    return Account(agent="claude", name="~/.claude", dir=str(claude_dir))
