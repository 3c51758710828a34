"""What the three hook commands do once their input is read: checkpoint, pickup, pretool.

The caller (`baker`'s fast path) owns the contract with the agent: exit 0, deadline, valid
output or none. Here a hook finds the project from the event's cwd, does its work, and
returns the text to print, if any.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from continuity_core.adapters import load, load_all
from continuity_core.schemas.hook import HookEvent
from continuity_core.store import Store, find_project


def parse_event(agent: str | None, payload: bytes, argv: list[str]) -> tuple[Any, HookEvent | None]:
    """The agent's adapter and its parse of the payload; (adapter, None) when it is not ours."""
    if agent is None:
        return None, None
    adapter = load(agent)
    try:
        return adapter, adapter.parse_hook(payload, argv)
    except ValueError:
        return adapter, None


def project_store(event: HookEvent | None) -> Store | None:
    cwd = Path(event.cwd) if event is not None and event.cwd else Path.cwd()
    root = find_project(cwd)
    return Store(root) if root is not None else None


def checkpoint(agent: str | None, payload: bytes, argv: list[str]) -> tuple[Store | None, str]:
    from continuity_core import checkpoint as cp_mod

    adapter, event = parse_event(agent, payload, argv)
    store = project_store(event)
    if store is None:
        return None, ""
    if agent is not None and event is None and payload.strip():
        store.log("hook_bad_input", command="checkpoint", agent=agent, size=len(payload))
    adapters = {agent: adapter} if adapter is not None else load_all()[0]
    cp = cp_mod.take(store, adapters=adapters, event=event, agent=agent)
    summary = f"checkpoint {cp.id}"
    if cp.session is not None:
        summary += f" ({cp.session.agent} session {cp.session.session_id})"
    return store, summary
