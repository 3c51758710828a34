"""Helpers for tests that run the real flow: captured transcripts and hook payloads of the real
CLIs moved into a scratch project and home, and a repository made read-only for real."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.conftest import BAKER, FIXTURES, run_baker

WEATHER = "/home/dev/src/weather-cli"
CLAUDE_WEATHER = "-home-dev-src-weather-cli/48f0d34d-61b5-40aa-aac6-73b6722315eb.jsonl"


def moved(text: str, home: Path, root: Path, project: str = WEATHER) -> str:
    """A captured file's text with its project at `root` and its agent homes under `home`."""
    return text.replace(project, str(root)).replace("/home/dev/", f"{home}/")


def claude_session(
    home: Path,
    root: Path,
    cwd: Path | None = None,
    *,
    rel: str = CLAUDE_WEATHER,
    project: str = WEATHER,
) -> Path:
    """A captured Claude Code session of `project` as if run in `root`, the agent started in
    `cwd` (default: `root`): the file goes where Claude Code keeps sessions of that folder."""
    pytest.importorskip("continuity_claude")  # the session is read by the Claude adapter
    from continuity_claude.discovery import project_slug

    src = FIXTURES / "claude" / ".claude" / "projects" / rel
    where = cwd or root
    dst = home / ".claude" / "projects" / project_slug(os.path.realpath(where)) / Path(rel).name
    dst.parent.mkdir(parents=True, exist_ok=True)
    text = src.read_text().replace(f'"cwd":"{project}"', f'"cwd":"{where}"')
    dst.write_text(text.replace(project, str(where)))
    return dst


def payload(
    agent: str, name: str, home: Path, root: Path, cwd: Path | None = None, **changes: object
) -> str:
    """A captured hook payload moved to this project (the agent in `cwd`, if given)."""
    import json

    data = json.loads(moved((FIXTURES / agent / "hook_payloads" / name).read_text(), home, root))
    if cwd is not None:
        data["cwd"] = str(cwd)
    data.update(changes)
    return json.dumps({k: v for k, v in data.items() if v is not None})  # None: key dropped


def read_only_run(
    paths: Sequence[Path], *args: str, cwd: Path, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`baker ARGS` with `paths` read-only: `chmod -w` for a normal user; for root (whom
    permissions do not stop) a read-only bind mount in a private namespace."""
    if os.geteuid() != 0:
        modes = {f: f.stat().st_mode for p in paths for f in [p, *p.rglob("*")]}
        try:
            for f, mode in modes.items():
                f.chmod(mode & ~0o222)
            return run_baker(*args, cwd=cwd, input=input)
        finally:
            for p, mode in modes.items():
                p.chmod(mode)
    if shutil.which("unshare") is None:
        pytest.skip("root without unshare: cannot make a folder read-only")
    mounts = " && ".join(
        f"mount --bind -o ro {shlex.quote(str(p))} {shlex.quote(str(p))}" for p in paths
    )
    script = f"{mounts} && cd {shlex.quote(str(cwd))} && exec {shlex.join([BAKER, *args])}"
    probe = subprocess.run(["unshare", "-rm", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("no user namespaces here: cannot make a folder read-only as root")
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        input=input.encode() if input is not None else None,
        timeout=60,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode(errors="replace"),
        proc.stderr.decode(errors="replace"),
    )
