"""One sanitizer at the output boundary (issue 30, point 4): nothing baker prints to a
terminal, in any command, carries an escape sequence that came from data.

Data reaches a command's output by many roads (a folder's name, a probe's output, an error
message naming a path); each used to be cleaned, or not, where it was printed. A project
folder whose name holds a window-title sequence, a clipboard write and 8-bit C1 bytes is the
attack here: every command that names the project prints it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import git, run_baker

pytestmark = pytest.mark.skipif(os.name == "nt", reason="control characters in a folder name")

NAME = "proj\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x9b2J"
CONTROL = ("\x1b", "\x07", "\x9b")


@pytest.mark.parametrize(
    "argv",
    [
        ("status",),
        ("handoff",),
        ("sessions",),
        ("note",),
        ("trap", "list"),
        ("init",),
        ("now", "write the tests"),
    ],
)
def test_no_command_prints_control_from_a_folder_name(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    root = tmp_path / NAME
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / ".baker").mkdir(mode=0o700)
    (root / ".baker" / "probes.json").write_text(
        json.dumps({"probes": [{"name": "p", "command": "printf 'ok \\033]0;probe\\007\\n'"}]})
    )
    if argv[0] != "init":
        assert run_baker("init", cwd=root).returncode == 0
    shown = run_baker(*argv, cwd=root)
    for out in (shown.stdout, shown.stderr):
        for c in CONTROL:
            assert c not in out, (argv, c, out[:500])
    assert "proj" in shown.stdout + shown.stderr or argv[0] in ("trap", "note", "sessions")
