"""The limit ledger: which agent account hit a usage or rate limit, since when, until when.

One small JSON file, `$BAKER_HOME/limits.json`, one entry per agent and account (config dir).
The hooks write it when a turn ends on a limit (from the hook's payload or the transcript's
error record), `baker run` writes it when only the agent's output said so, and `baker run`,
`baker limits` and `baker resume --next` read it. An entry expires at its reset time; one
whose reset time is unknown counts for `UNKNOWN_TTL_S` after it was recorded.

It also reads `[rotation]` entries ("claude", "claude:work"): which agent, which account.
Core names no agent here: entries are strings, accounts come from the adapters.
"""

from __future__ import annotations

import os
from typing import Literal

import msgspec
from msgspec import Struct, field

from continuity_core import trust
from continuity_core.errors import BakerError
from continuity_core.fs import atomic_write, ensure_private_dir
from continuity_core.stamps import iso, parse_time
from continuity_core.store import LOCK_TIMEOUT_S, Lock, encode_document

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Sequence
    from typing import Any

    from continuity_core.adapters import Adapter

    StrPath = str | os.PathLike[str]
    from continuity_core.schemas.config import GlobalConfig
    from continuity_core.schemas.session import ApiError, Session

Source = Literal["hook", "transcript", "output"]

LEDGER = "limits.json"
UNKNOWN_TTL_S = 3600  # a usage limit without a reset time counts this long
RATE_TTL_S = 300  # a rate limit without one: it passes in minutes, not hours
RUN_ENV = "BAKER_RUN_ID"  # set by `baker run` for the agent it supervises; hooks record it
LIMIT_KINDS = ("usage_limit", "rate_limit")


class Limit(Struct, kw_only=True, omit_defaults=True):
    agent: str
    dir: str  # the account's config dir, absolute: the key with `agent`
    account: str = ""  # the name the user knows it by, "" for the agent's default
    since: str  # ISO 8601, UTC
    until: str | None = None  # the reset time when known
    source: Source = "hook"
    kind: str = "usage_limit"
    message: str = ""
    session_id: str = ""
    run: str = ""  # the `baker run` that supervised the agent, if any


class Ledger(Struct, kw_only=True):
    """`limits.json`: `{"version": 1, "limits": [...]}`, as builds with msgspec wrote it."""

    version: int = 1
    limits: list[Limit] = field(default_factory=list)


def ledger_path() -> str:
    return os.path.join(trust.home_root(), LEDGER)


def now() -> dt.datetime:
    import datetime as dt

    return dt.datetime.now(dt.UTC)


def expires(limit: Limit) -> dt.datetime:
    """When `limit` stops counting: its reset time, or UNKNOWN_TTL_S after it was recorded."""
    until = parse_time(limit.until)
    if until is not None:
        return until
    import datetime as dt

    since = parse_time(limit.since) or now()
    ttl = RATE_TTL_S if limit.kind == "rate_limit" else UNKNOWN_TTL_S
    return since + dt.timedelta(seconds=ttl)


def read(path: StrPath | None = None) -> list[Limit]:
    """Every recorded limit still in force; a missing or broken ledger holds none."""
    path = path or ledger_path()
    try:
        with open(path, "rb") as f:
            ledger = msgspec.json.decode(f.read(), type=Ledger)
    except (OSError, ValueError):  # none, not JSON, or not a ledger (msgspec.ValidationError)
        return []
    at = now()
    return [lim for lim in ledger.limits if expires(lim) > at]


def key(agent: str, folder: str) -> tuple[str, str]:
    return agent, os.path.realpath(os.path.expanduser(folder))


def record(limit: Limit) -> Limit:
    """Add `limit`, replacing the entry of its agent and account, dropping expired ones."""
    if not limit.run:
        limit.run = os.environ.get(RUN_ENV, "")
    _rewrite(limit.agent, limit.dir, limit)
    return limit


def clear(agent: str, folder: str) -> bool:
    """Forget the limit of one account (a turn completed there); True when there was one."""
    if find(read(), agent, folder) is None:
        return False
    _rewrite(agent, folder)
    return True


def _rewrite(agent: str, folder: str, limit: Limit | None = None) -> None:
    """The ledger without the entry of `agent` and `folder` (and expired ones), plus `limit`.

    Read-modify-write under an exclusive lock on a sidecar file (the store's lock); the write
    itself is atomic either way.
    """
    path = ledger_path()
    ensure_private_dir(os.path.dirname(path))
    with Lock(f"{path}.lock", LOCK_TIMEOUT_S):
        kept = [lim for lim in read(path) if key(lim.agent, lim.dir) != key(agent, folder)]
        kept += [limit] if limit is not None else []
        atomic_write(path, encode_document(Ledger(limits=kept)), durable=False)


def find(limits: Sequence[Limit], agent: str, folder: str) -> Limit | None:
    wanted = key(agent, folder)
    return next((lim for lim in limits if key(lim.agent, lim.dir) == wanted), None)


# --- rotation entries -----------------------------------------------------------------------


class Entry(Struct, kw_only=True, frozen=True):
    """One `[rotation] order` item resolved: "claude:work" -> agent, account name, dir."""

    text: str
    agent: str
    account: str | None  # a name under [accounts]; None for the agent's default
    dir: str

    def label(self, display_name: str) -> str:
        return f"{display_name} ({self.account})" if self.account else display_name


def resolve(text: str, config: GlobalConfig, adapter: Adapter) -> Entry:
    """An entry of `[rotation] order` with its account's config dir; BakerError if unknown."""
    agent, _, account = text.partition(":")
    if not account:
        accounts = adapter.accounts(config)
        if not accounts:
            raise BakerError(f"{adapter.display_name} has no config dir to start in")
        return Entry(text=text, agent=agent, account=None, dir=accounts[0].dir)
    named = config.accounts.get(account)
    if named is None or named.agent != agent:
        import difflib

        names = [n for n, a in config.accounts.items() if a.agent == agent]
        near = difflib.get_close_matches(account, names, n=1)
        raise BakerError(
            f"[rotation] entry {text!r}: no {agent} account named {account!r} "
            "under [accounts] in ~/.baker/config.toml"
            + (f" (did you mean {agent}:{near[0]}?)" if near else "")
        )
    from continuity_core.adapters.kit import expand

    return Entry(text=text, agent=agent, account=account, dir=expand(named.dir))


def account_dir(adapter: Adapter, config: GlobalConfig, account: str) -> str:
    """The config dir of a session's `account` (a name from the adapter, or a dir)."""
    for acc in adapter.accounts(config):
        if account in (acc.name, acc.dir):
            return str(acc.dir)
    from continuity_core.adapters.kit import expand

    return expand(account) if account else str(adapter.accounts(config)[0].dir)


def account_name(config: GlobalConfig, agent: str, folder: str) -> str:
    """The [accounts] name whose dir is `folder`, or "" (the default, or an unnamed dir)."""
    wanted = key(agent, folder)
    return next((n for n, acc in config.accounts.items() if key(acc.agent, acc.dir) == wanted), "")


def status(entries: Sequence[Entry], limits: Sequence[Limit]) -> list[dict[str, Any]]:
    """`baker limits --json`: one object per rotation entry, then recorded limits of others."""
    rows = [_row(e.text, e.agent, e.account, find(limits, e.agent, e.dir)) for e in entries]
    seen = {key(e.agent, e.dir) for e in entries}
    for lim in limits:
        if key(lim.agent, lim.dir) not in seen:
            seen.add(key(lim.agent, lim.dir))
            text = f"{lim.agent}:{lim.account}" if lim.account else lim.agent
            rows.append(_row(text, lim.agent, lim.account or None, lim))
    return rows


def _row(text: str, agent: str, account: str | None, lim: Limit | None) -> dict[str, Any]:
    row = {"entry": text, "agent": agent, "account": account, "limited": lim is not None}
    return row | {f: getattr(lim, f) if lim else None for f in ("since", "until", "source", "kind")}


def earliest(limits: Sequence[Limit]) -> Limit | None:
    """The limit that lifts first (a known reset time before an unknown one)."""
    return min(limits, key=expires, default=None)


def turn_ended_on_limit(session: Session) -> ApiError | None:
    """The session's last error when its last turn ended on a usage or rate limit, else None:
    a limit the session got past (a later request or response: a new turn began) does not
    count, as in a session resumed in another account with the old limit in its history."""
    err = turn_ended_on_error(session)
    return err if err is not None and err.kind in LIMIT_KINDS else None


def turn_ended_on_error(session: Session) -> ApiError | None:
    """The session's last error when its last turn ended in it with no answer after it (any
    kind: a limit, an overload, an API error), else None."""
    err = session.last_error
    if err is None:
        return None
    at = parse_time(err.timestamp)
    answered = at is not None and any(
        msg.kind in ("request", "response")
        and msg.text != err.message
        and (later := parse_time(msg.timestamp)) is not None
        and later > at
        for msg in session.messages
    )
    return None if answered else err


def from_transcript(
    err: ApiError,
    session: Session,
    *,
    agent: str,
    dir: str,
    account: str,
    run: str = "",
    since: dt.datetime | None = None,
) -> Limit:
    """The ledger entry for a turn that ended on the limit record `err` of `session`: since
    the record's time (now when it has none), until the reset time it names."""
    since = since or parse_time(err.timestamp) or now()
    return Limit(
        agent=agent,
        dir=dir,
        account=account,
        since=iso(since),
        until=err.reset_at or reset_in_text(err.message, since),
        source="transcript",
        kind=err.kind,
        message=err.message[:500],
        session_id=session.session_id,
        run=run,
    )


def from_status_line(
    text: str, err: ApiError, session: Session, *, agent: str, dir: str, account: str, run: str = ""
) -> Limit:
    """The ledger entry for a turn the transcript shows ended in an API error with no answer,
    whose kind only the agent's status line (`text`) says: a rate limit when it says so
    ("rate limit", "429", "too many requests"), else a usage limit; the reset it names."""
    since = parse_time(err.timestamp) or now()
    low = text.lower()
    rate = any(w in low for w in ("rate limit", "rate-limit", "429", "too many requests"))
    return msgspec.structs.replace(
        from_transcript(err, session, agent=agent, dir=dir, account=account, run=run, since=since),
        until=reset_in_text(text, since) or reset_in_text(err.message, since),
        source="output",
        kind="rate_limit" if rate else "usage_limit",
        message=text[:500],
    )


# The forms agents write a reset in. A clock time ("resets 3pm", "try again at 6:20 AM",
# "resets 15:00 (Europe/Berlin)", "at 5:41am UTC"), a span ("in 3 hours", "in 2h 30m",
# "in 45 minutes"), an ISO-8601 time, an epoch (seconds or milliseconds).
_CLOCK = (
    r"(?i)\b(?:resets?|reset at|try again at|available (?:again )?at|until|at)\s+"
    r"(?P<h>[01]?\d|2[0-3])(?::(?P<m>[0-5]\d))?\s*(?P<ap>[ap]\.?m\.?)?"
    r"(?:\s*\(?(?P<tz>UTC|GMT|Z|[A-Za-z]+/[A-Za-z_]+(?:/[A-Za-z_]+)?)\)?)?"
)
_SPAN = (
    r"(?i)\bin\s+(?P<n>\d+(?:\.\d+)?)\s*(?P<u>h(?:ours?|rs?)?|m(?:in(?:ute)?s?)?"
    r"|s(?:ec(?:ond)?s?)?|d(?:ays?)?)\b"
    r"(?:\s*(?:and\s*)?(?P<n2>\d+)\s*(?P<u2>m(?:in(?:ute)?s?)?|s(?:ec(?:ond)?s?)?)\b)?"
)
_ISO = r"\b(?P<iso>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)"
_EPOCH = r"(?i)(?:reset[s_a-z]*\W{1,3}|\|)(?P<epoch>\d{10}(?:\d{3})?)\b"
_UNIT_S = {"h": 3600, "m": 60, "s": 1, "d": 86400}


def reset_in_text(text: str, at: dt.datetime) -> str | None:
    """The reset time a message names, in any form agents write it (see above), as UTC ISO
    8601; None when it names none. A span counts from `at` (the record's time); a clock time
    is its next occurrence at or after `at`, in its own zone when it names one, else in this
    machine's zone (where the agent ran)."""
    import datetime as dt
    import re

    if not text:
        return None
    if m := re.search(_ISO, text):
        when = parse_time(m["iso"].replace(" ", "T"))
        if when is not None:
            return iso(when)
    if m := re.search(_EPOCH, text):
        value = int(m["epoch"])
        return iso(dt.datetime.fromtimestamp(value / 1000 if value > 10**11 else value, dt.UTC))
    if m := re.search(_SPAN, text):
        seconds = float(m["n"]) * _UNIT_S[m["u"][0].lower()]
        if m["n2"]:
            seconds += int(m["n2"]) * _UNIT_S[m["u2"][0].lower()]
        return iso(at + dt.timedelta(seconds=seconds))
    if m := re.search(_CLOCK, text):
        hour, minute = int(m["h"]), int(m["m"] or 0)
        if m["ap"]:
            if hour > 12:
                return None
            hour = hour % 12 + (12 if m["ap"][0].lower() == "p" else 0)
        elif m["m"] is None:
            return None  # a bare number ("at 3") is no clock time
        zone: Any = dt.UTC if m["tz"] and m["tz"].upper() in ("UTC", "GMT", "Z") else None
        if m["tz"] and zone is None:
            try:
                from zoneinfo import ZoneInfo

                zone = ZoneInfo(m["tz"])
            except (KeyError, ValueError, OSError):
                pass  # a zone this machine does not know: its own
        local = at.astimezone(zone)
        when = local.replace(hour=hour, minute=minute, second=0, microsecond=0)
        if when < local:
            when += dt.timedelta(days=1)
        return iso(when.astimezone(dt.UTC))
    return None


def rotation(config: GlobalConfig, load: Any) -> list[Entry]:
    """`[rotation] order` resolved with each agent's adapter (`load(name)`)."""
    return [resolve(text, config, load(text.partition(":")[0])) for text in config.rotation.order]


def next_entry(
    entries: Sequence[Entry], current: tuple[str, str] | None, recorded: Sequence[Limit]
) -> Entry | None:
    """The first entry after `current` (agent, dir) in the order, wrapping around, that is not
    limited and is not `current`; the first not limited when `current` is None or not in the
    order."""
    keys = [key(e.agent, e.dir) for e in entries]
    here = key(*current) if current is not None else None
    start = keys.index(here) + 1 if here in keys else 0
    avoid = {here, *(key(lim.agent, lim.dir) for lim in recorded)}
    order = [*entries[start:], *entries[:start]]  # wrapping around
    return next((e for e in order if key(e.agent, e.dir) not in avoid), None)


# What agents print when a turn ends on a limit, for `baker run` when no hook or record says
# so: wording seen across agents, none specific to one ("You've hit your 5-hour limit",
# "usage limit reached", "exceeded your current quota", "rate limit exceeded").
OUTPUT_LIMIT = (
    r"(?:you'?ve |you have )?hit your [\w -]{0,30}?limit"
    r"|usage limit (?:has been )?(?:reached|exceeded)|reached your usage limit"
    r"|rate limit (?:reached|exceeded)|exceeded your current quota|quota exceeded"
)


def describe(limit: Limit) -> str:
    """ "hit its 5-hour limit" from the message when it names one, else "hit a usage limit"."""
    import re

    m = re.search(r"hit your ([\w-]+(?: [\w-]+)?) limit", limit.message, re.I)
    if m:
        return f"hit its {m.group(1)} limit"
    return "hit a rate limit" if limit.kind == "rate_limit" else "hit its usage limit"
