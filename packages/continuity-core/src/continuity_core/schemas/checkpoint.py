"""The automatic checkpoint written after every agent turn, and the git facts it holds.

msgspec Structs: every checkpoint builds and writes one.
"""

from msgspec import Struct, field

from continuity_core.schemas.session import Session


class Worktree(Struct, kw_only=True, omit_defaults=True):
    path: str
    branch: str | None = None
    head: str | None = None


class GitFacts(Struct, kw_only=True, omit_defaults=True):
    """Repo state from one `git status` and one `git log`; `is_repo` False means no git here."""

    is_repo: bool = False
    root: str | None = None
    branch: str | None = None  # None when detached
    detached: bool = False
    head: str | None = None
    subject: str | None = None
    upstream: str | None = None
    ahead: int = 0
    behind: int = 0
    dirty: list[str] = field(default_factory=list)  # "XY path", capped
    dirty_count: int = 0
    files_changed: int = 0
    insertions: int = 0
    deletions: int = 0
    worktrees: list[Worktree] = field(default_factory=list)


class Checkpoint(Struct, kw_only=True, omit_defaults=True):
    schema_version: int = 1
    id: str
    created_at: str
    agent: str | None = None
    event: str | None = None  # the hook event that wrote it ("stop", "pre_compact", "manual")
    git: GitFacts = field(default_factory=GitFacts)
    session: Session | None = None  # trimmed: the last messages only
