"""Every Claude Code session of every project, for the recall archive."""

from __future__ import annotations

import json
from pathlib import Path

from continuity_claude import ClaudeAdapter
from continuity_core.adapters import Account
from tests.claude.helpers import TRANSCRIPTS


def test_every_captured_session_with_its_cwd(adapter: ClaudeAdapter, account: Account) -> None:
    refs = list(adapter.all_sessions([account]))
    assert {r.session_id: r.cwd for r in refs} == {
        gt["session_id"]: gt["cwd"] for gt in TRANSCRIPTS.values()
    }
    assert all(r.account == "~/.claude" and r.size == Path(r.path).stat().st_size for r in refs)


def test_subagent_transcripts_are_not_sessions(adapter: ClaudeAdapter, account: Account) -> None:
    subagents = list(Path(account.dir).rglob("subagents/*.jsonl"))
    assert subagents  # the capture has one (scenario S8)
    paths = {r.path for r in adapter.all_sessions([account])}
    assert not paths & {str(p) for p in subagents}


def test_a_session_without_cwd_is_still_listed(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    folder = tmp_path / "acc" / "projects" / "-gone-project"
    folder.mkdir(parents=True)
    (folder / "5e551011.jsonl").write_text(json.dumps({"type": "summary", "summary": "x"}) + "\n")
    acc = Account(agent="claude", name="work", dir=str(tmp_path / "acc"))
    [ref] = adapter.all_sessions([acc])
    assert (ref.session_id, ref.cwd, ref.account) == ("5e551011", None, "work")


def test_every_account_and_a_missing_one(
    adapter: ClaudeAdapter, account: Account, tmp_path: Path
) -> None:
    other = tmp_path / "second" / "projects" / "-srv-api"
    other.mkdir(parents=True)
    (other / "abc.jsonl").write_text(json.dumps({"cwd": "/srv/api", "type": "user"}) + "\n")
    accounts = [
        account,
        Account(agent="claude", name="second", dir=str(tmp_path / "second")),
        Account(agent="claude", name="none", dir=str(tmp_path / "missing")),
    ]
    refs = list(adapter.all_sessions(accounts))
    assert len(refs) == len(TRANSCRIPTS) + 1
    assert [(r.account, r.cwd) for r in refs if r.session_id == "abc"] == [("second", "/srv/api")]
