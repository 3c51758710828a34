"""`OpenCodeAdapter`: the Adapter protocol for OpenCode, wired from this package's modules."""

from __future__ import annotations

from continuity_core.adapters import (
    Account,
    InstallOption,
    LaunchOptions,
    LaunchSpec,
    RetentionPolicy,
    SessionRecords,
    UsageSource,
)
from continuity_core.adapters.kit import ModuleAdapter
from continuity_core.adapters.protocol import Checks, Discovery, HookHalf, Installer
from continuity_core.schemas.hook import HookEvent
from continuity_core.schemas.session import SessionRef
from continuity_opencode import discovery, hooks
from continuity_opencode.recall import Rows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any, ClassVar

    from continuity_core.transcript import Cursor

# The versions whose databases the fixtures hold (tests/fixtures/opencode), oldest first.
KNOWN: tuple[str, ...] = ("1.18.33",)


class OpenCodeAdapter(ModuleAdapter):
    """The Adapter for OpenCode (`opencode-ai`)."""

    name = "opencode"
    display_name = "OpenCode"
    known_versions: tuple[str, ...] = KNOWN
    # OpenCode 1.18.33 loads `.agents/skills/**/SKILL.md` and `.claude/skills/**/SKILL.md`
    # besides its own `.opencode/skill(s)` (its bundle): the copy Codex and Gemini CLI share
    # is the one it reads, so a second would show the skill twice.
    skill_dirs: tuple[str, ...] = (".agents/skills",)
    skill_command: str | None = None
    exit_input: tuple[str, ...] = ()  # `baker run` ends it with signals
    retention: RetentionPolicy | None = None  # OpenCode keeps sessions until deleted
    usage_source: UsageSource | None = None
    # a session is rows of a database, not a file: the recall archive reads them through this
    session_records: SessionRecords | None = Rows()
    install_options: tuple[InstallOption, ...] = ()
    # Where OpenCode keeps its sessions and config: the test suite clears these
    # (tests/conftest.py; the XDG folders are core's).
    env_vars: tuple[str, ...] = (
        "OPENCODE_DB",
        "OPENCODE_CONFIG",
        "OPENCODE_CONFIG_DIR",
        "OPENCODE_CONFIG_CONTENT",
    )
    found_by: ClassVar[Discovery] = discovery
    hooks_by: ClassVar[HookHalf] = hooks

    # --- sessions ----------------------------------------------------------------------------

    def read(self, ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
        from continuity_opencode import parser

        return parser.read(ref, cursor)

    # --- hooks -------------------------------------------------------------------------------

    def session_for_hook(self, event: HookEvent, accounts: Sequence[Account]) -> SessionRef | None:
        if event.agent != self.name or not event.session_id:
            return None
        return discovery.by_id(event.session_id, accounts)

    # --- launch and checks -------------------------------------------------------------------

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        from continuity_opencode import launch

        return launch.build(project, brief, options)

    def checks(self) -> Checks:
        from continuity_opencode import doctor

        return doctor

    def installer(self) -> Installer:
        from continuity_opencode import install

        return install
