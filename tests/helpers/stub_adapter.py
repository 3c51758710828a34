"""An adapter that has every member of `Adapter` and does nothing: a base for test doubles.

Core takes the whole `Adapter` protocol, so a double that defined only the methods one test
reaches would not type-check. A double subclasses `StubAdapter` and overrides what its test
needs. The rest is inert: no accounts, sessions, changes or findings; what must produce
something (`read`, `launch`) raises, so a test that reaches it by mistake fails loudly.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from continuity_core.adapters import (
    Account,
    Change,
    Finding,
    InstallOption,
    LaunchOptions,
    LaunchSpec,
    RetentionPolicy,
    SessionRecords,
    UsageSource,
    UserOptions,
)
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.hook import HookEvent
from continuity_core.schemas.session import Session, SessionRef
from continuity_core.transcript import Cursor, NoState


class StubAdapter:
    name = "stub"
    display_name = "Stub Agent"
    known_versions: tuple[str, ...] = ()
    skill_dirs: tuple[str, ...] = ()
    skill_command: str | None = None
    exit_input: tuple[str, ...] = ()
    retention: RetentionPolicy | None = None
    usage_source: UsageSource | None = None
    session_records: SessionRecords | None = None  # each session is a JSONL file
    install_options: tuple[InstallOption, ...] = ()
    env_vars: tuple[str, ...] = ()

    def accounts(self, config: GlobalConfig) -> list[Account]:
        return []

    def discover(
        self, project: str | os.PathLike[str], accounts: Sequence[Account]
    ) -> Iterator[SessionRef]:
        return iter(())

    def all_sessions(self, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        return iter(())

    def read(self, ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
        raise NotImplementedError(f"{type(self).__name__} reads no session")

    def archive_text(self, record: object) -> list[str]:
        from continuity_core.archive.extraction import strings

        return strings(record)  # the archive's common keys

    def parse_hook(self, payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
        raise ValueError(f"{type(self).__name__} has no hooks")

    def session_for_hook(self, event: HookEvent, accounts: Sequence[Account]) -> SessionRef | None:
        return None

    def render_context(self, event: HookEvent, text: str) -> str | None:
        return None

    def install(self, project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
        return []

    def uninstall(self, project: Path, *, dry_run: bool = False) -> list[Change]:
        return []

    def install_user(self, account: Account, options: UserOptions) -> list[Change]:
        return []

    def install_mcp(
        self, project: Path, *, remove: bool = False, dry_run: bool = False
    ) -> list[Change]:
        return []

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        raise NotImplementedError(f"{type(self).__name__} launches nothing")

    def doctor(self, project: Path, accounts: Sequence[Account]) -> list[Finding]:
        return []

    def cli_version(self) -> str | None:
        return None


class SessionsAdapter(StubAdapter):
    """An agent named "fake" whose sessions are `sessions`, in memory (newest first); its hooks'
    context comes back as Claude Code's SessionStart JSON. `delay` slows each read."""

    name = "fake"

    def __init__(self, sessions: list[Session], delay: float = 0.0) -> None:
        self.sessions = sessions
        self.delay = delay

    def discover(
        self, project: str | os.PathLike[str], accounts: Sequence[Account]
    ) -> Iterator[SessionRef]:
        for i, s in enumerate(self.sessions):
            yield SessionRef(
                agent="fake",
                account="~/.fake",
                session_id=s.session_id,
                path=f"/nonexistent/{s.session_id}.jsonl",
                mtime=2000.0 - i,
                cwd=s.cwd,
            )

    def read(self, ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
        time.sleep(self.delay)
        session = next(s for s in self.sessions if s.session_id == ref.session_id)
        return Cursor(path=ref.path, session=session, state=NoState())

    def render_context(self, event: HookEvent, text: str) -> str | None:
        return json.dumps(
            {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
        )
