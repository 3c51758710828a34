"""Edits of Codex's user `config.toml` (notify, hooks, hook trust) and project `hooks.json`.

Everything goes through tomlkit, so the user's comments, order and other keys survive; every
edit is idempotent and `remove_*` takes out only what `add_*` put in. Our entries are known by
their commands (`baker … --agent codex`) and trust entries by their hash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import tomlkit
from tomlkit.items import AoT, Table

from continuity_core.adapters.kit import MCP_NAME, MCP_SERVER, hook_command, is_our_mcp
from continuity_core.fs import hexdigest

BAKER = "baker"
NOTIFY = [BAKER, "checkpoint", "--agent", "codex", "--quiet"]
# `--chain`: run the user's program with the same JSON argument, then baker. Codex appends the
# JSON to the argv, so "$@" is the old argv plus it, and after the shift "$1" is the JSON.
CHAIN_MARK = "baker-notify-chain"
CHAIN_SCRIPT = f'"$@"; shift $(($# - 1)); exec {BAKER} checkpoint --agent codex --quiet "$1"'
CHAIN_PREFIX = ["sh", "-c", CHAIN_SCRIPT, CHAIN_MARK]


@dataclass(frozen=True)
class Hook:
    event: str  # Codex's config key, e.g. "SessionStart"
    command: str
    timeout: int  # seconds; written explicitly so the trust hash needs no defaults

    @property
    def snake(self) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", self.event).lower()


# Guarded, so that Codex prints no failed hook where baker is not on PATH.
HOOKS = (
    Hook("SessionStart", hook_command("pickup", "--agent", "codex"), 15),
    Hook("PreToolUse", hook_command("pretool", "--agent", "codex"), 5),
    Hook("Stop", hook_command("checkpoint", "--agent", "codex", "--quiet"), 30),
    Hook("PreCompact", hook_command("checkpoint", "--agent", "codex", "--quiet"), 30),
)
OURS = re.compile(r"^(?:command -v baker >/dev/null 2>&1 && )?baker \S.* --agent codex\b")


def is_ours(command: Any) -> bool:
    """Our hooks, guarded or in the bare form of 0.1.0 (so upgrades replace them)."""
    return isinstance(command, str) and OURS.match(command) is not None


def trust_hash(hook: Hook) -> str:
    """Codex's `trusted_hash`: sha256 of the canonical JSON of the event and its handler (our
    groups have no matcher)."""
    handler = {"type": "command", "command": hook.command, "timeout": hook.timeout, "async": False}
    body = {"event_name": hook.snake, "hooks": [handler]}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hexdigest(canonical.encode(), "sha256")


def trust_key(source: str, hook: Hook, group: int) -> str:
    return f"{source}:{hook.snake}:{group}:0"  # the handler's index: ours is its group's only


# --- notify ----------------------------------------------------------------------------------


def notify_state(doc: Any) -> tuple[str, list[str] | None]:
    """("absent" | "ours" | "chained" | "other", the user's own program if any)."""
    value = doc.get("notify")
    if value is None:
        return "absent", None
    argv = [str(a) for a in value] if isinstance(value, list) else [str(value)]
    if argv == NOTIFY:
        return "ours", None
    if argv[:4] == CHAIN_PREFIX:
        return "chained", argv[4:]
    return "other", argv


def set_notify(doc: Any, *, chain: bool) -> str:
    """Install our notify; returns what happened: added, chained, present or kept."""
    state, other = notify_state(doc)
    if state in ("ours", "chained"):
        return "present"
    if state == "absent":
        doc["notify"] = NOTIFY
        return "added"
    if not chain:
        return "kept"
    doc["notify"] = [*CHAIN_PREFIX, *(other or [])]
    return "chained"


def remove_notify(doc: Any) -> bool:
    state, other = notify_state(doc)
    if state == "chained" and other:
        doc["notify"] = other  # the user's own program, unchained
    elif state in ("ours", "chained"):
        del doc["notify"]
    return state in ("ours", "chained")


# --- hooks in config.toml --------------------------------------------------------------------


def _groups(doc: Any, event: str) -> list[Any]:
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return []
    groups = hooks.get(event)
    return list(groups) if isinstance(groups, list) else []


def _handlers(group: Any) -> list[Any]:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return list(handlers) if isinstance(handlers, list) else []


def _all_ours(group: Any) -> bool:
    """A group of hooks that are all ours (`[hooks]` in config.toml, or a hooks.json's)."""
    handlers = _handlers(group)
    return bool(handlers) and all(
        isinstance(h, dict) and is_ours(h.get("command")) for h in handlers
    )


def find_ours(doc: Any, hook: Hook) -> int | None:
    """The index of our group for `hook`, when present exactly as we write it."""
    for i, group in enumerate(_groups(doc, hook.event)):
        handlers = _handlers(group)
        if (
            len(handlers) == 1
            and handlers[0].get("command") == hook.command
            and handlers[0].get("timeout") == hook.timeout
            and "matcher" not in group
        ):
            return i
    return None


def _super_table(doc: Any, key: str) -> Any:
    if key not in doc:
        doc[key] = tomlkit.table(is_super_table=True)
    return doc[key]


def add_hooks(doc: Any) -> list[tuple[Hook, int]]:
    """Our hook groups, appended where missing; (hook, group index) for each."""
    placed: list[tuple[Hook, int]] = []
    for hook in HOOKS:
        index = find_ours(doc, hook)
        if index is None:
            _drop_stale(doc, hook.event)
            hooks = _super_table(doc, "hooks")
            if hook.event not in hooks:
                hooks[hook.event] = tomlkit.aot()
            handler = tomlkit.table()
            handler.update({"type": "command", "command": hook.command, "timeout": hook.timeout})
            handler.add(tomlkit.nl())  # a blank line after, as a person would write it
            group = tomlkit.table()
            handlers = tomlkit.aot()
            handlers.append(handler)
            group["hooks"] = handlers
            hooks[hook.event].append(group)
            index = len(hooks[hook.event]) - 1
        placed.append((hook, index))
    return placed


def _drop_stale(doc: Any, event: str) -> None:
    """Remove groups of ours that an older version (or the user) changed."""
    hooks = doc.get("hooks")
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    if not isinstance(groups, AoT | list):
        return
    for i in reversed(range(len(groups))):
        if _all_ours(groups[i]):
            del groups[i]


def remove_hooks(doc: Any) -> bool:
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return False
    changed = False
    for event in {h.event for h in HOOKS}:
        groups = hooks.get(event)
        if not isinstance(groups, AoT | list):
            continue
        before = len(groups)
        _drop_stale(doc, event)
        changed |= len(groups) != before
        if len(groups) == 0:
            del hooks[event]
    return changed


def set_trust(doc: Any, source: str, placed: list[tuple[Hook, int]]) -> bool:
    """Write `hooks.state` trusted hashes for our groups; drop stale ones of ours."""
    changed = remove_trust(doc, source, keep={trust_key(source, h, i) for h, i in placed})
    state = _super_table(_super_table(doc, "hooks"), "state")
    for hook, index in placed:
        key, value = trust_key(source, hook, index), trust_hash(hook)
        entry = state.get(key)
        if isinstance(entry, dict) and entry.get("trusted_hash") == value:
            continue
        table = tomlkit.table()
        table["trusted_hash"] = value
        table.add(tomlkit.nl())
        state[key] = table
        changed = True
    return changed


def _state(doc: Any) -> Any:
    """`[hooks.state]`, where Codex keeps the trusted hashes; None when there is none."""
    hooks = doc.get("hooks")
    state = hooks.get("state") if isinstance(hooks, dict) else None
    return state if isinstance(state, dict) else None


def _trusting_ours(state: Any, source: str) -> list[str]:
    """The keys of `state` that trust one of our hooks from the file `source`."""
    ours = {trust_hash(h) for h in HOOKS}
    return [
        str(key)
        for key, entry in state.items()
        if str(key).startswith(f"{source}:")
        and isinstance(entry, dict)
        and entry.get("trusted_hash") in ours
    ]


def remove_trust(doc: Any, source: str, keep: set[str] | None = None) -> bool:
    state = _state(doc)
    if state is None:
        return False
    gone = [key for key in _trusting_ours(state, source) if key not in (keep or set())]
    for key in gone:
        del state[key]
    if len(state) == 0:
        del doc["hooks"]["state"]
    return bool(gone)


def trusted_elsewhere(doc: Any, source: str) -> bool:
    """Whether `doc` trusts any of our hooks from the file `source` (a project hooks.json)."""
    state = _state(doc)
    return state is not None and bool(_trusting_ours(state, source))


def trust_status(doc: Any, source: str) -> Iterator[tuple[Hook, str]]:
    """("trusted" | "untrusted" | "modified" | "missing") for each of our hooks."""
    state = _state(doc) or {}
    for hook in HOOKS:
        index = find_ours(doc, hook)
        if index is None:
            stale = any(
                is_ours(h.get("command")) for g in _groups(doc, hook.event) for h in _handlers(g)
            )
            yield hook, "modified" if stale else "missing"
            continue
        entry = state.get(trust_key(source, hook, index))
        recorded = entry.get("trusted_hash") if isinstance(entry, dict) else None
        if recorded is None:
            yield hook, "untrusted"
        else:
            yield hook, "trusted" if recorded == trust_hash(hook) else "modified"


def set_mcp(doc: Any) -> str:
    """`[mcp_servers.baker]` running `baker mcp`: "added", "unchanged", or "taken" when the
    name runs something else (left alone)."""
    servers = doc.get("mcp_servers")
    current = servers.get(MCP_NAME) if isinstance(servers, dict) else None
    if current is not None and not is_our_mcp(current):
        return "taken"
    if current is not None and {k: current.get(k) for k in MCP_SERVER} == MCP_SERVER:
        return "unchanged"
    servers = _super_table(doc, "mcp_servers")
    table = tomlkit.table()
    table.update(MCP_SERVER)
    if current is not None:
        del servers[MCP_NAME]
    servers[MCP_NAME] = table
    return "added"


def remove_mcp(doc: Any) -> bool:
    servers = doc.get("mcp_servers")
    if not isinstance(servers, dict) or not is_our_mcp(servers.get(MCP_NAME)):
        return False
    del servers[MCP_NAME]
    return True


def tidy(doc: Any) -> None:
    """Drop a `[hooks]` or `[mcp_servers]` table our removals left empty."""
    for key in ("hooks", "mcp_servers"):
        table = doc.get(key)
        if isinstance(table, Table | dict) and len(table) == 0:
            del doc[key]


def dumps(doc: Any, before: str) -> str:
    text = tomlkit.dumps(doc)
    # tomlkit leaves the blank line it put before a table it no longer has.
    if before.endswith("\n") and not before.endswith("\n\n"):
        text = text.rstrip("\n") + "\n"
    return text


# --- project hooks.json ----------------------------------------------------------------------


def hooks_json_remove(data: dict[str, Any]) -> dict[str, Any]:
    """`<project>/.codex/hooks.json` without the hooks an earlier baker put there."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return data
    for event in list(hooks):
        groups = hooks[event]
        if isinstance(groups, list):
            hooks[event] = [g for g in groups if not _all_ours(g)]
            if not hooks[event]:
                del hooks[event]
    if not hooks:
        del data["hooks"]
    return data
