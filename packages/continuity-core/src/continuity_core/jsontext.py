"""Edit JSON text in place: add or remove one member or element, every other byte kept.

A settings file belongs to the user; re-serialising it would reorder nothing but could still
reformat every line. So the text is parsed into spans and only the edited region changes,
in the indentation the file already uses. `edit_hooks` does this for the hook lists Claude
Code and Gemini CLI share: `"hooks": {"<Event>": [{"matcher"?, "hooks": [...]}]}`.
"""

from __future__ import annotations

import json
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
    members: list[tuple[str, int, Node]] = field(default_factory=list)  # key, key start, value
    items: list[Node] = field(default_factory=list)

    def get(self, key: str) -> Node | None:
        for k, _, value in self.members:
            if k == key:
                return value
        return None


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
    if text[i] == "{":
        node = Node(i, i, "object")
        i = _skip(text, i + 1)
        if text[i : i + 1] != "}":
            while True:
                i = _skip(text, i)
                key_start = i
                key, i = _scan(text, i)
                if not isinstance(key, str):
                    raise ValueError(f"object key expected at offset {key_start}")
                i = _expect(text, _skip(text, i), ":")
                value = _value(text, i)
                node.members.append((key, key_start, value))
                i = _skip(text, value.end)
                if text[i : i + 1] == ",":
                    i += 1
                    continue
                break
        node.end = _expect(text, i, "}")
        return node
    if text[i] == "[":
        node = Node(i, i, "array")
        i = _skip(text, i + 1)
        if text[i : i + 1] != "]":
            while True:
                item = _value(text, i)
                node.items.append(item)
                i = _skip(text, item.end)
                if text[i : i + 1] == ",":
                    i += 1
                    continue
                break
        node.end = _expect(text, i, "]")
        return node
    _, end = _scan(text, i)
    return Node(i, end, "scalar")


def parse(text: str) -> Node:
    """Spans of a JSON document; ValueError when it is not strict JSON."""
    node = _value(text, 0)
    if _skip(text, node.end) != len(text):
        raise ValueError("extra data after the JSON document")
    return node


def _line_indent(text: str, pos: int) -> str:
    start = text.rfind("\n", 0, pos) + 1
    line = text[start:pos]
    line = line.rstrip("\r")
    return line[: len(line) - len(line.lstrip(" \t"))]


def indent_unit(text: str) -> str:
    """The file's indentation step (two spaces when it has none)."""
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            return line[: len(line) - len(stripped)]
    return "  "


def _render(value: Any, indent: str, unit: str, multiline: bool, nl: str) -> str:
    if not multiline:
        return json.dumps(value, ensure_ascii=False)
    body = json.dumps(value, indent=unit, ensure_ascii=False)
    return body.replace("\n", nl + indent)


def _insert(text: str, container: Node, piece: Any, key: str | None) -> str:
    children = (
        [v for _, _, v in container.members] if container.kind == "object" else container.items
    )
    starts = (
        [s for _, s, _ in container.members]
        if container.kind == "object"
        else [n.start for n in container.items]
    )
    unit = indent_unit(text)
    nl = "\r\n" if "\r\n" in text else "\n"  # the file's own line ending
    if children:
        multiline = "\n" in text[container.start : starts[0]]
        indent = _line_indent(text, starts[0]) if multiline else ""
        head = f"{json.dumps(key, ensure_ascii=False)}: " if key is not None else ""
        sep = "," + nl + indent if multiline else ", "
        new = sep + head + _render(piece, indent, unit, multiline, nl)
        at = children[-1].end
        return text[:at] + new + text[at:]
    outer = _line_indent(text, container.start)
    indent = outer + unit
    head = f"{json.dumps(key, ensure_ascii=False)}: " if key is not None else ""
    inner = nl + indent + head + _render(piece, indent, unit, True, nl) + nl + outer
    return text[: container.start + 1] + inner + text[container.end - 1 :]


def add_member(text: str, obj: Node, key: str, value: Any) -> str:
    """`text` with `"key": value` appended to the object `obj`."""
    return _insert(text, obj, value, key)


def append_item(text: str, array: Node, value: Any) -> str:
    """`text` with `value` appended to the array `array`."""
    return _insert(text, array, value, None)


def _remove(text: str, container: Node, index: int, starts: list[int], ends: list[int]) -> str:
    if len(starts) == 1:
        return text[: container.start + 1] + text[container.end - 1 :]
    if index == 0:  # up to the next child, taking the comma and the whitespace after it
        return text[: starts[0]] + text[starts[1] :]
    return text[: ends[index - 1]] + text[ends[index] :]


def remove_member(text: str, obj: Node, key: str) -> str:
    """`text` without the member `key` of the object `obj`."""
    keys = [k for k, _, _ in obj.members]
    index = keys.index(key)
    return _remove(
        text, obj, index, [s for _, s, _ in obj.members], [v.end for _, _, v in obj.members]
    )


def remove_item(text: str, array: Node, index: int) -> str:
    """`text` without element `index` of the array `array`."""
    return _remove(text, array, index, [n.start for n in array.items], [n.end for n in array.items])


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
        inner = groups.items[gi].get("hooks")
        if len(data[gi]["hooks"]) > 1 and inner is not None:
            text = remove_item(text, inner, hi)
        elif len(data) > 1:
            text = remove_item(text, groups, gi)
        else:  # our group was the event's only one
            return remove_member(text, hooks, event)


def _refuse_duplicates(text: str, events: Mapping[str, Any]) -> None:
    """ValueError naming the line of a second `hooks` key (or of one of `events` inside it):
    agents read only one of them, so an edit could land where it is never read."""
    root = parse(text)

    def check(node: Node, names: set[str] | None, where: str) -> None:
        seen: set[str] = set()
        for key, start, _ in node.members:
            if (names is None or key in names) and key in seen:
                line = text.count("\n", 0, start) + 1
                raise ValueError(
                    f"line {line} repeats the key `{where}{key}`, and the agent "
                    "reads only one of them; merge them into one"
                )
            seen.add(key)

    check(root, {"hooks"}, "")
    hooks = root.get("hooks")
    if hooks is not None and hooks.kind == "object":
        check(hooks, set(events), "hooks.")


def _settings(text: str | None, want: bool) -> tuple[str, dict[str, Any]] | None:
    """A settings file's text and its object; an empty file is `{}` when something is to be
    added, None (nothing to change) when something is to be removed. ValueError when the
    text is not a JSON object."""
    if text is None or not text.strip():
        if not want:
            return None
        text = "{}\n"
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("the settings file is not a JSON object")
    return text, data


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
    loaded = _settings(text, want)
    if loaded is None:
        return None
    text, data = loaded
    _refuse_duplicates(text, wanted)
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("its `hooks` is not an object")
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
            if hooks_node is None:
                text = add_member(text, root, "hooks", {event: [group]})
                continue
            groups_node = hooks_node.get(event)
            if groups_node is None:
                text = add_member(text, hooks_node, event, [group])
            elif groups_node.kind == "array":
                text = append_item(text, groups_node, group)
            else:
                raise ValueError(f"its `hooks.{event}` is not a list")
    if not want:
        root = parse(text)
        hooks_node = root.get("hooks")
        # an object we emptied says nothing; one that was empty before stays
        if (
            text != original
            and hooks_node is not None
            and hooks_node.kind == "object"
            and not hooks_node.members
        ):
            text = remove_member(text, root, "hooks")
    return None if text == original else text


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
    loaded = _settings(text, want)
    if loaded is None:
        return None
    text, data = loaded
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise ValueError("its `mcpServers` is not an object")
    current = servers.get(name)
    if current is not None and not is_ours(current):
        if not want:
            return None
        raise ValueError(f"its `mcpServers.{name}` runs something else; rename or remove it")
    if want and current == entry:
        return None
    node = parse(text).get("mcpServers")
    if current is not None and node is not None:
        text = remove_member(text, node, name)
    if want:
        root = parse(text)
        node = root.get("mcpServers")
        if node is None:
            return add_member(text, root, "mcpServers", {name: entry})
        return add_member(text, node, name, entry)
    root = parse(text)
    node = root.get("mcpServers")
    if node is not None and node.kind == "object" and not node.members:
        text = remove_member(text, root, "mcpServers")  # we emptied it: it says nothing
    return None if text == original else text
