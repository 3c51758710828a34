"""`GeminiAdapter`: the Adapter protocol for Gemini CLI, wired from this package's modules."""

from __future__ import annotations

import os

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
from continuity_core.project import BEGIN, END, ensure_block, remove_block
from continuity_core.schemas.config import GlobalConfig
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
SETTINGS = ".gemini/settings.json"  # the project's, below its root
POINTER = f"""{BEGIN}
## Continuity

Read AGENTS.md in this folder as well: it holds this project's shared agent instructions,
including how to keep the working note `memory/hot.md` current.
{END}
"""


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
    # accounts, discover and all_sessions are the discovery module's, parse_hook and
    # render_context the hooks module's; doctor and cli_version those of `checks()`
    # (kit.ModuleAdapter); the recall archive reads these keys of its own besides the common
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

    def install(self, project: Path, *, local: bool = False, dry_run: bool = False) -> list[Change]:
        from continuity_gemini import install

        if local:
            return [
                Change(
                    path=SETTINGS,
                    action="skipped",
                    detail="Gemini CLI has no personal project settings file; install "
                    "user-level hooks with `baker global sync --user-hooks` instead",
                )
            ]
        changes = [install.apply(project / SETTINGS, project, remove=False, dry_run=dry_run)]
        changes += _former_skill(project, dry_run=dry_run)
        if not self._reads_agents_md(project):
            changes.append(ensure_block(project / "GEMINI.md", POINTER, project, dry_run=dry_run))
        return changes

    def uninstall(self, project: Path, *, dry_run: bool = False) -> list[Change]:
        from continuity_gemini import install

        # the hooks and the `baker mcp` of `init --mcp` share the file: one edit takes both
        changes = install.remove_all(project / SETTINGS, project, dry_run=dry_run)
        changes += _former_skill(project, dry_run=dry_run)
        gemini_md = project / "GEMINI.md"
        try:
            ours = BEGIN in gemini_md.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            ours = False
        if ours:
            changes.append(remove_block(gemini_md, project, dry_run=dry_run))
        return changes

    def _reads_agents_md(self, project: Path) -> bool:
        from pathlib import Path

        from continuity_gemini import install

        homes = [Path(a.dir) / "settings.json" for a in discovery.accounts(GlobalConfig())]
        return install.reads_agents_md(project / SETTINGS, *homes[:1])

    def install_user(self, account: Account, options: UserOptions) -> list[Change]:
        from pathlib import Path

        from continuity_gemini import install

        path = Path(account.dir) / "settings.json"
        if options.uninstall:
            return install.remove_all(path, None, dry_run=options.dry_run)
        changes: list[Change] = []
        if options.hooks:
            changes.append(
                install.apply(
                    path,
                    None,
                    remove=False,
                    dry_run=options.dry_run,
                    note="user-level hooks run in every trusted folder",
                )
            )
        if options.mcp:
            changes.append(install.apply_mcp(path, None, remove=False, dry_run=options.dry_run))
        return changes

    def install_mcp(
        self, project: Path, *, remove: bool = False, dry_run: bool = False
    ) -> list[Change]:
        """`baker mcp` in the project's `.gemini/settings.json` `mcpServers`."""
        from continuity_gemini import install

        return [install.apply_mcp(project / SETTINGS, project, remove=remove, dry_run=dry_run)]

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        from continuity_gemini import launch

        return launch.launch(project, brief, options)

    def checks(self) -> Checks:
        from continuity_gemini import doctor

        return doctor


def _former_skill(project: Path, *, dry_run: bool) -> list[Change]:
    """0.1.0 put the skill in `.gemini/skills/` too, which Gemini reports as a conflict with the
    copy in `.agents/skills/`: take ours out of there (another `continuity` skill stays)."""
    from continuity_core import skill

    return [
        c
        for c in skill.uninstall(project, [FORMER_SKILL_DIR], dry_run=dry_run)
        if c.action != "unchanged"
    ]


FORMER_SKILL_DIR = ".gemini/skills"
