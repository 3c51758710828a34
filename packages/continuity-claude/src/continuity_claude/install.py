"""Our hooks in Claude Code's settings files, and the CLAUDE.md pointer to AGENTS.md.

Settings are edited as text (`jsontext`): a file is rewritten only when our hooks are missing
or stale, and then only the hooks we own change. Ours are recognised by their command, so a
teammate's or another tool's hooks in the same event or group are never touched.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from continuity_core import jsontext
from continuity_core.adapters import Account, Change, UserOptions, kit
from continuity_core.adapters.kit import MCP_NAME, MCP_SERVER, hook_command, is_our_mcp
from continuity_core.project import BEGIN, END, ensure_block, remove_block

SETTINGS = Path(".claude") / "settings.json"
LOCAL_SETTINGS = Path(".claude") / "settings.local.json"
MEMORY = "CLAUDE.md"
MCP_JSON = Path(".mcp.json")  # the project's MCP servers, shared through the repository
# `alwaysLoad`: Claude Code connects the server before the first request and offers its tools
# there, instead of connecting in the background and deferring them behind a tool search
# (baker mcp needs ~1 s to start, so `claude -p` would otherwise ask the model without them).
MCP_ENTRY = {**MCP_SERVER, "alwaysLoad": True}


def command(verb: str, *flags: str) -> str:
    return hook_command(verb, "--agent", "claude", *flags)


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
    return (
        isinstance(hook, dict)
        and isinstance(hook.get("command"), str)
        and bool(_OURS.search(hook["command"]))
    )


def _group(event: str) -> dict[str, Any]:
    matcher, cmd, timeout = HOOKS[event]
    group: dict[str, Any] = {"matcher": matcher} if matcher else {}
    group["hooks"] = [{"type": "command", "command": cmd, "timeout": timeout}]
    return group


def sync_file(
    path: Path, root: Path | None, *, want: bool, dry_run: bool, prune_dir: bool = False
) -> Change:
    """Add or remove our hooks in one settings file; report it relative to `root`.

    `root` is the project for a project-level file (a link out of it is refused), None for a
    user-level one (written through a link to its target); see `kit.edit_settings_file`.
    """

    def edit(text: str | None) -> str | None:
        wanted = {event: _group(event) for event in HOOKS}
        try:  # ValueError: the file is not a JSON object, or its `hooks` is not one
            return jsontext.edit_hooks(text, wanted, is_ours, want=want)
        except ValueError as e:
            raise ValueError(f"not changed: {e}; fix it by hand and run again") from None

    return kit.edit_settings_file(path, root, edit, adding=want, dry_run=dry_run, prune=prune_dir)


def install(project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
    """Our hooks in exactly one of the two project settings files, and the CLAUDE.md pointer."""
    target, other = (LOCAL_SETTINGS, SETTINGS) if local else (SETTINGS, LOCAL_SETTINGS)
    changes = [sync_file(project / target, project, want=True, dry_run=dry_run)]
    moved = sync_file(project / other, project, want=False, dry_run=dry_run, prune_dir=True)
    if moved.action != "unchanged":
        changes.append(moved)
    changes.append(ensure_block(project / MEMORY, POINTER, project, dry_run=dry_run))
    return changes


def uninstall(project: Path, *, dry_run: bool = False) -> list[Change]:
    """Remove our hooks from both project settings files and the CLAUDE.md pointer."""
    changes = [
        sync_file(project / rel, project, want=False, dry_run=dry_run, prune_dir=True)
        for rel in (SETTINGS, LOCAL_SETTINGS)
    ]
    changes.append(remove_block(project / MEMORY, project, dry_run=dry_run))
    mcp = sync_mcp(project / MCP_JSON, project, want=False, dry_run=dry_run)
    if mcp.action != "unchanged":  # registered by `baker init --mcp`
        changes.append(mcp)
    return changes


def install_user(account: Account, options: UserOptions) -> list[Change]:
    """User-level hooks in `<account>/settings.json`, only when asked for (`--user-hooks`)."""
    path = Path(account.dir) / "settings.json"
    changes: list[Change] = []
    if options.hooks or options.uninstall:
        changes.append(sync_file(path, None, want=not options.uninstall, dry_run=options.dry_run))
    if options.mcp or options.uninstall:
        mcp = sync_mcp(
            user_state(account.dir), None, want=not options.uninstall, dry_run=options.dry_run
        )
        if options.mcp or mcp.action != "unchanged":
            changes.append(mcp)
    return changes or [
        Change(path=str(path), action="skipped", detail="user-level hooks not asked for")
    ]


def install_mcp(project: Path, *, remove: bool = False, dry_run: bool = False) -> list[Change]:
    """`baker mcp` in the project's `.mcp.json` (Claude Code's project scope)."""
    return [sync_mcp(project / MCP_JSON, project, want=not remove, dry_run=dry_run)]


def sync_mcp(path: Path, root: Path | None, *, want: bool, dry_run: bool) -> Change:
    """`baker mcp` registered in (or taken out of) `mcpServers` of one JSON file: the
    project's `.mcp.json`, or an account's `.claude.json` for every project."""

    def edit(text: str | None) -> str | None:
        try:
            return jsontext.edit_mcp(text, MCP_NAME, MCP_ENTRY, is_our_mcp, want=want)
        except ValueError as e:
            raise ValueError(f"not changed: {e}; fix it by hand and run again") from None

    note = "Claude Code asks once before it starts a project's server" if root is not None else ""
    return kit.edit_settings_file(path, root, edit, adding=want, dry_run=dry_run, note=note)


def user_state(account_dir: str) -> Path:
    """Where an account keeps its user-scope MCP servers: `.claude.json` inside the config dir
    (`CLAUDE_CONFIG_DIR`), except for the default `~/.claude` run without the variable, whose
    state file is `~/.claude.json` beside it. An existing file inside the folder wins."""
    from continuity_claude.discovery import default_dir

    folder = Path(account_dir)
    inside = folder / ".claude.json"
    if inside.exists() or folder.resolve() != default_dir().resolve():
        return inside
    return folder.parent / ".claude.json"
