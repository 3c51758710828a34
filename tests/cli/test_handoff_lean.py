"""A checkpointed `baker handoff`'s budget is eight bare interpreter starts (issue 29): it
imports click, msgspec, json, subprocess, tomllib and hashlib, and of the rest only what the
brief needs (docs/decisions.md, "How the hooks stay fast"). Its imports are read from
`python -X importtime`, in a user's set-up: a second account and a rotation in config.toml."""

from __future__ import annotations

from pathlib import Path

from tests.cli.flows import claude_session, payload
from tests.cli.test_pickup_lean import importers
from tests.conftest import run_baker
from tests.helpers.child import run_importtime
from tests.helpers.config import rotation, work_account, write_config
from tests.helpers.gitindex import age_index

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
