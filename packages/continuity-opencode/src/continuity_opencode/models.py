"""A model's context window, from OpenCode's own sources: the provider's `models` in the
project's and the user's config (`limit.context`), then OpenCode's models.dev cache."""

from __future__ import annotations

import os

from continuity_core.adapters import kit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CONFIG_NAMES = ("opencode.json", "config.json")


def config_dirs() -> list[str]:
    """The folders OpenCode reads user config from: OPENCODE_CONFIG_DIR, then
    `$XDG_CONFIG_HOME/opencode` (by default `~/.config/opencode`)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join("~", ".config")
    dirs = (
        [kit.expand(os.environ["OPENCODE_CONFIG_DIR"])]
        if os.environ.get("OPENCODE_CONFIG_DIR")
        else []
    )
    default = os.path.join(kit.expand(base), "opencode")
    return dirs + ([default] if default not in dirs else [])


def config_files(project: str | None) -> list[str]:
    files = [os.path.join(project, "opencode.json")] if project else []
    if os.environ.get("OPENCODE_CONFIG"):
        files.append(kit.expand(os.environ["OPENCODE_CONFIG"]))
    files += [os.path.join(d, n) for d in config_dirs() for n in CONFIG_NAMES]
    return files


def _limit(models: Any, model_id: str) -> int | None:
    if not isinstance(models, dict):
        return None
    entry = models.get(model_id)
    limit = entry.get("limit") if isinstance(entry, dict) else None
    context = limit.get("context") if isinstance(limit, dict) else None
    return context if isinstance(context, int) and context > 0 else None


def context_window(model: str, project: str | None) -> int | None:
    """The context window of "provider/model", or None when no source names it."""
    from pathlib import Path

    provider, _, model_id = model.partition("/")
    if not model_id:
        return None
    for path in config_files(project):
        providers = kit.json_object(Path(path)).get("provider")
        if isinstance(providers, dict) and isinstance(providers.get(provider), dict):
            found = _limit(providers[provider].get("models"), model_id)
            if found:
                return found
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    catalog = kit.json_object(Path(kit.expand(cache)) / "opencode" / "models.json")
    entry = catalog.get(provider)
    return _limit(entry.get("models"), model_id) if isinstance(entry, dict) else None
