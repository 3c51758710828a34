"""Shared bits of the Copilot adapter tests: the captured home and its ground truth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES, copy_tree

COPILOT = FIXTURES / "copilot"
TRUTH: dict[str, Any] = json.loads((COPILOT / "ground_truth.json").read_text())["sessions"]
PAYLOADS = COPILOT / "hook_payloads"
GREETER = "9f9b8b82-18c9-421e-b394-948a5f941695"  # todos, files, a 429 at the end
NOTES = "91c9647b-f8d6-4e10-8ce7-e289e56d3f1b"
KILLED = "fe378ccc-d837-4910-9d08-56f31d0ea37a"  # SIGKILLed mid-tool
HOOKED = "d05f0348-0120-4737-b5da-8bfb5f671609"  # every hook logging; 429 retries


def home_copy(tmp: Path) -> Path:
    """The captured ~/.copilot copied to `tmp`; the caller points COPILOT_HOME at it."""
    return copy_tree(COPILOT / ".copilot", tmp / ".copilot")
