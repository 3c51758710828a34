"""Shared bits of the Codex adapter tests: the fixture home and rollout builders."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES, copy_tree

CODEX = FIXTURES / "codex"
TRUTH: dict[str, Any] = json.loads((FIXTURES / "ground_truth.json").read_text())
ROLLOUTS = {k: v for k, v in TRUTH.items() if k.startswith("codex/.codex/sessions/")}
PAYLOADS = CODEX / "hook_payloads"


def by_scenario(scenario: str) -> tuple[str, dict[str, Any]]:
    return next((k, v) for k, v in ROLLOUTS.items() if v["scenario"] == scenario)


def home_copy(tmp: Path) -> Path:
    """The captured ~/.codex copied to `tmp`; the caller points CODEX_HOME at it."""
    return copy_tree(CODEX / ".codex", tmp / ".codex")


def line(
    kind: str, payload: dict[str, Any], ts: str = "2026-11-30T04:00:00.000Z", **extra: Any
) -> str:
    return json.dumps({"timestamp": ts, **extra, "type": kind, "payload": payload})


def rollout(
    home: Path,
    thread: str,
    cwd: str,
    *,
    stamp: str = "2026-11-30T04-00-00",
    body: list[str] | None = None,
    folder: str = "sessions",
    mtime: float | None = None,
    meta_first: bool = True,
) -> Path:
    """A small synthetic rollout file under `home`."""
    day = stamp[:10].replace("-", "/")
    path = home / folder / day / f"rollout-{stamp}-{thread}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "id": thread,
        "timestamp": "2026-11-30T04:00:00Z",
        "cwd": cwd,
        "originator": "codex_exec",
        "cli_version": "0.171.0",
    }
    if not meta_first:  # an unusual key order: cwd after a big field
        meta = {"instructions": "x" * 10_000, **meta}
    lines = [line("session_meta", meta), *(body or [])]
    path.write_text("\n".join(lines) + "\n")
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path
