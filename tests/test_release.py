"""scripts/release.py keeps six versions in lockstep and checks the built distributions;
scripts/dev.py install gives a user a working `baker` without an index."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable


def script(*argv: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, *argv], cwd=cwd, capture_output=True, text=True, timeout=600, env={**os.environ, **env}
    )


def test_bump_moves_every_version_and_pin_together(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    shutil.copytree(
        ROOT / "packages",
        clone / "packages",
        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
    )
    shutil.copytree(
        ROOT / "scripts", clone / "scripts", ignore=shutil.ignore_patterns("__pycache__")
    )
    before = script("scripts/release.py", "version", cwd=clone).stdout.strip()
    assert before == script("scripts/release.py", "version").stdout.strip()
    pins = (
        (clone / "packages" / "continuity-cli" / "pyproject.toml").read_text().count(f"=={before}")
    )
    assert pins >= 9  # core, each adapter's extra and `all`
    assert script("scripts/release.py", "bump", "9.8.7rc1", cwd=clone).returncode == 0
    assert script("scripts/release.py", "version", cwd=clone).stdout.strip() == "9.8.7rc1"
    cli = (clone / "packages" / "continuity-cli" / "pyproject.toml").read_text()
    assert f"=={before}" not in cli and cli.count("==9.8.7rc1") == pins
    init = clone / "packages" / "continuity-core" / "src" / "continuity_core" / "__init__.py"
    assert '__version__ = "9.8.7rc1"' in init.read_text()
    bad = script("scripts/release.py", "bump", "next", cwd=clone)
    assert bad.returncode != 0 and "not a version" in bad.stderr


@pytest.mark.slow
def test_release_check_builds_installs_and_runs(tmp_path: Path) -> None:
    result = script("scripts/release.py", "check", str(tmp_path / "dist"))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    packages = len(list((ROOT / "packages").glob("*/pyproject.toml")))  # one wheel, one sdist
    assert f"release check passed: {2 * packages} files" in result.stdout
    names = sorted(p.name for p in (tmp_path / "dist").iterdir())
    assert sum(n.endswith(".whl") for n in names) == packages
    assert sum(n.endswith(".tar.gz") for n in names) == packages


@pytest.mark.slow
def test_user_install_links_a_working_baker_and_uninstall_removes_it(isolated_home: Path) -> None:
    dev = str(ROOT / "scripts" / "dev.py")
    installed = script(dev, "install", cwd=isolated_home, PATH="/usr/bin:/bin")
    assert installed.returncode == 0, installed.stdout[-2000:] + installed.stderr[-2000:]
    link = isolated_home / ".local" / "bin" / "baker"
    assert link.is_symlink()
    assert "is not on your PATH" in installed.stdout
    version = subprocess.run([str(link), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and "version" in version.stdout
    listed = subprocess.run([str(link), "adapters"], capture_output=True, text=True).stdout
    assert all(agent in listed for agent in ("claude", "codex", "gemini"))
    doctor = subprocess.run(
        [str(link), "doctor"],
        capture_output=True,
        text=True,
        cwd=isolated_home,
        env={**os.environ, "PATH": f"{link.parent}{os.pathsep}{os.environ['PATH']}"},
    )
    assert f"hooks will run {link}" in doctor.stdout
    # A re-run with nothing changed rebuilds nothing (issue 31: it took 24 s).
    start = time.monotonic()
    again = script(dev, "install", cwd=isolated_home, PATH="/usr/bin:/bin")
    assert again.returncode == 0 and "up to date" in again.stdout, again.stderr
    assert time.monotonic() - start < 10
    # Codex's notify is the one user-level entry not guarded by `command -v baker`: the
    # uninstall takes it (and every other `global sync` entry) out before baker goes.
    (isolated_home / ".codex").mkdir()
    synced = subprocess.run(
        [str(link), "global", "sync", "--trust"], capture_output=True, text=True, cwd=isolated_home
    )
    assert synced.returncode == 0, synced.stdout + synced.stderr
    codex_config = isolated_home / ".codex" / "config.toml"
    assert "notify" in codex_config.read_text()
    removed = script(dev, "install", "--uninstall", cwd=isolated_home)
    assert removed.returncode == 0, removed.stderr
    assert not link.exists() and not link.is_symlink()
    assert not (isolated_home / ".local" / "share" / "baker").exists()
    assert not codex_config.exists() or "baker" not in codex_config.read_text()


def test_install_never_replaces_a_foreign_baker(isolated_home: Path) -> None:
    bin_dir = isolated_home / ".local" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "baker").write_text("#!/bin/sh\necho mine\n")
    result = script(str(ROOT / "scripts" / "dev.py"), "install", cwd=isolated_home)
    assert result.returncode != 0 and "move it away first" in result.stderr
    assert (bin_dir / "baker").read_text().endswith("echo mine\n")
