"""`baker audit`: is Continuity itself working? A short health report over the last DAYS.

Reads `.baker/log/events.jsonl` (and its rotated `events.1.jsonl`) generically: every event
is counted by name, and the names in `EVENTS` feed the checks. Adds what the log cannot say:
stale SUSPECT markers in the note, turns without a checkpoint, and the adapters' own findings
about untrusted or modified hooks.
"""

from __future__ import annotations

import datetime as dt
import os
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from continuity_core import stamps
from continuity_core.jsonl import ForwardReader
from continuity_core.store import KEEP_CHECKPOINTS, Store

if TYPE_CHECKING:
    from continuity_core.adapters import Adapter

# Every event `Store.log` wrote is counted by name; docs/recall-audit.md lists the names and
# their fields, and code that logs a new kind of trouble adds its row there. These feed checks:
FAILURES = ("hook_error", "hook_bad_input", "hook_timeout")
TRUNCATIONS = {
    "pickup_truncated": "the pickup text hit its character cap",
    "brief_truncated": "a brief hit its token budget and dropped sections",
}
NOISY_TRAP = 5  # deliveries within the window, never acted on, that make a trap noisy
STALE_SUSPECT_HOURS = 24.0
CHECKPOINT_SLACK_S = 120.0  # a turn newer than the last checkpoint by more than this is missed

Level = Literal["ok", "info", "warn", "error"]


class Problem(msgspec.Struct, kw_only=True, omit_defaults=True):
    level: Level
    check: str  # "hooks", "truncation", "note", "traps", "checkpoints", "install"
    message: str
    fix: str = ""
    count: int = 0


class Report(msgspec.Struct, kw_only=True):
    days: float
    since: str
    events: dict[str, int]  # every event name seen in the window, known or not
    problems: list[Problem]

    @property
    def healthy(self) -> bool:
        return not any(p.level in ("warn", "error") for p in self.problems)


_event = msgspec.json.Decoder()


def events(store: Store, since: dt.datetime) -> Iterator[dict[str, Any]]:
    """Logged events at or after `since`, oldest first; broken lines are skipped."""
    folder = store.path("log")
    for name in ("events.1.jsonl", "events.jsonl"):
        path = folder / name
        if not path.exists():
            continue
        for line in ForwardReader(path):
            try:
                record = _event.decode(line)
            except msgspec.DecodeError:
                continue
            if not isinstance(record, dict) or not isinstance(record.get("event"), str):
                continue
            when = stamps.parse_time(str(record.get("t", "")))
            if when is not None and when >= since:
                yield record


def audit(
    root: Path,
    days: float = 7,
    *,
    adapters: Mapping[str, Adapter] | None = None,
    config: Any | None = None,
    now: dt.datetime | None = None,
) -> Report:
    now = now or dt.datetime.now(dt.UTC)
    since = now - dt.timedelta(days=days)
    store = Store(root)
    logged = list(events(store, since))
    counts = Counter(str(e["event"]) for e in logged)
    problems = [*_failures(logged), *_truncations(counts), *_traps(root, logged), *_pushes(logged)]
    if adapters is None:
        from continuity_core.adapters import load_all

        adapters, broken = load_all()
        problems += [Problem(level="error", check="install", message=m) for m in broken.values()]
    if config is None:
        from continuity_core.config import config_or_defaults

        config, broken_config = config_or_defaults()
        if broken_config is not None:  # the audit goes on with the default accounts
            problems.append(
                Problem(
                    level="error",
                    check="config",
                    message=broken_config,
                    fix="fix the file (`baker doctor` checks it); until then the hooks read only "
                    "the default accounts",
                )
            )
    session, ref_mtime, trouble = _newest(store, adapters, config)
    problems += trouble
    problems += _suspects(root, now, session)
    problems += _checkpoints(store, session, ref_mtime, since)
    problems += _install(root, adapters, config)
    return Report(
        days=days, since=stamps.iso(since), events=dict(sorted(counts.items())), problems=problems
    )


def _failures(logged: list[dict[str, Any]]) -> list[Problem]:
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for e in logged:
        if e["event"] in FAILURES:
            groups.setdefault((e["event"], str(e.get("command", "?"))), []).append(e)
    out = []
    for (name, command), items in sorted(groups.items()):
        last = items[-1]
        detail = last.get("error") or last.get("agent") or ""
        where = f" at {last['where']}" if last.get("where") else ""
        out.append(
            Problem(
                level="error" if name == "hook_error" else "warn",
                check="hooks",
                count=len(items),
                message=(
                    f"`baker {command}` {name.removeprefix('hook_').replace('_', ' ')} "
                    f"{len(items)}×, last {last.get('t', '?')}{where}"
                    + (f": {detail}" if detail else "")
                ),
                fix="see .baker/log/events.jsonl; run `baker doctor`",
            )
        )
    return out


def _pushes(logged: list[dict[str, Any]]) -> list[Problem]:
    """Automatic pushes that failed after the newest one that went through."""
    failed: list[dict[str, Any]] = []
    for e in logged:
        if e["event"] == "pushed":
            failed = []
        elif e["event"] == "push_failed":
            failed.append(e)
    if not failed:
        return []
    last = failed[-1]
    return [
        Problem(
            level="warn",
            check="push",
            count=len(failed),
            message=(
                f"automatic push to {last.get('remote', '?')} failed {len(failed)}×, last "
                f"{last.get('t', '?')}: {last.get('error', '?')}"
            ),
            fix="run `baker push` by hand to see git's own message (credentials, network)",
        )
    ]


def _truncations(counts: Counter[str]) -> list[Problem]:
    return [
        Problem(
            level="info",
            check="truncation",
            count=counts[name],
            message=f"{name.replace('_', ' ')} {counts[name]}×: {TRUNCATIONS[name]}",
            fix="shorten the note, or raise [brief] budget-tokens in ~/.baker/config.toml",
        )
        for name in TRUNCATIONS
        if counts[name]
    ]


def _traps(root: Path, logged: list[dict[str, Any]]) -> list[Problem]:
    from continuity_core import traps, trust

    delivered: Counter[str] = Counter()
    acted: set[str] = set()
    for e in logged:
        if e["event"] == "traps_delivered" and isinstance(e.get("ids"), list):
            delivered.update(str(i) for i in e["ids"])
        elif e["event"] == "trap_acted" and isinstance(e.get("trap"), str):
            acted.add(e["trap"])
    try:
        patterns = {t.id: t.pattern for t in traps.load(root, redact_why=False)}
    except (OSError, trust.Untrusted):
        patterns = {}
    # A trap removed since is no longer noisy; one acted on was worth its deliveries.
    return [
        Problem(
            level="warn",
            check="traps",
            count=n,
            message=f"trap {trap} ({patterns[trap]}) was delivered {n}× and never acted on",
            fix=f"narrow its pattern or remove it: `baker trap rm {trap}`",
        )
        for trap, n in delivered.most_common()
        if n >= NOISY_TRAP and trap not in acted and trap in patterns
    ]


def _newest(
    store: Store, adapters: Mapping[str, Adapter], config: Any
) -> tuple[Any | None, float, list[Problem]]:
    """The project's newest session (read), its file's mtime, and why it could not be read."""
    from continuity_core.sessions import newest, read_session

    try:
        found = newest(store.root, adapters, config)
        if found is None:
            return None, 0.0, []
        session = read_session(found.adapter, found.ref, store if store.exists else None)
    except Exception as e:  # audit reports; it never fails on an adapter's bug
        why = f"cannot read the newest session: {e}"
        return None, 0.0, [Problem(level="warn", check="checkpoints", message=why)]
    return session, found.ref.mtime, []


def _suspects(root: Path, now: dt.datetime, session: Any | None) -> list[Problem]:
    """SUSPECT markers left in the note, and a Now that the newest session already did."""
    from continuity_core import note as note_mod

    path = root / note_mod.NOTE_PATH
    try:
        text = note_mod.read_text(root)
        if text is None:
            return []
        age_h = (now.timestamp() - os.lstat(path).st_mtime) / 3600
    except OSError:
        return []
    out = []
    marked = [line.strip() for line in text.splitlines() if "SUSPECT" in line]
    if marked:
        stale = age_h >= STALE_SUSPECT_HOURS
        out.append(
            Problem(
                level="warn" if stale else "info",
                check="note",
                count=len(marked),
                message=(
                    f"{note_mod.NOTE_PATH} has {len(marked)} SUSPECT marker(s), "
                    f"{f'untouched for {age_h:.0f} h' if stale else 'recent'}: "
                    f"{marked[0][:120]}"
                ),
                fix="check whether that action already ran, then `baker now TEXT`",
            )
        )
    if session is not None:
        note = note_mod.parse(text)
        action = note.get("Now")
        since = note.meta.get("updated") or None
        call = note_mod.executed(action, session, since) if action else None
        if call is not None:
            out.append(
                Problem(
                    level="warn",
                    check="note",
                    message=(
                        f"Now is SUSPECT: {session.agent} session {session.session_id[:12]} "
                        f"already ran {call.name}"
                        + (f" at {call.timestamp}" if call.timestamp else "")
                        + f", and the note was not updated since: {action[:100]}"
                    ),
                    fix='check that action\'s effect, then `baker now "the next action"`',
                )
            )
    return out


def _checkpoints(
    store: Store, session: Any | None, ref_mtime: float, since: dt.datetime
) -> list[Problem]:
    """Compare the newest session's turns with the checkpoints written for it."""
    if not store.exists:
        return [
            Problem(
                level="warn",
                check="checkpoints",
                message=f"{store.root} has no .baker/: hooks cannot checkpoint here",
                fix="run `baker init`",
            )
        ]
    if session is None:
        return []
    updated = stamps.parse_time(session.updated_at) or dt.datetime.fromtimestamp(ref_mtime, dt.UTC)
    if updated < since:
        return []
    mine = []
    for path in store.checkpoint_paths():
        try:
            cp = msgspec.json.decode(path.read_bytes(), type=_CheckpointView)
        except (OSError, msgspec.DecodeError):  # a ValidationError is a DecodeError
            continue
        if cp.session is not None and cp.session.session_id == session.session_id:
            mine.append(cp.created_at)
    turns = len(session.requests)
    expected = min(turns, KEEP_CHECKPOINTS)
    label = f"{session.agent} session {session.session_id[:12]}"
    if not mine and turns:
        return [
            Problem(
                level="warn",
                check="checkpoints",
                count=turns,
                message=f"{label} had {turns} turn(s) and no checkpoint",
                fix="the hooks are not firing here: `baker doctor`, then `baker sync`",
            )
        ]
    out = []
    if len(mine) < expected:
        out.append(
            Problem(
                level="warn",
                check="checkpoints",
                count=expected - len(mine),
                message=f"{label}: {len(mine)} checkpoint(s) for {turns} turn(s)",
                fix="some turns ended without the checkpoint hook: `baker doctor`",
            )
        )
    times = [when for when in map(stamps.parse_time, mine) if when is not None]
    last = max(times, default=None)
    if last is not None and (updated - last).total_seconds() > CHECKPOINT_SLACK_S:
        out.append(
            Problem(
                level="warn",
                check="checkpoints",
                message=f"{label}: the last turn ({stamps.iso(updated)}) has no checkpoint "
                f"(newest {stamps.iso(last)})",
                fix="check the turn-end hook with `baker doctor`",
            )
        )
    return out


class _SessionView(msgspec.Struct):
    session_id: str = ""


class _CheckpointView(msgspec.Struct):
    created_at: str = ""
    session: _SessionView | None = None


def _install(root: Path, adapters: Mapping[str, Adapter], config: Any) -> list[Problem]:
    """The adapters' own findings about their hooks: untrusted, modified, missing."""
    out = []
    for name, adapter in adapters.items():
        try:
            findings = adapter.doctor(root, adapter.accounts(config))
        except Exception as e:  # one adapter's bug is one line, never the whole report
            out.append(
                Problem(level="warn", check="install", message=f"{name}: doctor failed: {e}")
            )
            continue
        for f in findings:
            if f.level in ("warn", "error"):
                message = f.message if f.message.startswith(f"{name}:") else f"{name}: {f.message}"
                out.append(Problem(level=f.level, check="install", message=message, fix=f.fix))
    return out
