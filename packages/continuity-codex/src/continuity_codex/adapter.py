"""`CodexAdapter`: the Adapter protocol for Codex CLI, wired from this package's modules."""

from __future__ import annotations

import os

import msgspec

from continuity_codex import discovery, hooks
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
if TYPE_CHECKING:  # the checkpoint path imports no typing
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any, ClassVar

    from continuity_core.transcript import Cursor

# The versions whose rollouts the fixtures hold (tests/fixtures), oldest first: `doctor` warns
# about a newer CLI. Kept here, not in `doctor`: the hooks import the adapter, never doctor.
KNOWN: tuple[str, ...] = ("0.171.0",)

# What `baker global sync` shows for Codex: `--chain` and `--trust` (`UserOptions.declared`).
CHAIN = InstallOption(
    name="chain", help="Keep an existing Codex notify program by calling it after baker."
)
TRUST = InstallOption(
    name="trust",
    help="Mark the Codex hooks baker installs as trusted "
    "(writes their hashes under [hooks.state]).",
)
INSTALL_OPTIONS = (CHAIN, TRUST)


class CodexAdapter(ModuleAdapter):
    """The Adapter for OpenAI's Codex CLI."""

    name = "codex"
    display_name = "Codex CLI"
    known_versions: tuple[str, ...] = KNOWN
    # formats/codex.md records only the user skill root (~/.codex/skills); `.agents/skills` is
    # the repository folder Codex's documentation names for project skills (not verified here).
    skill_dirs: tuple[str, ...] = (".agents/skills",)
    skill_command: str | None = "$continuity"
    exit_input: tuple[str, ...] = ()  # `baker run` ends it with signals
    retention: RetentionPolicy | None = None  # Codex keeps rollouts
    usage_source: UsageSource | None = None
    install_options: tuple[InstallOption, ...] = INSTALL_OPTIONS
    env_vars: tuple[str, ...] = ("CODEX_HOME", "OPENAI_API_KEY", "OPENAI_BASE_URL")
    # wired as kit.ModuleAdapter says; the recall archive also reads these keys of its own
    found_by: ClassVar[Discovery] = discovery
    hooks_by: ClassVar[HookHalf] = hooks
    archive_keys: ClassVar[ArchiveKeys] = ArchiveKeys(
        skip=frozenset(
            {
                "base_instructions",
                "user_instructions",
                "developer_instructions",
                "encrypted_content",
                "call_id",
            }
        )
    )

    # --- sessions ----------------------------------------------------------------------------

    def read(self, ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
        # the parser loads with the first read: a pickup reads one agent's session of three
        from continuity_codex import parser

        if ref.path.endswith(".zst"):
            from continuity_core import trust

            plain = discovery.plain_copy(ref.path, trust.home_path("cache", "codex"))
            if plain is None:
                raise OSError(f"cannot decompress {ref.path}: install zstandard or zstd")
            cursor = parser.read(msgspec.structs.replace(ref, path=plain), cursor)
            cursor.session.path = ref.path
        else:
            cursor = parser.read(ref, cursor)
        cursor.session.archived = discovery.is_archived(ref.path)
        return cursor

    # --- hooks -------------------------------------------------------------------------------

    def session_for_hook(self, event: HookEvent, accounts: Sequence[Account]) -> SessionRef | None:
        if event.agent != self.name:
            return None
        path = event.transcript_path
        ref = None
        if path and os.path.isfile(path):
            owner = next((a for a in accounts if path.startswith(a.dir.rstrip("/") + "/")), None)
            home = discovery.home_of(path)
            ref = discovery.ref_for(path, owner or Account(agent=self.name, name=home, dir=home))
        elif event.session_id:  # notify carries only the thread id; title threads have no rollout
            ref = discovery.by_thread(event.session_id, accounts)
        # A sub-agent's turn (its notify, its hooks) is a moment of the session that spawned it.
        for _ in range(discovery.FORK_DEPTH):
            parent = discovery.parent_of(ref.path) if ref is not None else None
            if parent is None:
                break
            ref = discovery.by_thread(parent, accounts)
        return ref

    # --- launch and checks -------------------------------------------------------------------

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        from continuity_codex import launch

        return launch.build(project, brief, options)

    def checks(self) -> Checks:
        from continuity_codex import doctor

        return doctor

    def installer(self) -> Installer:
        from continuity_codex import install

        return install
