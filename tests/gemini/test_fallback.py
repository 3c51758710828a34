"""A model fallback, as Gemini CLI 0.61.0 really does it (capture S9, `scripts/capture.py`).

The flash-lite model's daily quota ran out mid-turn; the CLI went on with flash without asking
(the one chain whose every action is "silent") and gave the session a new id. It wrote no second
file: the chat file keeps its name, header and id, and holds both parts. The id printed by
`-o json` and every hook after the fallback carry the new id, which `--resume` refuses; the
file's id resumes. Then `--resume` fell back again and rotated once more.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from continuity_core.schemas.config import GlobalConfig
from continuity_gemini import GeminiAdapter, discovery
from continuity_gemini.discovery import HEAD_BYTES, own_session_id
from tests.conftest import FIXTURES, run_baker
from tests.gemini.chatlog import CONTEXT, PAYLOADS, SESSIONS, gemini, header, user, write_log

ADAPTER = GeminiAdapter()
REL, GT = next((k, v) for k, v in SESSIONS.items() if v.get("kind") == "fallback")
FILE_ID = GT["session_id"]
HOOKS = [
    json.loads(line) for line in (PAYLOADS / "fallback" / "all.jsonl").read_text().splitlines()
]
ROTATED = {h["payload"]["session_id"] for h in HOOKS} - {FILE_ID}


def _moved(payload: dict[str, Any], home: Path, root: Path | None = None) -> dict[str, Any]:
    text = json.dumps(payload)
    if root is not None:
        text = text.replace(GT["cwd"], str(root))
    moved: dict[str, Any] = json.loads(text.replace("/home/dev/", f"{home}/"))
    return moved


def test_the_capture_shows_one_file_and_new_ids() -> None:
    """What the real CLI did, pinned: the rest of this file handles exactly this."""
    assert GT["models_in_order"][0] != GT["models_in_order"][-1]  # it did fall back
    printed = GT["model_fallback"]["printed_session_ids"]
    assert len(printed) == 2 and FILE_ID not in printed  # two runs, each rotated
    assert set(printed) <= ROTATED  # the hooks after each fallback carry the printed id
    assert {h["payload"]["transcript_path"] for h in HOOKS} == {f"/home/dev/{REL[7:]}"}
    chats = (FIXTURES / REL).parent
    assert [p.name for p in chats.iterdir()] == [Path(REL).name]  # no second chat file
    starts = [h["payload"]["session_id"] for h in HOOKS if h["event"] == "SessionStart"]
    assert starts == [FILE_ID, FILE_ID]  # startup and resume: the file's id
    assert GT["cli_invocations"][1]["rc"] == 0  # `--resume <file id>` worked


def test_every_hook_names_the_file_session(gemini_home: Path) -> None:
    for h in HOOKS:
        event = ADAPTER.parse_hook(json.dumps(_moved(h["payload"], gemini_home.parent)).encode())
        assert event.session_id == FILE_ID, h["event"]


def test_the_session_for_a_hook_after_the_fallback_is_the_one_file(gemini_home: Path) -> None:
    after = next(
        h["payload"]
        for h in HOOKS
        if h["event"] == "AfterAgent" and h["payload"]["session_id"] in ROTATED
    )
    event = ADAPTER.parse_hook(json.dumps(_moved(after, gemini_home.parent)).encode())
    ref = ADAPTER.session_for_hook(event, ADAPTER.accounts(GlobalConfig()))
    assert ref is not None
    assert ref.session_id == FILE_ID
    assert ref.path == str(gemini_home.parent / REL.removeprefix("gemini/"))
    assert ref.cwd == GT["cwd"]


def test_after_the_fallback_the_hook_folder_alone_is_listed(
    gemini_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file's id, not the hook's, finds the file where the hook names it: no scan."""
    after = next(
        h["payload"]
        for h in HOOKS
        if h["event"] == "AfterAgent" and h["payload"]["session_id"] in ROTATED
    )
    event = ADAPTER.parse_hook(json.dumps(_moved(after, gemini_home.parent)).encode())
    accounts = ADAPTER.accounts(GlobalConfig())

    def scanned(*args: object) -> None:
        raise AssertionError(f"scanned {args}")

    for name in ("project_dirs", "_all_folders", "markers"):
        monkeypatch.setattr(discovery, name, scanned)
    ref = ADAPTER.session_for_hook(event, accounts)
    assert ref is not None and ref.session_id == FILE_ID and ref.path == event.transcript_path
    assert ref.cwd == GT["cwd"]


def test_discovery_and_the_read_see_one_session_with_both_parts(gemini_home: Path) -> None:
    refs = list(ADAPTER.discover(Path(GT["cwd"]), ADAPTER.accounts(GlobalConfig())))
    assert [r.session_id for r in refs] == [FILE_ID]
    session = ADAPTER.read(refs[0]).session
    assert session.requests == GT["user_requests"]  # one before, one after a fallback
    assert [c.name for c in session.tool_calls] == GT["tool_call_sequence"]
    # written by flash-lite, edited by flash after the fallback: one file, twice
    [edited] = session.files_edited
    assert edited.path == "greet.py" and edited.count == 2
    assert session.model == GT["models_in_order"][-1]


def test_a_hook_id_stands_where_the_file_cannot_say(tmp_path: Path) -> None:
    chats = tmp_path / "tmp" / "demo" / "chats"
    other = "abcdef01-0000-4000-8000-000000000002"
    # named after the hook's id (a `--resume` stub, any normal turn): no read, the id stands
    named = write_log(
        chats / f"session-2026-11-30T04-00-{other[:8]}.jsonl",
        [header("ffffffff-0000-4000-8000-000000000003"), CONTEXT],
    )
    assert own_session_id(str(named), other) == other
    # another file's name, but a header that does not match its name: not trusted
    odd = write_log(
        chats / "session-2026-11-30T04-00-12345678.jsonl",
        [header("99999999-0000-4000-8000-000000000004"), CONTEXT],
    )
    assert own_session_id(str(odd), other) == other
    # gone, or no path or id at all
    assert own_session_id(str(chats / "session-2026-11-30T04-00-77777777.jsonl"), other) == other
    assert own_session_id(None, other) == other and own_session_id(str(odd), None) is None
    # and the case it is for
    sid = "12345678-0000-4000-8000-000000000005"
    real = write_log(
        chats / "session-2026-11-30T04-01-12345678.jsonl",
        [header(sid), CONTEXT, user("u1", "go"), gemini("g1", "ok")],
    )
    assert own_session_id(str(real), other) == sid


def test_the_id_read_never_blocks_and_reads_only_the_head(tmp_path: Path) -> None:
    """A hook runs on every turn under a deadline: a FIFO named like a chat file must not hang
    it, and a chat file with a huge first line costs one small read."""
    other = "abcdef01-0000-4000-8000-000000000002"
    fifo = tmp_path / "session-2026-11-30T04-00-12345678.jsonl"
    os.mkfifo(fifo)
    done: list[str | None] = []
    thread = threading.Thread(
        target=lambda: done.append(own_session_id(str(fifo), other)), daemon=True
    )
    thread.start()
    thread.join(5)
    assert done == [other]
    huge = tmp_path / "session-2026-11-30T04-01-12345678.jsonl"
    huge.write_bytes(
        b'{"x": "'
        + b"a" * (HEAD_BYTES * 64)
        + b'", "sessionId": "12345678-0000-4000-8000-000000000005"}\n'
    )
    assert own_session_id(str(huge), other) == other  # past the head: the hook's id stands
    assert own_session_id("/etc/passwd", other) == other  # not a chat file's name: no read
    odd = tmp_path / "session-2026-11-30T04-02-12345678.jsonl"
    odd.write_text('{"sessionId": "12345678; rm -rf ~", "projectHash": "x"}\n')
    assert own_session_id(str(odd), other) == other  # not an id: the hook's stands


@pytest.fixture
def fallback_project(repo: Path, isolated_home: Path) -> Path:
    """The captured session as this repository's, and baker set up there."""
    pytest.importorskip("continuity_cli", reason="the baker command comes with continuity-cli")
    assert run_baker("init", "--agent", "gemini", cwd=repo).returncode == 0
    src = (FIXTURES / REL).parent.parent
    dst = isolated_home / ".gemini" / "tmp" / src.name
    shutil.copytree(src, dst)
    (dst / ".project_root").write_text(str(repo))
    (isolated_home / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {str(repo): src.name}})
    )
    return repo


def _hook(event: str, isolated_home: Path, repo: Path, tool: str | None = None) -> str:
    payload = next(
        h["payload"]
        for h in HOOKS
        if h["event"] == event
        and h["payload"]["session_id"] in ROTATED
        and (tool is None or h["payload"].get("tool_name") == tool)
    )
    return json.dumps(_moved(payload, isolated_home, repo))


def test_a_checkpoint_after_the_fallback_is_of_the_file_session(
    fallback_project: Path, isolated_home: Path
) -> None:
    repo = fallback_project
    proc = run_baker(
        "checkpoint",
        "--agent",
        "gemini",
        "--quiet",
        cwd=repo,
        input=_hook("AfterAgent", isolated_home, repo),
    )
    assert (proc.returncode, proc.stderr) == (0, "")
    [path] = (repo / ".baker" / "checkpoints").glob("*.json")
    session = json.loads(path.read_text())["session"]
    assert session["session_id"] == FILE_ID
    assert session["requests"] == GT["user_requests"]
    brief = run_baker("handoff", "--from", "gemini", cwd=repo).stdout
    assert FILE_ID in brief and not any(r in brief for r in ROTATED)
    assert GT["latest_user_request"] in brief and "greet.py" in brief


def test_a_call_started_after_the_fallback_is_found_under_the_file_session(
    fallback_project: Path, isolated_home: Path
) -> None:
    """The pre-tool hook records the call by the hook's session; the brief looks it up by the
    file's: both are the file's id now, so a kill after a fallback still shows the call."""
    repo = fallback_project
    before = _hook("BeforeTool", isolated_home, repo, tool="run_shell_command")
    assert run_baker("pretool", "--agent", "gemini", cwd=repo, input=before).returncode == 0
    brief = run_baker("handoff", "--from", "gemini", cwd=repo).stdout
    command = json.loads(before)["tool_input"]["command"]
    assert command in brief and "pre-tool hook" in brief
