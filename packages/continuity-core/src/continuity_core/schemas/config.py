"""`~/.baker/config.toml`: user-edited, so unknown keys are errors that name the key."""

# No `from __future__ import annotations` here: msgspec would compile and eval every string
# annotation when a hook builds its decoders (docs/decisions.md, "Hook start-up budget").

from typing import Annotated

import msgspec

NonNegative = Annotated[int, msgspec.Meta(ge=0)]


class AccountConfig(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    """A named account: one agent and its config dir, usable with `--account NAME`."""

    agent: str
    dir: str

    def __post_init__(self) -> None:
        # a relative folder would be read from whatever folder baker (or a hook) runs in
        if not self.dir.startswith(("~", "/")):
            raise ValueError(f"dir = {self.dir!r} must be an absolute path or start with ~")


class UsageConfig(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    """Thresholds: "50%" of the window or a token count such as "100000"."""

    prepare: str = "50%"
    refresh: str = "62%"
    rotate: str = "75%"


class BriefConfig(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    budget_tokens: Annotated[int, msgspec.Meta(ge=200)] = 8000  # as `--budget` takes it


class MachineConfig(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    """This machine's name in `refs/baker/<name>` (`baker push`); default: the hostname."""

    name: str = ""


class RotationConfig(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """`baker run` and `baker resume --next`: where to continue when an account hits a limit.

    `order` items are AGENT or AGENT:ACCOUNT (a name under [accounts]). Its keys are
    snake_case (`max_hops`), as docs/run.md shows them.
    """

    order: list[str] = msgspec.field(default_factory=list)
    countdown: NonNegative = 10  # seconds shown before switching; 0 = ask
    max_hops: NonNegative = 3  # switches per `baker run`


class GlobalConfig(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    # `[transcripts] <agent> = ["~/dir", …]`: extra config folders of each agent, by adapter
    # name; names are checked against the installed adapters by `baker doctor`.
    transcripts: dict[str, list[str]] = msgspec.field(default_factory=dict)
    accounts: dict[str, AccountConfig] = msgspec.field(default_factory=dict)
    usage: UsageConfig = msgspec.field(default_factory=UsageConfig)
    brief: BriefConfig = msgspec.field(default_factory=BriefConfig)
    machine: MachineConfig = msgspec.field(default_factory=MachineConfig)
    rotation: RotationConfig = msgspec.field(default_factory=RotationConfig)
