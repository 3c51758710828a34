"""Suite-wide isolation: no test ever sees the real home, agent config dirs or ~/.baker."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.helpers.invoke import Invoke

if TYPE_CHECKING:
    from click.testing import Result

FIXTURES = Path(__file__).parent / "fixtures"
BIN = Path(sys.executable).parent
BAKER = str(BIN / "baker")

AGENT_VARS = (
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "COPILOT_HOME",
    "COPILOT_OFFLINE",
    "COPILOT_PROVIDER_BASE_URL",
    "COPILOT_PROVIDER_API_KEY",
    "COPILOT_MODEL",
    "COPILOT_GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_TOKEN",
    "BAKER_HOME",
    "BAKER_ADAPTERS",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "BAKER_DEBUG",
)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A fresh HOME per test; every agent's config variable unset or pointed inside it."""
    home = tmp_path_factory.mktemp("home")
    for var in AGENT_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "test@example.invalid")
    monkeypatch.setenv("TZ", "UTC")
    from continuity_core.adapters import registry

    registry._loaded.clear()
    return home


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Iterator[Path]:
    """A scratch git repository with one commit, as the current directory."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("scratch\n")
    git(root, "add", ".")
    git(root, "commit", "-qm", "initial commit")
    old = os.getcwd()
    os.chdir(root)
    yield root
    os.chdir(old)


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


def run_baker(
    *args: str,
    cwd: Path | None = None,
    input: bytes | str | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run the installed `baker` as an agent would: a separate process. Skips the test where
    the CLI is not installed (an adapter's tests run with core and the adapter alone)."""
    if not Path(BAKER).exists():
        pytest.skip("the baker CLI (continuity-cli) is not installed here")
    data = input.encode() if isinstance(input, str) else input
    proc = subprocess.run(
        [BAKER, *args],
        cwd=cwd,
        input=data,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode(errors="replace"),
        proc.stderr.decode(errors="replace"),
    )


@pytest.fixture
def baker() -> object:
    return run_baker


@pytest.fixture
def cli() -> Iterator[Invoke]:
    """Invoke the click app in-process; exceptions propagate so bugs fail loudly."""
    pytest.importorskip("continuity_cli", reason="the baker CLI is not installed here")
    from click.testing import CliRunner

    from continuity_cli.app import cli as app

    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Result:
        return runner.invoke(app, list(args), input=input, catch_exceptions=False)

    yield invoke


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True, dirs_exist_ok=True)
    for p in [dst, *dst.rglob("*")]:
        p.chmod(p.stat().st_mode | 0o200)
    return dst


def lingering(text: str | Path, argv_has: str = "") -> list[int]:
    """Pids of processes other than this one whose argv or environment holds `text` (a path
    or marker variable a test gave the `baker` it ran), and whose argv holds `argv_has`, from
    /proc; [] where there is none."""
    found = []
    needle, word = str(text).encode(), argv_has.encode()
    for entry in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError, ValueError):
            pid, argv = int(entry.name), (entry / "cmdline").read_bytes()
            if (
                pid != os.getpid()
                and word in argv
                and (needle in argv or needle in (entry / "environ").read_bytes())
            ):
                found.append(pid)
    return found


def sigkill_midway(argv: list[str], delay: float) -> None:
    """Start `argv`, wait for its first line of output (it is writing), let it run `delay`
    seconds more, and SIGKILL it."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.readline()
    time.sleep(delay)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
