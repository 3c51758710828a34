"""The checkpoint path's budget is three bare interpreter starts (issue 17): the modules of the
adapter a checkpoint or a hook imports use neither msgspec nor `typing` at run time (only under
TYPE_CHECKING). What `continuity_core` itself imports is core's own business, so this checks
the adapter's modules: their globals in a fresh interpreter, and the imports in their source."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from tests.helpers.child import run_python

pytest.importorskip("continuity_claude")

MODULES = ("adapter", "discovery", "parser", "hooks", "retention", "statusline")
BANNED = ("msgspec", "typing")

# Run in a child: each module's globals that are, or come from, msgspec or typing (a class of
# the module's own that derives from a msgspec class counts too).
PROBE = """
import importlib, json, sys, types

BANNED = {banned!r}
def banned(name):
    return any(name == b or name.startswith(b + ".") for b in BANNED)
found = {{}}
for short in {modules!r}:
    mod = importlib.import_module("continuity_claude." + short)
    bad = []
    for key, value in vars(mod).items():
        if isinstance(value, types.ModuleType):
            origin = value.__name__
        else:
            origin = getattr(value, "__module__", None) or ""
        if banned(origin):
            bad.append(key)
        elif isinstance(value, type) and origin == mod.__name__:
            if any(banned(base.__module__) for base in value.__mro__):
                bad.append(key)
    found[short] = bad
print(json.dumps(found))
"""


def test_no_adapter_module_holds_msgspec_or_typing_at_run_time() -> None:
    out = run_python("-c", PROBE.format(banned=BANNED, modules=MODULES))
    assert json.loads(out) == {short: [] for short in MODULES}


def _runtime_imports(tree: ast.Module) -> list[str]:
    """The modules `tree` imports outside `if TYPE_CHECKING:` blocks."""
    names: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.orelse:
                visit(stmt)
            return
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


@pytest.mark.parametrize("short", MODULES)
def test_no_adapter_module_imports_msgspec_or_typing_outside_type_checking(short: str) -> None:
    """Also a function's own import, which the globals above would not show."""
    import continuity_claude

    path = Path(continuity_claude.__file__).parent / f"{short}.py"
    names = _runtime_imports(ast.parse(path.read_text(encoding="utf-8")))
    assert [n for n in names if n.split(".")[0] in BANNED] == []
