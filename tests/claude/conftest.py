"""Shared pieces of the Claude adapter tests: the captured `.claude` tree in a tmp home."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("continuity_claude")

from continuity_claude import ClaudeAdapter
from continuity_core.adapters import Account
from tests.conftest import FIXTURES, copy_tree

CLAUDE = FIXTURES / "claude"
PAYLOADS = CLAUDE / "hook_payloads"
TRUTH = json.loads((FIXTURES / "ground_truth.json").read_text())
# every captured main transcript, keyed by its path relative to the fixture set
TRANSCRIPTS = {
    rel: gt for rel, gt in TRUTH.items()
    if gt.get("agent") == "claude" and rel.endswith(".jsonl") and "/subagents/" not in rel
    and gt.get("session_id")
}


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


def payload(name: str, claude_dir: Path | None = None) -> bytes:
    """A captured hook payload; with `claude_dir`, its transcript path points into the copy."""
    data = (PAYLOADS / name).read_bytes()
    if claude_dir is not None:
        data = data.replace(b"/home/dev/.claude", str(claude_dir).encode())
    return data
