"""Tool calls the pre-tool hook saw start: the only trace of a call an agent was killed in
before its transcript recorded it (Gemini CLI writes a call only once it returns).

One small file per session under `.baker/inflight/`, replaced on every tool call and removed
when the turn ends normally; what is left after a crash is the call that was running.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from pathlib import Path

import msgspec

from continuity_core import trust
from continuity_core.fs import atomic_write, hexdigest
from continuity_core.redact import redact
from continuity_core.schemas.hook import HookEvent
from continuity_core.schemas.session import Session
from continuity_core.store import Store, now_iso


class Inflight(msgspec.Struct, kw_only=True, omit_defaults=True):
    agent: str
    session_id: str
    tool_name: str
    started_at: str
    command: str | None = None
    paths: list[str] = msgspec.field(default_factory=list)


def _path(store: Store, agent: str, session_id: str) -> Path:
    digest = hexdigest(f"{agent}\0{session_id}".encode())
    return store.path("inflight", f"{digest[:20]}.json")


def record(store: Store, event: HookEvent) -> None:
    """Remember the call `event` is about to start (redacted)."""
    if not (event.agent and event.session_id and event.tool_name):
        return
    call = Inflight(agent=event.agent, session_id=event.session_id,
                    tool_name=redact(event.tool_name),
                    started_at=now_iso(), command=redact(event.command) if event.command else None,
                    paths=[redact(p) for p in event.paths[:10]])  # a file named after a token
    store.folder("inflight")
    atomic_write(_path(store, event.agent, event.session_id), msgspec.json.encode(call),
                 durable=False)


def clear(store: Store, agent: str, session_id: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(_path(store, agent, session_id))


def unrecorded(store: Store, session: Session) -> Inflight | None:
    """The call that started after the transcript's last record and never came back."""
    if session.pending_calls:
        return None  # the transcript already shows what was running
    try:
        data = trust.read_bytes(_path(store, session.agent, session.session_id))
        call = msgspec.json.decode(data, type=Inflight)
    except (OSError, trust.Untrusted, msgspec.DecodeError, msgspec.ValidationError):
        return None
    if session.updated_at and _when(session.updated_at) > _when(call.started_at):
        return None  # the transcript moved on after the call began: it returned
    return call


def _when(stamp: str) -> dt.datetime:
    try:
        value = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return dt.datetime.min.replace(tzinfo=dt.UTC)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)
