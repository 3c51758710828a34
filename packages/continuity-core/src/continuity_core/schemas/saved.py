"""Authored (saved) checkpoints: the sidecar each save writes and the answers of the checks."""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct, field

__all__ = ["ResumeCheck", "SavedMeta", "Validation"]


class SavedMeta(Struct, kw_only=True, omit_defaults=True):
    """`<id>.json` beside `<id>.md`: what baker itself saw when the checkpoint was saved."""

    schema_version: int = 1
    id: str
    saved_at: str
    worktree: str
    branch: str | None = None
    head: str | None = None
    dirty: list[str] = field(default_factory=list)  # "XY path", as git facts give it
    bytes: int = 0


class Claim(Struct, kw_only=True):
    """A line the author marked `(from <source>)`: not verified by the session that saved it."""

    claim: str
    source: str
    section: str


class Drift(Struct, kw_only=True, omit_defaults=True):
    kind: Literal["head", "branch", "worktree", "dirty", "missing_artifact"]
    saved: str | None = None
    now: str | None = None
    files: list[str] = field(default_factory=list)


class Candidate(Struct, kw_only=True, omit_defaults=True):
    id: str
    path: str
    worktree: str
    time: str | None = None
    agent: str | None = None
    latest: bool = False
    bytes: int = 0


class Validation(Struct, kw_only=True, omit_defaults=True):
    """`baker validate`: a draft or a stored checkpoint checked against the format."""

    status: Literal["valid", "invalid", "blocked"]
    path: str = ""
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    front_matter: dict[str, Any] = field(default_factory=dict)
    artifacts: list[str] = field(default_factory=list)
    unverified: list[Claim] = field(default_factory=list)
    bytes: int = 0


class ResumeCheck(Struct, kw_only=True):
    """`baker resume-check`: whether a checkpoint can be resumed here, and what changed."""

    status: Literal["fresh", "drifted", "choose", "none", "blocked", "invalid"]
    reason: str | None = None
    id: str | None = None
    path: str | None = None
    worktree: str | None = None  # where the checkpoint was saved
    front_matter: dict[str, Any] = field(default_factory=dict)
    drift: list[Drift] = field(default_factory=list)
    unverified: list[Claim] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
