"""OpenCode set-up: baker's plugin file and its MCP entry.

OpenCode loads every `plugin/*.js` of the project's `.opencode/` and of the user's config
folder (`~/.config/opencode`, or `OPENCODE_CONFIG_DIR`); baker's is one file it owns whole,
`baker-continuity.js`, known by its first line. The MCP entry goes under the `mcp` key of
`opencode.json` (the project's, or the user's with `baker global sync --mcp`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from continuity_core import agentfiles
from continuity_core.adapters import Account, Change, UserOptions, kit
from continuity_core.fs import atomic_write
from continuity_opencode import models

PLUGIN_NAME = "baker-continuity.js"
PLUGIN_DIR = "plugin"
MARKER = "// baker: Continuity's OpenCode plugin."
MCP_ENTRY: dict[str, Any] = {
    "type": "local",
    "command": [kit.MCP_SERVER["command"], *kit.MCP_SERVER["args"]],
    "enabled": True,
}


def plugin_source() -> str:
    return (Path(__file__).parent / PLUGIN_NAME).read_text(encoding="utf-8")


def is_ours(text: str) -> bool:
    return text.startswith(MARKER)


def _shown(path: Path, root: Path | None) -> str:
    return str(path.relative_to(root)) if root is not None else str(path)


def put_plugin(folder: Path, root: Path | None, *, dry_run: bool) -> Change:
    """Write baker's plugin into `folder`/plugin/ (a project's `.opencode`, or a user config
    folder); a file of that name that is not baker's is left alone."""
    path = folder / PLUGIN_DIR / PLUGIN_NAME
    shown = _shown(path, root)
    try:
        target = agentfiles.resolve(path, root)
        agentfiles.check_writable(target.path)
    except agentfiles.Refused as e:
        return Change(path=shown, action="failed", detail=str(e))
    new = plugin_source()
    try:
        old: str | None = target.path.read_text(encoding="utf-8")
    except FileNotFoundError:
        old = None
    except (OSError, UnicodeDecodeError) as e:
        return Change(path=shown, action="failed", detail=str(e))
    if old == new:
        return Change(path=shown, action="unchanged")
    if old is not None and not is_ours(old):
        return Change(path=shown, action="skipped", detail="a plugin of that name is not baker's")
    if not dry_run:
        try:
            target.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target.path, new, mode=0o644)
        except OSError as e:
            return Change(path=shown, action="failed", detail=e.strerror or str(e))
    return Change(
        path=shown,
        action="created" if old is None else "updated",
        detail="OpenCode loads it at its next start; it runs baker checkpoint, pickup, pretool",
    )


def remove_plugin(folder: Path, root: Path | None, *, dry_run: bool) -> Change:
    """Take baker's plugin out of `folder`/plugin/, and the folders it alone needed."""
    path = folder / PLUGIN_DIR / PLUGIN_NAME
    shown = _shown(path, root)
    try:
        target = agentfiles.resolve(path, root)
        text = target.path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Change(path=shown, action="unchanged")
    except (OSError, UnicodeDecodeError, agentfiles.Refused) as e:
        return Change(path=shown, action="failed", detail=str(e))
    if not is_ours(text):
        return Change(path=shown, action="skipped", detail="not baker's plugin")
    if not dry_run:
        try:
            target.path.unlink()
        except OSError as e:
            return Change(path=shown, action="failed", detail=e.strerror or str(e))
        for empty in (target.path.parent, target.path.parent.parent):
            if root is None and empty == target.path.parent.parent:
                break  # a user's config folder stays
            try:
                empty.rmdir()  # only when empty: the user's own files stay
            except OSError:
                break
    return Change(path=shown, action="removed")


# --- project -----------------------------------------------------------------------------------


def install(project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
    return [put_plugin(project / ".opencode", project, dry_run=dry_run)]


def uninstall(project: Path, *, dry_run: bool = False) -> list[Change]:
    changes = [remove_plugin(project / ".opencode", project, dry_run=dry_run)]
    changes += install_mcp(project, remove=True, dry_run=dry_run)
    return changes


def _is_our_mcp(entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    words = command if isinstance(command, list) else [command]
    return "baker mcp" in " ".join(w for w in words if isinstance(w, str))


def mcp_edit(adding: bool) -> Any:
    def edit(text: str | None) -> str | None:
        data: dict[str, Any] = {}
        if text is not None and text.strip():
            try:
                loaded = json.loads(text)
            except ValueError as e:
                raise ValueError(f"not JSON baker can edit (JSONC comments?): {e}") from None
            if not isinstance(loaded, dict):
                raise ValueError("not a JSON object")
            data = loaded
        servers = data.get("mcp")
        if servers is not None and not isinstance(servers, dict):
            raise ValueError('its "mcp" is not an object')
        servers = dict(servers or {})
        ours = [k for k, v in servers.items() if _is_our_mcp(v)]
        if adding:
            if servers.get(kit.MCP_NAME) == MCP_ENTRY:
                return None
            for k in ours:
                del servers[k]
            servers[kit.MCP_NAME] = MCP_ENTRY
        else:
            if not ours:
                return None
            for k in ours:
                del servers[k]
        if servers:
            data["mcp"] = servers
        else:
            data.pop("mcp", None)
        if adding and "$schema" not in data and text is None:
            data = {"$schema": "https://opencode.ai/config.json", **data}
        return json.dumps(data, indent=2) + "\n"

    return edit


def install_mcp(project: Path, *, remove: bool = False, dry_run: bool = False) -> list[Change]:
    path = project / "opencode.json"
    if remove and not path.exists():
        return [Change(path="opencode.json", action="unchanged")]
    return [
        kit.edit_settings_file(
            path,
            project,
            _mcp_edit_for_removal() if remove else mcp_edit(True),
            adding=not remove,
            dry_run=dry_run,
            note="OpenCode starts `baker mcp` for this project",
            refused="skipped",
        )
    ]


def _mcp_edit_for_removal() -> Any:
    inner = mcp_edit(False)

    def edit(text: str | None) -> str | None:
        new: str | None = inner(text)
        if new is not None and json.loads(new) == {"$schema": "https://opencode.ai/config.json"}:
            return "{}\n"  # only what baker wrote is left: the file goes as it came
        return new

    return edit


# --- user ------------------------------------------------------------------------------------


def install_user(account: Account, options: UserOptions) -> list[Change]:
    """The plugin (and with `options.mcp` the MCP entry) in the user's config folder; the
    same for every OpenCode account: accounts differ in data folders, not config."""
    folder = Path(models.config_dirs()[0])
    changes: list[Change] = []
    if options.uninstall:
        changes.append(remove_plugin(folder, None, dry_run=options.dry_run))
    elif options.hooks is not False:  # OpenCode reads user plugins for every project
        changes.append(put_plugin(folder, None, dry_run=options.dry_run))
    if options.mcp or options.uninstall:
        path = folder / "opencode.json"
        if options.uninstall and not path.exists():
            return changes
        changes.append(
            kit.edit_settings_file(
                path,
                None,
                _mcp_edit_for_removal() if options.uninstall else mcp_edit(True),
                adding=not options.uninstall,
                dry_run=options.dry_run,
                note="OpenCode starts `baker mcp` in every project",
                refused="skipped",
            )
        )
    return changes


def plugin_state(folder: Path) -> str:
    """ "current", "stale" (an older baker's), "foreign" (a file of that name not baker's) or
    "missing", for `baker doctor`."""
    path = folder / PLUGIN_DIR / PLUGIN_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return "missing"
    if not is_ours(text):
        return "foreign"
    return "current" if text == plugin_source() else "stale"
