"""Fresh interpreters for the tests that read what a hook path imports.

The suite measures coverage in its child processes through a start-up hook (`COVERAGE_*`),
which itself imports what the hook paths leave out, so these children run without it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import BAKER


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without coverage's variables, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    return {**env, **(extra or {})}


def run_python(*args: str, cwd: Path | None = None, stdin: bytes = b"") -> str:
    """What `python ARGS` printed in a fresh interpreter; the test fails if it did not exit 0."""
    done = subprocess.run(
        [sys.executable, *args],
        input=stdin,
        cwd=cwd,
        env=clean_env(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode()


def run_importtime(
    *args: str, cwd: Path, stdin: bytes = b"", env: dict[str, str] | None = None
) -> tuple[str, str]:
    """`baker ARGS` as an agent runs it, under `python -X importtime`: (the import report,
    what it printed); the test fails if it did not exit 0."""
    python = Path(BAKER).parent / "python"
    done = subprocess.run(
        [str(python), "-X", "importtime", BAKER, *args],
        input=stdin,
        cwd=cwd,
        env=clean_env(env),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr.decode(), done.stdout.decode()


def imported_modules(report: str) -> set[str]:
    """The modules an `-X importtime` report lists."""
    lines = report.splitlines()
    return {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}
