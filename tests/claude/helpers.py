"""Shared bits of the Claude adapter tests: the captured `.claude` tree, its ground truth and
hook payloads (test modules import these from here, never from a conftest)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES

CLAUDE = FIXTURES / "claude"
PAYLOADS = CLAUDE / "hook_payloads"
TRUTH: dict[str, Any] = json.loads((FIXTURES / "ground_truth.json").read_text())
# every captured main transcript, keyed by its path relative to the fixture set
TRANSCRIPTS = {
    rel: gt
    for rel, gt in TRUTH.items()
    if gt.get("agent") == "claude"
    and rel.endswith(".jsonl")
    and "/subagents/" not in rel
    and gt.get("session_id")
}


def payload(name: str, claude_dir: Path | None = None) -> bytes:
    """A captured hook payload; with `claude_dir`, its transcript path points into the copy."""
    data = (PAYLOADS / name).read_bytes()
    if claude_dir is not None:
        data = data.replace(b"/home/dev/.claude", str(claude_dir).encode())
    return data
