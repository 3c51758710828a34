"""Tool calls the pre-tool hook saw start: the only trace of a call an agent was killed in
before its transcript recorded it (Gemini CLI writes a call only once it returns).

One small file per session under `.baker/inflight/`, replaced on every tool call and removed
when the turn ends normally; what is left after a crash is the call that was running.

The pre-tool hook's detached child writes it on every tool call, once the agent has its
answer, every text through the redactor.
"""

from __future__ import annotations

import os

import msgspec

from continuity_core import trust
from continuity_core.fs import atomic_write, hexdigest
from continuity_core.redact import redact
from continuity_core.stamps import now_iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt

    from continuity_core.schemas.hook import HookEvent
    from continuity_core.schemas.session import Session
    from continuity_core.store import Store

PATHS_MAX = 10


class Inflight(msgspec.Struct, kw_only=True, omit_defaults=True):
    """The call a session started, as its file holds it."""

    agent: str
    session_id: str
    tool_name: str
    started_at: str
    command: str | None = None
    paths: list[str] = msgspec.field(default_factory=list)


def _path(store: Store, agent: str, session_id: str) -> str:
    digest = hexdigest(f"{agent}\0{session_id}".encode())
    return os.path.join(store.store_dir, "inflight", f"{digest[:20]}.json")


def _load(path: str) -> Inflight:
    return msgspec.json.decode(trust.read_bytes(path), type=Inflight)


def record(store: Store, event: HookEvent, started_at: str | None = None) -> None:
    """Remember the call `event` is about to start (redacted); `started_at`, when the hook
    saw it, where this runs later (the pre-tool hook's detached child). A record of a call
    that started later is kept: the children of two calls may write out of order."""
    if not (event.agent and event.session_id and event.tool_name):
        return
    call = Inflight(
        agent=event.agent,
        session_id=event.session_id,
        tool_name=redact(event.tool_name),
        started_at=started_at or now_iso(),
        command=redact(event.command) if event.command else None,
        # a file may be named after a token
        paths=[redact(p) for p in event.paths[:PATHS_MAX]],
    )
    store.folder_path("inflight")
    where = _path(store, event.agent, event.session_id)
    try:  # the detached child of an earlier call may write after the next call's child
        if _when(_load(where).started_at) > _when(call.started_at):
            return  # a later call is the one in flight
    except (OSError, trust.Untrusted, ValueError):  # msgspec.DecodeError is a ValueError
        pass  # none, or unreadable: replaced
    atomic_write(where, msgspec.json.encode(call), durable=False)


def clear(store: Store, agent: str, session_id: str) -> None:
    try:
        os.unlink(_path(store, agent, session_id))
    except FileNotFoundError:
        pass


def unrecorded(store: Store, session: Session) -> Inflight | None:
    """The call that started after the transcript's last record and never came back."""
    if session.pending_calls:
        return None  # the transcript already shows what was running
    try:
        call = _load(_path(store, session.agent, session.session_id))
    except (OSError, trust.Untrusted, ValueError):
        return None
    if session.updated_at and _when(session.updated_at) > _when(call.started_at):
        return None  # the transcript moved on after the call began: it returned
    return call


def _when(stamp: str) -> dt.datetime:
    import datetime as dt

    from continuity_core.stamps import parse_time

    return parse_time(stamp) or dt.datetime.min.replace(tzinfo=dt.UTC)
