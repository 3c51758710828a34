"""What the hook path leaves out stays out (docs/decisions.md, "How the hooks stay fast")."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.child import run_python


def _run(code: str, cwd: Path | None = None) -> str:
    return run_python("-c", code, cwd=cwd).strip()


def test_the_stop_hooks_push_check_without_subprocess(repo: Path) -> None:
    """Every Stop hook asks whether to push; a clone that did not opt in costs no import."""
    out = _run(
        "import sys\nfrom pathlib import Path\nfrom continuity_core import machines\n"
        "print(machines.spawn_auto_push(Path('.')), 'subprocess' in sys.modules)\n",
        cwd=repo,
    )
    assert out == "False False"
