"""Timestamps and time-sorted ids: the one place they are formatted and read.

`now_iso` for documents ("2026-11-30T05:27:15Z"), `iso` for an epoch or datetime in the same
form (`parse_time` reads it back), `stamp` for file names ("20261130T052715123456Z") and
`new_id` for ids that sort by time; core and the adapters import them from here.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # hooks stamp their log lines: no typing or datetime at import
    import datetime as dt
    from typing import Literal


def iso(when: float | dt.datetime) -> str:
    """An epoch or datetime as UTC ISO 8601 to the second, `Z`-suffixed (a naive datetime is
    local time, as `datetime.astimezone` takes it)."""
    import datetime as dt

    if isinstance(when, dt.datetime):
        moment = when.astimezone(dt.UTC)
    else:
        moment = dt.datetime.fromtimestamp(when, dt.UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_time(value: str | None) -> dt.datetime | None:
    """An ISO 8601 time (`Z` or an offset; none is UTC) as an aware datetime; None for what is
    none."""
    if not value:
        return None
    import datetime as dt

    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def now_iso(ms: bool = False) -> str:
    """Now as `iso` writes it, without datetime; `ms` adds milliseconds (calls that start
    within one second are told apart: the pre-tool hook's in-flight record)."""
    now = time.time()
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now))
    return f"{text}.{int(now * 1000) % 1000:03d}Z" if ms else f"{text}Z"


def stamp(precision: Literal["s", "ms", "us"] = "us") -> str:
    """The UTC time now, compact and sortable, for file names: `20261130T052715123456Z`."""
    seconds, ns = divmod(time.time_ns(), 1_000_000_000)  # as datetime's `%f`, without it
    text = time.strftime("%Y%m%dT%H%M%S", time.gmtime(seconds)) + f"{ns // 1000:06d}"
    cut = {"s": -6, "ms": -3, "us": None}[precision]
    return f"{text[:cut]}Z"


def new_id(precision: Literal["s", "ms", "us"] = "us") -> str:
    """An id that sorts by time: `stamp()` then three random bytes, `…Z-c3f00f`."""
    return f"{stamp(precision)}-{os.urandom(3).hex()}"
