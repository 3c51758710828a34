#!/usr/bin/env python3
"""Developer set-up and checks, standard library only.

    python3 scripts/dev.py setup     # .venv with every package editable, in one pip call
    python3 scripts/dev.py test      # setup, then lint, every `alone` run and the suite
    python3 scripts/dev.py suite     # setup, then the whole suite once, with coverage
    python3 scripts/dev.py lint      # ruff check, mypy and ruff format --check only
    python3 scripts/dev.py e2e       # install the pinned agent CLIs (from the npm lock) only
    python3 scripts/dev.py alone PKG # PKG (e.g. core) alone passes its tests; `cli`: no adapter
    python3 scripts/dev.py packages  # the packages `alone` and `setup` take (packages/*)
    python3 scripts/dev.py install   # `baker` for daily use: its own venv, linked into ~/.local/bin
    python3 scripts/dev.py install --uninstall   # remove exactly that
    python3 scripts/dev.py canary    # the newest agent CLIs: capture, facts, e2e (network)

Extra arguments after `test` or `suite` go to pytest, e.g. `dev.py test -m "not e2e" -x`.
The suite fails when coverage across all packages is under `fail_under` (root pyproject).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workspace  # a sibling script: the one list of packages, read from packages/*

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
# Every package folder under packages/, core first and the CLI last; each is also tested
# alone (`cli` alone: with no adapter). A new package is picked up with no edit here.
PACKAGES = workspace.names(ROOT)
ALONE = PACKAGES
E2E = ROOT / "tests" / "e2e"


def run(*argv: str | Path, **kw: Any) -> None:
    print("+", " ".join(str(a) for a in argv), flush=True)
    subprocess.run([str(a) for a in argv], check=True, **kw)


def setup() -> None:
    if not PY.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    run(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip>=25.1")
    editable: list[str] = []
    for name in PACKAGES:
        spec = str(ROOT / "packages" / f"continuity-{name}")
        editable += ["-e", spec + ("[all]" if name == workspace.CLI else "")]
    # One call: the CLI's extras resolve to the sibling folders, never to PyPI.
    run(PY, "-m", "pip", "install", "--quiet", *editable, "--group", "dev", cwd=ROOT)


def e2e() -> None:
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("npm not found: the end-to-end tests need Node.js 22+ and npm on PATH")
    if (E2E / "package-lock.json").exists():
        stamp = E2E / "node_modules" / ".package-lock.json"
        lock = E2E / "package-lock.json"
        if not stamp.exists() or stamp.stat().st_mtime < lock.stat().st_mtime:
            # The versions the lock pins, and the lock left as it is. Not `npm ci`: it refuses a
            # lock that lacks optional packages the registry never published (opencode-ai
            # 1.18.33 names a darwin-arm64 build that does not exist), which `install` skips.
            run(npm, "install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error", cwd=E2E)


def alone(package: str) -> None:
    """Install one package (and core, which every package needs) in a fresh venv; test it.

    `cli` is installed without its extras, so its tests run with no adapter at all.
    """
    folder = package.replace("-", "_")
    env_dir = ROOT / ".venv-alone" / package
    if env_dir.exists():
        shutil.rmtree(env_dir)
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / BIN.name / PY.name
    run(py, "-m", "pip", "install", "--quiet", "--upgrade", "pip>=25.1")
    specs = {str(ROOT / "packages" / f"continuity-{name}") for name in ("core", package)}
    run(py, "-m", "pip", "install", "--quiet", *sorted(specs), "--group", "test", cwd=ROOT)
    run(py, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"tests/{folder}", cwd=ROOT)


def user_dirs() -> tuple[Path, Path]:
    """Where `install` puts baker's own environment and the `baker` link, as pipx does."""
    home = Path.home()
    if os.name == "nt":
        data = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local") / "baker"
        return data / "venv", data / "bin"
    data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "baker"
    return data / "venv", Path(os.environ.get("XDG_BIN_HOME") or home / ".local" / "bin")


def install(uninstall: bool) -> None:
    """Install the CLI with every adapter into an environment of its own (not editable: the
    clone can move or go), and link `baker` into the user's bin folder."""
    env_dir, bin_dir = user_dirs()
    target = env_dir / BIN.name / ("baker.exe" if os.name == "nt" else "baker")
    link = bin_dir / target.name
    ours = link.is_symlink() and Path(os.readlink(link)) == target
    if (link.exists() or link.is_symlink()) and not ours:
        sys.exit(f"{link} exists and is not baker's link to {target}: move it away first")
    stamp = env_dir / STAMP
    digest = _sources_digest()
    if not uninstall and ours and target.exists() and _read(stamp) == digest:
        print(f"baker in {env_dir} is up to date with this checkout (linked as {link})")
        return
    if uninstall and target.exists():
        # The user-level entries `global sync` wrote: Codex's `notify = ["baker", …]` is not
        # guarded by `command -v baker`, so left behind it fails after every turn.
        subprocess.run([str(target), "global", "sync", "--uninstall"], check=False)
    if link.is_symlink():
        link.unlink()
    if env_dir.exists():
        shutil.rmtree(env_dir)
    if uninstall:
        with contextlib.suppress(OSError):
            env_dir.parent.rmdir()  # only when nothing else of baker's is there
        print(f"removed {env_dir}" + (f" and {link}" if ours else ""))
        return
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / BIN.name / PY.name
    # The CLI with `[all]`: its extras resolve to the folders named beside it.
    specs = [
        str(ROOT / "packages" / f"continuity-{name}") + ("[all]" if name == workspace.CLI else "")
        for name in PACKAGES
    ]
    run(py, "-m", "pip", "install", "--quiet", *specs, cwd=ROOT)
    stamp.write_text(digest)
    bin_dir.mkdir(parents=True, exist_ok=True)
    os.symlink(target, link)
    print(f"installed baker in {env_dir}, linked as {link}")
    on_path = any(
        Path(p).resolve() == bin_dir.resolve()
        for p in os.environ.get("PATH", "").split(os.pathsep)
        if p
    )
    if not on_path:
        print(
            f"{bin_dir} is not on your PATH: add it (e.g. in ~/.profile:"
            f' export PATH="{bin_dir}:$PATH") so that agent hooks can run baker'
        )


STAMP = "baker-install.sha256"  # in the environment: what `install` built it from


def _sources_digest() -> str:
    """A hash of every file the installed packages are built from (and the Python that runs
    them): a re-run of `install` with nothing changed skips the rebuild (24 s before)."""
    import hashlib

    h = hashlib.sha256(sys.version.encode())
    for name in PACKAGES:
        folder = ROOT / "packages" / f"continuity-{name}"
        files = [folder / "pyproject.toml", *(folder / "src").rglob("*")]
        for path in sorted(p for p in files if p.is_file() and "__pycache__" not in p.parts):
            h.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def canary(args: list[str]) -> None:
    """scripts/canary.py in the venv; its `--help` needs neither the venv nor the network."""
    script = ROOT / "scripts" / "canary.py"
    if "-h" in args or "--help" in args:
        sys.exit(subprocess.run([sys.executable, str(script), "--help"], check=False).returncode)
    setup()
    sys.exit(subprocess.run([str(PY), str(script), *args], cwd=ROOT, check=False).returncode)


def lint() -> None:
    """Lint, types (mypy strict over packages, tests and scripts) and the formatter's check."""
    run(BIN / "ruff", "check", "packages", "tests", "scripts", cwd=ROOT)
    run(BIN / "mypy", cwd=ROOT)
    try:
        run(BIN / "ruff", "format", "--check", "packages", "tests", "scripts", cwd=ROOT)
    except subprocess.CalledProcessError:
        sys.exit(
            "the files above are not formatted: run `.venv/bin/ruff format packages tests scripts`"
        )


def test(args: list[str]) -> None:
    setup()
    lint()
    for package in ALONE:
        alone(package)
    suite(args)


def suite(args: list[str]) -> None:
    """The whole suite once under coverage; fails on pytest's result, then on the threshold."""
    setup()
    if "-m" not in args or "not e2e" not in " ".join(args):
        e2e()
    env = {**os.environ, "COVERAGE_RCFILE": str(ROOT / "pyproject.toml")}
    for old in ROOT.glob(".coverage*"):
        old.unlink()
    code = subprocess.run(
        [str(PY), "-m", "coverage", "run", "-m", "pytest", *args],
        cwd=ROOT,
        env=env,
        check=False,
    ).returncode
    subprocess.run(
        [str(PY), "-m", "coverage", "combine", "--quiet"], cwd=ROOT, env=env, check=False
    )
    report = subprocess.run(
        [str(PY), "-m", "coverage", "report"], cwd=ROOT, env=env, check=False
    ).returncode
    if code == 0 and report != 0:
        print(
            "coverage is under fail_under in pyproject.toml [tool.coverage.report]", file=sys.stderr
        )
    sys.exit(code or report)


def main() -> None:
    cmd, *args = sys.argv[1:] or ["test"]
    if cmd == "setup":
        setup()
    elif cmd == "test":
        test(args)
    elif cmd == "suite":
        suite(args)
    elif cmd == "lint":
        lint()
    elif cmd == "e2e":
        e2e()
    elif cmd == "alone" and args:
        if args[0] not in ALONE:
            sys.exit(f"no package {args[0]!r} under packages/: one of {', '.join(ALONE)}")
        alone(args[0])
    elif cmd == "packages" and not args:
        print("\n".join(ALONE))
    elif cmd == "install" and args in ([], ["--uninstall"]):
        install(uninstall=bool(args))
    elif cmd in ("-h", "--help", "help"):
        print(__doc__)
    elif cmd == "canary":
        canary(args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
