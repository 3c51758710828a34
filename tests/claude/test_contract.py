"""The core AdapterContract, run against the captured Claude Code sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

from continuity_claude import ClaudeAdapter
from continuity_core.adapters import Account
from continuity_core.testing import AdapterContract, ContractSample
from tests.claude.helpers import CLAUDE, TRANSCRIPTS, payload
from tests.conftest import copy_tree

WEATHER = (
    "claude/.claude/projects/-home-dev-src-weather-cli/48f0d34d-61b5-40aa-aac6-73b6722315eb.jsonl"
)


class TestClaudeContract(AdapterContract):
    @pytest.fixture
    def sample(self, tmp_path: Path) -> ContractSample:
        home = copy_tree(CLAUDE / ".claude", tmp_path / "account")
        gt = TRANSCRIPTS[WEATHER]
        return ContractSample(
            adapter=ClaudeAdapter(),
            accounts=[Account(agent="claude", name="work", dir=str(home))],
            # a path that exists only in the transcripts: discovery goes by slug and cwd
            project=Path(gt["cwd"]),
            session_id=gt["session_id"],
            latest_request=gt["latest_user_request"],
            hook_payloads={
                "session_start": payload("SessionStart.startup.json"),
                "pre_tool": payload("PreToolUse.Edit.json"),
                "post_tool": payload("PostToolUse.Bash.json"),
                "stop": payload("Stop.json"),
                "pre_compact": payload("PreCompact.json"),
                "session_end": payload("SessionEnd.json"),
                "prompt": payload("UserPromptSubmit.json"),
            },
        )


def test_the_archive_reads_claudes_own_keys_through_the_adapter() -> None:
    from continuity_core.archive.extraction import strings

    record = {
        "lastPrompt": "ship the release",
        "parentUuid": "0b1c",
        "message": {"content": "done", "logicalParentUuid": "9f2e"},
    }
    assert ClaudeAdapter().archive_text(record) == ["ship the release", "done"]
    assert strings(record) == ["done"]  # core alone knows only the common keys


def test_a_saved_cursor_keeps_claudes_state_typed_and_an_old_one_is_read_again(
    tmp_path: Path,
) -> None:
    """`Cursor.state` is the adapter's Struct; a cursor saved before it (an untyped `extra`)
    or holding a state of another shape is not trusted: the transcript is read again."""
    import json

    import msgspec

    from continuity_claude.parser import ClaudeState
    from continuity_core.schemas.session import SessionRef
    from continuity_core.store import Store
    from continuity_core.transcript import Cursor

    home = copy_tree(CLAUDE / ".claude", tmp_path / "account")
    path = home / WEATHER.removeprefix("claude/.claude/")
    ref = SessionRef(agent="claude", account=str(home), session_id="s", path=str(path), mtime=0)
    adapter = ClaudeAdapter()
    fresh = adapter.read(ref)
    assert isinstance(fresh.state, ClaudeState)
    (tmp_path / "repo" / ".baker").mkdir(parents=True, mode=0o700)
    store = Store(tmp_path / "repo")
    store.save_cursor("claude", ref.path, fresh)
    saved = store.load_cursor("claude", ref.path, Cursor)
    assert saved is not None and adapter.read(ref, saved).offset == fresh.offset
    data = json.loads(Path(store.cursor_path("claude", ref.path)).read_text())
    data["extra"] = data.pop("state")  # as a build before typed state wrote it
    Path(store.cursor_path("claude", ref.path)).write_text(json.dumps(data))
    assert store.load_cursor("claude", ref.path, Cursor) is None
    odd = msgspec.structs.replace(fresh, state={"edits": "not a table"}, session=fresh.session)
    again = adapter.read(ref, odd)
    assert msgspec.to_builtins(again.session) == msgspec.to_builtins(adapter.read(ref).session)
