"""Our hooks merged into Claude Code's settings files and taken out again, nothing else touched."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from continuity_claude import ClaudeAdapter
from continuity_claude.install import HOOKS
from continuity_core.adapters import Account, UserOptions

FOREIGN = """{
\t"model": "opus",
\t"permissions": {"allow": ["Bash(git status)"],   "deny": []},
\t"hooks": {
\t\t"Stop": [ { "hooks": [ { "type": "command", "command": "notify-send done" } ] } ],
\t\t"PreToolUse": [
\t\t\t{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}
\t\t]
\t},
\t"env": {"FOO": "bär"}
}
"""


def ours(settings: dict[str, Any]) -> dict[str, list[str]]:
    """Event -> our hook commands, from a parsed settings file."""
    out: dict[str, list[str]] = {}
    for event, groups in settings.get("hooks", {}).items():
        for group in groups:
            for hook in group["hooks"]:
                if "baker" in hook["command"]:
                    out.setdefault(event, []).append(hook["command"])
    return out


def test_fresh_project_round_trip(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    changes = adapter.install(tmp_path)
    assert {(c.path, c.action) for c in changes} == {
        (".claude/settings.json", "created"),
        ("CLAUDE.md", "created"),
    }
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    assert (
        set(ours(settings))
        == set(HOOKS)
        == {"SessionStart", "PreToolUse", "Stop", "StopFailure", "PreCompact"}
    )
    groups = settings["hooks"]
    assert groups["SessionStart"][0]["matcher"] == "startup|resume|clear|compact"
    assert groups["PreToolUse"][0]["matcher"] == "Edit|Write|MultiEdit|NotebookEdit|Bash"
    assert "baker checkpoint --agent claude --quiet" in groups["Stop"][0]["hooks"][0]["command"]
    assert "@AGENTS.md" in (tmp_path / "CLAUDE.md").read_text()
    again = adapter.install(tmp_path)
    assert again and all(c.action == "unchanged" for c in again), again
    removed = adapter.uninstall(tmp_path)
    assert {c.path for c in removed if c.action == "removed"} == {
        ".claude/settings.json",
        "CLAUDE.md",
    }
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "text",
    [
        FOREIGN,
        FOREIGN.replace("\t", "    "),
        json.dumps(json.loads(FOREIGN), separators=(",", ":")),
        FOREIGN.replace("\n", "\r\n"),
        '{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", '
        '"command": "cat notes.md"}]}]}, "model": "opus"}\n\n',
        '{"a": 1}',
    ],
)
def test_foreign_settings_survive_byte_for_byte(
    adapter: ClaudeAdapter, tmp_path: Path, text: str
) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    path.write_bytes(text.encode())
    (tmp_path / "CLAUDE.md").write_text("# Team rules\n\nBe kind.\n")
    adapter.install(tmp_path)
    merged = json.loads(path.read_text())
    before = json.loads(text)
    for key in before:
        if key != "hooks":
            assert merged[key] == before[key]
    for event, groups in before.get("hooks", {}).items():
        assert merged["hooks"][event][: len(groups)] == groups
    assert set(ours(merged)) == set(HOOKS)
    snapshot = path.read_bytes()
    again = adapter.install(tmp_path)
    assert again and all(c.action == "unchanged" for c in again), again
    assert path.read_bytes() == snapshot
    adapter.uninstall(tmp_path)
    assert path.read_bytes() == text.encode()
    assert (tmp_path / "CLAUDE.md").read_text() == "# Team rules\n\nBe kind.\n"


def test_what_uninstall_empties_is_removed(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    """A list or `hooks` object that only held ours carries nothing: gone; a settings file
    only when baker created it."""
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    path.write_text('{"model": "opus", "hooks": {}}')
    adapter.install(tmp_path)
    adapter.uninstall(tmp_path)
    assert path.read_text() == '{"model": "opus"}'
    (tmp_path / ".claude/agents").mkdir()
    path.write_text("{}")  # the user's empty file is given back as it was (issue 17)
    adapter.install(tmp_path)
    adapter.uninstall(tmp_path)
    assert path.read_text() == "{}" and (tmp_path / ".claude/agents").is_dir()
    path.unlink()  # a file baker made goes again
    adapter.install(tmp_path)
    adapter.uninstall(tmp_path)
    assert not path.exists() and (tmp_path / ".claude/agents").is_dir()


def test_a_stale_hook_of_ours_is_replaced_not_duplicated(
    adapter: ClaudeAdapter, tmp_path: Path
) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    path.write_text(
        json.dumps(
            {
                "hooks": {
                    "Stop": [
                        {
                            "hooks": [
                                {"type": "command", "command": "./mine.sh"},
                                {"type": "command", "command": "baker checkpoint --agent claude"},
                            ]
                        }
                    ]
                }
            },
            indent=2,
        )
    )
    changes = adapter.install(tmp_path)
    assert ("".join(c.action for c in changes if c.path.endswith("settings.json"))) == "updated"
    stop = json.loads(path.read_text())["hooks"]["Stop"]
    assert stop[0]["hooks"] == [{"type": "command", "command": "./mine.sh"}]
    assert len(ours({"hooks": {"Stop": stop}})["Stop"]) == 1


def test_local_settings_and_moving_between_files(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    adapter.install(tmp_path)
    changes = adapter.install(tmp_path, local=True)
    assert {(c.path, c.action) for c in changes} >= {
        (".claude/settings.local.json", "created"),
        (".claude/settings.json", "removed"),
    }
    assert set(ours(json.loads((tmp_path / ".claude/settings.local.json").read_text()))) == set(
        HOOKS
    )
    assert not (tmp_path / ".claude/settings.json").exists()
    adapter.uninstall(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_dry_run_writes_nothing(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    changes = adapter.install(tmp_path, dry_run=True)
    assert {c.action for c in changes} == {"created"}
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("text", ['{"hooks": [] }', "[1, 2]", "{ // comment\n}", '{"a": 1'])
def test_a_file_we_cannot_read_is_left_alone(
    adapter: ClaudeAdapter, tmp_path: Path, text: str
) -> None:
    path = tmp_path / ".claude/settings.json"
    path.parent.mkdir()
    path.write_text(text)
    changes = adapter.install(tmp_path)
    failed = [c for c in changes if c.path == ".claude/settings.json"]
    assert failed[0].action == "failed" and "by hand" in failed[0].detail
    assert path.read_text() == text


def test_user_level_hooks(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    account = Account(agent="claude", name="work", dir=str(tmp_path / ".claude-work"))
    settings = tmp_path / ".claude-work" / "settings.json"
    skipped = adapter.install_user(account, UserOptions(hooks=False))
    assert [c.action for c in skipped] == ["skipped"] and not settings.exists()
    assert [c.action for c in adapter.install_user(account, UserOptions())] == ["created"]
    assert set(ours(json.loads(settings.read_text()))) == set(HOOKS)
    assert [c.action for c in adapter.install_user(account, UserOptions())] == ["unchanged"]
    done = adapter.install_user(account, UserOptions(uninstall=True))
    assert [c.action for c in done] == ["removed"]
    assert (tmp_path / ".claude-work").is_dir()  # the account's own folder stays


def test_hook_command_is_harmless_without_baker(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    adapter.install(tmp_path)
    settings = json.loads((tmp_path / ".claude/settings.json").read_text())
    for groups in settings["hooks"].values():
        command = groups[0]["hooks"][0]["command"]
        done = subprocess.run(
            ["/bin/sh", "-c", command],
            input=b"{}",
            capture_output=True,
            env={"PATH": str(tmp_path)},
            cwd=tmp_path,
            check=False,
        )
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
