"""`CopilotAdapter`: the Adapter protocol for GitHub Copilot CLI, wired from this package."""

from __future__ import annotations

import os

from continuity_copilot import discovery, hooks
from continuity_core.adapters import (
    Account,
    InstallOption,
    LaunchOptions,
    LaunchSpec,
    RetentionPolicy,
    UsageSource,
)
from continuity_core.adapters.kit import ModuleAdapter
from continuity_core.adapters.protocol import Checks, Discovery, HookHalf, Installer
from continuity_core.schemas.hook import HookEvent
from continuity_core.schemas.session import SessionRef

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path
    from typing import Any, ClassVar

    from continuity_core.transcript import Cursor

# The versions whose session folders the fixtures hold (tests/fixtures/copilot), oldest
# first: `doctor` warns about a newer CLI.
KNOWN: tuple[str, ...] = ("1.0.102",)


class CopilotAdapter(ModuleAdapter):
    """GitHub Copilot CLI: `session-state/<id>/` under COPILOT_HOME, hooks in settings.json."""

    name = "copilot"
    display_name = "Copilot CLI"
    known_versions: tuple[str, ...] = KNOWN
    skill_dirs: tuple[str, ...] = (".github/skills",)
    skill_command: str | None = None  # Copilot picks a skill by its description
    exit_input: tuple[str, ...] = ()  # `baker run` ends it with signals
    retention: RetentionPolicy | None = None
    usage_source: UsageSource | None = None
    install_options: tuple[InstallOption, ...] = ()
    # Where Copilot CLI keeps its sessions and which account and model server it uses: the
    # test suite clears these (tests/conftest.py).
    env_vars: tuple[str, ...] = (
        "COPILOT_HOME",
        "COPILOT_OFFLINE",
        "COPILOT_PROVIDER_BASE_URL",
        "COPILOT_PROVIDER_API_KEY",
        "COPILOT_MODEL",
        "COPILOT_GITHUB_TOKEN",
        "GH_TOKEN",
        "GITHUB_TOKEN",
    )
    found_by: ClassVar[Discovery] = discovery
    hooks_by: ClassVar[HookHalf] = hooks

    def read(self, ref: SessionRef, cursor: Cursor[Any] | None = None) -> Cursor[Any]:
        from continuity_copilot import parser  # loads with the first read, not with a hook

        return parser.read(ref, cursor)

    def session_for_hook(self, event: HookEvent, accounts: Sequence[Account]) -> SessionRef | None:
        if event.agent != self.name:
            return None
        hooks.flushed(event)  # a live agentStop: its turn may still be in Copilot's buffer
        path = event.transcript_path
        if path and os.path.isfile(path):
            home = discovery.home_of(path)
            if home is not None:
                owner = next(
                    (a for a in accounts if os.path.realpath(a.dir) == os.path.realpath(home)),
                    Account(agent=self.name, name=home, dir=home),
                )
                folder = os.path.dirname(path)
                return discovery.ref_for(os.path.basename(folder), folder, owner)
        if not event.session_id:
            return None
        env_home = os.environ.get("COPILOT_HOME")  # a hook runs with the session's own home
        if env_home:
            own = Account(agent=self.name, name="COPILOT_HOME", dir=os.path.abspath(env_home))
            accounts = [own, *accounts]
        return discovery.by_id(event.session_id, accounts)

    def launch(self, project: Path, brief: Path, options: LaunchOptions) -> LaunchSpec:
        from continuity_copilot import launch

        return launch.build(project, brief, options)

    def checks(self) -> Checks:
        from continuity_copilot import doctor

        return doctor

    def installer(self) -> Installer:
        from continuity_copilot import install

        return install
