"""What the hook path leaves out stays out (docs/decisions.md, "Hook start-up budget")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.child import run_python


def _run(code: str, cwd: Path | None = None) -> str:
    return run_python("-c", code, cwd=cwd).strip()


def test_msgspec_loads_without_typing_extensions_which_others_still_get() -> None:
    pytest.importorskip("typing_extensions")  # the `mcp` extra brings it; without it, moot
    out = _run(
        "import sys, continuity_core, msgspec\n"
        "print('typing_extensions' in sys.modules, 'inspect' in sys.modules)\n"
        "class S(msgspec.Struct):\n"
        "    a: int\n"
        "    b: list[str] = []\n"
        'assert msgspec.json.decode(b\'{"a": 1, "b": ["x"]}\', type=S) == S(1, [\'x\'])\n'
        "import typing_extensions\n"
        "print(typing_extensions.__name__)\n"
    )
    assert out.splitlines() == ["False False", "typing_extensions"]


def test_msgspec_imported_after_typing_extensions_uses_it() -> None:
    pytest.importorskip("typing_extensions")
    out = _run(
        "import typing_extensions, continuity_core, msgspec._utils as u\n"
        "print(u._get_type_hints.__module__)\n"
    )
    assert out == "typing_extensions"


def test_a_library_users_typing_extensions_types_decode_as_without_continuity() -> None:
    """A program that imports continuity_core first and then decodes its own
    typing_extensions TypedDicts (Required, NotRequired, Annotated) with msgspec gets what
    it gets without continuity_core (Python 3.11+: typing has them all)."""
    pytest.importorskip("typing_extensions")
    code = (
        "from __future__ import annotations\n"
        "import sys\n"
        "if sys.argv[1] == 'core':\n"
        "    import continuity_core\n"
        "import msgspec, typing_extensions as te\n"
        "class T(te.TypedDict, total=False):\n"
        "    a: te.Required[te.Annotated[int, msgspec.Meta(ge=0)]]\n"
        "    b: te.NotRequired[str]\n"
        "print(msgspec.json.decode(b'{\"a\": 1}', type=T))\n"
        'for bad in (b\'{"b": "x"}\', b\'{"a": -1}\'):\n'
        "    try:\n"
        "        msgspec.json.decode(bad, type=T)\n"
        "    except msgspec.ValidationError as e:\n"
        "        print(e)\n"
        "print(msgspec.json.schema(T))\n"
    )

    def run(mode: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", code, mode], capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert run("core") == run("plain")


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
