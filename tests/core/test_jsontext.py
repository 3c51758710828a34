"""Text edits of JSON settings: the edited part changes, every other byte stays."""

from __future__ import annotations

import json
from typing import Any

import pytest

from continuity_core import jsontext

USER = (
    '{\r\n\t"theme": "d\\u00e4rk",\r\n\t"hooks": {\r\n'
    '\t\t"Stop": [{"hooks": [{"type": "command", "command": "mine.sh"}]}]\r\n\t}\r\n}\r\n'
)
GROUP = {"hooks": [{"type": "command", "command": "baker checkpoint"}]}


def ours(hook: Any) -> bool:
    return isinstance(hook, dict) and str(hook.get("command", "")).startswith("baker ")


def test_add_then_remove_gives_back_the_same_bytes() -> None:
    root = jsontext.parse(USER)
    added = jsontext.add(USER, root, {"name": "x ✓"}, "model")
    assert json.loads(added)["model"] == {"name": "x ✓"}
    assert '\t"model": {\r\n\t\t"name": "x ✓"\r\n\t}\r\n}' in added  # its tabs and CRLF
    assert jsontext.remove(added, jsontext.parse(added), "model") == USER


def test_append_and_remove_items_in_a_one_line_array() -> None:
    text = '{"a": [1, 2]}'
    appended = jsontext.add(text, jsontext.parse(text).children[0][2], 3)
    assert appended == '{"a": [1, 2, 3]}'
    first = jsontext.remove(appended, jsontext.parse(appended).children[0][2], 0)
    assert first == '{"a": [2, 3]}'


@pytest.mark.parametrize("text", ["{", '{"a": 1,}', '{"a": 1} x', "{'a': 1}"])
def test_what_is_not_strict_json_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        jsontext.parse(text)


def test_edit_hooks_round_trip_keeps_foreign_hooks_and_bytes() -> None:
    installed = jsontext.edit_hooks(USER, {"Stop": GROUP, "Start": GROUP}, ours, want=True)
    assert installed is not None
    hooks = json.loads(installed)["hooks"]
    assert hooks["Stop"] == [{"hooks": [{"type": "command", "command": "mine.sh"}]}, GROUP]
    assert hooks["Start"] == [GROUP]
    assert (
        jsontext.edit_hooks(installed, {"Stop": GROUP, "Start": GROUP}, ours, want=True) is None
    )  # already there: no churn
    assert jsontext.edit_hooks(installed, {"Stop": GROUP, "Start": GROUP}, ours, want=False) == USER


def test_edit_hooks_replaces_a_stale_copy_and_creates_a_missing_file() -> None:
    stale = '{"hooks": {"Stop": [{"hooks": [{"command": "mine.sh"}, {"command": "baker old"}]}]}}'
    fixed = jsontext.edit_hooks(stale, {"Stop": GROUP}, ours, want=True)
    assert fixed is not None
    assert json.loads(fixed)["hooks"]["Stop"] == [{"hooks": [{"command": "mine.sh"}]}, GROUP]
    created = jsontext.edit_hooks(None, {"Stop": GROUP}, ours, want=True)
    assert created is not None and json.loads(created) == {"hooks": {"Stop": [GROUP]}}
    assert jsontext.edit_hooks(None, {"Stop": GROUP}, ours, want=False) is None


@pytest.mark.parametrize("text", ["[1]", '{"hooks": []}', '{"hooks": {"Stop": {}}}'])
def test_edit_hooks_refuses_a_shape_it_cannot_edit(text: str) -> None:
    with pytest.raises(ValueError):
        jsontext.edit_hooks(text, {"Stop": GROUP}, ours, want=True)


def test_edit_mcp_adds_once_keeps_the_rest_and_removes_only_ours() -> None:
    from continuity_core.adapters.kit import MCP_SERVER, is_our_mcp

    text = '{\n\t"mcpServers": {\n\t\t"db": {"command": "x"}\n\t},\n\t"theme": 1\n}\n'
    added = jsontext.edit_mcp(text, "baker", MCP_SERVER, is_our_mcp, want=True)
    assert added is not None and '\t\t"baker": {' in added
    assert json.loads(added)["mcpServers"]["baker"] == MCP_SERVER
    assert jsontext.edit_mcp(added, "baker", MCP_SERVER, is_our_mcp, want=True) is None
    assert jsontext.edit_mcp(added, "baker", MCP_SERVER, is_our_mcp, want=False) == text
    assert jsontext.edit_mcp(text, "baker", MCP_SERVER, is_our_mcp, want=False) is None
    empty = '{"mcpServers": {}}'  # the user's own empty object: nothing of ours, left alone
    assert jsontext.edit_mcp(empty, "baker", MCP_SERVER, is_our_mcp, want=False) is None
    stale = '{"mcpServers": {"baker": {"command": "baker", "args": ["mcp"]}}}'
    updated = jsontext.edit_mcp(stale, "baker", MCP_SERVER, is_our_mcp, want=True)
    assert updated is not None and json.loads(updated) == {"mcpServers": {"baker": MCP_SERVER}}
    theirs = '{"mcpServers": {"baker": {"command": "other-tool"}}}'
    assert jsontext.edit_mcp(theirs, "baker", MCP_SERVER, is_our_mcp, want=False) is None
    with pytest.raises(ValueError, match="runs something else"):
        jsontext.edit_mcp(theirs, "baker", MCP_SERVER, is_our_mcp, want=True)
    with pytest.raises(ValueError, match="not an object"):
        jsontext.edit_mcp('{"mcpServers": []}', "baker", MCP_SERVER, is_our_mcp, want=True)
