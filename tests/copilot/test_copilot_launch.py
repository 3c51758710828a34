"""`baker resume copilot` and handoffs from Copilot sessions: the launch, --native between
COPILOT_HOME folders, the dry run without the CLI, and every captured session's facts in the
brief."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from continuity_copilot import CopilotAdapter, discovery
from continuity_core.adapters import Account, LaunchOptions
from continuity_core.brief import render
from continuity_core.errors import BakerError
from tests.copilot.helpers import COPILOT, GREETER, KILLED, TRUTH
from tests.helpers.invoke import Invoke
from tests.helpers.samples import brief_of

ADAPTER = CopilotAdapter()


def session_into(home: Path, session_id: str, project: Path, mtime: float = 2_000_000) -> Path:
    """A captured session copied into `home`, its paths moved to `project`."""
    src = COPILOT / ".copilot" / "session-state" / session_id
    dst = home / "session-state" / session_id
    dst.mkdir(parents=True)
    old = TRUTH[session_id]["cwd"].encode()
    for f in src.iterdir():
        data = f.read_bytes()
        (dst / f.name).write_bytes(data if f.suffix == ".db" else data.replace(old, bytes(project)))
    os.utime(dst / "events.jsonl", (mtime, mtime))
    return dst


def test_the_brief_is_the_interactive_first_prompt(tmp_path: Path) -> None:
    small = brief_of("Go on.")
    work = Account(agent="copilot", name="work", dir=str(tmp_path / "work"))
    spec = ADAPTER.launch(tmp_path, tmp_path / "brief.md", LaunchOptions(account=work, brief=small))
    assert spec.argv == ["copilot", "-i", render(small)]
    assert spec.env == {"COPILOT_HOME": str(tmp_path / "work")}
    assert spec.cwd == str(tmp_path)


def test_native_continues_the_session_in_another_copilot_home(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    folder = session_into(tmp_path / "personal", GREETER, project)
    ref = discovery.by_id(GREETER, [Account(agent="copilot", name="p", dir=str(folder.parents[1]))])
    assert ref is not None
    (folder / "inuse.4242.lock").write_text("")  # a live process's lock is never copied
    brief = tmp_path / "brief.md"
    brief.write_text("x")
    work_home = tmp_path / "work"
    work = Account(agent="copilot", name="work", dir=str(work_home))
    dry = ADAPTER.launch(project, brief, LaunchOptions(account=work, native=ref, dry_run=True))
    assert dry.argv[:4] == ["copilot", "--resume", GREETER, "-i"]
    assert any(n.startswith("would copy the session folder") for n in dry.notes)
    assert not work_home.exists()
    spec = ADAPTER.launch(project, brief, LaunchOptions(account=work, native=ref))
    copied = work_home / "session-state" / GREETER
    assert (copied / "events.jsonl").read_bytes() == (folder / "events.jsonl").read_bytes()
    assert (copied / "session.db").exists() and not (copied / "inuse.4242.lock").exists()
    assert spec.env["COPILOT_HOME"] == str(work_home) and str(brief.resolve()) in spec.argv[-1]
    # the copy there went on on its own: never overwritten without --force
    with open(copied / "events.jsonl", "a") as f:
        f.write('{"type":"user.message","data":{"content":"only in work"}}\n')
    with pytest.raises(BakerError, match="refusing to overwrite"):
        ADAPTER.launch(project, brief, LaunchOptions(account=work, native=ref))
    ADAPTER.launch(project, brief, LaunchOptions(account=work, native=ref, force=True))
    backups = [p.name for p in copied.parent.iterdir() if ".baker-backup-" in p.name]
    assert len(backups) == 1
    assert b"only in work" not in (copied / "events.jsonl").read_bytes()


def test_resume_copilot_dry_run_without_the_cli(
    repo: Path, isolated_home: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    session_into(isolated_home / ".copilot", GREETER, repo)
    empty = isolated_home / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    result = cli("resume", "copilot", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    assert "`copilot` is not on PATH" in result.stderr
    launch = json.loads(result.stdout)["launch"]
    assert launch["argv"][0] == "copilot" and launch["argv"][1] == "-i"
    assert "Now add a second line: goodbye" in launch["argv"][2]


@pytest.mark.parametrize("session_id", sorted(TRUTH))
def test_a_handoff_from_each_captured_session_carries_its_facts(
    repo: Path, isolated_home: Path, cli: Invoke, session_id: str
) -> None:
    truth = TRUTH[session_id]
    session_into(isolated_home / ".copilot", session_id, repo)
    result = cli("handoff", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["session"]["agent"] == "copilot"
    assert data["session"]["session_id"] == session_id
    brief = cli("handoff").stdout
    for request in truth["requests"]:
        assert request in brief
    for content, _ in truth["todos"]:
        assert content in brief
    for path, _ in truth["files_edited"]:
        assert path in brief
    for _, command in truth["interrupted_tool_calls"]:
        assert command in brief
    # (what was run and what sub-agents found are the parser's: test_copilot_parser.py)
    assert data["latest_request"] == truth["requests"][-1]
    assert data["ended_on_limit"] is bool(truth["error"])
    if truth["error"]:
        assert "429" in brief or "rate limit" in brief.lower()


def test_sessions_lists_copilot_beside_the_others(
    repo: Path, isolated_home: Path, cli: Invoke
) -> None:
    session_into(isolated_home / ".copilot", KILLED, repo)
    (isolated_home / ".copilot" / "session-state" / KILLED / "workspace.yaml").unlink()
    listed = json.loads(cli("sessions", "--json").stdout)["sessions"]  # found by its first event
    assert [(r["agent"], r["id"], r["state"]) for r in listed] == [
        ("copilot", KILLED, "interrupted")
    ]
