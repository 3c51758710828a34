"""Building the brief for a project: the newest session, the note, repo state, traps."""

from __future__ import annotations

import os

from msgspec import Struct, convert, field
from msgspec.structs import replace

from continuity_core import adapters as adapters_mod
from continuity_core import brief as brief_mod
from continuity_core import inflight, trust
from continuity_core import note as note_mod
from continuity_core.config import load_config
from continuity_core.errors import BakerError
from continuity_core.fs import atomic_write
from continuity_core.git import Begun
from continuity_core.project import repo_facts
from continuity_core.redact import redact
from continuity_core.schemas import handoff as doc
from continuity_core.schemas.session import SessionRef
from continuity_core.sessions import (
    Choice,
    NoMatch,
    attempt_line,
    choose,
    kept_matches,
    listing,
    state,
    why_none,
)
from continuity_core.stamps import now_iso, stamp
from continuity_core.store import SAVED, SAVED_LATEST, STORE, Store, worktree_root
from continuity_core.store import project_root as store_root
from continuity_core.transcript import project_relative

TYPE_CHECKING = False
if TYPE_CHECKING:  # `baker handoff` runs within a start-up budget: nothing it does not use
    from pathlib import Path
    from typing import Any

    from continuity_core.adapters import Adapter
    from continuity_core.brief import Brief
    from continuity_core.inflight import Inflight
    from continuity_core.schemas.checkpoint import GitFacts
    from continuity_core.schemas.config import GlobalConfig
    from continuity_core.schemas.session import Session
    from continuity_core.schemas.trap import Trap
    from continuity_core.trust import StrPath


class Handoff(Struct, kw_only=True):
    """A brief and what it was built from; in memory only (`structured` is its JSON form)."""

    brief: Brief
    session: Session | None
    adapter: Adapter | None
    errors: list[str] = field(default_factory=list)
    git: GitFacts | None = None  # the live facts the brief was built on (None: another machine)
    note: dict[str, str] = field(default_factory=dict)
    traps: list[Trap] = field(default_factory=list)
    unrecorded: Inflight | None = None  # a call only the pre-tool hook saw


def find_root(start: StrPath | None = None) -> str:
    """The project root whether or not `baker init` ran: `.baker/`'s folder or the worktree
    (a `str`: `baker handoff` imports no pathlib)."""
    here = os.path.abspath(start if start is not None else os.getcwd())
    return store_root(here) or worktree_root(here) or here


def project_root(start: StrPath | None = None) -> Path:
    """`find_root` as a `Path`, for the commands that work with one."""
    from pathlib import Path

    return Path(find_root(start))


def make(
    root: StrPath,
    *,
    agent: str | None = None,
    account: str | None = None,
    session_id: str | None = None,
    budget_tokens: int | None = None,
    write: bool = True,
    machine: str | None = None,
) -> Handoff:
    """The brief for `root`, or of `machine`'s newest snapshot (fetched by `baker pull`, its
    repo state compared with this checkout); `write=False` (a dry run) keeps even the read
    cache untouched."""
    if machine is not None:
        from pathlib import Path

        from continuity_core import snapshots

        if agent or account or session_id:
            raise BakerError(
                "--machine takes the brief of that machine's snapshot: it cannot be "
                "narrowed to an agent, account or session here"
            )
        brief = snapshots.brief_for(Path(root), machine, budget_tokens)
        return Handoff(brief=brief, session=None, adapter=None)
    begun = Begun(root)  # `git status` runs while the session is found and read
    try:
        config = load_config()
        store = Store(root)
        latest = store.latest_checkpoint() if store.exists else None
        choice = _chosen(
            root,
            config,
            store if store.exists and write else None,
            latest.session if latest is not None else None,
            agent=agent,
            account=account,
            session_id=session_id,
        )
        session = project_relative(choice.session, root) if choice.session else None
        note = note_mod.read(root)
        traps = _traps_for(root, session) if store.exists else []
        saved_text = _saved_text(root) if store.exists else None
        git = repo_facts(root, begun=begun)
    finally:
        begun.close()  # what a failure left unread (the facts were not wanted)
    unrecorded = inflight.unrecorded(store, session) if store.exists and session else None
    filled = {t: body for t in note_mod.SECTIONS if note is not None and (body := note.get(t))}
    built = brief_mod.build(
        project=str(root),
        created_at=now_iso(),
        git=git,
        note_text=note_mod.filled(note) if note is not None and filled else None,
        session=session,
        ref=choice.ref,
        searched=choice.searched,
        traps=traps,
        failed=[_attempt(r, s) for r, s in choice.failed],
        saved_text=saved_text,
        checkpoint=latest,
        unrecorded=unrecorded,
        budget_tokens=budget_tokens or config.brief.budget_tokens,
        unfound=why_none(root, choice.below),
    )
    if built.ended_on_limit and session is not None and choice.adapter is not None:
        _reconcile_reset(built, session, choice.adapter, config)
    return Handoff(
        brief=built,
        session=session,
        adapter=choice.adapter,
        errors=choice.errors,
        git=git,
        note=filled,
        traps=traps,
        unrecorded=unrecorded,
    )


def _chosen(
    root: StrPath,
    config: GlobalConfig,
    store: Store | None,
    kept: Session | None,
    *,
    agent: str | None,
    account: str | None,
    session_id: str | None,
) -> Choice:
    """The session the brief is of (`sessions.choose`), or the one the latest checkpoint kept
    when its transcript is gone; NoMatch listing every agent's sessions when none fits. Its
    errors name the adapters that failed to load first."""
    broken: dict[str, str] = {}
    if agent is not None:  # one agent asked for: load that adapter alone
        adapters = {agent: adapters_mod.load(agent)}
    else:
        adapters, broken = adapters_mod.load_all()
    keep = (
        kept
        if kept is not None
        and kept_matches(kept, config, agent=agent, account=account, session_id=session_id)
        else None
    )
    try:
        choice = choose(
            root, adapters, config, store, agent=agent, account=account, session_id=session_id
        )
    except NoMatch as e:
        if keep is not None:
            choice = Choice()  # no transcript left, but the checkpoint kept that very session
        elif agent is None:
            raise
        else:  # say what exists in every agent, not only in the one asked for
            first = str(e).splitlines()[0]
            everyone = {**adapters_mod.load_all()[0], **adapters}
            raise NoMatch("\n".join([first, *listing(root, everyone, config)])) from None
    choice.errors = [*broken.values(), *choice.errors]
    if choice.session is None and keep is not None:
        # The transcript is gone; the checkpoint kept its facts. The JSON names it as well.
        choice.session = keep
        choice.ref = SessionRef(
            agent=keep.agent,
            account=keep.account,
            session_id=keep.session_id,
            path=keep.path,
            mtime=0.0,
            cwd=keep.cwd,
        )
    return choice


def _reconcile_reset(built: Brief, session: Session, adapter: Any, config: Any) -> None:
    """The transcript's reset time and the limit ledger's (the hook's record) for the same
    account: where only one names it, that one; where they disagree, the later, so no agent
    is tried again before its limit lifts. The brief says which it used and why."""
    from continuity_core import limits, stamps

    try:
        folder = limits.account_dir(adapter, config, session.account or "")
    except (IndexError, OSError):
        return
    recorded = limits.find(limits.read(), adapter.name, folder)
    theirs = stamps.parse_time(recorded.until) if recorded is not None else None
    ours = stamps.parse_time(built.reset_at)
    if theirs is None or recorded is None:
        return
    source = f"the {recorded.source} record in the limit ledger"
    if ours is None:
        built.reset_at = recorded.until
        built.reset_why = f"(The reset time is from {source}: the transcript names none.)"
    elif abs((theirs - ours).total_seconds()) > 60:
        said = built.reset_at
        built.reset_at = recorded.until if theirs > ours else said
        built.reset_why = (
            f"(The transcript says {said}, {source} says {recorded.until}: the later is "
            "used, so the account is not tried again before its limit lifts.)"
        )


def _attempt(ref: SessionRef, session: Session) -> doc.Attempt:
    err = session.last_error
    return doc.Attempt(
        agent=ref.agent,
        account=ref.account,
        session_id=ref.session_id,
        state=state(session),
        at=session.started_at or session.updated_at,
        reset_at=err.reset_at if err is not None and session.ended_on_limit else None,
        summary=attempt_line(ref, session),
    )


def structured(result: Handoff) -> doc.HandoffDoc:
    """The brief as typed fields with its markdown beside them: `handoff --json`, MCP."""
    brief, session = result.brief, result.session
    limit: doc.Limit | None = None
    if session is not None and session.ended_on_limit and session.last_error is not None:
        err = session.last_error
        limit = doc.Limit(kind=err.kind, until=err.reset_at, message=redact(err.message))
    elif brief.ended_on_limit:
        limit = doc.Limit(kind=brief.limit_kind or "usage_limit", until=brief.reset_at)
    return doc.HandoffDoc(
        created_at=brief.created_at,
        project=brief.project,
        latest_request=redact(brief.latest_request) if brief.latest_request else None,
        **_session_fields(session, result.unrecorded),
        limit=limit,
        repo=_repo_state(result.git),
        note={title: redact(body) for title, body in result.note.items()},
        source=_source(session, brief.session),
        traps=[
            doc.TrapHit(id=t.id, pattern=t.pattern, kind=t.kind, why=redact(t.why))
            for t in result.traps
        ],
        markdown=brief_mod.render(brief),
        warnings=list(result.errors),
        failed_attempts=list(brief.failed_attempts),
        session=brief.session,
        searched=brief.searched,
        ended_on_limit=brief.ended_on_limit,
        reset_at=brief.reset_at,
        sections=brief.sections,
        cut=brief.cut,
        budget_tokens=brief.budget_tokens,
    )


def _session_fields(session: Session | None, unrecorded: Inflight | None) -> dict[str, Any]:
    """The document's fields read from the session, redacted; empty without one."""
    if session is None:
        return {"todos": [], "files_edited": [], "interrupted": None}
    return {
        "todos": [doc.Todo(content=redact(t.content), status=t.status) for t in session.todos],
        "files_edited": [
            convert(f, doc.EditedFile, from_attributes=True) for f in session.files_edited
        ],
        "interrupted": brief_mod.interrupted(session, unrecorded),
        "commands": [
            replace(
                convert(c, doc.Command, from_attributes=True),
                command=redact(c.command),
                error=redact(c.error),
            )
            for c in session.commands
        ],
        "commands_total": session.commands_total,
        "user_requests": [redact(r) for r in session.requests],
        "requests_total": max(session.requests_total, len(session.requests)),
        "subagents": [
            replace(
                convert(a, doc.Subagent, from_attributes=True),
                task=redact(a.task),
                result=redact(a.result) if a.result is not None else None,
            )
            for a in session.subagents
        ],
    }


def _source(session: Session | None, ref: SessionRef | None) -> doc.Source | None:
    """The session the brief was built from: as read, else as the brief names it."""
    if session is not None:
        return doc.Source(
            agent=session.agent,
            account=session.account,
            session=session.session_id,
            transcript=session.path,
            updated_at=session.updated_at,
            model=session.model,
        )
    if ref is None:
        return None
    return doc.Source(
        agent=ref.agent, account=ref.account, session=ref.session_id, transcript=ref.path
    )


def _repo_state(g: GitFacts | None) -> doc.RepoState | None:
    """The live repo facts as the document states them."""
    if g is None:
        return None
    return doc.RepoState(
        is_repo=g.is_repo,
        branch=g.branch,
        detached=g.detached,
        last_commit=doc.Commit(sha=g.head, subject=g.subject or "") if g.head else None,
        upstream=g.upstream,
        ahead=g.ahead,
        behind=g.behind,
        uncommitted=list(g.dirty),
        uncommitted_count=g.dirty_count,
    )


def _traps_for(root: StrPath, session: Session | None) -> list[Any]:
    from continuity_core import traps

    paths = [f.path for f in session.files_edited] if session else []
    return list(traps.matching_paths(root, paths))


def _saved_text(root: StrPath) -> str | None:
    """The latest saved (authored) checkpoint of this worktree, with its drift."""
    if not os.path.lexists(os.path.join(root, STORE, SAVED, SAVED_LATEST)):
        return None  # the saved module imports pathlib and re: only a worktree that has one pays
    from pathlib import Path

    from continuity_core import saved

    return saved.brief_section(Path(root))


def brief_path(root: Path) -> Path:
    """Where the next brief goes: `.baker/handoffs/` in a project, else ~/.baker/handoffs/.
    Nothing is created (a dry run names it only)."""
    from pathlib import Path

    store = Store(root)
    folder = store.path("handoffs") if store.exists else Path(trust.home_root(), "handoffs")
    return folder / f"brief-{stamp()}.md"


def save_brief(root: Path, text: str) -> Path:
    """Keep the brief in a private file (`brief_path`); the oldest beyond KEEP_BRIEFS go."""
    from pathlib import Path

    path = brief_path(root)
    store = Store(root)
    # Created 0700 where missing, every component checked (never through a link).
    folder = Path(store.folder_path("handoffs") if store.exists else trust.home_path("handoffs"))
    atomic_write(path, text)
    for old in sorted(folder.glob("brief-*.md"), reverse=True)[KEEP_BRIEFS:]:
        old.unlink(missing_ok=True)
    return path


KEEP_BRIEFS = 20
