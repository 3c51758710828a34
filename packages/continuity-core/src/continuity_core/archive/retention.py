"""What the agents will delete soon: each account's retention and what is not archived yet."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from continuity_core.adapters import Adapter
from continuity_core.archive.index import Archive, db_path
from continuity_core.errors import StoreError
from continuity_core.schemas.config import GlobalConfig

WITHIN_DAYS = 7  # what "soon" means: sessions deleted within this many days


class Retention(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One account's deletion policy and how many of its sessions it will delete soon."""

    agent: str
    account: str
    days: float | None  # None: the agent keeps sessions forever
    sessions: int = 0
    due: int = 0  # deleted within `WITHIN_DAYS`
    unarchived: int = 0  # of those, not yet (fully) in the archive
    source: str = ""  # where the policy was read


def retention_report(
    adapters: Mapping[str, Adapter], config: GlobalConfig, *, now: float | None = None
) -> list[Retention]:
    """Per account: how many sessions its agent will delete within `WITHIN_DAYS`.

    The policy is the adapter's `retention` ability (none: kept forever); the sessions are
    its `all_sessions`.
    """
    now = now or time.time()
    indexed: dict[str, int] = {}  # path -> bytes archived
    path = db_path()
    if path.exists():
        with contextlib.suppress(sqlite3.Error, StoreError), Archive(path) as archive:
            indexed = archive.sessions()
    out: list[Retention] = []
    for name, adapter in adapters.items():
        try:
            accounts = adapter.accounts(config)
        except Exception:  # noqa: S112 - a broken adapter is reported by doctor itself
            continue
        for account in accounts:
            policy = adapter.retention
            days, where = policy.retention_days(account) if policy else (None, "")
            item = Retention(agent=name, account=account.dir, days=days, source=where)
            try:
                refs = list(adapter.all_sessions([account]))
            except Exception:
                refs = []
            for ref in refs:
                item.sessions += 1
                if days is None or ref.mtime > now - (days - WITHIN_DAYS) * 86400:
                    continue
                item.due += 1
                offset = indexed.get(ref.path, -1)
                size = ref.size
                with contextlib.suppress(OSError):
                    size = size or os.stat(ref.path).st_size
                if offset < size:
                    item.unarchived += 1
            out.append(item)
    return out


def retention_findings(report: Sequence[Retention]) -> list[Any]:
    """`baker doctor` lines for the report: a warning per account that will lose sessions."""
    from continuity_core.adapters import Finding

    findings = []
    for item in report:
        if item.due == 0:
            continue
        missing = (
            f"; {item.unarchived} not archived yet — run `baker recall --index` to keep them"
            if item.unarchived
            else "; all are archived"
        )
        findings.append(
            Finding(
                level="warn" if item.unarchived else "info",
                message=(
                    f"{item.agent} ({item.account}) deletes sessions after {item.days:g} days: "
                    f"{item.due} will go within {WITHIN_DAYS} days{missing}"
                ),
                fix=f"raise the retention in {item.source}" if item.source else "",
            )
        )
    return findings
