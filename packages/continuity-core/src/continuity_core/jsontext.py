"""Edit JSON text in place: add or remove one member or element, every other byte kept.

A settings file belongs to the user; re-serialising it would reorder nothing but could still
reformat every line. So the text is parsed into spans and only the edited region changes,
in the indentation the file already uses. `edit_hooks` does this for the hook lists Claude
Code and Gemini CLI share: `"hooks": {"<Event>": [{"matcher"?, "hooks": [...]}]}`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

_WS = " \t\r\n"
_scan = json.JSONDecoder().raw_decode


@dataclass
class Node:
    start: int
    end: int  # exclusive
    kind: str  # "object", "array" or "scalar"
    # (key, None in an array; where the child starts, at its key in an object; the value)
    children: list[tuple[str | None, int, Node]] = field(default_factory=list)

    def get(self, key: str) -> Node | None:
        return next((value for k, _, value in self.children if k == key), None)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _expect(text: str, i: int, char: str) -> int:
    if i >= len(text) or text[i] != char:
        raise ValueError(f"expected {char!r} at offset {i}")
    return i + 1


def _value(text: str, i: int) -> Node:
    i = _skip(text, i)
    if i >= len(text):
        raise ValueError("unexpected end of JSON")
    close = {"{": "}", "[": "]"}.get(text[i])
    if close is None:
        _, end = _scan(text, i)
        return Node(i, end, "scalar")
    node = Node(i, i, "object" if close == "}" else "array")
    i = _skip(text, i + 1)
    if text[i : i + 1] != close:
        while True:
            start = i = _skip(text, i)
            key = None
            if close == "}":
                key, i = _scan(text, i)
                if not isinstance(key, str):
                    raise ValueError(f"object key expected at offset {start}")
                i = _expect(text, _skip(text, i), ":")
            value = _value(text, i)
            node.children.append((key, start, value))
            i = _skip(text, value.end)
            if text[i : i + 1] != ",":
                break
            i += 1
    node.end = _expect(text, i, close)
    return node


def parse(text: str) -> Node:
    """Spans of a JSON document; ValueError when it is not strict JSON."""
    node = _value(text, 0)
    if _skip(text, node.end) != len(text):
        raise ValueError("extra data after the JSON document")
    return node


def _line_indent(text: str, pos: int) -> str:
    line = text[text.rfind("\n", 0, pos) + 1 : pos].rstrip("\r")
    return line[: len(line) - len(line.lstrip(" \t"))]


def add(text: str, container: Node, value: Any, key: str | None = None) -> str:
    """`text` with `value` appended to the array `container`, or `"key": value` to the object,
    laid out as the children before it are (one line, or one child a line)."""
    step = re.search(r"\n([ \t]+)\S", text)  # the file's indentation step; two spaces if none
    unit = step[1] if step else "  "
    nl = "\r\n" if "\r\n" in text else "\n"  # the file's own line ending
    if container.children:
        first = container.children[0][1]
        multiline = "\n" in text[container.start : first]
        indent = _line_indent(text, first) if multiline else ""
        at = end = container.children[-1][2].end
        before, after = ("," + nl + indent if multiline else ", "), ""
    else:  # inside the empty brackets, on a line of its own
        outer = _line_indent(text, container.start)
        indent, multiline = outer + unit, True
        at, end = container.start + 1, container.end - 1
        before, after = nl + indent, nl + outer
    head = f"{json.dumps(key, ensure_ascii=False)}: " if key is not None else ""
    body = json.dumps(value, indent=unit if multiline else None, ensure_ascii=False)
    return text[:at] + before + head + body.replace("\n", nl + indent) + after + text[end:]


def remove(text: str, container: Node, which: int | str) -> str:
    """`text` without the element `which` (an index) or the member `which` (a key) of
    `container`."""
    children = container.children
    index = which if isinstance(which, int) else [k for k, _, _ in children].index(which)
    if len(children) == 1:
        return text[: container.start + 1] + text[container.end - 1 :]
    if index == 0:  # up to the next child, taking the comma and the whitespace after it
        return text[: children[0][1]] + text[children[1][1] :]
    return text[: children[index - 1][2].end] + text[children[index][2].end :]


def _ours_in(groups: Any, is_ours: Callable[[Any], bool]) -> list[tuple[int, int]]:
    """(group index, hook index) of our hooks in one event's list of groups."""
    found: list[tuple[int, int]] = []
    if isinstance(groups, list):
        for gi, group in enumerate(groups):
            hooks = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(hooks, list):
                found += [(gi, hi) for hi, hook in enumerate(hooks) if is_ours(hook)]
    return found


def _strip(text: str, event: str, is_ours: Callable[[Any], bool]) -> str:
    """`text` without our hooks in `event`, and without groups or the event left empty."""
    while True:
        root = parse(text)
        hooks = root.get("hooks")
        groups = hooks.get(event) if hooks is not None and hooks.kind == "object" else None
        if hooks is None or groups is None or groups.kind != "array":
            return text
        data = json.loads(text[groups.start : groups.end])
        ours = _ours_in(data, is_ours)
        if not ours:
            return text
        gi, hi = ours[-1]
        inner = groups.children[gi][2].get("hooks")
        if len(data[gi]["hooks"]) > 1 and inner is not None:
            text = remove(text, inner, hi)
        elif len(data) > 1:
            text = remove(text, groups, gi)
        else:  # our group was the event's only one
            return remove(text, hooks, event)


def _refuse_duplicates(text: str, events: Mapping[str, Any]) -> None:
    """ValueError naming the line of a second `hooks` key (or of one of `events` inside it):
    agents read only one of them, so an edit could land where it is never read."""
    root = parse(text)
    hooks = root.get("hooks")
    scopes = [(root, {"hooks"}, "")]
    if hooks is not None and hooks.kind == "object":
        scopes.append((hooks, set(events), "hooks."))
    for node, names, where in scopes:
        seen: set[str | None] = set()
        for key, start, _ in node.children:
            if key in names and key in seen:
                line = text.count("\n", 0, start) + 1
                raise ValueError(
                    f"line {line} repeats the key `{where}{key}`, and the agent "
                    "reads only one of them; merge them into one"
                )
            seen.add(key)


def _settings(text: str | None, want: bool, key: str) -> tuple[str, dict[str, Any]] | None:
    """A settings file's text and its object `key` ({} when absent); an empty file is `{}`
    when something is to be added, None (nothing to change) when something is to be removed.
    ValueError when the text or its `key` is not a JSON object."""
    if text is None or not text.strip():
        if not want:
            return None
        text = "{}\n"
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("the settings file is not a JSON object")
    if not isinstance(section := data.get(key, {}), dict):
        raise ValueError(f"its `{key}` is not an object")
    return text, section


def _emptied(text: str, original: str | None, key: str) -> str | None:
    """`text` without the object `key` when this edit emptied it (one that was empty before
    stays); None when nothing changed."""
    root = parse(text)
    node = root.get(key)
    if text != original and node is not None and node.kind == "object" and not node.children:
        text = remove(text, root, key)
    return None if text == original else text


def edit_hooks(
    text: str | None,
    wanted: Mapping[str, dict[str, Any]],
    is_ours: Callable[[Any], bool],
    *,
    want: bool,
) -> str | None:
    """Settings text with our hook group per event (`wanted`) present once, or with every hook
    `is_ours` removed (not `want`); None when nothing changes.

    ValueError when the text is not a JSON object or its `hooks` (or an event of ours in it)
    has the wrong type.
    """
    original = text
    loaded = _settings(text, want, "hooks")
    if loaded is None:
        return None
    text, hooks = loaded
    _refuse_duplicates(text, wanted)
    for event, group in wanted.items():
        groups = hooks.get(event)
        ours = _ours_in(groups, is_ours)
        if want and isinstance(groups, list) and len(ours) == 1 and groups[ours[0][0]] == group:
            continue
        if not want and not ours:
            continue
        text = _strip(text, event, is_ours)
        if want:
            root = parse(text)
            hooks_node = root.get("hooks")
            groups_node = hooks_node.get(event) if hooks_node is not None else None
            if hooks_node is None:
                text = add(text, root, {event: [group]}, "hooks")
            elif groups_node is None:
                text = add(text, hooks_node, [group], event)
            elif groups_node.kind == "array":
                text = add(text, groups_node, group)
            else:
                raise ValueError(f"its `hooks.{event}` is not a list")
    return _emptied(text, original, "hooks")


def edit_mcp(
    text: str | None,
    name: str,
    entry: dict[str, Any],
    is_ours: Callable[[Any], bool],
    *,
    want: bool,
) -> str | None:
    """Settings text with `mcpServers.<name>` equal to `entry` (`want`), or without it when it
    `is_ours`; None when nothing changes. Every other server, and every other byte, is kept.

    ValueError when the text is not a JSON object, its `mcpServers` is not one, or `name` is
    taken by a server that is not ours.
    """
    original = text
    loaded = _settings(text, want, "mcpServers")
    if loaded is None:
        return None
    text, servers = loaded
    current = servers.get(name)
    if current is not None and not is_ours(current):
        if not want:
            return None
        raise ValueError(f"its `mcpServers.{name}` runs something else; rename or remove it")
    if want and current == entry:
        return None
    node = parse(text).get("mcpServers")
    if current is not None and node is not None:
        text = remove(text, node, name)
    if not want:
        return _emptied(text, original, "mcpServers")
    root = parse(text)
    node = root.get("mcpServers")
    return (
        add(text, root, {name: entry}, "mcpServers")
        if node is None
        else add(text, node, entry, name)
    )
