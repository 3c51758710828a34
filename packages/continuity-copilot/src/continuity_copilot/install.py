"""baker's hooks in Copilot CLI's files, and `baker mcp` in the account's MCP config.

Two places hold Copilot hooks (formats/copilot.md, 2.2): the user's `settings.json` (under
`COPILOT_HOME`), which Copilot runs with no prompt, and a repository's `.github/hooks/*.json`,
which it loads only for trusted folders. baker writes the user-level hooks with
`baker global sync` and its own `.github/hooks/baker.json` with `baker init` / `baker sync`;
both may be present (baker runs a hook once when both layers call it). Ours are recognised by
their command, so the user's and other tools' hooks in the same files are never touched.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from continuity_core import jsontext
from continuity_core.adapters import Account, Change, UserOptions, kit
from continuity_core.adapters.kit import MCP_NAME, MCP_SERVER

PROJECT_HOOKS = Path(".github") / "hooks" / "baker.json"
SETTINGS = "settings.json"
MCP_CONFIG = "mcp-config.json"
TRUST_NOTE = (
    "Copilot CLI loads a repository's .github/hooks only in a trusted folder "
    "(trustedFolders in ~/.copilot/config.json, or its trust prompt)"
)


def command(verb: str, *flags: str) -> str:
    return kit.hook_command(verb, "--agent", "copilot", *flags)


CHECKPOINT = command("checkpoint", "--quiet")
# event -> (command, timeout in seconds)
HOOKS: dict[str, tuple[str, int]] = {
    "sessionStart": (command("pickup"), 15),
    "preToolUse": (command("pretool"), 10),
    "agentStop": (CHECKPOINT, 30),
    # a turn that ends on a rate limit fires errorOccurred (and sessionEnd), not agentStop
    "errorOccurred": (CHECKPOINT, 30),
}
_OURS = re.compile(r"\bbaker (?:checkpoint|pickup|pretool) --agent copilot\b")


def is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and any(
        isinstance(hook.get(k), str) and bool(_OURS.search(hook[k]))
        for k in ("bash", "command", "powershell")
    )


def edit_hooks(text: str | None, *, want: bool, own_file: bool) -> str | None:
    """`text` with our hooks added (`want`) or removed; None when nothing changes.

    `own_file`: baker's `.github/hooks/baker.json`, which carries `"version": 1` and is `{}`
    (so deleted) once ours are gone. ValueError for a file that is no JSON object, or whose
    `hooks` or an event's list is of another shape.
    """
    if not want and (text is None or not text.strip()):
        return None
    data = json.loads(text) if text and text.strip() else {}
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError('"hooks" is not an object')
    new_hooks: dict[str, Any] = {}
    for event, items in hooks.items():
        if not isinstance(items, list):
            raise ValueError(f'"hooks.{event}" is not a list')
        kept = [h for h in items if not is_ours(h)]
        if kept or (event in HOOKS and want):
            new_hooks[event] = kept
    if want:
        for event, (cmd, timeout) in HOOKS.items():
            ours = {"type": "command", "bash": cmd, "timeoutSec": timeout}
            new_hooks.setdefault(event, []).append(ours)
    new = {k: v for k, v in data.items() if k != "hooks"}
    if new_hooks:
        if own_file:
            new.setdefault("version", 1)
        new["hooks"] = new_hooks
    elif own_file and set(new) <= {"version"}:
        new = {}
    if new == data:
        return None
    return json.dumps(new, indent=2) + "\n"


def _by_hand(edit: Callable[..., str | None], **options: Any) -> Callable[[str | None], str | None]:
    """`edit` with `options`; a file of a shape it refuses is left for the user to fix."""

    def checked(text: str | None) -> str | None:
        try:
            return edit(text, **options)
        except ValueError as e:
            raise ValueError(f"not changed: {e}; fix it by hand and run again") from None

    return checked


def sync_hooks(path: Path, root: Path | None, *, want: bool, dry_run: bool) -> Change:
    own = root is not None
    return kit.edit_settings_file(
        path,
        root,
        _by_hand(edit_hooks, want=want, own_file=own),
        adding=want,
        dry_run=dry_run,
        prune=own,
        note=TRUST_NOTE if own else "",
    )


def install(project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
    """baker's `.github/hooks/baker.json` (Copilot has no untracked project hooks file: with
    `local`, the hooks stay user-level only)."""
    if local:
        return [
            Change(
                path=str(PROJECT_HOOKS),
                action="skipped",
                detail="Copilot has no local-only project hooks: `baker global sync` installs "
                "them in the user's settings.json",
            )
        ]
    return [sync_hooks(project / PROJECT_HOOKS, project, want=True, dry_run=dry_run)]


def uninstall(project: Path, *, dry_run: bool = False) -> list[Change]:
    return [sync_hooks(project / PROJECT_HOOKS, project, want=False, dry_run=dry_run)]


def install_mcp(project: Path, *, remove: bool = False, dry_run: bool = False) -> list[Change]:
    return [
        Change(
            path=str(Path(".github") / "mcp.json"),
            action="skipped",
            detail=(
                "Copilot CLI reads baker mcp from the user's mcp-config.json: "
                "`baker global sync --mcp` registers it there for every project"
            ),
        )
    ]


# Copilot's MCP entries: a local (stdio) server and the tools it may use.
MCP_ENTRY: dict[str, Any] = {"type": "local", **MCP_SERVER, "tools": ["*"]}


def sync_mcp(path: Path, *, want: bool, dry_run: bool) -> Change:
    """`baker mcp` in (or out of) `mcp-config.json`'s `mcpServers`, every other byte kept."""
    edit = _by_hand(
        jsontext.edit_mcp, name=MCP_NAME, entry=MCP_ENTRY, is_ours=kit.is_our_mcp, want=want
    )
    return kit.edit_settings_file(path, None, edit, adding=want, dry_run=dry_run)


def install_user(account: Account, options: UserOptions) -> list[Change]:
    """User-level hooks in `<account>/settings.json` (Copilot runs them with no trust prompt,
    so they are installed unless `--user-hooks` is turned off), and `baker mcp` with --mcp."""
    home = Path(account.dir)
    changes: list[Change] = []
    if options.uninstall or options.hooks is not False:
        changes.append(
            sync_hooks(home / SETTINGS, None, want=not options.uninstall, dry_run=options.dry_run)
        )
    if options.mcp or options.uninstall:
        mcp = sync_mcp(home / MCP_CONFIG, want=not options.uninstall, dry_run=options.dry_run)
        if options.mcp or mcp.action != "unchanged":
            changes.append(mcp)
    return changes or [
        Change(path=str(home / SETTINGS), action="skipped", detail="user-level hooks turned off")
    ]


def hook_state(path: Path) -> tuple[list[str], list[str]]:
    """(events with our hook, events without it) in one hooks file."""
    data = kit.json_object(path)
    hooks = data.get("hooks")
    hooks = hooks if isinstance(hooks, dict) else {}
    have = [
        e for e in HOOKS if isinstance(hooks.get(e), list) and any(is_ours(h) for h in hooks[e])
    ]
    return have, [e for e in HOOKS if e not in have]
