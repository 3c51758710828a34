"""The pre-tool hook runs before every tool call: its common path, once the traps are cached,
imports neither msgspec nor click nor the redactor, nor hashlib (a cited file that kept its
identity is not hashed again) nor fnmatch (the cache holds the globs' regexes)
(docs/decisions.md, "How the hooks stay fast"). Each agent's `baker pretool` runs as the
agent runs it, its imports read from `python -X importtime`, after a first call has cached
the traps."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path

import pytest

from continuity_core import traps
from tests.conftest import FIXTURES, run_baker
from tests.helpers.child import imported_modules, run_importtime
from tests.helpers.gitindex import age_index

FIXTURE_CWD = "/home/dev/src/weather-cli"
PAYLOADS = {
    "claude": "PreToolUse.Write.json",
    "codex": "PreToolUse.apply_patch.json",
    "gemini": "BeforeTool.write_file.json",
}
FORBIDDEN = {
    "msgspec",
    "shlex",
    "subprocess",
    "dataclasses",
    "inspect",
    "click",
    "continuity_core.schemas.trap",
    "continuity_core.machines",
    "continuity_core.adapters.protocol",
    # the entry-point index (`adapters.registry`) stands in for importlib.metadata, which
    # imports email and zipfile; paths are made relative without pathlib (urllib, ipaddress)
    "importlib.metadata",
    "email",
    "zipfile",
    "pathlib",
    "urllib",
    "hashlib",
    "_hashlib",
    "fnmatch",
}


def payload(agent: str, repo: Path) -> bytes:
    text = (FIXTURES / agent / "hook_payloads" / PAYLOADS[agent]).read_text()
    data = json.loads(text.replace(FIXTURE_CWD, str(repo)))
    old, new = data["session_id"], str(uuid.uuid4())
    data["session_id"] = new
    # as the agent names it: Gemini's chat file carries the id's first 8 characters
    path = data.get("transcript_path") or ""
    data["transcript_path"] = path.replace(old, new).replace(old[:8], new[:8])
    return json.dumps(data).encode()


def imported(agent: str, repo: Path) -> tuple[set[str], str]:
    """The modules one `baker pretool` call imported, and what it printed."""
    report, out = run_importtime("pretool", "--agent", agent, cwd=repo, stdin=payload(agent, repo))
    return imported_modules(report), out


@pytest.mark.parametrize("agent", sorted(PAYLOADS))
def test_pretool_imports_none_of_the_costly_modules(repo: Path, agent: str) -> None:
    pytest.importorskip(f"continuity_{agent}")  # the CLI installed alone has no adapter
    from continuity_core.adapters import registry

    assert agent in registry.registered(registry.HOOK_GROUP), (
        "the installed adapter has no `continuity_core.hooks` entry point: an install older "
        "than its pyproject (run `python3 scripts/dev.py setup` again)"
    )
    assert run_baker("init", cwd=repo).returncode == 0
    age_index(repo)  # a fresh index's verdict is not remembered: each call would ask git
    (repo / "weather").mkdir()
    (repo / "weather" / "units.py").write_text("FACTOR = 1.8\n")  # a file the trap cites
    traps.add(repo, "weather/*.py", "float maths broke the golden files")
    traps.add(repo, "git push --force*", "the CI mirror rejects it", command=True)
    # Written long before the tool calls, as a user's are: settled past the window in which
    # the cache reads a file again (`os.utime` would set the ctime, which counts too).
    time.sleep(traps.RACY_NS / 1e9)
    first, out = imported(agent, repo)  # builds the cache of redacted traps
    assert "float maths broke the golden files" in out
    assert "continuity_core.redact" in first  # the cache was built by this call
    names, out = imported(agent, repo)
    assert "float maths broke the golden files" in out  # another session: delivered again
    assert f"continuity_{agent}.hooks" in names and "continuity_core.traps" in names
    assert not names & FORBIDDEN, sorted(names & FORBIDDEN)
    assert f"continuity_{agent}.adapter" not in names  # the hook module alone


def test_a_changed_traps_file_is_read_again(repo: Path) -> None:
    pytest.importorskip("continuity_claude")
    assert run_baker("init", cwd=repo).returncode == 0
    traps.add(repo, "weather/*.py", "first reason")
    _, out = imported("claude", repo)
    assert "first reason" in out
    traps.add(repo, "weather/units.py", "second reason")
    names, out = imported("claude", repo)
    assert "first reason" in out and "second reason" in out
    assert "continuity_core.redact" in names  # the cache was stale: read and redacted again
