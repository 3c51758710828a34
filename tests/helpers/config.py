"""~/.baker/config.toml for tests: written into the isolated HOME (`tests/conftest.py`)."""

from __future__ import annotations

import json
from pathlib import Path


def write_config(home: Path, text: str) -> Path:
    """`text` as `home`'s ~/.baker/config.toml, its folder made private as baker makes it."""
    folder = home / ".baker"
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / "config.toml"
    path.write_text(text)
    return path


def work_account(home: Path, agent: str = "claude", folder: str = ".claude-work") -> str:
    """`[accounts.work]` of `agent` in `home/folder` (made), as config.toml text."""
    where = home / folder
    where.mkdir(parents=True, exist_ok=True)
    return f'[accounts.work]\nagent = "{agent}"\ndir = "{where}"\n'


def rotation(order: list[str], **settings: int) -> str:
    """`[rotation]` with `order` and any of `countdown`, `max_hops`, as config.toml text."""
    lines = [f"order = {json.dumps(order)}", *(f"{k} = {v}" for k, v in settings.items())]
    return "[rotation]\n" + "\n".join(lines) + "\n"
