"""One loader for every plugin: adapters and probes, found through entry points.

Discovery reads entry-point metadata only (each distribution's `entry_points.txt` on
`sys.path`); a plugin's module is imported the first time it is used. A broken, duplicate or
incomplete plugin becomes one `AdapterError` for that name and never stops the others.
`BAKER_ADAPTERS=claude,codex` limits which adapters load (probes are not limited).
"""

from __future__ import annotations

import os
import sys

from continuity_core.errors import AdapterError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from typing import Protocol

    from continuity_core.adapters.protocol import Adapter
    from continuity_core.schemas.hook import HookEvent

    class HookHandler(Protocol):
        """An adapter's hook half: its `HOOK_GROUP` module, or the adapter itself."""

        def parse_hook(self, payload: bytes, argv: Sequence[str] = ...) -> HookEvent: ...

        def render_context(self, event: HookEvent, text: str) -> str | None: ...


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

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Registered):
            return NotImplemented
        return (self.name, self.value, self.dist, self.version, self.error) == (
            other.name,
            other.value,
            other.dist,
            other.version,
            other.error,
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"Registered(name={self.name!r}, value={self.value!r}, dist={self.dist!r}, "
            f"version={self.version!r}, error={self.error!r})"
        )


def _allowed(group: str) -> set[str] | None:
    raw = os.environ.get(ALLOW_ENV) if group in (GROUP, HOOK_GROUP) else None
    if raw is None:
        return None
    return {n.strip() for n in raw.split(",") if n.strip()}


def entry_points(group: str) -> Iterator[tuple[str, str, str, str]]:
    """(name, "module:attr", distribution, version) of every entry point in `group`.

    Read straight from each installed distribution's `entry_points.txt`: importing
    `importlib.metadata` alone costs more than a hook's start-up budget. As there, the first
    distribution of a name on `sys.path` wins.
    """
    for key, version, text in _distributions():
        for name, value in _section(text, group):
            yield name, value, key, version


_DISTS: dict[tuple[str, ...], list[tuple[str, str, str]]] = {}


def _distributions() -> list[tuple[str, str, str]]:
    """(name, version, entry_points.txt) of each distribution on `sys.path` that has one,
    read once per process (and `sys.path`)."""
    key_path = tuple(sys.path)
    if key_path in _DISTS:
        return _DISTS[key_path]
    found: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    stdlib = os.path.dirname(os.__file__)  # no distribution lies there: not worth a listing
    for folder in sys.path:
        if folder in (stdlib, os.path.join(stdlib, "lib-dynload")):
            continue
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
            except (OSError, ValueError):  # missing, or not UTF-8: that distribution's alone
                continue
            found.append((key, version.partition("-")[0] or "?", text))
    _DISTS[key_path] = found
    return found


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
        __import__(module_name)  # importlib.import_module, without importing importlib
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
        if near:  # a misspelling (`claud`): there is no extra of that name to install
            raise AdapterError(
                f"no adapter named {name!r} is installed; did you mean {near[0]!r}? "
                "(see `baker adapters`)"
            )
        raise AdapterError(
            f"no adapter named {name!r} is installed; install it with "
            f'`pip install "continuity-cli[{name}]"` (see `baker adapters`)'
        )
    lacks = missing(instance)  # the protocol's members (a Protocol only for the type checker)
    if lacks:
        _loaded.pop((GROUP, name), None)
        raise AdapterError(
            f"adapter {name!r} does not implement the Adapter protocol: it lacks {', '.join(lacks)}"
        )
    return instance  # type: ignore[return-value]  # it has every member of Adapter


def hook_module(name: str) -> HookHandler:
    """What parses the hook payloads of adapter `name` and renders its hook output: the module
    it registers under `HOOK_GROUP` (imported alone: a hook's start-up budget has no room for
    the whole adapter), else the adapter itself. AdapterError as `load`."""
    if name in registered(GROUP):
        try:
            found = load_plugin(name, HOOK_GROUP)
        except AdapterError:
            found = None  # the adapter's own methods say the same, or fail with its error
        if (
            found is not None
            and callable(getattr(found, "parse_hook", None))
            and callable(getattr(found, "render_context", None))
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
