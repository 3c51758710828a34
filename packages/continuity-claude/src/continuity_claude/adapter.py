"""`ClaudeAdapter`: the Adapter protocol for Claude Code, wired from this package's modules."""

from __future__ import annotations

from continuity_claude import discovery, hooks
from continuity_claude.retention import Retention
from continuity_claude.statusline import Statusline
from continuity_core.adapters import (
    Account,
    Change,
    InstallOption,
    LaunchOptions,
    LaunchSpec,
    RetentionPolicy,
    UsageSource,
    UserOptions,
)
from continuity_core.adapters.kit import ArchiveKeys, Checks, Discovery, HookHalf, ModuleAdapter
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
    # accounts, discover and all_sessions are the discovery module's, parse_hook and
    # render_context the hooks module's; doctor and cli_version those of `checks()`
    # (kit.ModuleAdapter); the recall archive reads these keys of its own besides the common
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

    def install(self, project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
        from continuity_claude import install

        return install.install(project, local=local, dry_run=dry_run)

    def uninstall(self, project: Path, *, dry_run: bool = False) -> list[Change]:
        from continuity_claude import install

        return install.uninstall(project, dry_run=dry_run)

    def install_user(self, account: Account, options: UserOptions) -> list[Change]:
        """User-level hooks in `<account>/settings.json`, only when asked for (`--user-hooks`)."""
        from pathlib import Path  # not on a hook's path

        from continuity_claude import install

        path = Path(account.dir) / "settings.json"
        changes: list[Change] = []
        if options.hooks or options.uninstall:
            changes.append(
                install.sync_file(path, None, want=not options.uninstall, dry_run=options.dry_run)
            )
        if options.mcp or options.uninstall:
            mcp = install.sync_mcp(
                install.user_state(account.dir),
                None,
                want=not options.uninstall,
                dry_run=options.dry_run,
            )
            if options.mcp or mcp.action != "unchanged":
                changes.append(mcp)
        return changes or [
            Change(path=str(path), action="skipped", detail="user-level hooks not asked for")
        ]

    def install_mcp(
        self, project: Path, *, remove: bool = False, dry_run: bool = False
    ) -> list[Change]:
        """`baker mcp` in the project's `.mcp.json` (Claude Code's project scope)."""
        from continuity_claude import install

        return [
            install.sync_mcp(project / install.MCP_JSON, project, want=not remove, dry_run=dry_run)
        ]

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        from continuity_claude import launch

        return launch.launch(project, brief, options)

    def checks(self) -> Checks:
        from continuity_claude import doctor

        return doctor
