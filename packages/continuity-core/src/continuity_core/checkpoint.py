"""Taking an automatic checkpoint: git facts plus what the agent's transcript says."""

from __future__ import annotations

import os

import msgspec

from continuity_core import git
from continuity_core.config import config_or_defaults
from continuity_core.errors import BakerError
from continuity_core.project import repo_facts
from continuity_core.schemas.checkpoint import Checkpoint
from continuity_core.schemas.hook import HookEvent
from continuity_core.schemas.session import Session
from continuity_core.sessions import accounts_for, newest, read_session
from continuity_core.stamps import new_id, now_iso
from continuity_core.store import Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from continuity_core.adapters import Adapter

CHECKPOINT_MESSAGES = 8


def trimmed(session: Session) -> Session:
    """The session as a checkpoint keeps it: the last few messages, everything else whole."""
    return msgspec.structs.replace(session, messages=session.messages[-CHECKPOINT_MESSAGES:])


def take(
    store: Store,
    *,
    adapters: Mapping[str, Adapter] | None = None,
    event: HookEvent | None = None,
    agent: str | None = None,
) -> Checkpoint:
    """Write a checkpoint for the project in `store` and return it."""
    adapters = adapters or {}
    session: Session | None = None
    adapter = adapters.get(event.agent) if event else None
    begun = git.Begun(store.root)  # git works while the transcript is read
    try:
        # A broken config.toml costs its named accounts, never the checkpoint: the default
        # ones are read, and the log tells `baker audit` (and pickup says so at next start).
        config, problem = config_or_defaults()
        if problem is not None:
            store.log("config_error", error=problem)
        if adapter is not None and event is not None:
            ref = adapter.session_for_hook(event, accounts_for(adapter, config))
            if ref is not None:
                session = read_session(adapter, ref, store)
        elif adapters:
            found = newest(store.root, adapters, config, agent=agent)
            if found is not None:
                session = read_session(found.adapter, found.ref, store)
    except BaseException:  # a hook's deadline included: no git left running behind it
        begun.close(0)
        raise
    cp = Checkpoint(
        id=new_id(),
        created_at=now_iso(),
        agent=(event.agent if event else agent) or (session.agent if session else None),
        event=event.kind if event else "manual",
        git=repo_facts(store.root, begun=begun),
        session=trimmed(session) if session else None,
    )
    store.write_checkpoint(cp)
    if session is not None:
        remind(store, session)
    return cp


def remind(store: Store, session: Session) -> None:
    """Keep `.baker/reminder.json` saying when context usage has reached a level (prepare,
    refresh, rotate) and what to do; removed again below the first level. It never launches
    anything: `baker status` and the skill read it."""
    from continuity_core import usage

    try:
        limits = usage.thresholds(config_or_defaults()[0].usage)
    except BakerError:
        limits = usage.thresholds()
    report = usage.level_for(
        session.usage,
        limits,
        source="checkpoint",
        agent=session.agent,
        session_id=session.session_id,
    )
    path = os.path.join(store.store_dir, REMINDER)
    if report.level in usage.LEVELS:
        store.write_json(path, report)
    else:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass  # below the first level, as it was


REMINDER = "reminder.json"
