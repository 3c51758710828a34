"""The limit ledger: record, replace, expire, clear; rotation entries; `baker limits` rows."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import msgspec
import pytest

from continuity_core import limits, stamps
from continuity_core.adapters import Account
from continuity_core.errors import BakerError
from continuity_core.schemas.config import AccountConfig, GlobalConfig
from continuity_core.schemas.session import ApiError, Message, Session
from tests.helpers.stub_adapter import StubAdapter


def _limit(agent: str = "claude", folder: str = "/tmp/acc", **changes: object) -> limits.Limit:
    fresh = limits.Limit(agent=agent, dir=folder, since=stamps.now_iso())
    return msgspec.structs.replace(fresh, **changes)


def test_record_replaces_the_entry_of_its_account_and_keeps_others() -> None:
    soon = stamps.iso(limits.now() + dt.timedelta(hours=1))
    limits.record(_limit(until=soon, message="first"))
    limits.record(_limit(agent="codex", folder="/tmp/codex"))
    limits.record(_limit(until=soon, message="second"))
    got = limits.read()
    assert sorted((lim.agent, lim.message) for lim in got) == [("claude", "second"), ("codex", "")]
    assert Path(limits.ledger_path()).stat().st_mode & 0o777 == 0o600


def test_limits_expire_at_reset_time_or_after_the_unknown_ttl() -> None:
    past = limits.now() - dt.timedelta(minutes=1)
    limits.record(_limit(folder="/a", until=stamps.iso(past)))
    old = limits.now() - dt.timedelta(seconds=limits.UNKNOWN_TTL_S + 5)
    limits.record(_limit(folder="/b", since=stamps.iso(old)))
    limits.record(_limit(folder="/c"))  # unknown reset, fresh: counts
    assert [lim.dir for lim in limits.read()] == ["/c"]


def test_clear_forgets_one_account_only() -> None:
    limits.record(_limit(folder="/a"))
    limits.record(_limit(folder="/b"))
    assert limits.clear("claude", "/a")
    assert not limits.clear("claude", "/a")
    assert [lim.dir for lim in limits.read()] == ["/b"]


def test_a_broken_ledger_holds_nothing_and_is_rewritten() -> None:
    path = Path(limits.ledger_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json")
    assert limits.read() == []
    limits.record(_limit())
    assert len(limits.read()) == 1


def test_earliest_prefers_the_first_known_reset() -> None:
    a = _limit(folder="/a", until=stamps.iso(limits.now() + dt.timedelta(hours=3)))
    b = _limit(folder="/b", until=stamps.iso(limits.now() + dt.timedelta(minutes=5)))
    assert limits.earliest([a, b]) is b
    assert limits.earliest([]) is None


class FakeAdapter(StubAdapter):
    name = "claude"
    display_name = "Claude Code"

    def accounts(self, config: GlobalConfig) -> list[Account]:
        return [Account(agent="claude", name="~/.claude", dir="/home/u/.claude")]


def test_rotation_entries_resolve_to_config_dirs() -> None:
    config = GlobalConfig(accounts={"work": AccountConfig(agent="claude", dir="/w/claude")})
    plain = limits.resolve("claude", config, FakeAdapter())
    assert (plain.agent, plain.account, plain.dir) == ("claude", None, "/home/u/.claude")
    work = limits.resolve("claude:work", config, FakeAdapter())
    assert (work.account, work.dir) == ("work", "/w/claude")
    assert work.label("Claude Code") == "Claude Code (work)"
    with pytest.raises(BakerError, match="no claude account named 'home'"):
        limits.resolve("claude:home", config, FakeAdapter())


def test_status_rows_have_the_documented_keys() -> None:
    config = GlobalConfig(accounts={"work": AccountConfig(agent="claude", dir="/w/claude")})
    entries = [limits.resolve(t, config, FakeAdapter()) for t in ("claude", "claude:work")]
    until = stamps.iso(limits.now() + dt.timedelta(hours=2))
    recorded = [
        _limit(folder="/w/claude", account="work", until=until, source="hook"),
        _limit(agent="codex", folder="/h/.codex"),
    ]
    rows = limits.status(entries, recorded)
    assert rows[0] == {
        "entry": "claude",
        "agent": "claude",
        "account": None,
        "limited": False,
        "since": None,
        "until": None,
        "source": None,
        "kind": None,
    }
    assert rows[1]["entry"] == "claude:work" and rows[1]["limited"] is True
    assert rows[1]["until"] == until and rows[1]["source"] == "hook"
    assert rows[2]["entry"] == "codex" and rows[2]["until"] is None


def test_a_limit_the_session_got_past_does_not_count() -> None:
    err = ApiError(kind="usage_limit", message="limit", timestamp="2026-01-01T10:00:00Z")
    ended = Session(
        agent="claude",
        session_id="s",
        errors=[err],
        messages=[Message(role="assistant", text="working", timestamp="2026-01-01T09:59:00Z")],
    )
    assert limits.turn_ended_on_limit(ended) is err
    later = Session(
        agent="claude",
        session_id="s",
        errors=[err],
        messages=[Message(role="assistant", text="done", timestamp="2026-01-01T11:00:00Z")],
    )
    assert limits.turn_ended_on_limit(later) is None
    retried = Session(
        agent="claude",
        session_id="s",
        errors=[err],
        messages=[
            Message(role="user", text="carry on", kind="request", timestamp="2026-01-01T10:05:00Z")
        ],
    )
    assert limits.turn_ended_on_limit(retried) is None  # a new turn began after it
    other = Session(
        agent="claude", session_id="s", errors=[ApiError(kind="overloaded", message="busy")]
    )
    assert limits.turn_ended_on_limit(other) is None


def test_a_turn_that_ended_on_a_limit_record_is_recorded_and_a_completed_one_clears_it(
    repo: object,
) -> None:
    from pathlib import Path

    from continuity_core import hooks
    from continuity_core.schemas.hook import HookEvent
    from continuity_core.store import Store

    store = Store(Path(str(repo)))
    store.folder_path("log")
    event = HookEvent(agent="claude", kind="stop", session_id="s")
    err = ApiError(
        kind="rate_limit",
        message="rate limit reached",
        timestamp="2026-01-01T10:00:00Z",
        reset_at=stamps.iso(limits.now() + dt.timedelta(hours=1)),
    )
    ended = Session(agent="claude", session_id="s", account="~/.claude", errors=[err])
    hooks.note_transcript_limit(store, FakeAdapter(), event, ended)
    (got,) = limits.read()
    assert (got.source, got.kind, got.dir, got.until) == (
        "transcript",
        "rate_limit",
        "/home/u/.claude",
        err.reset_at,
    )
    done = Session(
        agent="claude",
        session_id="s",
        account="~/.claude",
        errors=[err],
        messages=[Message(role="assistant", text="all done", timestamp="2026-01-01T11:00:00Z")],
    )
    hooks.note_transcript_limit(store, FakeAdapter(), event, done)
    assert limits.read() == []
    log = Path(store.folder_path("log"), "events.jsonl").read_text()
    assert '"limit_recorded"' in log and '"limit_cleared"' in log


# `limits.json` as builds before the plain records read and wrote it.
class OldLimit(msgspec.Struct, kw_only=True, omit_defaults=True):
    agent: str
    dir: str
    account: str = ""
    since: str
    until: str | None = None
    source: str = "hook"
    kind: str = "usage_limit"
    message: str = ""
    session_id: str = ""
    run: str = ""


class OldLedger(msgspec.Struct, kw_only=True):
    version: int = 1
    limits: list[OldLimit] = msgspec.field(default_factory=list)


def test_the_ledger_file_reads_both_ways_with_the_msgspec_structs_of_older_builds() -> None:
    """Same keys as builds that wrote `limits.json` with msgspec: each reads the other's."""
    until = stamps.iso(limits.now() + dt.timedelta(hours=1))
    limits.record(_limit(folder="/a", account="work", until=until, message="hit — 5-hour"))
    path = Path(limits.ledger_path())
    old = msgspec.json.decode(path.read_bytes(), type=OldLedger)
    assert old.version == 1
    assert msgspec.to_builtins(old.limits) == [msgspec.to_builtins(lim) for lim in limits.read()]
    assert old.limits[0].account == "work" and old.limits[0].message == "hit — 5-hour"

    since = stamps.now_iso()
    written = OldLedger(limits=[OldLimit(agent="codex", dir="/b", since=since, source="output")])
    path.write_bytes(msgspec.json.encode(written) + b"\n")
    (got,) = limits.read()
    assert (got.agent, got.dir, got.since, got.source, got.until) == (
        "codex",
        "/b",
        since,
        "output",
        None,
    )


def test_a_ledger_entry_that_does_not_fit_is_refused_as_msgspec_refused_it() -> None:
    path = Path(limits.ledger_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    since = stamps.now_iso()
    path.write_text(f'{{"limits": [{{"agent": "claude", "dir": "/a", "since": "{since}"}}]}}')
    assert len(limits.read()) == 1  # `version` has its default
    for bad in ('"source": "guess"', '"until": 5', '"agent": null'):
        path.write_text(
            f'{{"version": 1, "limits": [{{"agent": "claude", "dir": "/a", '
            f'"since": "{since}", {bad}}}]}}'
        )
        assert limits.read() == [], bad
