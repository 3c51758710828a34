"""The Stop hook's checkpoint imports the adapter (issue 17): its modules import neither
msgspec, typing nor pathlib (nor datetime, which only a reset time needs) when loaded, and the
checkpoint's own calls (the hook, its session, the read) import none of them either: they work
on `str` paths. What they import from continuity_core is core's own business."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gemini.chatlog import PAYLOADS, SESSIONS
from tests.helpers.child import run_python

pytest.importorskip("continuity_gemini")

MODULES = ("adapter", "discovery", "parser", "hooks", "retention")
FORBIDDEN = ("msgspec", "typing", "datetime", "dataclasses", "pathlib")
# Run in a fresh interpreter: every import statement of a continuity_gemini module that names a
# forbidden module is seen (already imported or not), and so is a global that comes from one.
SPY = """
import builtins, importlib, sys, types

forbidden = set(sys.argv[1].split(","))
found = []
real_import = builtins.__import__


def spy(name, globals=None, locals=None, fromlist=(), level=0):
    importer = (globals or {}).get("__name__") or ""
    if importer.startswith("continuity_gemini") and name.partition(".")[0] in forbidden:
        found.append(f"{importer} imports {name}")
    return real_import(name, globals, locals, fromlist, level)


builtins.__import__ = spy
"""
PROBE = (
    SPY
    + """
for name in sys.argv[2:]:
    module = importlib.import_module(name)
    for key, value in vars(module).items():
        if isinstance(value, types.ModuleType):
            owners = [value.__name__]
        else:
            owners = [getattr(value, "__module__", None) or "", type(value).__module__]
            if owners[0].startswith("continuity_core"):
                continue  # a core class: core's own imports
        if any(o.partition(".")[0] in forbidden for o in owners):
            found.append(f"{name}.{key} comes from {owners}")
print("\\n".join(found))
"""
)
# What `baker checkpoint --agent gemini` asks of the adapter, in the order it asks it.
CHECKPOINT = (
    SPY
    + """
from continuity_core.schemas.config import GlobalConfig
from continuity_gemini import GeminiAdapter

adapter = GeminiAdapter()
event = adapter.parse_hook(sys.stdin.buffer.read())
ref = adapter.session_for_hook(event, adapter.accounts(GlobalConfig()))
assert ref is not None and ref.path == event.transcript_path, ref
session = adapter.read(ref).session
assert session.requests, session
print("\\n".join(found))
"""
)


def _run(code: str, *args: str, stdin: bytes = b"") -> str:
    return run_python("-c", code, ",".join(FORBIDDEN), *args, stdin=stdin).strip()


def test_the_checkpoint_modules_import_neither_msgspec_typing_nor_pathlib() -> None:
    names = ["continuity_gemini", *(f"continuity_gemini.{m}" for m in MODULES)]
    assert _run(PROBE, *names) == ""


def test_a_checkpoint_runs_on_str_paths(gemini_home: Path) -> None:
    """A real AfterAgent payload, its session found and read: no pathlib on the way."""
    rel, truth = next((k, v) for k, v in SESSIONS.items() if v["scenario"] == "S1")
    payload = json.loads((PAYLOADS / "AfterAgent.json").read_text())
    payload["transcript_path"] = str(gemini_home.parent / rel.removeprefix("gemini/"))
    assert payload["session_id"] == truth["session_id"]
    assert _run(CHECKPOINT, stdin=json.dumps(payload).encode()) == ""
