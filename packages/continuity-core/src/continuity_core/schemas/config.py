"""`~/.baker/config.toml`: user-edited, so unknown keys are errors that name the key.

msgspec Structs; `config.explain` turns msgspec's errors into the file, the line and what to do.
"""

from typing import Annotated

from msgspec import Meta, Struct, field


class AccountConfig(Struct, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    """A named account: one agent and its config dir, usable with `--account NAME`."""

    agent: str
    dir: str

    def __post_init__(self) -> None:
        # a relative folder would be read from whatever folder baker (or a hook) runs in
        if not self.dir.startswith(("~", "/")):
            raise ValueError(f"dir = {self.dir!r} must be an absolute path or start with ~")


class UsageConfig(Struct, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    """Thresholds: "50%" of the window or a token count such as "100000"."""

    prepare: str = "50%"
    refresh: str = "62%"
    rotate: str = "75%"


class BriefConfig(Struct, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    budget_tokens: Annotated[int, Meta(ge=200)] = 8000  # as `--budget` takes it


class MachineConfig(Struct, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    """This machine's name in `refs/baker/<name>` (`baker push`); default: the hostname."""

    name: str = ""


class RotationConfig(Struct, kw_only=True, forbid_unknown_fields=True):
    """`baker run` and `baker resume --next`: where to continue when an account hits a limit.

    `order` items are AGENT or AGENT:ACCOUNT (a name under [accounts]). Its keys are
    snake_case (`max_hops`), as docs/run.md shows them.
    """

    order: list[str] = field(default_factory=list)
    countdown: Annotated[int, Meta(ge=0)] = 10  # seconds shown before switching; 0 = ask
    max_hops: Annotated[int, Meta(ge=0)] = 3  # switches per `baker run`


class GlobalConfig(Struct, kw_only=True, forbid_unknown_fields=True, rename="kebab"):
    # `[transcripts] <agent> = ["~/dir", …]`: extra config folders of each agent, by adapter
    # name; names are checked against the installed adapters by `baker doctor`.
    transcripts: dict[str, list[str]] = field(default_factory=dict)
    accounts: dict[str, AccountConfig] = field(default_factory=dict)
    usage: UsageConfig = field(default_factory=UsageConfig)
    brief: BriefConfig = field(default_factory=BriefConfig)
    machine: MachineConfig = field(default_factory=MachineConfig)
    rotation: RotationConfig = field(default_factory=RotationConfig)
