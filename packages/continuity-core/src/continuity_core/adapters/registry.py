"""One loader for every plugin: adapters and probes, found through entry points.

Discovery reads entry-point metadata only (`importlib.metadata`); a plugin's module is
imported the first time it is used. A broken, duplicate or
incomplete plugin becomes one `AdapterError` for that name and never stops the others.
`BAKER_ADAPTERS=claude,codex` limits which adapters load (probes are not limited).
"""

from __future__ import annotations

import functools
import os
import sys

from continuity_core.errors import AdapterError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from continuity_core.adapters.protocol import Adapter, HookHalf


GROUP = "continuity_core.adapters"
PROBE_GROUP = "continuity_core.probes"
# An adapter's hook half (`parse_hook`, `render_context`), registered apart from the adapter
# so a hook imports that module alone; an adapter without one is loaded whole (`hook_module`).
HOOK_GROUP = "continuity_core.hooks"
ALLOW_ENV = "BAKER_ADAPTERS"


class Registered:
    """One entry point: its name, "module:Attr", distribution and version, and why it cannot
    be used, if so. A plain class: the hooks read these before anything else."""

    __slots__ = ("dist", "error", "name", "value", "version")

    def __init__(
        self, name: str, value: str, dist: str, version: str, error: str | None = None
    ) -> None:
        self.name = name
        self.value = value  # "module:Attr"
        self.dist = dist
        self.version = version
        self.error = error


def entry_points(group: str) -> Iterator[tuple[str, str, str, str]]:
    """(name, "module:attr", distribution, version) of every entry point in `group`, from the
    installed metadata (`importlib.metadata`); the first distribution of a name on `sys.path`
    wins, as there. Read through the per-user index where it is current."""
    return iter(_entry_points(tuple(sys.path)).get(group, []))


# --- the entry-point index -------------------------------------------------------------------
# `importlib.metadata` costs a hook four bare interpreter starts (it imports `email`,
# `zipfile`, `pathlib` and reads every distribution's metadata), so what it found for
# baker's groups is kept in `~/.baker/cache/entry-points-<checksum of sys.path>.json`, keyed on
# sys.path and each of its folders' modification times: installing, upgrading or removing a
# distribution adds or removes a `.dist-info` folder there, which changes the time. A folder
# changed less than `RACY_NS` ago is not trusted to have settled, and nothing is written.
# `tests/core/test_registry.py` checks the index against `importlib.metadata`.
PREFIX = "continuity_core."
INDEX_FORMAT = 1
RACY_NS = 3_000_000_000


@functools.cache
def _entry_points(path: tuple[str, ...]) -> dict[str, list[tuple[str, str, str, str]]]:
    import json

    from continuity_core import trust
    from continuity_core.fs import atomic_write, checksum

    key = _index_key(path)
    if key is None:
        return _scan(path)
    name = f"entry-points-{checksum(chr(0).join(path).encode('utf-8', 'surrogateescape'))}.json"
    try:
        index = os.path.join(trust.home_path("cache"), name)
    except (OSError, trust.Untrusted):
        return _scan(path)
    try:
        data = json.loads(trust.read_bytes(index, home=True))
        if data["key"] == key:
            found = {g: [(a, b, c, d) for a, b, c, d in rows] for g, rows in data["groups"].items()}
            if all(isinstance(v, str) for rows in found.values() for row in rows for v in row):
                return found
    except (OSError, ValueError, TypeError, KeyError, AttributeError, trust.Untrusted):
        pass  # none, stale or broken: the metadata is read again
    found = _scan(path)
    try:
        atomic_write(index, json.dumps({"key": key, "groups": found}), durable=False)
    except OSError:
        pass  # a read-only home: the next call reads the metadata again
    return found


def _index_key(path: tuple[str, ...]) -> list[object] | None:
    """sys.path and each folder's modification time; None while one changed just now."""
    import time

    racy = time.time_ns() - RACY_NS
    key: list[object] = [INDEX_FORMAT]
    for folder in path:
        try:
            st = os.stat(folder or ".")
        except OSError:
            key.append([folder, None])
            continue
        if st.st_mtime_ns >= racy:
            return None
        key.append([folder, st.st_ino, st.st_mtime_ns])
    return key


def _scan(path: tuple[str, ...]) -> dict[str, list[tuple[str, str, str, str]]]:
    """Every entry point of baker's groups (`continuity_core.*`) on `path`, by group."""
    import re
    from importlib import metadata

    found: dict[str, list[tuple[str, str, str, str]]] = {}
    seen: set[str] = set()
    for dist in metadata.distributions(path=list(path)):
        try:
            name = dist.metadata["Name"] or ""
            key = re.sub(r"[-_.]+", "-", name).lower()
            if not key or key in seen:
                continue
            seen.add(key)
            eps = [ep for ep in dist.entry_points if ep.group.startswith(PREFIX)]
        except (OSError, ValueError):  # unreadable metadata: that distribution's alone
            continue
        for ep in eps:
            found.setdefault(ep.group, []).append((ep.name, ep.value, key, dist.version or "?"))
    return found


def registered(group: str = GROUP) -> dict[str, Registered]:
    """Entry points of `group`, by name, without importing anything."""
    raw = os.environ.get(ALLOW_ENV) if group in (GROUP, HOOK_GROUP) else None
    allowed = None if raw is None else {n.strip() for n in raw.split(",") if n.strip()}
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
        __import__(module_name)  # the import statement's path: `-X importtime` reports it
        obj: object = sys.modules[module_name]
        for part in attr.split(".") if attr else ():  # "module" alone names the module
            obj = getattr(obj, part)
        instance = obj() if isinstance(obj, type) else obj
    except Exception as e:  # any failure of third-party code is that plugin's alone
        raise AdapterError(f"{_kind(group)} {name!r} ({entry.dist}) failed to load: {e}") from e
    _loaded[key] = instance
    return instance


def load(name: str) -> Adapter:
    """The adapter registered as `name`, or AdapterError saying why there is none."""
    from continuity_core.adapters.protocol import missing

    instance = load_plugin(name, GROUP)
    if instance is None:
        import difflib

        near = difflib.get_close_matches(name, list(registered(GROUP)), n=1)
        install = f'install it with `pip install "continuity-cli[{name}]"`'
        # a misspelling (`claud`) has no extra of that name to install
        fix = f"did you mean {near[0]!r}?" if near else install
        raise AdapterError(f"no adapter named {name!r} is installed; {fix} (see `baker adapters`)")
    lacks = missing(instance)  # the protocol's members (a Protocol only for the type checker)
    if lacks:
        _loaded.pop((GROUP, name), None)
        raise AdapterError(
            f"adapter {name!r} does not implement the Adapter protocol: it lacks {', '.join(lacks)}"
        )
    return instance  # type: ignore[return-value]  # it has every member of Adapter


def hook_module(name: str) -> HookHalf:
    """What parses the hook payloads of adapter `name` and renders its hook output: the module
    it registers under `HOOK_GROUP` (imported alone: a hook's start-up budget has no room for
    the whole adapter), else the adapter itself. AdapterError as `load`."""
    if name in registered(GROUP):
        try:
            found = load_plugin(name, HOOK_GROUP)
        except AdapterError:
            found = None  # the adapter's own methods say the same, or fail with its error
        if found is not None and all(
            callable(getattr(found, m, None)) for m in ("parse_hook", "render_context")
        ):
            return found  # type: ignore[return-value]
    return load(name)


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
