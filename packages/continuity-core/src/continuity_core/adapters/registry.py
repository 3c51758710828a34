"""One loader for every plugin: adapters and probes, found through entry points.

Discovery reads entry-point metadata only (each distribution's `entry_points.txt` on
`sys.path`); a plugin's module is imported the first time it is used. A broken, duplicate or
incomplete plugin becomes one `AdapterError` for that name and never stops the others.
`BAKER_ADAPTERS=claude,codex` limits which adapters load (probes are not limited).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import msgspec

from continuity_core.adapters.protocol import Adapter, missing
from continuity_core.errors import AdapterError

GROUP = "continuity_core.adapters"
PROBE_GROUP = "continuity_core.probes"
ALLOW_ENV = "BAKER_ADAPTERS"


class Registered(msgspec.Struct):
    name: str
    value: str  # "module:Attr"
    dist: str
    version: str
    error: str | None = None


def _allowed(group: str) -> set[str] | None:
    raw = os.environ.get(ALLOW_ENV) if group == GROUP else None
    if raw is None:
        return None
    return {n.strip() for n in raw.split(",") if n.strip()}


def entry_points(group: str) -> Iterator[tuple[str, str, str, str]]:
    """(name, "module:attr", distribution, version) of every entry point in `group`.

    Read straight from each installed distribution's `entry_points.txt`: importing
    `importlib.metadata` alone costs more than a hook's start-up budget. As there, the first
    distribution of a name on `sys.path` wins.
    """
    seen: set[str] = set()
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for meta in names:
            if not meta.endswith((".dist-info", ".egg-info")):
                continue
            dist, _, version = meta.rpartition(".")[0].partition("-")
            key = dist.lower().replace("_", "-").replace(".", "-")
            if key in seen:
                continue
            seen.add(key)
            try:
                with open(os.path.join(folder, meta, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            for name, value in _section(text, group):
                yield name, value, key, version.partition("-")[0] or "?"


def _section(text: str, group: str) -> Iterator[tuple[str, str]]:
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            inside = line == f"[{group}]"
        elif inside and "=" in line and not line.startswith(("#", ";")):
            name, _, value = line.partition("=")
            yield name.strip(), value.strip()


def registered(group: str = GROUP) -> dict[str, Registered]:
    """Entry points of `group`, by name, without importing anything."""
    allowed = _allowed(group)
    found: dict[str, Registered] = {}
    for name, value, dist, version in entry_points(group):
        if allowed is not None and name not in allowed:
            continue
        if name in found and found[name].value != value:
            found[name].error = (
                f"{_kind(group)} {name!r} is registered twice ({found[name].dist} and {dist}); "
                "uninstall one of them"
            )
            continue
        found.setdefault(name, Registered(name, value, dist, version))
    return dict(sorted(found.items()))


def _kind(group: str) -> str:
    return "adapter" if group == GROUP else "plugin"


_loaded: dict[tuple[str, str], object] = {}


def load_plugin(name: str, group: str) -> object | None:
    """Import and instantiate the plugin `name` of `group`; None when none is registered.

    Raises AdapterError, naming the plugin and its distribution, when it fails to load.
    """
    key = (group, name)
    if key in _loaded:
        return _loaded[key]
    entry = registered(group).get(name)
    if entry is None:
        return None
    if entry.error:
        raise AdapterError(entry.error)
    module_name, _, attr = entry.value.partition(":")
    try:
        import importlib

        obj: object = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
        instance = obj() if isinstance(obj, type) else obj
    except Exception as e:  # any failure of third-party code is that plugin's alone
        raise AdapterError(f"{_kind(group)} {name!r} ({entry.dist}) failed to load: {e}") from e
    _loaded[key] = instance
    return instance


def load(name: str) -> Adapter:
    """The adapter registered as `name`, or AdapterError saying why there is none."""
    instance = load_plugin(name, GROUP)
    if instance is None:
        raise AdapterError(
            f"no adapter named {name!r} is installed; install it with "
            f"`pip install \"continuity-cli[{name}]\"` (see `baker adapters`)"
        )
    lacks = missing(instance)
    if lacks or not isinstance(instance, Adapter):
        _loaded.pop((GROUP, name), None)
        raise AdapterError(f"adapter {name!r} does not implement the Adapter protocol: it lacks "
                           f"{', '.join(lacks) or 'a member'}")
    return instance


def load_all() -> tuple[dict[str, Adapter], dict[str, str]]:
    """Every loadable adapter, and an error line for each that is not."""
    good: dict[str, Adapter] = {}
    bad: dict[str, str] = {}
    for name in registered(GROUP):
        try:
            good[name] = load(name)
        except AdapterError as e:
            bad[name] = str(e)
    return good, bad
