"""Tool calls the pre-tool hook saw start: the only trace of a call an agent was killed in
before its transcript recorded it (Gemini CLI writes a call only once it returns).

One small file per session under `.baker/inflight/`, replaced on every tool call and removed
when the turn ends normally; what is left after a crash is the call that was running.

The pre-tool hook writes it on every tool call: plain JSON through `json`, every text
through the redactor.
"""

from __future__ import annotations

import json
import os

from continuity_core import jsonl, trust
from continuity_core.fs import atomic_write, hexdigest
from continuity_core.stamps import now_iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt

    from continuity_core.schemas.hook import HookEvent
    from continuity_core.schemas.session import Session
    from continuity_core.store import Store

PATHS_MAX = 10


class Inflight:
    """The call a session started: `{"agent", "session_id", "tool_name", "started_at"}` and,
    where known, `"command"` and `"paths"`."""

    __slots__ = ("agent", "command", "paths", "session_id", "started_at", "tool_name")

    def __init__(
        self,
        *,
        agent: str,
        session_id: str,
        tool_name: str,
        started_at: str,
        command: str | None = None,
        paths: list[str] | None = None,
    ) -> None:
        self.agent = agent
        self.session_id = session_id
        self.tool_name = tool_name
        self.started_at = started_at
        self.command = command
        self.paths: list[str] = [] if paths is None else paths

    def to_json(self) -> str:
        data: dict[str, object] = {
            "agent": self.agent,
            "session_id": self.session_id,
            "tool_name": self.tool_name,
            "started_at": self.started_at,
        }
        if self.command is not None:
            data["command"] = self.command
        if self.paths:
            data["paths"] = self.paths
        return json.dumps(data)

    @classmethod
    def from_json(cls, data: bytes) -> Inflight:
        """ValueError unless `data` is a record `to_json` could have written."""
        raw = jsonl.loads(data)
        if not isinstance(raw, dict):
            raise ValueError("not an object")
        fields = {k: raw.get(k) for k in ("agent", "session_id", "tool_name", "started_at")}
        command, paths = raw.get("command"), raw.get("paths", [])
        if (
            not all(isinstance(v, str) for v in fields.values())
            or not (command is None or isinstance(command, str))
            or not (isinstance(paths, list) and all(isinstance(p, str) for p in paths))
        ):
            raise ValueError("not an in-flight record")
        return cls(
            agent=raw["agent"],
            session_id=raw["session_id"],
            tool_name=raw["tool_name"],
            started_at=raw["started_at"],
            command=command,
            paths=paths,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Inflight):
            return NotImplemented
        return self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Inflight({self.to_json()})"


def _redact(text: str) -> str:
    from continuity_core.redact import redact

    return redact(text)


def _path(store: Store, agent: str, session_id: str) -> str:
    digest = hexdigest(f"{agent}\0{session_id}".encode())
    return os.path.join(store.store_dir, "inflight", f"{digest[:20]}.json")


def record(store: Store, event: HookEvent, started_at: str | None = None) -> None:
    """Remember the call `event` is about to start (redacted); `started_at`, when the hook
    saw it, where this runs later (the pre-tool hook's detached child). A record of a call
    that started later is kept: the children of two calls may write out of order."""
    if not (event.agent and event.session_id and event.tool_name):
        return
    call = Inflight(
        agent=event.agent,
        session_id=event.session_id,
        tool_name=_redact(event.tool_name),
        started_at=started_at or now_iso(),
        command=_redact(event.command) if event.command else None,
        # a file may be named after a token
        paths=[_redact(p) for p in event.paths[:PATHS_MAX]],
    )
    store.folder_path("inflight")
    where = _path(store, event.agent, event.session_id)
    try:  # the detached child of an earlier call may write after the next call's child
        if _when(Inflight.from_json(trust.read_bytes(where)).started_at) > _when(call.started_at):
            return  # a later call is the one in flight
    except (OSError, trust.Untrusted, ValueError):
        pass  # none, or unreadable: replaced
    atomic_write(where, call.to_json(), durable=False)


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
        call = Inflight.from_json(trust.read_bytes(_path(store, session.agent, session.session_id)))
    except (OSError, trust.Untrusted, ValueError):
        return None
    if session.updated_at and _when(session.updated_at) > _when(call.started_at):
        return None  # the transcript moved on after the call began: it returned
    return call


def _when(stamp: str) -> dt.datetime:
    import datetime as dt

    from continuity_core.stamps import parse_time

    return parse_time(stamp) or dt.datetime.min.replace(tzinfo=dt.UTC)
