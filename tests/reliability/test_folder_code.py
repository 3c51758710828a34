"""Nothing from a folder runs (issue 30, point 6).

A project folder that did not come through git (a tarball, a zip, a shared folder) carries
whatever it likes: a `.venv` whose `pyvenv.cfg` points Python's standard library at the
folder's own code, and a `.git/config` that names programs for git to run. `baker status`,
`handoff` and the hooks run none of them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import git, run_baker

pytestmark = pytest.mark.skipif(os.name == "nt", reason="symlinks and modes are POSIX here")


def _marker_code(marker: Path) -> str:
    """Python that leaves `marker` without `open` (no builtins yet at `encodings`' import)."""
    return (
        f"import posix\nposix.close(posix.open({str(marker)!r}, posix.O_CREAT | posix.O_WRONLY))\n"
    )


def test_a_venv_whose_pyvenv_cfg_lies_in_the_folder_is_never_run(tmp_path: Path) -> None:
    """`.venv/bin/python` links to a real Python outside the folder, so an old check let it
    run; but `.venv/pyvenv.cfg` says `home = fake/bin`, and Python took its standard library
    (here `encodings`) from the folder. `status` reports the interpreter present, not run."""
    root = tmp_path / "unpacked"
    ran = tmp_path / "folder-code-ran"
    stdlib = root / "fake" / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"
    (stdlib / "encodings").mkdir(parents=True)
    (stdlib / "os.py").write_text("")  # the landmark Python looks for under `home`'s prefix
    (stdlib / "encodings" / "__init__.py").write_text(_marker_code(ran))
    (root / "fake" / "bin").mkdir()
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text(f"home = {root / 'fake' / 'bin'}\n")
    real = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    (root / ".venv" / "bin" / "python").symlink_to(real)
    assert run_baker("init", cwd=root).returncode == 0

    shown = run_baker("status", "--json", cwd=root)
    assert not ran.exists(), "the folder's own standard library ran"
    venv = {r["name"]: r for r in json.loads(shown.stdout)["interpreters"]}[".venv"]
    assert (venv["state"], venv["verdict"]) == ("ok", "present")
    assert "pyvenv.cfg lies inside the project" in venv["detail"]
    assert "not run" in venv["detail"]


GIT_ATTACKS = {
    "core.fsmonitor": "fsmonitor",
    "core.pager": "pager",
    "diff.external": "external-diff",
    "diff.evil.textconv": "textconv",
    "filter.evil.clean": "clean-filter",
    "filter.evil.process": "process-filter",
    "gpg.program": "gpg",
    "log.showSignature": None,
    "core.hooksPath": "hooks",
}


def _archive_with_git_config(tmp_path: Path) -> tuple[Path, Path]:
    """A repository as an archive brings it: `.git/config` names a program for every key git
    may run one from; each leaves a marker file named for its key in `marks`."""
    root, marks = tmp_path / "from-a-tarball", tmp_path / "marks"
    root.mkdir()
    marks.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("one\n")
    git(root, "add", "a.txt")
    git(root, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "first")
    hooks = root / "evil-hooks"
    hooks.mkdir()
    for key, mark in GIT_ATTACKS.items():
        if mark is None:
            git(root, "config", key, "true")
            continue
        program = root / f"run-{mark}"
        program.write_text(f"#!/bin/sh\ntouch {marks / mark}\ncat >/dev/null 2>&1\nexit 0\n")
        program.chmod(0o755)
        git(root, "config", key, str(hooks if key == "core.hooksPath" else program))
    for name in ("post-index-change", "reference-transaction", "post-checkout"):
        (hooks / name).write_text(f"#!/bin/sh\ntouch {marks / ('hook-' + name)}\n")
        (hooks / name).chmod(0o755)
    (root / ".gitattributes").write_text("* filter=evil diff=evil\n")
    (root / "a.txt").write_text("one\ntwo\n")  # a tracked change: `diff --shortstat` runs
    return root, marks


def test_a_git_config_from_an_archive_runs_nothing(tmp_path: Path, fixtures: Path) -> None:
    """`status`, `handoff`, a checkpoint and a pickup all run git in the folder; the clone's
    own config named an fsmonitor, a pager, an external diff, a textconv and clean filter, a
    gpg program and hooks. None of them runs."""
    root, marks = _archive_with_git_config(tmp_path)
    assert run_baker("init", cwd=root).returncode == 0
    text = (fixtures / "claude" / "hook_payloads" / "SessionStart.json").read_text()
    payload = text.replace(json.loads(text)["cwd"], str(root))
    for argv, data in (
        (("status", "--json"), None),
        (("handoff",), None),
        (("pickup", "--agent", "claude"), payload),
        (("precommit",), None),
    ):
        run_baker(*argv, cwd=root, input=data)
        assert sorted(p.name for p in marks.iterdir()) == [], argv


def test_a_fifo_in_the_git_folder_blocks_no_command(repo: Path, fixtures: Path) -> None:
    """An archive can bring a FIFO where git keeps a file: here `.git/commondir` and
    `.git/config`, which baker reads before every git call (to empty the filter drivers the
    config names). baker never waits on one, and git, which does, is killed at its timeout:
    `handoff` and the pickup hook (the agent waits for it) finish in seconds, without git's
    facts, and leave no git behind. Before, both waited for a writer forever."""
    from concurrent.futures import ThreadPoolExecutor

    assert run_baker("init", cwd=repo).returncode == 0
    (repo / ".git" / "config").unlink()
    for name in ("commondir", "config"):
        os.mkfifo(repo / ".git" / name, 0o600)
    text = (fixtures / "claude" / "hook_payloads" / "SessionStart.json").read_text()
    payload = text.replace(json.loads(text)["cwd"], str(repo))
    with ThreadPoolExecutor(2) as pool:  # at once: each waits out git's timeouts
        handoff = pool.submit(run_baker, "handoff", cwd=repo, timeout=40)
        pickup = pool.submit(
            run_baker, "pickup", "--agent", "claude", cwd=repo, input=payload, timeout=40
        )
        brief, picked = handoff.result(), pickup.result()
    assert brief.returncode == 0 and "Not a git repository." in brief.stdout
    context = json.loads(picked.stdout)["hookSpecificOutput"]["additionalContext"]
    assert context.startswith(f"# Continuity pickup: {repo}")
    left = [p for p in Path("/proc").glob("[0-9]*") if str(repo) in _cmdline(p)]
    for proc in left:  # nothing may outlive the command, waiting on the FIFO forever
        os.kill(int(proc.name), 9)
    assert left == []


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_text(errors="replace")
    except OSError:  # it ended meanwhile
        return ""


def test_every_git_command_goes_through_the_safe_argv() -> None:
    """One way to start git: `continuity_core.git.argv` (or its `output`/`Begun`), so no
    caller forgets what a repository's config may make git run."""
    import re

    root = Path(__file__).parents[2] / "packages"
    raw = re.compile(r"""\[\s*["']git["']\s*,""")
    found = [
        str(path.relative_to(root))
        for path in root.glob("*/src/**/*.py")
        if path.name != "git.py" and raw.search(path.read_text())
    ]
    assert found == [], found
