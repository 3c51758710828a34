"""Core knows no vendor: its code (docstrings and comments aside) names no agent and no
vendor field. Vendor knowledge lives in the adapters, behind `continuity_core.adapters`."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import continuity_core

CORE = Path(continuity_core.__file__).parent
# The redactor's secret kinds name the vendors whose keys they recognise (allowed by design).
ALLOWED = {CORE / "redact.py"}
VENDOR = re.compile(
    r"claude|codex|gemini|anthropic|openai|cleanupPeriodDays|sessionRetention|statusline"
    r"|/continuity|\$continuity"
    r"|lastPrompt|parentUuid|base_instructions|aiTitle|leafUuid|projectHash|encrypted_content",
    re.IGNORECASE,
)


def _docstrings(tree: ast.AST) -> set[int]:
    ids: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def _words(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Every name and string literal of the code, with its line; docstrings left out."""
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value
        elif isinstance(node, ast.Name):
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute):
            yield node.lineno, node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.lineno, node.name
        elif isinstance(node, ast.arg):
            yield node.lineno, node.arg
        elif isinstance(node, ast.alias):
            yield node.lineno, node.name


def vendor_words(source: str) -> list[tuple[int, str]]:
    return [(line, word) for line, word in _words(ast.parse(source)) if VENDOR.search(word)]


def test_core_code_names_no_agent_or_vendor_field() -> None:
    found = [
        f"{path.relative_to(CORE)}:{line}: {word!r}"
        for path in sorted(CORE.rglob("*.py"))
        if path not in ALLOWED
        for line, word in vendor_words(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "vendor knowledge in core (move it into an adapter):\n" + "\n".join(found)


def test_the_check_sees_code_and_ignores_docstrings_and_comments() -> None:
    source = (
        '"""Reads Claude Code\'s files."""\n'
        "# codex keeps rollouts\n"
        "def f(x):\n"
        '    """gemini docstring"""\n'
        '    return x.get("cleanupPeriodDays", "/continuity resume")\n'
        "claude_dir = 1\n"
    )
    assert sorted(w for _, w in vendor_words(source)) == [
        "/continuity resume",
        "claude_dir",
        "cleanupPeriodDays",
    ]
