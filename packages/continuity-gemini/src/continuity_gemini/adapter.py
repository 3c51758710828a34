"""`GeminiAdapter`: the Adapter protocol for Gemini CLI, wired from this package's modules."""

from __future__ import annotations

import os

from continuity_core.adapters import (
    Account,
    InstallOption,
    LaunchOptions,
    LaunchSpec,
    RetentionPolicy,
    UsageSource,
)
from continuity_core.adapters.kit import ArchiveKeys, ModuleAdapter
from continuity_core.adapters.protocol import Checks, Discovery, HookHalf, Installer
from continuity_core.schemas.hook import HookEvent
from continuity_core.schemas.session import SessionRef
from continuity_gemini import discovery, hooks
from continuity_gemini.retention import Retention

TYPE_CHECKING = False
if TYPE_CHECKING:  # the Stop hook's checkpoint imports this module: no typing or pathlib
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any, ClassVar

    from continuity_core.transcript import Cursor

# The versions whose sessions the fixtures hold (tests/fixtures), oldest first: `doctor` warns
# about a newer CLI. Kept here, not in `doctor`: the hooks import the adapter, never doctor.
KNOWN: tuple[str, ...] = ("0.61.0",)


class GeminiAdapter(ModuleAdapter):
    """Gemini CLI (`gemini`), built on what 0.61.0 writes and sends."""

    name = "gemini"
    display_name = "Gemini CLI"
    known_versions: tuple[str, ...] = KNOWN
    # Workspace skills: Gemini CLI reads `.gemini/skills/` and its alias `.agents/skills/`, and
    # reports a "Skill conflict" when both hold one name. `.agents/skills/` is Codex's folder
    # too, so one copy serves both.
    skill_dirs: tuple[str, ...] = (".agents/skills",)
    skill_command: str | None = None  # the skill is picked by its description, not a command
    exit_input: tuple[str, ...] = ()
    retention: RetentionPolicy | None = Retention()
    usage_source: UsageSource | None = None
    install_options: tuple[InstallOption, ...] = ()
    env_vars: tuple[str, ...] = (
        discovery.HOME_ENV,
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GOOGLE_GEMINI_BASE_URL",
        "GEMINI_CLI_TRUST_WORKSPACE",
        "GEMINI_CLI_TRUSTED_FOLDERS_PATH",
    )
    # wired as kit.ModuleAdapter says; the recall archive also reads these keys of its own
    found_by: ClassVar[Discovery] = discovery
    hooks_by: ClassVar[HookHalf] = hooks
    archive_keys: ClassVar[ArchiveKeys] = ArchiveKeys(skip=frozenset({"projectHash"}))

    def read(self, ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
        # the parser loads with the first read: a pickup reads one agent's session of three
        from continuity_gemini import parser

        cursor = parser.read(ref, cursor)
        parser.compaction_triggers(cursor.session, ref)
        return cursor

    def session_for_hook(self, event: HookEvent, accounts: Sequence[Account]) -> SessionRef | None:
        """The file holding the event's session, found by id: `transcript_path` can be the
        empty stub `--resume` writes first. Its folder is searched first (when it is an
        account's `tmp/<folder>/chats`): a checkpoint finds the session there and lists no other."""
        if event.session_id:
            ref = discovery.find_session(
                event.session_id, accounts, cwd=event.cwd, hint=event.transcript_path
            )
            if ref is not None:
                return ref
        if not event.transcript_path or not os.path.isfile(event.transcript_path):
            return None
        from pathlib import Path  # only here: no account holds the file the hook names

        path = Path(event.transcript_path)
        st = path.stat()
        return SessionRef(
            agent=self.name,
            account="",
            session_id=event.session_id or path.stem,
            path=str(path),
            mtime=st.st_mtime,
            cwd=event.cwd,
            size=st.st_size,
        )

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        from continuity_gemini import launch

        return launch.launch(project, brief, options)

    def checks(self) -> Checks:
        from continuity_gemini import doctor

        return doctor

    def installer(self) -> Installer:
        from continuity_gemini import install

        return install
