"""docs/security.md is the threat model the tests keep (issue 30, point 1): each test it
names exists, and each attack file here is named by a row."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).parents[2]
DOC = (ROOT / "docs" / "security.md").read_text()


def _tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {
        n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")
    }


def test_every_named_test_exists() -> None:
    named = re.findall(r"`((?:tests/[\w/]+/)?test_\w+\.py)(?:::(\w+))?`", DOC)
    assert len(named) >= 15
    for file, test in named:
        path = ROOT / file if file.startswith("tests/") else ROOT / "tests" / "reliability" / file
        assert path.is_file(), file
        if test:
            assert test in _tests(path), f"{file}::{test}"


def test_every_attack_file_has_its_row() -> None:
    here = Path(__file__).parent
    files = {p.name for p in here.glob("test_*.py")} - {Path(__file__).name}
    missing = sorted(f for f in files if f"`{f}" not in DOC)
    assert not missing, missing
