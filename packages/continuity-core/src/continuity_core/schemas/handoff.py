"""`baker handoff --json` (and the MCP `handoff` tool): the brief as typed fields, with the
rendered markdown beside them.

Every top-level key is always present (null or empty when unknown), so a reader never has to
tell a missing key from an empty one. Free text in it is redacted like the brief's.
"""

from __future__ import annotations

from msgspec import Struct, field

from continuity_core.schemas.session import (
    CommandRun,
    EditAction,
    SessionRef,
    SubagentResult,
    TodoStatus,
)


class Section(Struct, kw_only=True):
    """One labelled section of the rendered brief."""

    key: str
    title: str
    source: str  # "written on purpose", "live", "transcript (raw data)", ...
    body: str
    priority: int  # higher survives longer; brief.NEVER_CUT is never dropped


class Attempt(Struct, kw_only=True, omit_defaults=True):
    """A session newer than the brief's that failed before doing any work."""

    agent: str
    account: str
    session_id: str
    state: str  # "failed" or "limit" (see `baker sessions`)
    at: str | None = None  # when it started
    reset_at: str | None = None  # when the limit that ended it resets, if recorded
    summary: str  # "a retry at 2026-11-30 14:02 UTC in codex (...) failed: ..."


class Todo(Struct, kw_only=True, forbid_unknown_fields=True):
    content: str
    status: TodoStatus


class EditedFile(Struct, kw_only=True, forbid_unknown_fields=True):
    path: str  # relative to the session's cwd where it lies inside it
    action: EditAction
    count: int = 1
    moved_to: str | None = None


class OpenCall(Struct, kw_only=True, forbid_unknown_fields=True):
    """A tool call that started and never returned: the shell command, else its JSON input."""

    tool: str
    what: str
    started_at: str | None = None


class LastError(Struct, kw_only=True, forbid_unknown_fields=True):
    kind: str
    message: str
    reset_at: str | None = None


class Interrupted(Struct, kw_only=True, forbid_unknown_fields=True):
    """What was cut off: calls with no result, one only the pre-tool hook saw, the last API
    error, or a turn that never completed."""

    calls: list[OpenCall] = field(default_factory=list)
    unrecorded: OpenCall | None = None
    error: LastError | None = None
    turn_incomplete: bool = False


class Limit(Struct, kw_only=True, forbid_unknown_fields=True):
    """The session ended on a usage or rate limit; `until` is when it resets, if known."""

    kind: str
    until: str | None = None
    message: str = ""


class Commit(Struct, kw_only=True, forbid_unknown_fields=True):
    sha: str
    subject: str = ""


class RepoState(Struct, kw_only=True, forbid_unknown_fields=True):
    """Live repo state, read when the brief was built."""

    is_repo: bool
    branch: str | None = None  # None when detached or not a repo
    detached: bool = False
    last_commit: Commit | None = None
    upstream: str | None = None
    ahead: int = 0
    behind: int = 0
    uncommitted: list[str] = field(default_factory=list)  # "XY path", capped
    uncommitted_count: int = 0


class Source(Struct, kw_only=True, forbid_unknown_fields=True):
    """The agent session the brief was built from."""

    agent: str
    account: str
    session: str
    transcript: str = ""
    updated_at: str | None = None
    model: str | None = None


class TrapHit(Struct, kw_only=True, forbid_unknown_fields=True):
    id: str
    pattern: str
    kind: str
    why: str


class Command(CommandRun, omit_defaults=False, forbid_unknown_fields=True):
    """A shell command the session ran (runs with one outcome merged), as the agent recorded
    it: `exit_code` null where the agent wrote none, `failed` null where it is unknown."""


class Subagent(SubagentResult, omit_defaults=False, forbid_unknown_fields=True):
    """A sub-agent the session started: its task and the first lines of what it returned
    (`result` null while none arrived)."""


class HandoffDoc(Struct, kw_only=True, forbid_unknown_fields=True):
    schema_version: int = 1
    created_at: str
    project: str
    latest_request: str | None
    todos: list[Todo]
    files_edited: list[EditedFile]
    interrupted: Interrupted | None
    limit: Limit | None
    repo: RepoState | None  # None for a brief taken from another machine's snapshot
    note: dict[str, str]  # memory/hot.md: section title -> body, empty sections left out
    source: Source | None
    traps: list[TrapHit]
    markdown: str  # the brief exactly as `baker handoff` prints it
    # Every shell command the session kept (runs merged), oldest first; `commands_total`
    # counts every run, those no longer kept included.
    commands: list[Command] = field(default_factory=list)
    commands_total: int = 0
    user_requests: list[str] = field(default_factory=list)  # every request kept, oldest first
    requests_total: int = 0  # every request seen, those no longer kept included
    subagents: list[Subagent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # e.g. an adapter that failed
    failed_attempts: list[Attempt] = field(default_factory=list)  # newer, did no work
    # The brief's own structure, as `handoff --json` printed it before the typed fields.
    session: SessionRef | None = None
    searched: list[str] = field(default_factory=list)
    ended_on_limit: bool = False
    reset_at: str | None = None
    sections: list[Section] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)
    budget_tokens: int = 0
