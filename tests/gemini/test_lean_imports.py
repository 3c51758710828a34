"""The Stop hook's checkpoint imports the adapter (issue 17): its modules import neither
msgspec nor typing (nor datetime, which only a reset time needs) when loaded. What they import
from continuity_core is core's own business."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("continuity_gemini")

MODULES = ("adapter", "discovery", "parser", "hooks", "retention")
FORBIDDEN = ("msgspec", "typing", "datetime", "dataclasses")
# Run in a fresh interpreter: every import statement of a continuity_gemini module that names a
# forbidden module is seen (already imported or not), and so is a global that comes from one.
PROBE = """
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


def test_the_checkpoint_modules_import_neither_msgspec_nor_typing() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    names = ["continuity_gemini", *(f"continuity_gemini.{m}" for m in MODULES)]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, ",".join(FORBIDDEN), *names],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""
