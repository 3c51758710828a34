"""Our hooks in Gemini CLI's `settings.json`, merged so nothing else changes.

Hook lists live under `"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type": "command",
"name", "command", "timeout" (ms)}]}]}`. A hook is ours when its command runs one of the
three `baker … --agent gemini` hook commands; uninstall removes exactly those. The file is
edited as text (`continuity_core.jsontext`): only our hooks change, every other byte (CRLF,
layout, `\\u` escapes) stays, so install then uninstall gives back the user's file exactly.
A file with comments is left alone. `baker mcp`, when registered, lives in the same file;
uninstall takes it out in the same edit as the hooks (`remove_all`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from continuity_core import jsontext
from continuity_core.adapters import Account, Change, UserOptions, kit
from continuity_core.adapters.kit import MCP_NAME, MCP_SERVER, hook_command, is_our_mcp
from continuity_core.project import BEGIN, END, ensure_block, remove_block

if TYPE_CHECKING:
    from collections.abc import Callable

CHECKPOINT = "checkpoint --agent gemini --quiet"
PICKUP = "pickup --agent gemini"
PRETOOL = "pretool --agent gemini"
OURS = re.compile(r"\bbaker (?:checkpoint|pickup|pretool) --agent gemini\b")
EDIT_AND_SHELL = "^(write_file|replace|edit|smart_edit|run_shell_command)$"
SETTINGS = ".gemini/settings.json"  # the project's, below its root
POINTER = f"""{BEGIN}
## Continuity

Read AGENTS.md in this folder as well: it holds this project's shared agent instructions,
including how to keep the working note `memory/hot.md` current.
{END}
"""


@dataclass(frozen=True)
class Hook:
    event: str
    name: str
    command: str
    timeout_ms: int
    matcher: str | None = None

    def group(self) -> dict[str, Any]:
        group: dict[str, Any] = {"matcher": self.matcher} if self.matcher else {}
        command = hook_command(self.command)
        group["hooks"] = [
            {"type": "command", "name": self.name, "command": command, "timeout": self.timeout_ms}
        ]
        return group


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
    return (
        isinstance(hook, dict)
        and isinstance(hook.get("command"), str)
        and bool(OURS.search(hook["command"]))
    )


def _strip_comments(text: str) -> str:
    """JSON text without // and /* */ comments (strings kept intact)."""
    return re.sub(
        r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/',
        lambda m: m.group(0) if m.group(0).startswith('"') else "",
        text,
        flags=re.S,
    )


def parse(path: Path, text: str | None) -> dict[str, Any]:
    """The settings object in `text` (read from `path`); SettingsError when baker must not
    rewrite it: a file with comments, not JSON or not an object."""
    if text is None:
        return {}
    stripped = _strip_comments(text)
    if stripped != text:
        raise SettingsError(f"{path} has comments, which a rewrite would lose")
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as e:
        raise SettingsError(f"{path} is not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path} is not a JSON object")
    return data


def edit(text: str | None, *, remove: bool) -> str | None:
    """`text` with our hooks present exactly once each (or none, `remove`); None: no change."""
    wanted = {hook.event: hook.group() for hook in HOOKS}
    try:
        return jsontext.edit_hooks(text, wanted, is_ours, want=not remove)
    except ValueError as e:  # parse() has vetted the JSON: what is left is a shape we won't touch
        raise SettingsError(f"not changed: {e}") from None


def has_hooks(data: dict[str, Any]) -> bool:
    """Whether every one of our hooks is configured."""
    return {hook.event for hook in HOOKS} <= kit.hook_events(data, is_ours)


TRUST_NOTE = (
    "Gemini CLI runs project hooks only in a trusted folder, and warns once when it first sees them"
)


def apply(
    path: Path,
    root: Path | None,
    *,
    remove: bool,
    dry_run: bool,
    note: str = TRUST_NOTE,
    step: Callable[..., str | None] = edit,
) -> Change:
    """Our hooks (`step` is `edit`) or `baker mcp` (`_edit_mcp`) in or out of `path`, every
    other byte kept; reported relative to `root` (or absolute). A file with comments, not JSON
    or not an object is skipped (`parse` says why). A file baker creates is remembered, so a
    removal that leaves nothing gives back what baker found (`kit.edit_settings_file`)."""

    def vetted_edit(text: str | None) -> str | None:
        parse(path, text)
        return step(text, remove=remove)

    return kit.edit_settings_file(
        path,
        root,
        vetted_edit,
        adding=not remove,
        dry_run=dry_run,
        note=note,
        prune=True,
        refused="skipped",
    )


MCP_NOTE = "MCP server `baker` registered"


def _edit_mcp(text: str | None, *, remove: bool) -> str | None:
    """`text` with `baker mcp` in `mcpServers` (or out of it, `remove`); None: no change."""
    try:
        return jsontext.edit_mcp(text, MCP_NAME, MCP_SERVER, is_our_mcp, want=not remove)
    except ValueError as e:
        raise SettingsError(f"not changed: {e}") from None


def remove_all(path: Path, root: Path | None, *, dry_run: bool) -> list[Change]:
    """Our hooks and our MCP server out of `path` in one edit. What becomes of the file
    (rewritten, given back as baker found it, or deleted) is then judged on the text the real
    run leaves, so a dry run says the same: two edits, each reading the file, would judge the
    second on a text that still holds what the first takes out. A part whose shape baker
    won't touch stays, said in a `skipped` line; the other part still goes."""
    kept: list[str] = []

    def both_out(text: str | None) -> str | None:
        parse(path, text)
        new = text
        for step in (edit, _edit_mcp):
            try:
                out = step(new, remove=True)
            except SettingsError as e:
                kept.append(str(e))
                continue
            new = new if out is None else out
        return None if new == text else new

    change = kit.edit_settings_file(
        path, root, both_out, adding=False, dry_run=dry_run, prune=True, refused="skipped"
    )
    return [change, *(Change(path=change.path, action="skipped", detail=why) for why in kept)]


def reads_agents_md(*settings: Path) -> bool:
    """Whether Gemini is configured (`context.fileName`) to load AGENTS.md itself."""
    for path in settings:
        context = kit.json_object(path).get("context")
        names = context.get("fileName") if isinstance(context, dict) else None
        if isinstance(names, str):
            names = [names]
        if isinstance(names, list) and "AGENTS.md" in names:
            return True
    return False


def install(project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
    """Our hooks in the project's settings, and a GEMINI.md pointer to AGENTS.md unless
    Gemini is configured to read AGENTS.md itself."""
    if local:
        return [
            Change(
                path=SETTINGS,
                action="skipped",
                detail="Gemini CLI has no personal project settings file; install "
                "user-level hooks with `baker global sync --user-hooks` instead",
            )
        ]
    changes = [apply(project / SETTINGS, project, remove=False, dry_run=dry_run)]
    changes += _former_skill(project, dry_run=dry_run)
    from continuity_core.schemas.config import GlobalConfig
    from continuity_gemini import discovery

    homes = [Path(a.dir) / "settings.json" for a in discovery.accounts(GlobalConfig())]
    if not reads_agents_md(project / SETTINGS, *homes[:1]):
        changes.append(ensure_block(project / "GEMINI.md", POINTER, project, dry_run=dry_run))
    return changes


def uninstall(project: Path, *, dry_run: bool = False) -> list[Change]:
    # the hooks and the `baker mcp` of `init --mcp` share the file: one edit takes both
    changes = remove_all(project / SETTINGS, project, dry_run=dry_run)
    changes += _former_skill(project, dry_run=dry_run)
    gemini_md = project / "GEMINI.md"
    try:
        ours = BEGIN in gemini_md.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        ours = False
    if ours:
        changes.append(remove_block(gemini_md, project, dry_run=dry_run))
    return changes


def install_user(account: Account, options: UserOptions) -> list[Change]:
    path = Path(account.dir) / "settings.json"
    if options.uninstall:
        return remove_all(path, None, dry_run=options.dry_run)
    changes: list[Change] = []
    if options.hooks:
        note = "user-level hooks run in every trusted folder"
        changes.append(apply(path, None, remove=False, dry_run=options.dry_run, note=note))
    if options.mcp:
        changes.append(
            apply(path, None, remove=False, dry_run=options.dry_run, note=MCP_NOTE, step=_edit_mcp)
        )
    return changes


def install_mcp(project: Path, *, remove: bool = False, dry_run: bool = False) -> list[Change]:
    """`baker mcp` in the project's `.gemini/settings.json` `mcpServers`."""
    path = project / SETTINGS
    return [apply(path, project, remove=remove, dry_run=dry_run, note=MCP_NOTE, step=_edit_mcp)]


def _former_skill(project: Path, *, dry_run: bool) -> list[Change]:
    """0.1.0 put the skill in `.gemini/skills/` too, which Gemini reports as a conflict with the
    copy in `.agents/skills/`: take ours out of there (another `continuity` skill stays)."""
    from continuity_core import skill

    return [
        c
        for c in skill.uninstall(project, [FORMER_SKILL_DIR], dry_run=dry_run)
        if c.action != "unchanged"
    ]


FORMER_SKILL_DIR = ".gemini/skills"
