"""Our hooks in Claude Code's settings files, and the CLAUDE.md pointer to AGENTS.md.

Settings are edited as text (`jsontext`): a file is rewritten only when our hooks are missing
or stale, and then only the hooks we own change. Ours are recognised by their command, so a
teammate's or another tool's hooks in the same event or group are never touched.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from continuity_claude import jsontext
from continuity_core.adapters import Change
from continuity_core.fs import atomic_write
from continuity_core.project import BEGIN, END, ensure_block, remove_block

SETTINGS = Path(".claude") / "settings.json"
LOCAL_SETTINGS = Path(".claude") / "settings.local.json"
MEMORY = "CLAUDE.md"


def command(verb: str, *flags: str) -> str:
    """A hook command that does nothing, successfully, where `baker` is not installed."""
    args = " ".join(("baker", verb, "--agent", "claude", *flags))
    return f"command -v baker >/dev/null 2>&1 && {args} || true"


CHECKPOINT = command("checkpoint", "--quiet")
# event -> (matcher or None, command, timeout in seconds)
HOOKS: dict[str, tuple[str | None, str, int]] = {
    "SessionStart": ("startup|resume|clear|compact", command("pickup"), 15),
    "PreToolUse": ("Edit|Write|MultiEdit|NotebookEdit|Bash", command("pretool"), 10),
    "Stop": (None, CHECKPOINT, 30),
    # a turn that ends on an API error (usage or rate limit) fires StopFailure, not Stop
    "StopFailure": (None, CHECKPOINT, 30),
    "PreCompact": (None, CHECKPOINT, 30),
}
_OURS = re.compile(r"\bbaker (?:checkpoint|pickup|pretool) --agent claude\b")

POINTER = f"""{BEGIN}
## Continuity

This project's instructions for every agent, including how to keep `memory/hot.md` current,
are in AGENTS.md:

@AGENTS.md
{END}
"""


def is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and bool(
        _OURS.search(hook["command"]))


def _group(event: str) -> dict[str, Any]:
    matcher, cmd, timeout = HOOKS[event]
    group: dict[str, Any] = {"matcher": matcher} if matcher else {}
    group["hooks"] = [{"type": "command", "command": cmd, "timeout": timeout}]
    return group


def _ours_in(groups: Any) -> list[tuple[int, int]]:
    """(group index, hook index) of our hooks in one event's list of groups."""
    found: list[tuple[int, int]] = []
    if isinstance(groups, list):
        for gi, group in enumerate(groups):
            hooks = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(hooks, list):
                found += [(gi, hi) for hi, hook in enumerate(hooks) if is_ours(hook)]
    return found


def _strip(text: str, event: str) -> str:
    """`text` without our hooks in `event`, and without groups or the event left empty."""
    while True:
        root = jsontext.parse(text)
        hooks = root.get("hooks")
        groups = hooks.get(event) if hooks is not None and hooks.kind == "object" else None
        if hooks is None or groups is None or groups.kind != "array":
            return text
        data = json.loads(text[groups.start : groups.end])
        ours = _ours_in(data)
        if not ours:
            return text
        gi, hi = ours[-1]
        inner = groups.items[gi].get("hooks")
        if len(data[gi]["hooks"]) > 1 and inner is not None:
            text = jsontext.remove_item(text, inner, hi)
        elif len(data) > 1:
            text = jsontext.remove_item(text, groups, gi)
        else:  # our group was the event's only one
            return jsontext.remove_member(text, hooks, event)


def edit_settings(text: str | None, *, want: bool) -> str | None:
    """The settings text with our hooks added (`want`) or removed; None when nothing changes.

    ValueError when the file is not a JSON object or its `hooks` is not one.
    """
    original = text
    if text is None or not text.strip():
        if not want:
            return None
        text = "{}\n"
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("the settings file is not a JSON object")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError("its `hooks` is not an object")
    for event in HOOKS:
        groups = hooks.get(event)
        ours = _ours_in(groups)
        if want and isinstance(groups, list) and len(ours) == 1 \
                and groups[ours[0][0]] == _group(event):
            continue
        if not want and not ours:
            continue
        text = _strip(text, event)
        if want:
            root = jsontext.parse(text)
            hooks_node = root.get("hooks")
            if hooks_node is None:
                text = jsontext.add_member(text, root, "hooks", {event: [_group(event)]})
                continue
            groups_node = hooks_node.get(event)
            if groups_node is None:
                text = jsontext.add_member(text, hooks_node, event, [_group(event)])
            elif groups_node.kind == "array":
                text = jsontext.append_item(text, groups_node, _group(event))
            else:
                raise ValueError(f"its `hooks.{event}` is not a list")
    if not want:
        root = jsontext.parse(text)
        hooks_node = root.get("hooks")
        # an object we emptied says nothing; one that was empty before stays
        if text != original and hooks_node is not None and hooks_node.kind == "object" \
                and not hooks_node.members:
            text = jsontext.remove_member(text, root, "hooks")
    return None if text == original else text


def sync_file(path: Path, root: Path | None, *, want: bool, dry_run: bool,
              prune_dir: bool = False) -> Change:
    """Add or remove our hooks in one settings file; report it relative to `root`."""
    shown = str(path.relative_to(root)) if root is not None and path.is_relative_to(root) \
        else str(path)
    try:
        old: str | None = path.read_bytes().decode()  # no newline translation: CRLF stays
    except FileNotFoundError:
        old = None
    except (OSError, UnicodeDecodeError) as e:
        return Change(path=shown, action="failed", detail=str(e))
    try:
        new = edit_settings(old, want=want)
    except ValueError as e:
        return Change(path=shown, action="failed",
                      detail=f"not changed: {e}; fix it by hand and run again")
    if new is None:
        return Change(path=shown, action="unchanged")
    empty = not want and json.loads(new) == {}
    if dry_run:
        return Change(path=shown, action="removed" if empty else
                      "created" if old is None else "updated")
    try:
        if empty:
            path.unlink()
            if prune_dir and not any(path.parent.iterdir()):
                path.parent.rmdir()
            return Change(path=shown, action="removed")
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, new, mode=0o644)
    except OSError as e:
        return Change(path=shown, action="failed", detail=e.strerror or str(e))
    return Change(path=shown, action="created" if old is None else "updated")


def install(project: Path, *, local: bool, dry_run: bool) -> list[Change]:
    """Our hooks in exactly one of the two project settings files, and the CLAUDE.md pointer."""
    target, other = (LOCAL_SETTINGS, SETTINGS) if local else (SETTINGS, LOCAL_SETTINGS)
    changes = [sync_file(project / target, project, want=True, dry_run=dry_run)]
    moved = sync_file(project / other, project, want=False, dry_run=dry_run, prune_dir=True)
    if moved.action != "unchanged":
        changes.append(moved)
    changes.append(ensure_block(project / MEMORY, POINTER, project, dry_run=dry_run))
    return changes


def uninstall(project: Path, *, dry_run: bool) -> list[Change]:
    """Remove our hooks from both project settings files and the CLAUDE.md pointer."""
    changes = [sync_file(project / rel, project, want=False, dry_run=dry_run, prune_dir=True)
               for rel in (SETTINGS, LOCAL_SETTINGS)]
    changes.append(remove_block(project / MEMORY, project, dry_run=dry_run))
    return changes
