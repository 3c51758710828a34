"""A checkpointed `baker handoff`'s budget is eight bare interpreter starts (issue 29): it
imports click, msgspec, json, subprocess, tomllib and hashlib, and of the rest only what the
brief needs (docs/decisions.md, "How the hooks stay fast"). Its imports are read from
`python -X importtime`, in a user's set-up: a second account and a rotation in config.toml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.flows import claude_session, payload
from tests.cli.test_pickup_lean import importers
from tests.conftest import git, run_baker
from tests.helpers.child import run_importtime
from tests.helpers.config import rotation, work_account, write_config
from tests.helpers.gitindex import age_index
from tests.opencode.helpers import MAIN, PAYLOADS, home_copy

FORBIDDEN = {
    "pathlib",  # with `urllib.parse` and `ipaddress`: 0.4 of a bare start, for a `Path` type
    "importlib.metadata",  # entry points come from the index the checkpoint wrote
    "email",
    "tomlkit",  # the config is read with tomllib; tomlkit only edits it
    "filelock",
    "mcp",
    "continuity_core.archive",
    "continuity_core.snapshots",  # no --machine
    "continuity_core.saved",  # no saved checkpoint in this worktree
    "continuity_claude.install",
    "continuity_claude.launch",
}


def test_a_checkpointed_handoff_imports_none_of_the_costly_modules(
    repo: Path, isolated_home: Path
) -> None:
    pytest.importorskip("continuity_claude")
    write_config(isolated_home, work_account(isolated_home) + rotation(["claude", "claude:work"]))
    assert run_baker("init", "--agent", "claude", cwd=repo).returncode == 0
    age_index(repo)  # a fresh index's verdict is not remembered: each call would ask git
    transcript = claude_session(isolated_home, repo)
    stop = payload("claude", "Stop.json", isolated_home, repo, transcript_path=str(transcript))
    assert run_baker("checkpoint", "--agent", "claude", cwd=repo, input=stop).returncode == 0
    for narrowed in ([], ["--from", "claude"]):  # every installed agent searched, or one
        report, out = run_importtime("handoff", *narrowed, cwd=repo)
        names = importers(report)
        assert "# Handoff brief" in out and "48f0d34d" in out  # the session's brief
        assert "continuity_core.brief" in names and "continuity_claude.adapter" in names
        costly = FORBIDDEN & names.keys()
        assert not costly, {m: names[m] for m in costly}  # each with what imported it


def test_a_checkpointed_opencode_handoff_reads_its_database_and_loads_no_more(
    tmp_path: Path, isolated_home: Path
) -> None:
    # `sqlite3` to read the database, and nothing of the costly modules: no pathlib for the
    # database's URI, none of the plugin's installer, no config read for a window looked up
    pytest.importorskip("continuity_opencode")
    data, work = home_copy(tmp_path)
    repo = work / "proj"
    git(repo, "init", "-q", "-b", "main")
    (repo / "hello.txt").write_text("hello mock\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "hello")
    env = {"XDG_DATA_HOME": str(data.parent)}
    write_config(isolated_home, work_account(isolated_home) + rotation(["claude", "claude:work"]))
    assert run_baker("init", "--agent", "opencode", cwd=repo, env=env).returncode == 0
    age_index(repo)
    idle = json.loads((PAYLOADS / "session.idle.json").read_text())
    idle.update(session_id=MAIN, cwd=str(repo))
    stop = json.dumps(idle).encode()
    assert (
        run_baker("checkpoint", "--agent", "opencode", cwd=repo, input=stop, env=env).returncode
        == 0
    )
    report, out = run_importtime("handoff", "--from", "opencode", cwd=repo, env=env)
    names = importers(report)
    assert "Run the slow build" in out and f"#{MAIN}" in out  # the session's brief
    assert "sqlite3" in names and "continuity_opencode.parser" in names
    forbidden = (FORBIDDEN - {"continuity_claude.install", "continuity_claude.launch"}) | {
        "continuity_opencode.install",
        "continuity_opencode.doctor",
        "continuity_opencode.models",  # the window the checkpoint looked up is in the cursor
    }
    costly = forbidden & names.keys()
    assert not costly, {m: names[m] for m in costly}
