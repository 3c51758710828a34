"""What the hook path leaves out stays out (docs/decisions.md, "How the hooks stay fast")."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.helpers.child import run_python


def _run(code: str, cwd: Path | None = None) -> str:
    return run_python("-c", code, cwd=cwd).strip()


def test_git_facts_without_subprocess(repo: Path) -> None:
    out = _run(
        "import sys\nfrom pathlib import Path\nfrom continuity_core.git import git_facts\n"
        "facts = git_facts(Path('.'))\n"
        "print(facts.branch, 'subprocess' in sys.modules)\n",
        cwd=repo,
    )
    expect = "main True" if sys.platform == "win32" else "main False"
    assert out == expect


def test_the_stop_hooks_push_check_without_subprocess(repo: Path) -> None:
    """Every Stop hook asks whether to push; a clone that did not opt in costs no import."""
    out = _run(
        "import sys\nfrom pathlib import Path\nfrom continuity_core import machines\n"
        "print(machines.spawn_auto_push(Path('.')), 'subprocess' in sys.modules)\n",
        cwd=repo,
    )
    assert out == "False False"


def test_pickup_environment_without_subprocess_when_nothing_runs(repo: Path) -> None:
    """No interpreter, probe or GPU check to run: the environment facts start no command
    but git's, and import no `subprocess`."""
    out = _run(
        "import sys\nfrom pathlib import Path\nfrom continuity_core import probes\n"
        "env = probes.environment(Path('.'), gpu=False)\n"
        "print(env.git.branch, 'subprocess' in sys.modules)\n",
        cwd=repo,
    )
    assert out == ("main True" if sys.platform == "win32" else "main False")
