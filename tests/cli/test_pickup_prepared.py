"""A pickup served from what the last checkpoint prepared, plus live git (issue 29).

After a checkpoint, the next session's pickup states the same previous session as a full
search would, without loading an adapter to search; once what the preparation stood on
changes (the transcript grew, the config changed), or the new session is the one it
describes, the pickup searches again.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.cli.flows import claude_session, payload
from tests.conftest import git, run_baker
from tests.helpers.child import run_importtime

PREPARED = Path(".baker") / "cache" / "pickup.json"


def pickup(home: Path, repo: Path, session: str) -> tuple[str, str]:
    """(what a new session's pickup printed, the modules it imported as -X importtime says)."""
    start = payload("claude", "SessionStart.json", home, repo, session_id=session)
    report, out = run_importtime("pickup", "--agent", "claude", cwd=repo, stdin=start.encode())
    return out, report


def section(out: str, title: str) -> str:
    found = re.search(rf"## {title}[^\n]*\\n(.*?)(?:\\n## |\"}})", out, re.S)
    assert found, out
    return found.group(1)


def checkpoint(repo: Path, home: Path) -> Path:
    """Set up `repo` and checkpoint its Claude Code session after its last turn: its
    transcript."""
    assert run_baker("init", cwd=repo).returncode == 0
    transcript = claude_session(home, repo)
    stop = payload("claude", "Stop.json", home, repo, transcript_path=str(transcript))
    assert run_baker("checkpoint", "--agent", "claude", cwd=repo, input=stop).returncode == 0
    assert (repo / PREPARED).is_file()
    return transcript


@pytest.fixture
def checkpointed(repo: Path, isolated_home: Path) -> Path:
    """A project whose Claude Code session was checkpointed after its last turn."""
    return checkpoint(repo, isolated_home)


def test_the_next_pickup_serves_it_and_loads_no_adapter(
    repo: Path, isolated_home: Path, checkpointed: Path
) -> None:
    served, report = pickup(isolated_home, repo, "a-new-session")
    assert "continuity_claude.adapter" not in report  # no search: nothing was discovered
    assert "48f0d34d" in served and "branch: main" in served
    (repo / "late.txt").write_text("live\n")  # git is read live, not prepared
    git(repo, "add", "late.txt")
    again, _ = pickup(isolated_home, repo, "another-new-session")
    assert "late.txt" in again or "staged" in again or "uncommitted" in again, again
    (repo / PREPARED).unlink()  # the full search says the same about the previous session
    searched, report = pickup(isolated_home, repo, "a-third-new-session")
    assert "continuity_claude.adapter" in report
    title = "Previous session"
    assert section(served, title) == section(searched, title)


def test_the_note_is_served_until_it_changes(
    repo: Path, isolated_home: Path, checkpointed: Path
) -> None:
    """The note's section comes from what the checkpoint prepared while `memory/hot.md` keeps
    its size and mtime; once it changes the pickup reads it, and the rest is still served."""
    note = repo / "memory" / "hot.md"
    served, report = pickup(isolated_home, repo, "new-session-a")
    assert "continuity_core.note" not in report and "## The note" not in served  # the template
    assert run_baker("now", "ship the served pickup", cwd=repo).returncode == 0
    changed, report = pickup(isolated_home, repo, "new-session-b")
    assert "continuity_core.note" in report and "continuity_claude.adapter" not in report
    assert "## The note" in changed and "ship the served pickup" in changed
    assert section(changed, "Previous session") == section(served, "Previous session")
    stop = payload("claude", "Stop.json", isolated_home, repo, transcript_path=str(checkpointed))
    shutil.rmtree(isolated_home / ".baker" / "cache" / "hooks-seen")  # the next turn's Stop
    assert run_baker("checkpoint", "--agent", "claude", cwd=repo, input=stop).returncode == 0
    again, report = pickup(isolated_home, repo, "new-session-c")
    assert "continuity_core.note" not in report and again == changed
    note.write_text(note.read_text().replace("ship the served", "SHIP THE SERVED"))
    _, report = pickup(isolated_home, repo, "new-session-d")  # same size, a new mtime
    assert "continuity_core.note" in report


def test_a_changed_transcript_or_config_or_the_same_session_searches_again(
    repo: Path, isolated_home: Path, checkpointed: Path
) -> None:
    """Each pickup is a new session's (the same bytes twice would be one event twice)."""
    with checkpointed.open("a") as f:  # the session went on after its checkpoint
        f.write("\n")
    _, report = pickup(isolated_home, repo, "new-session-0")
    assert "continuity_claude.adapter" in report
    checkpointed.write_text(checkpointed.read_text()[:-1])
    shutil.rmtree(isolated_home / ".baker" / "cache" / "hooks-seen")  # the next turn's Stop
    stop = payload("claude", "Stop.json", isolated_home, repo, transcript_path=str(checkpointed))
    assert run_baker("checkpoint", "--agent", "claude", cwd=repo, input=stop).returncode == 0
    _, report = pickup(isolated_home, repo, "new-session-1")
    assert "continuity_claude.adapter" not in report
    config = isolated_home / ".baker" / "config.toml"
    config.write_text('[machine]\nname = "desk"\n')
    _, report = pickup(isolated_home, repo, "new-session-2")
    assert "continuity_claude.adapter" in report
    sid = "48f0d34d-61b5-40aa-aac6-73b6722315eb"  # resumed: the prepared text is about it
    config.unlink()
    _, report = pickup(isolated_home, repo, sid)
    assert "continuity_claude.adapter" in report
