"""The Adapter protocol: every ability an agent's adapter gives core and the CLI, typed.

Required abilities are methods of `Adapter`. Optional ones are explicit attributes that are
`None` (or empty) when an agent lacks them — `retention`, `usage_source`, `skill_command`,
`exit_input` — each typed by a small Protocol here, so core never probes an adapter with
`getattr`. Vendor formats stay inside the adapter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

from msgspec import Struct, field

from continuity_core.schemas.session import SessionRef, Usage

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from os import PathLike
    from pathlib import Path

    from continuity_core.brief import Brief
    from continuity_core.schemas.config import GlobalConfig
    from continuity_core.schemas.hook import HookEvent
    from continuity_core.transcript import Cursor


class Account(Struct, kw_only=True, frozen=True):
    """One config dir of one agent: an account."""

    agent: str
    name: str  # the named account from config.toml, or the dir as the user wrote it
    dir: str  # absolute


class Change(Struct, kw_only=True, omit_defaults=True):
    """What an install, sync or uninstall did (or would do) to one file."""

    path: str
    action: Literal["created", "updated", "removed", "unchanged", "skipped", "failed"]
    detail: str = ""


class Finding(Struct, kw_only=True, omit_defaults=True):
    """One `baker doctor` line."""

    level: Literal["ok", "info", "warn", "error"]
    message: str
    fix: str = ""


class LaunchSpec(Struct, kw_only=True, omit_defaults=True):
    """How `baker resume` starts the agent: argv, extra environment, working folder."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = ""
    notes: list[str] = field(default_factory=list)


class InstallOption(Struct, kw_only=True, frozen=True):
    """A user-level install option an adapter declares (`Adapter.install_options`).

    `baker global sync` shows it as `--NAME` (and `--AGENT-NAME`, the one name that stays
    unambiguous when two adapters declare the same option) and hands its value back to this
    adapter alone, in `UserOptions.declared[NAME]`; core and the CLI never read it.
    """

    name: str  # lower-case words joined by "-": "chain" is `--chain`
    help: str  # one line for `--help`
    kind: Literal["flag"] = "flag"  # a flag: its value is True when given, else False


class UserOptions(Struct, kw_only=True, frozen=True):
    # User-level hooks: True installs them, False leaves them out, None is the adapter's own
    # default (an agent that reads hooks only from user settings installs them; one that reads
    # them per project does not). `baker global sync` passes True with --user-hooks, else None.
    hooks: bool | None = True
    dry_run: bool = False
    uninstall: bool = False  # removes every piece of ours, MCP registration included
    mcp: bool = False  # register `baker mcp` in the account's user settings
    # The values of this adapter's own `install_options`, by name (False when not given).
    declared: dict[str, bool] = field(default_factory=dict)


class LaunchOptions(Struct, kw_only=True, frozen=True):
    account: Account | None = None
    native: SessionRef | None = None  # continue this very session (same vendor)
    # What the launch starts the agent with (None: an empty brief, as for a bare program).
    brief: Brief | None = None
    dry_run: bool = False  # no side effects: the notes say what would be written
    force: bool = False  # replace what the launch would otherwise refuse to overwrite


# --- optional abilities ----------------------------------------------------------------------


class RetentionPolicy(Protocol):
    """How long an agent keeps an account's sessions before deleting them."""

    def retention_days(self, account: Account) -> tuple[float | None, str]:
        """(days, the file the policy was read from); days None: kept forever."""
        ...


class Measurement(Struct, kw_only=True, omit_defaults=True):
    """What a usage feed said: the usage, or why there is none, and the session it is about."""

    usage: Usage | None = None
    session_id: str | None = None
    transcript: str | None = None  # the transcript to read instead when `usage` is None
    reason: str | None = None


class UsageSource(Protocol):
    """A live context-usage feed the agent pipes to a program (a status line)."""

    label: str  # how reports name the source ("<agent> statusline")

    def measure(self, payload: bytes) -> Measurement:
        """Usage from one payload of the feed."""
        ...


class SessionRecords(Protocol):
    """Sessions kept as rows of a database, not as a JSONL file of their own: `ref.path` names
    no file, so the recall archive reads a session's records through the adapter instead."""

    def records(self, ref: SessionRef) -> Iterator[tuple[str | None, object]]:
        """The session's decoded records (JSON-like values), oldest first, each with its time
        (ISO 8601) or None; the archive takes their text as it does a JSONL line's."""
        ...


class Discovery(Protocol):
    """An adapter's accounts and where their sessions are (its package's discovery module)."""

    def accounts(self, config: GlobalConfig) -> list[Account]:
        """Every config dir of this agent: env vars, defaults and `[transcripts]`."""
        ...

    def discover(
        self, project: str | PathLike[str], accounts: Sequence[Account]
    ) -> Iterator[SessionRef]:
        """Sessions of `project` (its root or below) across `accounts`, newest first. The hooks
        pass `project` as a `str`, commands as a `Path`."""
        ...

    def all_sessions(self, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        """Every session of every project in `accounts`, any order: names, stat, index and
        first lines only. What `discover` leaves out (subagents, stubs) stays out."""
        ...


class HookHalf(Protocol):
    """An adapter's hook payloads read and its output written (its package's hook module)."""

    def parse_hook(self, payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
        """Parse a hook's stdin (or notify's argv); raise ValueError when it is not ours."""
        ...

    def render_context(self, event: HookEvent, text: str) -> str | None:
        """The stdout that puts `text` before the model for `event`, or None for no output."""
        ...


class Installer(Protocol):
    """An adapter's hooks and `baker mcp` put in and taken out (its package's install module)."""

    def install(self, project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
        """Project-level hooks and config (`baker init` / `baker sync`)."""
        ...

    def uninstall(self, project: Path, *, dry_run: bool = False) -> list[Change]:
        """Remove exactly what `install` added."""
        ...

    def install_user(self, account: Account, options: UserOptions) -> list[Change]:
        """User-level pieces for one account (`baker global sync`)."""
        ...

    def install_mcp(
        self, project: Path, *, remove: bool = False, dry_run: bool = False
    ) -> list[Change]:
        """Register `baker mcp` for the project (`baker init --mcp`), or take it out; an agent
        that reads MCP servers only from user settings says so with a skipped change."""
        ...


class Checks(Protocol):
    """An adapter's `baker doctor` lines and its CLI's version (its package's doctor module)."""

    def doctor(self, project: Path, accounts: Sequence[Account]) -> list[Finding]:
        """Checks of this agent's hooks, trust, versions and retention."""
        ...

    def cli_version(self) -> str | None:
        """The installed CLI's version, or None when it is not on PATH."""
        ...


class Adapter(Discovery, HookHalf, Installer, Checks, Protocol):
    """What an agent's adapter gives core and the CLI. Vendor formats stay inside it."""

    name: str  # "claude"
    display_name: str  # "Claude Code"
    known_versions: tuple[str, ...]  # CLI versions whose formats this adapter was built on
    skill_dirs: tuple[str, ...]  # project-relative folders this agent loads skills from
    # How a user invokes the continuity skill in this agent ("/continuity"), or None.
    skill_command: str | None
    # What `baker run` types to end the agent cleanly before switching; () sends signals.
    exit_input: tuple[str, ...]
    retention: RetentionPolicy | None  # None: the agent keeps sessions forever
    usage_source: UsageSource | None  # None: usage comes from transcripts only
    # None: each session is a JSONL file of its own (`SessionRef.path`), which the archive reads
    session_records: SessionRecords | None
    # User-level install options `baker global sync` shows for this agent; () for none.
    install_options: tuple[InstallOption, ...]
    # The environment variables that point this agent (or its CLI) at its files, account or
    # model server: test suites clear them, so no test reads a real home (tests/conftest.py).
    env_vars: tuple[str, ...]

    def read(self, ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
        """Read (or continue reading) a session into `cursor.session`."""
        ...

    def archive_text(self, record: object) -> list[str]:
        """The strings of one decoded transcript record that the recall archive indexes
        (`kit.ModuleAdapter` gives the archive's common keys plus the adapter's own)."""
        ...

    def session_for_hook(self, event: HookEvent, accounts: Sequence[Account]) -> SessionRef | None:
        """The session a hook event belongs to, or None (e.g. a notify for a title thread)."""
        ...

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        """How to start this agent interactively with `options.brief`, saved in `brief`, as its
        first turn (`kit.brief_prompt`)."""
        ...


# Every member an adapter must have (a plugin that lacks one fails to load, naming it): the
# Protocol's attributes, then its methods and those of the Protocols it joins (by name).
MEMBERS: tuple[str, ...] = (
    *Adapter.__annotations__,
    *(n for n in dir(Adapter) if not n.startswith("_")),
)


def missing(obj: object) -> list[str]:
    """The members of `Adapter` that `obj` lacks (empty: it plugs in)."""
    return [n for n in MEMBERS if not hasattr(obj, n)]
