"""Our hooks in Gemini CLI's `settings.json`, merged so nothing else changes.

Hook lists live under `"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command",
"name", "command", "timeout" (ms)}]}]}`. A hook is ours when its command runs one of the
three `baker … --agent gemini` hook commands; uninstall removes exactly those. The file is
re-serialised in its own indent only when something changes, so a file written by the CLI
(2-space JSON) round-trips byte for byte; a file with comments is left alone.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from continuity_core.adapters import Change
from continuity_core.fs import atomic_write

GUARD = "command -v baker >/dev/null 2>&1 && {cmd} || true"  # harmless without baker
CHECKPOINT = "baker checkpoint --agent gemini --quiet"
PICKUP = "baker pickup --agent gemini"
PRETOOL = "baker pretool --agent gemini"
OURS = re.compile(r"\bbaker (?:checkpoint|pickup|pretool) --agent gemini\b")
EDIT_AND_SHELL = "^(write_file|replace|edit|smart_edit|run_shell_command)$"


@dataclass(frozen=True)
class Hook:
    event: str
    name: str
    command: str
    timeout_ms: int
    matcher: str | None = None

    def entry(self) -> dict[str, Any]:
        return {"type": "command", "name": self.name, "command": GUARD.format(cmd=self.command),
                "timeout": self.timeout_ms}


# Timeouts a little above the deadlines `baker` keeps for itself (20 s, 8 s, 3 s).
HOOKS = (
    Hook("SessionStart", "baker-pickup", PICKUP, 10_000),
    Hook("AfterAgent", "baker-checkpoint", CHECKPOINT, 30_000),
    # Fires before every model turn in 0.61; the adapter turns the no-op ones into "other".
    Hook("PreCompress", "baker-checkpoint", CHECKPOINT, 30_000),
    Hook("BeforeTool", "baker-pretool", PRETOOL, 5_000, matcher=EDIT_AND_SHELL),
)


class SettingsError(ValueError):
    """A settings file we must not rewrite: unparseable, or not an object."""


def is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) \
        and bool(OURS.search(hook["command"]))


def _strip_comments(text: str) -> str:
    """JSON text without // and /* */ comments (strings kept intact)."""
    return re.sub(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/',
                  lambda m: m.group(0) if m.group(0).startswith('"') else "", text, flags=re.S)


def load(path: Path) -> tuple[dict[str, Any], str | None]:
    """The settings object and the file's text (None when there is no file)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    stripped = _strip_comments(text)
    if stripped != text:
        raise SettingsError(f"{path} has comments, which a rewrite would lose")
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except ValueError as e:
        raise SettingsError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path} is not a JSON object")
    return data, text


def dump(data: dict[str, Any], old: str | None) -> str:
    """`data` as JSON in the old file's indent and final newline (2 spaces, as the CLI writes)."""
    indent: int | str = 2
    if old:
        m = re.search(r"\n([ \t]+)\S", old)
        if m:
            indent = len(m.group(1)) if m.group(1).strip(" ") == "" else m.group(1)
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    return text + ("\n" if old is None or old.endswith("\n") else "")


def with_hooks(data: dict[str, Any], hooks: tuple[Hook, ...] = HOOKS) -> dict[str, Any]:
    """`data` with our hooks present exactly once each; everything else in place."""
    out: dict[str, Any] = json.loads(json.dumps(data))
    events = out.get("hooks")
    if not isinstance(events, dict):
        events = {}
        out["hooks"] = events
    for hook in hooks:
        groups = events.setdefault(hook.event, [])
        if not isinstance(groups, list):
            raise SettingsError(f"hooks.{hook.event} is not a list")
        want: dict[str, Any] = {"matcher": hook.matcher} if hook.matcher else {}
        want["hooks"] = [hook.entry()]
        found = False
        for gi, group in enumerate(list(groups)):
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                continue
            mine = [h for h in group["hooks"] if is_ours(h)]
            if not mine:
                continue
            if not found and group == want:
                found = True
                continue
            # An older or hand-edited copy of ours: drop it, keep the rest of its group.
            group["hooks"] = [h for h in group["hooks"] if not is_ours(h)]
            if not group["hooks"]:
                groups[gi] = None
        events[hook.event] = [g for g in groups if g is not None]
        if not found:
            events[hook.event].append(want)
    return out


def without_hooks(data: dict[str, Any]) -> dict[str, Any]:
    """`data` without our hooks; containers we emptied go too."""
    out: dict[str, Any] = json.loads(json.dumps(data))
    events = out.get("hooks")
    if not isinstance(events, dict):
        return out
    emptied = False
    for event in list(events):
        groups = events[event]
        if not isinstance(groups, list):
            continue
        kept = []
        touched = False
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list) \
                    and any(is_ours(h) for h in group["hooks"]):
                touched = True
                group["hooks"] = [h for h in group["hooks"] if not is_ours(h)]
                if not group["hooks"]:
                    continue
            kept.append(group)
        if touched and not kept:
            del events[event]
            emptied = True
        else:
            events[event] = kept
    if emptied and not events:
        del out["hooks"]
    return out


def has_hooks(data: dict[str, Any]) -> bool:
    """Whether every one of our hooks is configured."""
    events = data.get("hooks")
    if not isinstance(events, dict):
        return False
    for hook in HOOKS:
        groups = events.get(hook.event)
        if not isinstance(groups, list) or not any(
                isinstance(g, dict) and isinstance(g.get("hooks"), list)
                and any(is_ours(h) for h in g["hooks"]) for g in groups):
            return False
    return True


TRUST_NOTE = ("Gemini CLI runs project hooks only in a trusted folder, and warns once when it "
              "first sees them")


def apply(path: Path, root: Path | None, *, remove: bool, dry_run: bool,
          note: str = TRUST_NOTE) -> Change:
    """Install (or remove) our hooks in `path`; report it relative to `root` (or absolute)."""
    rel = str(path.relative_to(root)) if root and path.is_relative_to(root) else str(path)
    try:
        data, old = load(path)
        new_data = without_hooks(data) if remove else with_hooks(data)
    except SettingsError as e:
        return Change(path=rel, action="skipped", detail=str(e))
    except OSError as e:
        return Change(path=rel, action="failed", detail=e.strerror or str(e))
    if old is None and remove:
        return Change(path=rel, action="unchanged")
    if new_data == data and old is not None:
        return Change(path=rel, action="unchanged")
    if remove and not new_data:
        # Nothing but our hooks was in it: the file goes, and its folder if that is now empty.
        if not dry_run:
            path.unlink()
            with contextlib.suppress(OSError):
                path.parent.rmdir()
        return Change(path=rel, action="removed")
    if not dry_run:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, dump(new_data, old), mode=0o644)
        except OSError as e:
            return Change(path=rel, action="failed", detail=e.strerror or str(e))
    return Change(path=rel, action="created" if old is None else "updated",
                  detail="" if remove else note)


def reads_agents_md(*settings: Path) -> bool:
    """Whether Gemini is configured (`context.fileName`) to load AGENTS.md itself."""
    for path in settings:
        try:
            data, _ = load(path)
        except (SettingsError, OSError):
            continue
        context = data.get("context")
        names = context.get("fileName") if isinstance(context, dict) else None
        if isinstance(names, str):
            names = [names]
        if isinstance(names, list) and "AGENTS.md" in names:
            return True
    return False
