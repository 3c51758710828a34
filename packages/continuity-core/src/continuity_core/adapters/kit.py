"""What adapter authors share: account folders, the CLI version and its check, hook commands,
MCP registration, ids and timestamps.

Everything here is vendor-neutral; an adapter passes in its own program name and versions.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from continuity_core.adapters.protocol import Finding
from continuity_core.stamps import iso, new_id, now_iso, stamp

__all__ = [
    "CLI_VERSION_TIMEOUT_S", "INLINE_PROMPT_MAX", "MCP_NAME", "MCP_SERVER", "cli_version",
    "expand", "hook_command", "is_our_mcp", "iso", "json_object", "new_id", "now_iso", "stamp",
    "version_finding", "version_key", "version_state",
]

# A first prompt larger than this travels through a file the agent is told to read: argv and
# environment together must stay well under Linux's ARG_MAX per string (128 KiB), and far
# under Windows' 32 KiB command line.
INLINE_PROMPT_MAX = 24_000
# `<cli> --version` of every adapter gets this long (Node CLIs can take seconds to start cold).
CLI_VERSION_TIMEOUT_S = 15.0
_VERSION = re.compile(r"\d+(?:\.\d+)+\S*")


def expand(path: str) -> str:
    """An account folder as the user wrote it (`~/x`), absolute."""
    return os.path.abspath(os.path.expanduser(path))


def cli_version(program: str, *, env: Mapping[str, str] | None = None,
                timeout_s: float = CLI_VERSION_TIMEOUT_S) -> str | None:
    """`<program> --version`'s first version number ("2.1.197"), or None when the program is
    not on PATH, fails or prints none within `timeout_s`."""
    import shutil
    import subprocess

    exe = shutil.which(program)
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True,
                             timeout=timeout_s, check=False,
                             env={**os.environ, **env} if env else None).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = _VERSION.search(out)
    return m.group(0) if m else None


def version_key(version: str) -> tuple[int, ...]:
    """"2.1.197-beta" -> (2, 1, 197): major, minor, patch compared as numbers."""
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def version_state(version: str, known: Sequence[str]) -> Literal["known", "newer", "older"]:
    """Whether `version` is one the adapter was built on, newer than all, or otherwise older."""
    if version in known:
        return "known"
    return "newer" if all(version_key(version) > version_key(k) for k in known) else "older"


def version_finding(display_name: str, version: str | None, known: Sequence[str], *,
                    program: str, fix: str) -> Finding:
    """The `baker doctor` line for the installed CLI's version: one rule for every adapter."""
    if version is None:
        return Finding(level="info", message=f"`{program}` is not on PATH")
    state = version_state(version, known)
    if state == "known":
        return Finding(level="ok", message=f"{display_name} {version}")
    if state == "newer":
        return Finding(level="warn", message=(
            f"{display_name} {version} is newer than the formats this adapter knows "
            f"({', '.join(known)}); transcripts may read incompletely"), fix=fix)
    return Finding(level="info", message=(
        f"{display_name} {version} is older than {known[-1]}, the version this adapter was "
        "built on"))


def json_object(path: Path) -> dict[str, Any]:
    """The JSON object in a settings file; {} when it is missing, unreadable or not an object
    (an adapter reading the agent's settings never fails on them)."""
    import json

    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def hook_command(*argv: str) -> str:
    """A shell hook command running `baker ARGV…` that does nothing, successfully, where baker
    is not installed (a teammate without it sees no failed hook)."""
    return f"command -v baker >/dev/null 2>&1 && baker {' '.join(argv)} || true"


MCP_NAME = "baker"
# Guarded like the hooks: where baker is not installed the server exits at once, quietly.
MCP_SERVER: dict[str, Any] = {
    "command": "sh", "args": ["-c", "command -v baker >/dev/null 2>&1 && exec baker mcp"]}


def is_our_mcp(entry: object) -> bool:
    """Whether an MCP server entry runs `baker mcp` (ours, whatever an older version wrote)."""
    if not isinstance(entry, dict):
        return False
    argv = [entry.get("command"), *(entry.get("args") or [])]
    line = " ".join(a for a in argv if isinstance(a, str))
    return "baker mcp" in line

