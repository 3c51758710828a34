"""Choosing the previous session of a project: one rule for every command.

The previous session is the newest session of the project, across every adapter and account,
that did work: a model answer or a tool call. A newer session that failed before doing any
(no answer, an API error before any output, an empty retry) does not replace it; it is kept
as a failed attempt for the brief to name. `--from`, `--session` and the source account
narrow the candidates and, when nothing is left, `NoMatch` says what exists instead.

Deciding "did work" reads a session, so only the candidates newer than the first that did
work are read (through the project's cursor cache).
"""

from __future__ import annotations

import itertools
import os

import msgspec
from msgspec import Struct, field

from continuity_core.adapters import Account
from continuity_core.adapters.kit import expand
from continuity_core.errors import BakerError
from continuity_core.fs import inside
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.session import Session, SessionRef
from continuity_core.stamps import iso, parse_time

TYPE_CHECKING = False
if TYPE_CHECKING:  # a checkpoint imports this module: nothing here it does not use
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any, Literal

    from continuity_core.adapters import Adapter
    from continuity_core.trust import StrPath

    State = Literal["did work", "failed", "limit", "interrupted"]
# Failed sessions read, newest first, before giving up on finding one that did work.
MAX_FAILED = 12
# Refs taken from each adapter's discovery: `baker sessions --limit` and the choice never need
# more, and it bounds the work on a folder with thousands of sessions.
PER_ADAPTER = 200


class NoMatch(BakerError):
    """A filter (`--from`, `--session`, an account) matched no session of the project."""


class Candidate(Struct, kw_only=True):
    ref: SessionRef
    adapter: Adapter


class Found(Struct, kw_only=True):
    """The candidates of a project, newest first, and what was searched to find them."""

    candidates: list[Candidate] = field(default_factory=list)
    searched: list[str] = field(default_factory=list)  # "claude: /home/u/.claude"
    errors: list[str] = field(default_factory=list)
    # A plain folder (`plain_folder`): the folders below it whose sessions were left out
    below: list[str] = field(default_factory=list)


class Choice(Struct, kw_only=True):
    """The session that did work, the newer ones that failed, and how they were found."""

    ref: SessionRef | None = None
    adapter: Adapter | None = None
    session: Session | None = None
    failed: list[tuple[SessionRef, Session]] = field(default_factory=list)  # newest first
    searched: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    below: list[str] = field(default_factory=list)  # as `Found.below`


class Previous(Struct, kw_only=True):
    """The newest verifiable earlier session as a pickup finds it (`pickup.find_previous`),
    or why there is none."""

    why_not: str
    session: Session | None = None
    ref: SessionRef | None = None
    source: str = ""  # "transcript" or "checkpoint <id>"
    failed: list[str] = field(default_factory=list)  # newer attempts that did no work


def accounts_for(
    adapter: Adapter, config: GlobalConfig, account: str | None = None
) -> list[Account]:
    """The adapter's accounts, narrowed to `account`: a name from config.toml, a name as
    listed, or a config folder that exists (`~/.claude-work`, relative or absolute).

    The adapter resolves the folder, as it resolves its own accounts (an agent may keep its
    files in a folder below the one the user wrote): this is the one place that does it.
    """
    accounts: list[Account] = adapter.accounts(config)
    if account is None:
        return accounts
    if not account.strip():
        return []  # an empty `--account "$ACCOUNT"` is no folder (it would be the current one)
    named = config.accounts.get(account)
    if named is not None:
        if named.agent != adapter.name:
            return []
        raw = named.dir
        listed = [a for a in accounts if a.name == account]
    else:
        raw = account
        wanted = os.path.realpath(expand(account))
        listed = [a for a in accounts if account == a.name or os.path.realpath(a.dir) == wanted]
        if not listed and not os.path.isdir(wanted):
            return []
    if not listed:  # a folder the adapter lists under another name, or lists not at all
        alone = adapter.accounts(GlobalConfig(transcripts={adapter.name: [raw]}))
        folder = next((a.dir for a in alone if a.name == raw), expand(raw))
        listed = [a for a in accounts if os.path.realpath(a.dir) == os.path.realpath(folder)]
        listed = listed or [Account(agent=adapter.name, name=account, dir=folder)]
    return [msgspec.structs.replace(listed[0], name=account) if named else listed[0]]


def kept_matches(
    session: Session,
    config: GlobalConfig,
    *,
    agent: str | None = None,
    account: str | None = None,
    session_id: str | None = None,
) -> bool:
    """Whether a session kept by a checkpoint (its transcript gone) passes the filters."""
    if agent and session.agent != agent:
        return False
    if session_id and not session.session_id.startswith(session_id):
        return False
    if not account:
        return True
    named = config.accounts.get(account)
    if named is not None and named.agent != session.agent:
        return False
    wanted = {account, os.path.realpath(expand(named.dir if named else account))}
    have = {session.account, os.path.realpath(expand(session.account))}
    return bool(session.account) and bool(wanted & have)


def did_work(session: Session) -> bool:
    """A model answer or a tool call: what a session that did something leaves behind."""
    if session.tool_calls or session.files_edited or session.todos:
        return True
    return any(
        m.role == "assistant" and m.kind == "response" and m.text.strip() for m in session.messages
    )


def state(session: Session, store: Any = None) -> State:
    """How a session ended, in the words of `baker sessions`. With its `store`, `interrupted`
    also where only the pre-tool hook saw the last call start (Gemini CLI writes a call only
    once it returns), as the brief and `baker now` name it."""
    if session.ended_on_limit:
        return "limit"
    if not did_work(session):
        return "failed"
    if session.pending_calls or session.last_error is not None or session.turn_incomplete:
        return "interrupted"
    if store is not None:
        from continuity_core import inflight

        if inflight.unrecorded(store, session) is not None:
            return "interrupted"
    return "did work"


# Folders below a plain folder named when its own sessions are none
MAX_BELOW = 5


def plain_folder(project: StrPath) -> bool:
    """Whether `project` is neither in a git work tree nor a Continuity project (`.baker/`):
    `/`, `~` or `/tmp` reached by mistake. Only the sessions started in such a folder are its
    own; the ones started below it belong to other projects."""
    from continuity_core.store import project_root, worktree_root

    return project_root(project) is None and worktree_root(project) is None


def why_none(project: StrPath, below: list[str]) -> str:
    """Why a plain folder has no session, naming where the sessions below it are ("" when
    none were left out)."""
    if not below:
        return ""
    return (
        f"{project} is not a project (no git repository, no .baker/), so only sessions "
        f"started in it count; sessions below it exist in {', '.join(below)}: run baker there"
    )


def find(
    project: StrPath,
    adapters: Mapping[str, Adapter],
    config: GlobalConfig,
    *,
    agent: str | None = None,
    account: str | None = None,
    session_id: str | None = None,
    exclude: str | None = None,
    strict: bool = True,
) -> Found:
    """Every session of `project` the filters leave, newest first (discovery only: no reads).

    With `strict`, a filter that leaves nothing raises `NoMatch` naming what exists instead.
    """
    found = Found()
    exact = plain_folder(project)
    refs: list[Candidate] = []
    streams = 0
    chosen = {n: a for n, a in adapters.items() if not agent or n == agent}
    for name, adapter in chosen.items():
        try:
            accounts = accounts_for(adapter, config, account)
        except Exception as e:  # one adapter's failure never hides the others' sessions
            found.errors.append(f"{name}: {e}")
            continue
        found.searched += [f"{name}: {acc.dir}" for acc in accounts]
        if accounts or account is None:  # the first PER_ADAPTER refs; a failure ends its own
            try:
                for ref in itertools.islice(adapter.discover(project, accounts), PER_ADAPTER):
                    refs.append(Candidate(ref=ref, adapter=adapter))
            except Exception as e:
                found.errors.append(f"{name}: {e}")
            streams += 1
    # Each stream is newest first and at most PER_ADAPTER long: one stable sort merges them
    # (heapq would cost a pickup its import), equal times in adapter then discovery order.
    merged = refs if streams == 1 else sorted(refs, key=lambda c: -c.ref.mtime)
    for cand in merged:
        ref = cand.ref
        # A session with no cwd: discovery placed it in the project; nothing says otherwise.
        if ref.session_id == exclude or (ref.cwd and not inside(project, ref.cwd)):
            continue
        if exact and ref.cwd and os.path.realpath(ref.cwd) != os.path.realpath(project):
            folder = os.path.realpath(ref.cwd)
            if folder not in found.below and len(found.below) < MAX_BELOW:
                found.below.append(folder)
            continue
        if session_id and not (ref.session_id.startswith(session_id) or ref.path == session_id):
            continue
        found.candidates.append(cand)
    if strict and not found.candidates and (agent or account is not None or session_id):
        raise NoMatch(no_match(project, adapters, config, found, agent, account, session_id))
    return found


def no_match(
    project: StrPath,
    adapters: Mapping[str, Adapter],
    config: GlobalConfig,
    found: Found,
    agent: str | None,
    account: str | None,
    session_id: str | None,
) -> str:
    """Why the filters left no session, and what exists instead."""
    parts = [f"--from {agent}"] if agent else []
    parts += [f"account {account!r}"] if account is not None else []
    parts += [f"--session {session_id}"] if session_id else []
    asked = " ".join(parts)
    import difflib

    if agent and agent not in adapters:
        near = difflib.get_close_matches(agent, list(adapters), n=1)
        why = f"no adapter named {agent!r} is loaded (installed: {', '.join(adapters) or 'none'})"
        why += f"; did you mean {near[0]!r}?" if near else ""
    elif account is not None and not found.searched:
        accounts = [a for ad in adapters.values() for a in _safe_accounts(ad, config)]
        known = sorted({f"{a.name} ({a.agent})" for a in accounts})
        near = difflib.get_close_matches(account, sorted({a.name for a in accounts}), n=1)
        hint = f"did you mean {near[0]!r}? " if near else ""
        why = (
            f"no account {account!r} is known ({hint}accounts: {', '.join(known) or 'none'}; "
            "name one from [accounts] in ~/.baker/config.toml or pass a config folder)"
        )
    else:
        why = f"nothing matches {asked} (searched: {'; '.join(found.searched)})"
    return "\n".join(
        [f"no session of {project} for {asked}: {why}", *listing(project, adapters, config)]
    )


def listing(project: StrPath, adapters: Mapping[str, Adapter], config: GlobalConfig) -> list[str]:
    """What exists instead: the project's newest sessions in every agent and account."""
    try:
        found = find(project, adapters, config, strict=False)
    except Exception:  # the listing is a courtesy; the error stands without it
        found = Found()
    every = found.candidates[:8]
    if not every:
        why = why_none(project, found.below)
        return ["This project has no sessions in any agent or account.", *([why] if why else [])]
    return [
        "Sessions of this project (see `baker sessions`):",
        *(
            f"  {c.ref.agent}  {c.ref.account}  {c.ref.session_id}  last {_last_activity(c)}"
            for c in every
        ),
    ]


def _last_activity(cand: Candidate) -> str:
    """The session's own last activity, as `baker sessions` shows it; the file's time when the
    transcript says none or cannot be read."""
    try:
        updated = read_session(cand.adapter, cand.ref).updated_at
    except Exception:
        updated = None
    return updated or iso(cand.ref.mtime)


def _safe_accounts(adapter: Adapter, config: GlobalConfig) -> list[Account]:
    try:
        return list(adapter.accounts(config))
    except Exception:
        return []


def read_session(adapter: Adapter, ref: SessionRef, store: Any | None = None) -> Session:
    from continuity_core.transcript import Cursor

    cursor = store.load_cursor(adapter.name, ref.path, Cursor) if store is not None else None
    cursor = adapter.read(ref, cursor)
    if store is not None and store.exists:
        try:  # no contextlib: one more import on every checkpoint
            store.save_cursor(adapter.name, ref.path, cursor)
        except OSError:
            pass  # a cursor is a cache: one not saved costs the next read
    session: Session = cursor.session
    return session


def pick(
    found: Found,
    store: Any | None = None,
    *,
    exact: bool = False,
) -> Choice:
    """The newest candidate that did work; the newer ones that failed become `failed`.

    `exact` (an explicit `--session`): the newest match whatever it did. When no candidate
    within `MAX_FAILED` did work, the newest one stands, so a brief still shows it.
    """
    choice = Choice(searched=found.searched, errors=list(found.errors), below=found.below)
    tried: list[tuple[Candidate, Session]] = []
    for cand in found.candidates:
        try:
            session = read_session(cand.adapter, cand.ref, store)
        except Exception as e:  # an unreadable session is skipped, and said
            choice.errors.append(f"{cand.ref.agent} session {cand.ref.session_id}: {e}")
            continue
        if exact or did_work(session):
            choice.ref, choice.adapter, choice.session = cand.ref, cand.adapter, session
            choice.failed = [(c.ref, s) for c, s in tried]
            return choice
        tried.append((cand, session))
        if len(tried) >= MAX_FAILED:
            break
    if tried:  # nothing did work: the newest is all there is
        cand, session = tried[0]
        choice.ref, choice.adapter, choice.session = cand.ref, cand.adapter, session
    return choice


def newest(
    project: StrPath,
    adapters: Mapping[str, Adapter],
    config: GlobalConfig,
    *,
    agent: str | None = None,
    account: str | None = None,
    session_id: str | None = None,
) -> Candidate | None:
    """The newest session of `project`, read or not: what a manual checkpoint, `audit` and
    `baker run` look at (the session being written now, whether or not it did work yet)."""
    found = find(
        project, adapters, config, agent=agent, account=account, session_id=session_id, strict=False
    )
    return found.candidates[0] if found.candidates else None


def choose(
    project: StrPath,
    adapters: Mapping[str, Adapter],
    config: GlobalConfig,
    store: Any = None,
    *,
    agent: str | None = None,
    account: str | None = None,
    session_id: str | None = None,
) -> Choice:
    """`find` then `pick`: the previous session of `project` by the one rule."""
    found = find(project, adapters, config, agent=agent, account=account, session_id=session_id)
    return pick(found, store, exact=bool(session_id))


def attempt_line(ref: SessionRef, session: Session) -> str:
    """A failed attempt in words: "a retry at 14:02 in codex (~/.codex, 01a2…) failed: …"."""
    when = session.started_at or session.updated_at or iso(ref.mtime)
    err = session.last_error
    if err is not None:
        reset = f", resets at {err.reset_at}" if err.reset_at else ""
        message = " ".join(err.message.split())[:200].rstrip(".")
        what = f"{err.kind.replace('_', ' ')}{reset}: {message}"
    elif session.latest_request:
        what = "no answer was recorded"
    else:
        what = "nothing was asked or answered (an empty session)"
    request = session.latest_request
    asked = f"; it asked: {' '.join(request.split())[:120]}" if request else ""
    return (
        f"a retry at {short_time(when)} in {ref.agent} ({ref.account}, session "
        f"{ref.session_id}) failed: {what}{asked}"
    )


def short_time(stamp: str) -> str:
    """ "2026-11-30T14:02:11.5Z" -> "2026-11-30 14:02 UTC"; other text as it is."""
    import datetime as dt

    when = parse_time(stamp)
    return when.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M UTC") if when else stamp


class Table(Struct, kw_only=True):
    """`baker sessions` (and the MCP `sessions` tool): rows newest first, the chosen one marked."""

    rows: list[dict[str, Any]]
    more: int  # older sessions past the limit
    searched: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    below: list[str] = field(default_factory=list)  # as `Found.below`


def table(
    project: Path,
    adapters: Mapping[str, Adapter],
    *,
    agent: str | None = None,
    account: str | None = None,
    limit: int = 20,
) -> Table:
    """This project's newest `limit` sessions across agents and accounts, each read (through
    the cursor cache of its store, where it has one) for its state; `chosen` marks the one the
    brief takes by the one rule."""
    from continuity_core.config import load_config
    from continuity_core.store import Store

    found = find(project, adapters, load_config(), agent=agent, account=account)
    here = Store(project)
    store = here if here.exists else None
    rows: list[dict[str, Any]] = []
    chosen = False
    for cand in found.candidates[:limit]:
        ref = cand.ref
        row: dict[str, Any] = {
            "agent": ref.agent,
            "account": ref.account,
            "id": ref.session_id,
            "path": ref.path,
            "started": None,
            "last_activity": iso(ref.mtime),
            # bytes of its transcript; None: no file of its own (OpenCode's database rows)
            "size": ref.size if ref.size or os.path.isfile(ref.path) else None,
            "requests": None,
            "state": None,
            "did_work": None,
            "reset_at": None,
            "limit_kind": None,
            "error": None,
            "chosen": False,
            "archived": False,
            "forked_from": None,
        }
        try:
            s = read_session(cand.adapter, ref, store)
        except Exception as e:  # one unreadable transcript is one row saying so
            row["error"] = f"could not be read: {e}"
            rows.append(row)
            continue
        row.update(
            started=s.started_at,
            last_activity=s.updated_at or row["last_activity"],
            requests=len(s.requests),
            state=state(s, store),
            did_work=did_work(s),
            archived=s.archived,
            forked_from=s.forked_from,
        )
        if s.last_error is not None:
            row["error"] = f"{s.last_error.kind}: {' '.join(s.last_error.message.split())[:160]}"
            row["reset_at"] = s.last_error.reset_at if s.ended_on_limit else None
            row["limit_kind"] = s.last_error.kind if s.ended_on_limit else None
        if not chosen and row["did_work"]:
            row["chosen"] = chosen = True
        rows.append(row)
    if not chosen and rows and rows[0]["state"] is not None:
        rows[0]["chosen"] = True  # nothing did work: the newest is what a brief shows

    def activity(row: dict[str, Any]) -> float:
        when = parse_time(row["last_activity"])
        return when.timestamp() if when else 0.0

    # Found newest file first, shown newest activity first (a copied or synced file is newer).
    rows.sort(key=activity, reverse=True)
    return Table(
        rows=rows,
        more=max(0, len(found.candidates) - limit),
        searched=found.searched,
        errors=found.errors,
        below=found.below,
    )


def structured(project: Path, found: Table) -> dict[str, Any]:
    """`sessions --json`, MCP `sessions`: the rows, how many older ones the limit left out,
    `elsewhere`, the folders below a plain folder whose sessions were left out, and
    `machines`, the other machines' newest snapshots as `baker pull` last fetched them."""
    return {
        "project": str(project),
        "sessions": found.rows,
        "more": found.more,
        "elsewhere": found.below,
        "machines": other_machines(project),
    }


def other_machines(project: Path) -> list[dict[str, Any]]:
    """One row per other machine's newest snapshot, from `.baker/machines.json` (what `baker
    pull` wrote; no git call): its time, agent, how it ended, branch and commit, request."""
    from continuity_core import snapshots
    from continuity_core.redact import redact

    found = snapshots.from_file(project)
    rows = []
    for m in found.machines if found else []:
        s = m.snapshot
        rows.append(
            {
                "machine": m.name,
                "time": m.time,
                "agent": s.agent,
                "session": s.session,
                "state": "limit" if s.ended_on_limit else (s.event or "manual"),
                "reset_at": s.reset_at,
                "branch": s.git.branch,
                "head": s.git.head,
                "latest_request": redact(s.latest_request) if s.latest_request else None,
            }
        )
    return rows
