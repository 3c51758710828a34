#!/usr/bin/env python3
"""Release chores for the six distributions, which share one version.

    python3 scripts/release.py version        # print the version every package carries
    python3 scripts/release.py bump 0.2.0     # set it everywhere: versions, == pins, __version__
    python3 scripts/release.py check          # build, twine check, install in a fresh venv, run

`check` is what the release workflow runs before it publishes: it builds every package's wheel
and sdist into dist/, checks them with twine, installs the wheels into a fresh virtual
environment and runs `baker --version` (which must print the version) and `baker adapters`
(which must list every adapter). It needs `build` and `twine` in the running interpreter
(`pip install build twine`).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = sorted((ROOT / "packages").glob("continuity-*"))
ADAPTERS = ("claude", "codex", "gemini", "opencode")
VERSION = re.compile(r'^version = "([^"]+)"$', re.M)
PIN = re.compile(r'"(continuity-[a-z-]+)==[^"]+"')
DUNDER = re.compile(r'^__version__ = "[^"]+"$', re.M)
SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:(?:a|b|rc)\d+)?$")


def versions() -> dict[str, str]:
    found: dict[str, str] = {}
    for pkg in PACKAGES:
        match = VERSION.search((pkg / "pyproject.toml").read_text())
        if match is None:
            sys.exit(f"{pkg / 'pyproject.toml'}: no version line")
        found[pkg.name] = match.group(1)
    return found


def current() -> str:
    found = versions()
    if len(set(found.values())) != 1:
        sys.exit("versions differ: " + ", ".join(f"{k} {v}" for k, v in found.items()))
    return next(iter(found.values()))


def bump(new: str) -> None:
    if not SEMVER.match(new):
        sys.exit(f"{new!r} is not a version like 1.2.3 (or 1.2.3rc1)")
    for pkg in PACKAGES:
        toml = pkg / "pyproject.toml"
        text = VERSION.sub(f'version = "{new}"', toml.read_text(), count=1)
        toml.write_text(PIN.sub(rf'"\1=={new}"', text))
        for init in (pkg / "src").glob("*/__init__.py"):
            source = init.read_text()
            if DUNDER.search(source):
                init.write_text(DUNDER.sub(f'__version__ = "{new}"', source, count=1))
    print(f"every package is now {current()}; add a CHANGELOG section for it")


def run(*argv: str | Path, **kw: Any) -> subprocess.CompletedProcess[str]:
    print("+", " ".join(str(a) for a in argv), flush=True)
    return subprocess.run([str(a) for a in argv], check=True, text=True, **kw)


def check(dist: Path) -> None:
    version = current()
    if dist.exists():
        shutil.rmtree(dist)
    for pkg in PACKAGES:
        run(sys.executable, "-m", "build", "--outdir", dist, pkg)
    built = sorted(dist.iterdir())
    run(sys.executable, "-m", "twine", "check", "--strict", *built)
    with tempfile.TemporaryDirectory(prefix="baker-release-") as tmp:
        env_dir = Path(tmp) / "venv"
        venv.EnvBuilder(with_pip=True).create(env_dir)
        bin_dir = env_dir / ("Scripts" if os.name == "nt" else "bin")
        wheels = [str(w) for w in built if w.suffix == ".whl"]
        # The wheels name each other by exact version: pip takes them from dist/ and the
        # third-party dependencies from the index.
        run(bin_dir / "python", "-m", "pip", "install", "--quiet", "--find-links", dist, *wheels)
        out = run(bin_dir / "baker", "--version", capture_output=True).stdout
        if version not in out:
            sys.exit(f"`baker --version` printed {out.strip()!r}, not {version}")
        listed = run(bin_dir / "baker", "adapters", capture_output=True).stdout
        missing = [a for a in ADAPTERS if a not in listed]
        if missing:
            sys.exit(f"`baker adapters` does not list {', '.join(missing)}:\n{listed}")
    print(f"release check passed: {len(built)} files for {version} in {dist}")


def main() -> None:
    cmd, *args = sys.argv[1:] or ["--help"]
    if cmd == "version" and not args:
        print(current())
    elif cmd == "bump" and len(args) == 1:
        bump(args[0])
    elif cmd == "check" and len(args) <= 1:
        check(Path(args[0]).resolve() if args else ROOT / "dist")
    elif cmd in ("-h", "--help", "help"):
        print(__doc__)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
