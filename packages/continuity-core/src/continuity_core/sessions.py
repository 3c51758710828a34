"""Finding the newest session of a project across every adapter and account."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from continuity_core.adapters import Account
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.session import SessionRef


@dataclass
class Found:
    ref: SessionRef | None
    adapter: Any | None
    searched: list[str] = field(default_factory=list)  # "claude: ~/.claude (3 sessions)"
    errors: list[str] = field(default_factory=list)


def accounts_for(adapter: Any, config: GlobalConfig, account: str | None = None) -> list[Account]:
    """The adapter's accounts, narrowed to the one named `account` (by name or dir)."""
    accounts: list[Account] = adapter.accounts(config)
    if account is None:
        return accounts
    named = config.accounts.get(account)
    if named is not None and named.agent == adapter.name:
        from continuity_core.adapters import expand

        return [Account(agent=adapter.name, name=account, dir=expand(named.dir))]
    return [a for a in accounts if account in (a.name, a.dir)]


def newest(
    project: Path,
    adapters: Mapping[str, Any],
    config: GlobalConfig,
    *,
    agent: str | None = None,
    account: str | None = None,
    session_id: str | None = None,
) -> Found:
    """The newest session of `project`; `agent`, `account`, `session_id` narrow the search."""
    found = Found(ref=None, adapter=None)
    for name, adapter in adapters.items():
        if agent and name != agent:
            continue
        try:
            accounts = accounts_for(adapter, config, account)
            for acc in accounts:
                found.searched.append(f"{name}: {acc.dir}")
            best: SessionRef | None = None
            for ref in adapter.discover(project, accounts):
                if session_id and not ref.session_id.startswith(session_id):
                    continue
                best = ref
                break  # discover yields newest first
        except Exception as e:  # one adapter's failure never hides the others' sessions
            found.errors.append(f"{name}: {e}")
            continue
        if best is not None and (found.ref is None or best.mtime > found.ref.mtime):
            found.ref, found.adapter = best, adapter
    return found


@dataclass
class Recent:
    refs: list[SessionRef]  # newest first, every adapter and account together
    searched: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def recent(
    project: Path,
    adapters: Mapping[str, Any],
    config: GlobalConfig,
    *,
    agent: str | None = None,
    account: str | None = None,
    limit: int = 10,
) -> Recent:
    """This project's newest `limit` sessions across adapters and accounts, newest first.

    Each adapter's discovery already yields newest first, so at most `limit` are taken from
    each before the merge."""
    out = Recent(refs=[])
    for name, adapter in adapters.items():
        if agent and name != agent:
            continue
        try:
            accounts = accounts_for(adapter, config, account)
            out.searched += [f"{name}: {acc.dir}" for acc in accounts]
            for taken, ref in enumerate(adapter.discover(project, accounts), start=1):
                out.refs.append(ref)
                if taken >= limit:  # discovery can be costly: read no further
                    break
        except Exception as e:  # one adapter's failure never hides the others' sessions
            out.errors.append(f"{name}: {e}")
    out.refs.sort(key=lambda r: r.mtime, reverse=True)
    del out.refs[limit:]
    return out


def read_session(adapter: Any, ref: SessionRef, store: Any | None = None) -> Any:
    """Read `ref` through the project's cursor cache when there is one."""
    from continuity_core.transcript import Cursor

    cursor = store.load_cursor(adapter.name, ref.path, Cursor) if store is not None else None
    cursor = adapter.read(ref, cursor)
    if store is not None and store.exists:
        with contextlib.suppress(OSError):
            store.save_cursor(adapter.name, ref.path, cursor)
    return cursor.session
