"""What adapter authors share: account folders, the CLI version and its check, hook commands,
MCP registration, ids and timestamps.

Everything here is vendor-neutral; an adapter passes in its own program name and versions.
"""

from __future__ import annotations

import functools
import os
import re
from typing import TYPE_CHECKING, ClassVar, Protocol

from msgspec import Struct

from continuity_core.adapters.protocol import Change, Finding
from continuity_core.stamps import iso, new_id, now_iso, stamp

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from os import PathLike
    from pathlib import Path
    from typing import Any, Literal

    from continuity_core.adapters.protocol import Account
    from continuity_core.schemas.config import GlobalConfig
    from continuity_core.schemas.hook import HookEvent
    from continuity_core.schemas.session import SessionRef

__all__ = [
    "CLI_VERSION_TIMEOUT_S",
    "INLINE_PROMPT_MAX",
    "MCP_NAME",
    "MCP_SERVER",
    "ArchiveKeys",
    "Checks",
    "Discovery",
    "HookHalf",
    "ModuleAdapter",
    "cli_version",
    "edit_settings_file",
    "expand",
    "hook_command",
    "is_our_mcp",
    "iso",
    "json_object",
    "new_id",
    "now_iso",
    "plain_id",
    "stamp",
    "version_finding",
    "version_key",
    "version_state",
]

# A first prompt larger than this travels through a file the agent is told to read: argv and
# environment together must stay well under Linux's ARG_MAX per string (128 KiB), and far
# under Windows' 32 KiB command line.
INLINE_PROMPT_MAX = 24_000
# `<cli> --version` of every adapter gets this long (Node CLIs can take seconds to start cold).
CLI_VERSION_TIMEOUT_S = 15.0
_VERSION = re.compile(r"\d+(?:\.\d+)+\S*")
_NUMBER = re.compile(r"\d+")
_PLAIN_ID = re.compile(r"[0-9A-Za-z-]{8,64}")


def expand(path: str) -> str:
    """An account folder as the user wrote it (`~/x`), absolute."""
    return os.path.abspath(os.path.expanduser(path))


def cli_version(
    program: str, *, env: Mapping[str, str] | None = None, timeout_s: float = CLI_VERSION_TIMEOUT_S
) -> str | None:
    """`<program> --version`'s first version number ("2.1.197"), or None when the program is
    not on PATH, fails or prints none within `timeout_s`."""
    import shutil
    import subprocess

    exe = shutil.which(program)
    if exe is None:
        return None
    try:
        out = subprocess.run(
            [exe, "--version"],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
            env={**os.environ, **env} if env else None,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = _VERSION.search(out)
    return m.group(0) if m else None


def plain_id(text: str) -> bool:
    """8 to 64 ASCII letters, digits and dashes: a session id as the
    agents make them (a UUID), and all a file name or lookup built from one may hold."""
    return _PLAIN_ID.fullmatch(text) is not None


def version_key(version: str) -> tuple[int, ...]:
    """ "2.1.197-beta" -> (2, 1, 197): major, minor, patch compared as numbers."""
    return tuple(int(p) for p in _NUMBER.findall(version)[:3])


def version_state(version: str, known: Sequence[str]) -> Literal["known", "newer", "older"]:
    """Whether `version` is one the adapter was built on, newer than all, or otherwise older."""
    if version in known:
        return "known"
    return "newer" if all(version_key(version) > version_key(k) for k in known) else "older"


def version_finding(
    display_name: str, version: str | None, known: Sequence[str], *, program: str, fix: str
) -> Finding:
    """The `baker doctor` line for the installed CLI's version: one rule for every adapter."""
    if version is None:
        return Finding(level="info", message=f"`{program}` is not on PATH")
    state = version_state(version, known)
    if state == "known":
        return Finding(level="ok", message=f"{display_name} {version}")
    if state == "newer":
        return Finding(
            level="warn",
            message=(
                f"{display_name} {version} is newer than the formats this adapter knows "
                f"({', '.join(known)}); transcripts may read incompletely"
            ),
            fix=fix,
        )
    return Finding(
        level="info",
        message=(
            f"{display_name} {version} is older than {known[-1]}, the version this adapter was "
            "built on"
        ),
    )


def json_object(path: Path) -> dict[str, Any]:
    """The JSON object in a settings file; {} when it is missing, unreadable or not an object
    (an adapter reading the agent's settings never fails on them)."""
    import json

    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def hook_command(*argv: str) -> str:
    """A shell hook command running `baker ARGV…` that does nothing, successfully, where baker
    is not installed (a teammate without it sees no failed hook)."""
    return f"command -v baker >/dev/null 2>&1 && baker {' '.join(argv)} || true"


def edit_settings_file(
    path: Path,
    root: Path | None,
    edit: Callable[[str | None], str | None],
    *,
    adding: bool,
    dry_run: bool,
    note: str = "",
    prune: bool = False,
    refused: Literal["failed", "skipped"] = "failed",
) -> Change:
    """Put baker's hooks in (`adding`) or take them out of an agent's JSON settings file.

    `edit(text)` (None: no file) returns the new text, None for no change, or raises ValueError
    for a file baker must not rewrite (reported as `refused`, the file untouched). `root` is the
    project for a project-level file (a link out of it is refused), None for a user-level one
    (written through a link to its target): see `continuity_core.agentfiles`. A file left as
    `{}` by a removal is deleted when baker created it (its folder too with `prune`, when
    empty), restored when baker found it empty, kept otherwise. `note` goes with an addition.

    Several removals from one file go in one `edit`: the file's fate is judged on the text
    this call ends with, and a dry run writes nothing a second call could read, so two calls
    would judge the second on the file as it was and say "updated" where the real run
    deletes it.
    """
    import json

    from continuity_core import agentfiles
    from continuity_core.fs import atomic_write

    shown = (
        str(path.relative_to(root)) if root is not None and path.is_relative_to(root) else str(path)
    )
    try:
        target = agentfiles.resolve(path, root)
    except agentfiles.Refused as e:
        return Change(path=shown, action="failed", detail=str(e))
    try:
        old: str | None = target.path.read_bytes().decode()  # no newline translation
    except FileNotFoundError:
        old = None
    except UnicodeDecodeError as e:
        return Change(path=shown, action=refused, detail=f"{path} is not UTF-8: {e}")
    except OSError as e:
        return Change(path=shown, action="failed", detail=e.strerror or str(e))
    try:
        new = edit(old)
    except ValueError as e:
        return Change(path=shown, action=refused, detail=str(e))
    if new is None:
        return Change(path=shown, action="unchanged")
    try:
        agentfiles.check_writable(target.path)
    except agentfiles.Refused as e:
        return Change(path=shown, action="failed", detail=str(e))
    said, gone = "", False
    if not adding and json.loads(new) == {}:
        # Nothing but our hooks was in it: no file if baker made it, else as baker found it.
        kept, said = agentfiles.restore_empty(target.path, new, dry_run=dry_run)
        new, gone = ("", True) if kept is None else (kept, False)
    detail = "; ".join(d for d in (note if adding else said, target.via) if d)
    if gone:
        if not dry_run:
            try:
                target.path.unlink()
                if prune and not any(target.path.parent.iterdir()):
                    target.path.parent.rmdir()
            except OSError as e:
                return Change(path=shown, action="failed", detail=e.strerror or str(e))
        return Change(path=shown, action="removed", detail=detail)
    if not dry_run:
        try:
            if adding:
                agentfiles.remember_before(target.path, old)
            target.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(target.path, new, mode=0o644)
        except OSError as e:
            return Change(path=shown, action="failed", detail=e.strerror or str(e))
    return Change(path=shown, action="created" if old is None else "updated", detail=detail)


MCP_NAME = "baker"
# Guarded like the hooks: where baker is not installed the server exits at once, quietly.
MCP_SERVER: dict[str, Any] = {
    "command": "sh",
    "args": ["-c", "command -v baker >/dev/null 2>&1 && exec baker mcp"],
}


def is_our_mcp(entry: object) -> bool:
    """Whether an MCP server entry runs `baker mcp` (ours, whatever an older version wrote)."""
    if not isinstance(entry, dict):
        return False
    argv = [entry.get("command"), *(entry.get("args") or [])]
    line = " ".join(a for a in argv if isinstance(a, str))
    return "baker mcp" in line


class Discovery(Protocol):
    """An adapter package's discovery module: its accounts and where their sessions are."""

    def accounts(self, config: GlobalConfig) -> list[Account]: ...

    def discover(
        self, project: str | PathLike[str], accounts: Sequence[Account]
    ) -> Iterator[SessionRef]: ...

    def all_sessions(self, accounts: Sequence[Account]) -> Iterator[SessionRef]: ...


class Checks(Protocol):
    """An adapter package's doctor module: its `baker doctor` lines and the CLI's version."""

    def doctor(self, project: Path, accounts: Sequence[Account]) -> list[Finding]: ...

    def cli_version(self) -> str | None: ...


class HookHalf(Protocol):
    """An adapter package's hook module: its payloads read and its output written."""

    def parse_hook(self, payload: bytes, argv: Sequence[str] = ...) -> HookEvent: ...

    def render_context(self, event: HookEvent, text: str) -> str | None: ...


class ArchiveKeys(Struct, frozen=True):
    """An agent's own JSON keys beside the archive's common ones: string leaves under `text`
    are indexed, subtrees under `skip` never are (ids, injected instructions)."""

    text: frozenset[str] = frozenset()
    skip: frozenset[str] = frozenset()


class ModuleAdapter:
    """A base for an adapter class wired from its package's modules (mypy checks each module
    against its Protocol): `accounts`, `discover` and `all_sessions` are `found_by`'s (the
    discovery module, which the hooks need anyway); `parse_hook` and `render_context` are
    `hooks_by`'s; `doctor` and `cli_version` are those of the module `checks()` imports on
    first use (hooks never load the doctor); `archive_text` reads the archive's common keys
    plus `archive_keys`:

        class FakeAdapter(ModuleAdapter):
            found_by: ClassVar[Discovery] = discovery
            hooks_by: ClassVar[HookHalf] = hooks

            def checks(self) -> Checks:
                from fake_agent import doctor

                return doctor
    """

    found_by: ClassVar[Discovery]
    hooks_by: ClassVar[HookHalf]
    archive_keys: ClassVar[ArchiveKeys] = ArchiveKeys()

    def checks(self) -> Checks:
        raise NotImplementedError(f"{type(self).__name__} names no doctor module")

    def accounts(self, config: GlobalConfig) -> list[Account]:
        return self.found_by.accounts(config)

    def discover(
        self, project: str | PathLike[str], accounts: Sequence[Account]
    ) -> Iterator[SessionRef]:
        return self.found_by.discover(project, accounts)

    def all_sessions(self, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        return self.found_by.all_sessions(accounts)

    def doctor(self, project: Path, accounts: Sequence[Account]) -> list[Finding]:
        return self.checks().doctor(project, accounts)

    def cli_version(self) -> str | None:
        return self.checks().cli_version()

    def parse_hook(self, payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
        return self.hooks_by.parse_hook(payload, argv)

    def render_context(self, event: HookEvent, text: str) -> str | None:
        return self.hooks_by.render_context(event, text)

    def archive_text(self, record: object) -> list[str]:
        """The strings of one decoded transcript record that the recall archive indexes."""
        from continuity_core.archive.extraction import strings

        return strings(record, *self._archive_keys)

    @functools.cached_property
    def _archive_keys(self) -> tuple[frozenset[str], frozenset[str]]:
        from continuity_core.archive.extraction import SKIP_KEYS, TEXT_KEYS

        keys = self.archive_keys
        return TEXT_KEYS | keys.text, SKIP_KEYS | keys.skip
