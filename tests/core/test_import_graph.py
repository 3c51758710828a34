"""No import circle inside core, counting imports inside functions (not those under
`TYPE_CHECKING`): a module that needs another's work imports it, never the other way too."""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import continuity_core

CORE = Path(continuity_core.__file__).parent


def _module(path: Path) -> str:
    parts = ["continuity_core", *path.relative_to(CORE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.AST, module: str, is_package: bool) -> set[str]:
    """Every module `node` imports, deferred ones included, `if TYPE_CHECKING:` bodies not."""
    if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
        return set().union(*(_imported(n, module, is_package) for n in node.orelse))
    found: set[str] = set()
    if isinstance(node, ast.Import):
        found = {alias.name for alias in node.names}
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = module.split(".")[: len(module.split(".")) - node.level + is_package]
            base = ".".join([*package, base] if base else package)
        found = {base, *(f"{base}.{alias.name}" for alias in node.names)}
    return found.union(*(_imported(n, module, is_package) for n in ast.iter_child_nodes(node)))


def _graph() -> dict[str, set[str]]:
    files = {_module(p): p for p in CORE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        names = _imported(ast.parse(path.read_text()), module, path.name == "__init__.py")
        # Importing `a.b.c` runs `a.b` (and `a`) first: a package's own modules aside.
        graph[module] = {
            parent
            for name in names
            for parent in (".".join(name.split(".")[:k]) for k in range(1, name.count(".") + 2))
            if parent in files and parent != module and not module.startswith(parent + ".")
        }
    return graph


def test_core_has_no_import_circle() -> None:
    graph = _graph()
    assert "continuity_core.redact" in graph["continuity_core.probes"]  # it read core's imports
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as e:
        raise AssertionError(f"an import circle inside core: {' -> '.join(e.args[1])}") from None


def test_the_check_sees_a_deferred_import() -> None:
    code = "def f():\n    from continuity_core import traps\nif TYPE_CHECKING:\n    import x\n"
    found = _imported(ast.parse(code), "continuity_core.brief", False)
    assert "continuity_core.traps" in found and "x" not in found
