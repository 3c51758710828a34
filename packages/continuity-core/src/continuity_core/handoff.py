"""Building the brief for a project: the newest session, the note, repo state, traps."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from continuity_core import adapters as adapters_mod
from continuity_core import brief as brief_mod
from continuity_core import inflight
from continuity_core import note as note_mod
from continuity_core.config import load_config
from continuity_core.project import repo_facts
from continuity_core.schemas.session import Session, SessionRef
from continuity_core.sessions import (
    Choice,
    NoMatch,
    attempt_line,
    choose,
    kept_matches,
    listing,
    state,
)
from continuity_core.store import Store, find_project, now_iso, project_root_for_init
from continuity_core.transcript import project_relative


@dataclass
class Handoff:
    brief: brief_mod.Brief
    session: Session | None
    adapter: Any | None
    errors: list[str] = field(default_factory=list)


def project_root(start: Path | None = None) -> Path:
    """The project root whether or not `baker init` ran: `.baker/`'s folder or the worktree."""
    return find_project(start) or project_root_for_init(start)


def make(
    root: Path,
    *,
    agent: str | None = None,
    account: str | None = None,
    session_id: str | None = None,
    budget_tokens: int | None = None,
    write: bool = True,
) -> Handoff:
    """The brief for `root`; `write=False` (a dry run) keeps even the read cache untouched."""
    config = load_config()
    broken: dict[str, str] = {}
    if agent is not None:  # one agent asked for: load that adapter alone
        adapters = {agent: adapters_mod.load(agent)}
    else:
        adapters, broken = adapters_mod.load_all()
    errors = list(broken.values())
    store = Store(root)
    latest = store.latest_checkpoint() if store.exists else None
    kept = latest.session if latest is not None else None
    try:
        choice = choose(root, adapters, config, store if store.exists and write else None,
                        agent=agent, account=account, session_id=session_id)
    except NoMatch as e:
        if kept is not None and kept_matches(kept, config, agent=agent, account=account,
                                             session_id=session_id):
            choice = Choice()  # no transcript left, but the checkpoint kept that very session
        elif agent is None:
            raise
        else:  # say what exists in every agent, not only in the one asked for
            first = str(e).splitlines()[0]
            everyone = {**adapters_mod.load_all()[0], **adapters}
            raise NoMatch("\n".join([first, *listing(root, everyone, config)])) from None
    errors += choice.errors
    session, ref = choice.session, choice.ref
    if session is None and kept is not None and kept_matches(
            kept, config, agent=agent, account=account, session_id=session_id):
        # The transcript is gone; the checkpoint kept its facts. The JSON names it as well.
        session = kept
        ref = SessionRef(agent=kept.agent, account=kept.account, session_id=kept.session_id,
                         path=kept.path, mtime=0.0, cwd=kept.cwd)
    if session is not None:
        session = project_relative(session, root)
    note = note_mod.read(root)
    note_text = note_mod.filled(note) if note is not None and not note.is_empty() else None
    traps = _traps_for(root, session) if store.exists else []
    saved_text = _saved_text(root) if store.exists else None
    built = brief_mod.build(
        project=str(root), created_at=now_iso(), git=repo_facts(root), note_text=note_text,
        session=session, ref=ref, searched=choice.searched, traps=traps,
        failed=[_attempt(r, s) for r, s in choice.failed],
        saved_text=saved_text, checkpoint=latest,
        unrecorded=inflight.unrecorded(store, session) if store.exists and session else None,
        budget_tokens=budget_tokens or config.brief.budget_tokens,
    )
    return Handoff(brief=built, session=session, adapter=choice.adapter, errors=errors)


def _attempt(ref: SessionRef, session: Session) -> brief_mod.Attempt:
    err = session.last_error
    return brief_mod.Attempt(
        agent=ref.agent, account=ref.account, session_id=ref.session_id, state=state(session),
        at=session.started_at or session.updated_at,
        reset_at=err.reset_at if err is not None and session.ended_on_limit else None,
        summary=attempt_line(ref, session))


def from_machine(root: Path, machine: str, *, budget_tokens: int | None = None,
                 narrowed: str | None = None) -> Handoff:
    """The brief of `machine`'s newest snapshot (fetched by `baker pull`), its repo state
    compared with this checkout."""
    from continuity_core import machines
    from continuity_core.errors import BakerError

    if narrowed:
        raise BakerError("--machine takes the brief of that machine's snapshot: it cannot be "
                         "narrowed to an agent, account or session here")
    return Handoff(brief=machines.brief_for(root, machine, budget_tokens), session=None,
                   adapter=None)


def _traps_for(root: Path, session: Session | None) -> list[Any]:
    from continuity_core import traps

    paths = [f.path for f in session.files_edited] if session else []
    return list(traps.matching_paths(root, paths))


def _saved_text(root: Path) -> str | None:
    """The latest saved (authored) checkpoint of this worktree, with its drift."""
    from continuity_core import saved

    return saved.brief_section(root)


def brief_path(root: Path) -> Path:
    """Where the next brief goes: `.baker/handoffs/` in a project, else ~/.baker/handoffs/.
    Nothing is created (a dry run names it only)."""
    import datetime as dt

    from continuity_core.config import baker_home

    store = Store(root)
    folder = store.path("handoffs") if store.exists else baker_home() / "handoffs"
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return folder / f"brief-{stamp}.md"


def save_brief(root: Path, text: str) -> Path:
    """Keep the brief in a private file (`brief_path`); the oldest beyond KEEP_BRIEFS go."""
    from continuity_core import trust
    from continuity_core.fs import atomic_write

    path = brief_path(root)
    store = Store(root)
    # Created 0700 where missing, every component checked (never through a link).
    folder = store.folder("handoffs") if store.exists else trust.home_dir("handoffs")
    atomic_write(path, text)
    for old in sorted(folder.glob("brief-*.md"), reverse=True)[KEEP_BRIEFS:]:
        old.unlink(missing_ok=True)
    return path


KEEP_BRIEFS = 20
