"""`.gemini/settings.json` and GEMINI.md round trips: ours added and removed, the rest untouched."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, cast

import pytest

from continuity_core.adapters import Account, UserOptions
from continuity_gemini import GeminiAdapter
from continuity_gemini.install import is_ours

ADAPTER = GeminiAdapter()
FOREIGN: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "hooks": {
        "SessionStart": [
            {
                "matcher": "startup",
                "hooks": [
                    {
                        "type": "command",
                        "name": "mine",
                        "command": "python3 ~/bin/ctx.py",
                        "timeout": 5000,
                    }
                ],
            }
        ],
        "BeforeTool": [
            {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}
        ],
    },
    "hooksConfig": {"notifications": False},
    "ui": {"theme": "Dracula ☾"},
}


def settings(project: Path) -> dict[str, Any]:
    path = project / ".gemini" / "settings.json"
    return cast(dict[str, Any], json.loads(path.read_text()))  # JSON: untyped


def our_hooks(data: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    return {
        event: [h for g in groups for h in g["hooks"] if is_ours(h)]
        for event, groups in data.get("hooks", {}).items()
    }


def test_fresh_install(tmp_path: Path) -> None:
    changes = ADAPTER.install(tmp_path)
    assert [(c.path, c.action) for c in changes] == [
        (".gemini/settings.json", "created"),
        ("GEMINI.md", "created"),
    ]
    hooks = our_hooks(settings(tmp_path))
    assert set(hooks) == {"SessionStart", "AfterAgent", "PreCompress", "BeforeTool"}
    assert "baker checkpoint --agent gemini --quiet" in hooks["AfterAgent"][0]["command"]
    assert hooks["PreCompress"][0]["command"] == hooks["AfterAgent"][0]["command"]
    assert "baker pickup --agent gemini" in hooks["SessionStart"][0]["command"]
    assert "baker pretool --agent gemini" in hooks["BeforeTool"][0]["command"]
    assert all(h["timeout"] >= 1000 for hs in hooks.values() for h in hs)  # milliseconds
    matcher = settings(tmp_path)["hooks"]["BeforeTool"][0]["matcher"]
    import re

    assert all(re.search(matcher, t) for t in ("write_file", "replace", "run_shell_command"))
    assert not re.search(matcher, "read_file")
    assert "AGENTS.md" in (tmp_path / "GEMINI.md").read_text()


def test_round_trip_keeps_foreign_settings_byte_for_byte(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    original = json.dumps(FOREIGN, indent=2, ensure_ascii=False)  # as the CLI writes it
    path.write_text(original)
    (tmp_path / "GEMINI.md").write_text("# House rules\n\nTabs, not spaces.\n")
    ADAPTER.install(tmp_path)
    data = settings(tmp_path)
    for key in ("security", "hooksConfig", "ui"):
        assert data[key] == FOREIGN[key]
    assert data["hooks"]["SessionStart"][0] == FOREIGN["hooks"]["SessionStart"][0]
    assert data["hooks"]["BeforeTool"][0] == FOREIGN["hooks"]["BeforeTool"][0]
    assert (tmp_path / "GEMINI.md").read_text().startswith("# House rules\n\nTabs, not spaces.\n")
    again = ADAPTER.install(tmp_path)
    assert again and all(c.action == "unchanged" for c in again), again
    removed = ADAPTER.uninstall(tmp_path)
    assert [c.action for c in removed] == ["updated", "updated"]
    assert path.read_text() == original
    assert (tmp_path / "GEMINI.md").read_text() == "# House rules\n\nTabs, not spaces.\n"


def test_an_older_copy_of_ours_is_replaced_not_duplicated(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(
        json.dumps(
            {
                "hooks": {
                    "AfterAgent": [
                        {
                            "hooks": [
                                {"type": "command", "command": "./mine.sh"},
                                {
                                    "type": "command",
                                    "command": "baker checkpoint --agent gemini",
                                    "timeout": 5,
                                },
                            ]
                        }
                    ]
                }
            }
        )
    )
    ADAPTER.install(tmp_path)
    after = settings(tmp_path)["hooks"]["AfterAgent"]
    assert after[0]["hooks"] == [{"type": "command", "command": "./mine.sh"}]
    assert len(our_hooks(settings(tmp_path))["AfterAgent"]) == 1
    ADAPTER.uninstall(tmp_path)
    assert settings(tmp_path) == {
        "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}
    }


@pytest.mark.parametrize("text", ['{\n  // my comment\n  "ui": {}\n}\n', "{not json", "[1]"])
def test_a_file_we_cannot_rewrite_safely_is_left_alone(tmp_path: Path, text: str) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    [change, _] = ADAPTER.install(tmp_path)
    assert change.action == "skipped" and change.detail
    assert path.read_text() == text


def test_no_pointer_when_gemini_reads_agents_md(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}))
    ADAPTER.install(tmp_path)
    assert not (tmp_path / "GEMINI.md").exists()


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    changes = ADAPTER.install(tmp_path, dry_run=True)
    assert {c.action for c in changes} == {"created"}
    assert list(tmp_path.iterdir()) == []


def test_local_has_no_gemini_file(tmp_path: Path) -> None:
    [change] = ADAPTER.install(tmp_path, local=True)
    assert change.action == "skipped"
    assert list(tmp_path.iterdir()) == []


def test_user_level_hooks(tmp_path: Path) -> None:
    home = tmp_path / ".gemini"
    home.mkdir()
    (home / "settings.json").write_text('{\n  "general": {\n    "vimMode": true\n  }\n}\n')
    account = Account(agent="gemini", name="~/.gemini", dir=str(home))
    [added] = ADAPTER.install_user(account, UserOptions())
    assert added.action == "updated" and added.path == str(home / "settings.json")
    assert set(our_hooks(json.loads((home / "settings.json").read_text()))) == {
        "SessionStart",
        "AfterAgent",
        "PreCompress",
        "BeforeTool",
    }
    assert ADAPTER.install_user(account, UserOptions(hooks=False)) == []
    [removed] = ADAPTER.install_user(account, UserOptions(uninstall=True))
    assert removed.action == "updated"
    assert (
        home / "settings.json"
    ).read_text() == '{\n  "general": {\n    "vimMode": true\n  }\n}\n'


def test_uninstall_takes_the_hooks_even_where_it_must_leave_mcp_servers_alone(
    tmp_path: Path,
) -> None:
    ADAPTER.install(tmp_path)
    path = tmp_path / ".gemini" / "settings.json"
    data = settings(tmp_path)
    path.write_text(json.dumps({**data, "mcpServers": ["not", "an", "object"]}))
    for dry_run in (True, False):
        [change, kept, _] = ADAPTER.uninstall(tmp_path, dry_run=dry_run)
        assert (change.path, change.action) == (".gemini/settings.json", "updated")
        assert kept.action == "skipped" and "`mcpServers` is not an object" in kept.detail
    assert settings(tmp_path) == {"mcpServers": ["not", "an", "object"]}


def test_hook_commands_are_harmless_without_baker(tmp_path: Path) -> None:
    ADAPTER.install(tmp_path)
    for hooks in our_hooks(settings(tmp_path)).values():
        proc = subprocess.run(
            ["bash", "-c", hooks[0]["command"]],
            input=b"{}",
            cwd=tmp_path,
            env={"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"]},
            capture_output=True,
            check=False,
        )
        assert (proc.returncode, proc.stdout) == (0, b"")


def test_user_level_round_trip_keeps_crlf_tabs_and_escapes(tmp_path: Path) -> None:
    home = tmp_path / ".gemini"
    home.mkdir()
    original = (
        b'{\r\n\t"ui": {"theme": "Dracula \\u263e"},\r\n\t"hooks": {\r\n'
        b'\t\t"AfterAgent": [{"hooks": [{"type": "command", "command": "log \\u00e9"}]}]'
        b"\r\n\t}\r\n}\r\n"
    )
    (home / "settings.json").write_bytes(original)
    account = Account(agent="gemini", name="~/.gemini", dir=str(home))
    [added] = ADAPTER.install_user(account, UserOptions())
    text = (home / "settings.json").read_bytes().decode()
    assert added.action == "updated" and "\n" not in text.replace("\r\n", "")
    assert set(our_hooks(json.loads(text))) == {
        "SessionStart",
        "AfterAgent",
        "PreCompress",
        "BeforeTool",
    }
    ADAPTER.install_user(account, UserOptions(uninstall=True))
    assert (home / "settings.json").read_bytes() == original
