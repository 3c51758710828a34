"""Domain errors. Each carries one readable line; the CLI turns them into exit code 1."""

from __future__ import annotations


class BakerError(Exception):
    """Base class: a problem the user can act on, shown as one line."""


class NotAProject(BakerError):
    """The folder is not inside a Continuity project (no `.baker/` at the worktree root)."""


class StoreError(BakerError):
    """A store file is unreadable, corrupt, locked or of an unknown schema version."""


class ConfigError(BakerError):
    """`~/.baker/config.toml` or another user-edited file is invalid."""


class AdapterError(BakerError):
    """An adapter failed to load or to do its job."""
