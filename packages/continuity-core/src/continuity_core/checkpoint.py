"""Taking an automatic checkpoint: git facts plus what the agent's transcript says."""

from __future__ import annotations

from typing import Any

import msgspec

from continuity_core.config import load_config
from continuity_core.git import git_facts
from continuity_core.schemas.checkpoint import Checkpoint
from continuity_core.schemas.hook import HookEvent
from continuity_core.schemas.session import Session
from continuity_core.sessions import accounts_for, newest, read_session
from continuity_core.store import Store, now_iso

CHECKPOINT_MESSAGES = 8


def trimmed(session: Session) -> Session:
    """The session as a checkpoint keeps it: the last few messages, everything else whole."""
    copy = msgspec.structs.replace(session, messages=session.messages[-CHECKPOINT_MESSAGES:])
    return copy


def take(
    store: Store,
    *,
    adapters: dict[str, Any] | None = None,
    event: HookEvent | None = None,
    agent: str | None = None,
) -> Checkpoint:
    """Write a checkpoint for the project in `store` and return it."""
    adapters = adapters or {}
    session: Session | None = None
    adapter = adapters.get(event.agent) if event else None
    if adapter is not None and event is not None:
        ref = adapter.session_for_hook(event, accounts_for(adapter, load_config()))
        if ref is not None:
            session = read_session(adapter, ref, store)
    elif adapters:
        found = newest(store.root, adapters, load_config(), agent=agent)
        if found.ref is not None and found.adapter is not None:
            session = read_session(found.adapter, found.ref, store)
    cp = Checkpoint(
        id=store.new_checkpoint_id(),
        created_at=now_iso(),
        agent=(event.agent if event else agent) or (session.agent if session else None),
        event=event.kind if event else "manual",
        git=git_facts(store.root),
        session=trimmed(session) if session else None,
    )
    store.write_checkpoint(cp)
    return cp
