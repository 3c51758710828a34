"""The Adapter protocol and the registry that finds adapters through entry points.

Discovery reads entry-point metadata only; an adapter's module is imported the first time it
is used. A broken or duplicate adapter becomes one `AdapterError` for that name and never
stops the others. `BAKER_ADAPTERS=claude,codex` limits which adapters load.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import msgspec

from continuity_core.errors import AdapterError
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.hook import HookEvent
from continuity_core.schemas.session import SessionRef

if TYPE_CHECKING:
    from continuity_core.transcript import Cursor

GROUP = "continuity_core.adapters"
ALLOW_ENV = "BAKER_ADAPTERS"
# A first prompt larger than this travels through a file the agent is told to read: argv and
# environment together must stay well under Linux's ARG_MAX per string (128 KiB), and far
# under Windows' 32 KiB command line.
INLINE_PROMPT_MAX = 24_000


class Account(msgspec.Struct, frozen=True, kw_only=True):
    """One config dir of one agent: an account."""

    agent: str
    name: str  # the named account from config.toml, or the dir as the user wrote it
    dir: str  # absolute


class Change(msgspec.Struct, kw_only=True, omit_defaults=True):
    """What an install, sync or uninstall did (or would do) to one file."""

    path: str
    action: Literal["created", "updated", "removed", "unchanged", "skipped", "failed"]
    detail: str = ""


class Finding(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One `baker doctor` line."""

    level: Literal["ok", "info", "warn", "error"]
    message: str
    fix: str = ""


class LaunchSpec(msgspec.Struct, kw_only=True, omit_defaults=True):
    """How `baker resume` starts the agent: argv, extra environment, working folder."""

    argv: list[str]
    env: dict[str, str] = msgspec.field(default_factory=dict)
    cwd: str = ""
    notes: list[str] = msgspec.field(default_factory=list)


@runtime_checkable
class Adapter(Protocol):
    """What an agent's adapter gives core and the CLI. Vendor formats stay inside it."""

    name: str  # "claude"
    display_name: str  # "Claude Code"
    known_versions: tuple[str, ...]  # CLI versions whose formats this adapter was built on
    skill_dirs: tuple[str, ...]  # project-relative folders this agent loads skills from

    def accounts(self, config: GlobalConfig) -> list[Account]:
        """Every config dir of this agent: env vars, defaults and `[transcripts]`."""
        ...

    def discover(self, project: Path, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        """Sessions of `project` (its root or below) across `accounts`, newest first."""
        ...

    def all_sessions(self, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        """Every session of every project in `accounts`, any order: names, stat, index and
        first lines only. What `discover` leaves out (subagents, stubs) stays out."""
        ...

    def read(self, ref: SessionRef, cursor: Cursor | None = None) -> Cursor:
        """Read (or continue reading) a session into `cursor.session`."""
        ...

    def parse_hook(self, payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
        """Parse a hook's stdin (or notify's argv); raise ValueError when it is not ours."""
        ...

    def session_for_hook(self, event: HookEvent, accounts: Sequence[Account]) -> SessionRef | None:
        """The session a hook event belongs to, or None (e.g. a notify for a title thread)."""
        ...

    def render_context(self, event: HookEvent, text: str) -> str | None:
        """The stdout that puts `text` before the model for `event`, or None for no output."""
        ...

    def install(self, project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
        """Project-level hooks and config (`baker init` / `baker sync`)."""
        ...

    def uninstall(self, project: Path, *, dry_run: bool = False) -> list[Change]:
        """Remove exactly what `install` added."""
        ...

    def install_user(self, account: Account, options: UserOptions) -> list[Change]:
        """User-level pieces for one account (`baker global sync`)."""
        ...

    def install_mcp(self, project: Path, *, remove: bool = False,
                    dry_run: bool = False) -> list[Change]:
        """Register `baker mcp` for the project (`baker init --mcp`), or take it out; an agent
        that reads MCP servers only from user settings says so with a skipped change."""
        ...

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        """How to start this agent interactively with the brief in `brief` as its first turn."""
        ...

    def doctor(self, project: Path, accounts: Sequence[Account]) -> list[Finding]:
        """Checks of this agent's hooks, trust, versions and retention."""
        ...

    def cli_version(self) -> str | None:
        """The installed CLI's version, or None when it is not on PATH."""
        ...


class UserOptions(msgspec.Struct, frozen=True, kw_only=True):
    hooks: bool = True  # user-level hooks (Codex always; Claude and Gemini with --user-hooks)
    chain: bool = False  # keep an existing Codex notify program running
    trust: bool = False  # write Codex trusted-hook hashes
    dry_run: bool = False
    uninstall: bool = False  # removes every piece of ours, MCP registration included
    mcp: bool = False  # register `baker mcp` in the account's user settings


class LaunchOptions(msgspec.Struct, frozen=True, kw_only=True):
    account: Account | None = None
    native: SessionRef | None = None  # continue this very session (same vendor)
    brief_chars: int = 0
    brief_text: str | None = None  # the brief itself when it is not on disk (a dry run)
    extra: dict[str, Any] = msgspec.field(default_factory=dict)  # "dry_run": True: no side effects


# --- registry ------------------------------------------------------------------------------

class Registered(msgspec.Struct):
    name: str
    value: str  # "module:Attr"
    dist: str
    version: str
    error: str | None = None


def _allowed() -> set[str] | None:
    raw = os.environ.get(ALLOW_ENV)
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
    allowed = _allowed()
    found: dict[str, Registered] = {}
    for name, value, dist, version in entry_points(group):
        if allowed is not None and name not in allowed:
            continue
        if name in found and found[name].value != value:
            found[name].error = (
                f"adapter {name!r} is registered twice ({found[name].dist} and {dist}); "
                "uninstall one of them"
            )
            continue
        found.setdefault(name, Registered(name, value, dist, version))
    return dict(sorted(found.items()))


_loaded: dict[tuple[str, str], Any] = {}


def load(name: str, group: str = GROUP) -> Any:
    """Import and instantiate one registered plugin, or raise AdapterError saying why."""
    key = (group, name)
    if key in _loaded:
        return _loaded[key]
    entry = registered(group).get(name)
    if entry is None:
        raise AdapterError(
            f"no adapter named {name!r} is installed; install it with "
            f"`pip install \"continuity-cli[{name}]\"` (see `baker adapters`)"
        )
    if entry.error:
        raise AdapterError(entry.error)
    module_name, _, attr = entry.value.partition(":")
    try:
        import importlib

        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
        instance = obj() if isinstance(obj, type) else obj
    except Exception as e:  # any failure of third-party code is that adapter's alone
        raise AdapterError(f"adapter {name!r} ({entry.dist}) failed to load: {e}") from e
    _loaded[key] = instance
    return instance


def load_all(group: str = GROUP) -> tuple[dict[str, Any], dict[str, str]]:
    """Every loadable adapter, and an error line for each that is not."""
    good: dict[str, Any] = {}
    bad: dict[str, str] = {}
    for name in registered(group):
        try:
            good[name] = load(name, group)
        except AdapterError as e:
            bad[name] = str(e)
    return good, bad


def expand(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


MCP_NAME = "baker"
# Guarded like the hooks: where baker is not installed the server exits at once, quietly.
MCP_SERVER: dict[str, Any] = {
    "command": "sh", "args": ["-c", "command -v baker >/dev/null 2>&1 && exec baker mcp"]}


def is_our_mcp(entry: Any) -> bool:
    """Whether an MCP server entry runs `baker mcp` (ours, whatever an older version wrote)."""
    if not isinstance(entry, dict):
        return False
    argv = [entry.get("command"), *(entry.get("args") or [])]
    line = " ".join(a for a in argv if isinstance(a, str))
    return "baker mcp" in line


def hook_command(*argv: str) -> str:
    """A shell hook command running `baker ARGV…` that does nothing, successfully, where baker
    is not installed (a teammate without it sees no failed hook)."""
    return f"command -v baker >/dev/null 2>&1 && baker {' '.join(argv)} || true"
