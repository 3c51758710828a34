"""The Codex modules a checkpoint loads import neither msgspec nor typing themselves (issue 17:
they cost ~10 ms of a checkpoint); what `continuity_core` imports is core's to keep out."""

from __future__ import annotations

import json

import pytest

from tests.helpers.child import run_python

pytest.importorskip("continuity_codex")

# Every module of the adapter the hooks and the checkpoint load (install, doctor and config
# are set-up code, imported on first use).
CHECKPOINT = ("adapter", "discovery", "parser", "hooks", "patch")
FORBIDDEN = {"msgspec", "typing", "datetime", "uuid"}

# A child process (a clean `sys.modules`, without coverage's start-up hook) that records each
# import statement a `continuity_codex` module runs while loading, whether or not core loaded
# that module first, and then what each module's globals hold.
CHILD = """
import builtins, importlib, json, sys, types


FORBIDDEN = set(sys.argv[2].split(","))
direct = []
real = builtins.__import__


def spy(name, globals=None, locals=None, fromlist=(), level=0):
    importer = (globals or {}).get("__name__") or ""
    if importer.split(".")[0] == "continuity_codex" and level == 0:
        direct.append([importer, name])
    return real(name, globals, locals, fromlist, level)


builtins.__import__ = spy
for name in sys.argv[1].split(","):
    importlib.import_module("continuity_codex." + name)
builtins.__import__ = real


def owner(value):
    if isinstance(value, types.ModuleType):
        return [value.__name__]
    if isinstance(value, type) and value.__module__.split(".")[0] == "continuity_codex":
        return [c.__module__ for c in value.__mro__]  # a record class of its own: no Struct
    return [getattr(value, "__module__", None) or type(value).__module__]


held = [
    [module, key, where]
    for module, loaded in sorted(sys.modules.items())
    if module.split(".")[0] == "continuity_codex"
    for key, value in vars(loaded).items()
    for where in owner(value)
    if isinstance(where, str) and where.split(".")[0] in FORBIDDEN
]
print(json.dumps({"direct": direct, "held": held}))
"""


def _child() -> dict[str, list[list[str]]]:
    out = run_python("-c", CHILD, ",".join(CHECKPOINT), ",".join(sorted(FORBIDDEN)))
    result: dict[str, list[list[str]]] = json.loads(out)
    return result


def test_checkpoint_modules_import_no_msgspec_typing_datetime_or_uuid() -> None:
    result = _child()
    assert {f"continuity_codex.{name}" for name in CHECKPOINT} <= {i for i, _ in result["direct"]}
    assert [
        (importer, name) for importer, name in result["direct"] if name.split(".")[0] in FORBIDDEN
    ] == []
    assert result["held"] == []
