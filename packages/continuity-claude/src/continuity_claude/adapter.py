"""`ClaudeAdapter`: the Adapter protocol for Claude Code, wired from this package's modules."""

from __future__ import annotations

from continuity_claude import discovery, hooks
from continuity_claude.retention import Retention
from continuity_claude.statusline import Statusline
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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any, ClassVar

    from continuity_core.transcript import Cursor

# The versions whose transcripts the fixtures hold (tests/fixtures), oldest first: `doctor`
# warns about a newer CLI; `python3 scripts/dev.py canary` tells when a newer one is out.
KNOWN: tuple[str, ...] = ("2.1.197", "2.1.332")


class ClaudeAdapter(ModuleAdapter):
    """Claude Code: transcripts under `<config>/projects/`, hooks in `.claude/settings.json`."""

    name = "claude"
    display_name = "Claude Code"
    known_versions: tuple[str, ...] = KNOWN
    skill_dirs: tuple[str, ...] = (".claude/skills",)
    # What `baker run` types to end the agent cleanly before switching (SessionEnd hook runs;
    # status 0). Optional for adapters: without it the supervisor sends SIGHUP, then SIGTERM.
    exit_input: tuple[str, ...] = ("/exit", "\r")
    skill_command: str | None = "/continuity"
    retention: RetentionPolicy | None = Retention()
    usage_source: UsageSource | None = Statusline()
    install_options: tuple[InstallOption, ...] = ()
    env_vars: tuple[str, ...] = (
        discovery.CONFIG_ENV,
        discovery.DIR_NAME_ENV,
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
    )
    # wired as kit.ModuleAdapter says; the recall archive also reads these keys of its own
    found_by: ClassVar[Discovery] = discovery
    hooks_by: ClassVar[HookHalf] = hooks
    archive_keys: ClassVar[ArchiveKeys] = ArchiveKeys(
        text=frozenset({"lastPrompt", "aiTitle"}),
        skip=frozenset(
            {"parentUuid", "logicalParentUuid", "promptId", "leafUuid", "gitBranch", "tool_use_id"}
        ),
    )

    def read(self, ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
        """Fold what was appended since `cursor`; a huge file read cold starts near its end."""
        # the parser loads with the first read: a pickup reads one agent's session of three
        from continuity_claude import parser
        from continuity_core.transcript import read_incremental

        return read_incremental(
            ref,
            cursor,
            parser.fold,
            compaction_marker=parser.COMPACTION_MARKER,
            request_markers=parser.REQUEST_MARKERS,
            finish=parser.finish,
            state=parser.ClaudeState,
        )

    def session_for_hook(self, event: HookEvent, accounts: Sequence[Account]) -> SessionRef | None:
        return hooks.session_for(event, accounts)

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        from continuity_claude import launch

        return launch.launch(project, brief, options)

    def checks(self) -> Checks:
        from continuity_claude import doctor

        return doctor

    def installer(self) -> Installer:
        from continuity_claude import install

        return install
