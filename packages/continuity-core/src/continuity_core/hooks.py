"""What the three hook commands do once their input is read: checkpoint, pickup, pretool.

The caller (`baker`'s fast path) owns the contract with the agent: exit 0, deadline, valid
output or none. Here a hook finds the project from the event's cwd, does its work, and
returns the text to print, if any.

`pretool` runs before every tool call and has the tightest budget (docs/decisions.md, "Hook
start-up budget"): this module imports only the lean store at module level, and pretool
loads the agent's hook module alone (`registry.hook_module`), never the whole adapter.
"""

from __future__ import annotations

import os

from continuity_core.schemas.hook import HookEvent
from continuity_core.stamps import now_iso
from continuity_core.store import Store, project_root, worktree_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from continuity_core.adapters import Adapter
    from continuity_core.adapters.protocol import HookHalf


CHECKPOINT_LOCK_S = 15.0  # within the hook's 20 s deadline


def parse_event(
    agent: str | None, payload: bytes, argv: list[str]
) -> tuple[Adapter | None, HookEvent | None]:
    """The agent's adapter and its parse of the payload; (adapter, None) when it is not ours."""
    if agent is None:
        return None, None
    from continuity_core.adapters import registry

    adapter = registry.load(agent)
    try:
        return adapter, adapter.parse_hook(payload, argv)
    except ValueError:
        return adapter, None


def parse_light(agent: str, payload: bytes, argv: list[str]) -> tuple[HookHalf, HookEvent | None]:
    """As `parse_event`, through the agent's hook module alone (the pre-tool hook's way)."""
    from continuity_core.adapters.registry import hook_module

    handler = hook_module(agent)
    try:
        return handler, handler.parse_hook(payload, argv)
    except ValueError:
        return handler, None


def project_store(event: HookEvent | None, command: str = "hook") -> Store | None:
    """The event's project store; None outside a project or when the store fails the trust
    check (`continuity_core.trust`): then one line goes to ~/.baker's log and nothing else
    happens, so a cloned repository's committed `.baker/` cannot steer a hook."""
    from continuity_core import trust

    cwd = event.cwd if event is not None and event.cwd else os.getcwd()
    root = project_root(cwd)
    if root is None:
        return None
    trust.remember_clean_verdicts()
    try:
        return Store(root)
    except trust.Untrusted as e:
        trust.refused(e, command)
        return None


def checkpoint(agent: str | None, payload: bytes, argv: list[str]) -> str:
    """After a turn: write a checkpoint; returns a one-line summary for a person."""
    from continuity_core import checkpoint as cp_mod
    from continuity_core.adapters import registry

    adapter, event = parse_event(agent, payload, argv)
    if event is not None and event.kind == "other":
        # e.g. Gemini 0.61 fires PreCompress before every turn; only a real one is ours.
        return ""
    # a limit counts outside a project too
    hooked = note_limit(adapter, event) if adapter and event and event.error else None
    store = project_store(event, "checkpoint")
    if store is None:
        return ""
    if hooked is not None:
        _log_limit(store, hooked)
    if agent is not None and event is None and (payload.strip() or argv):
        # The agent's adapter refused the payload: not this agent's turn (Copilot CLI runs a
        # project's .claude Stop hook with a Claude-shaped payload on its own transcript), so
        # no checkpoint is written in its name. The log tells `baker audit`.
        store.log(
            "hook_bad_input",
            command="checkpoint",
            agent=agent,
            size=len(payload) or sum(map(len, argv)),
        )
        return ""
    adapters = {agent: adapter} if agent and adapter else registry.load_all()[0]
    # One checkpoint at a time per project: the agent no longer waits for this work (it runs
    # in a detached child, `continuity_cli.hooks.detach`), so two turns' may overlap.
    with store.lock("checkpoint", timeout=CHECKPOINT_LOCK_S):
        cp = cp_mod.take(store, adapters=adapters, event=event, agent=agent)
        if cp.session is not None:  # what the next session's pickup will serve
            from continuity_core import pickup

            try:
                pickup.prepare(store, registry.load_all()[0] | adapters)
            except Exception as e:  # the next pickup searches itself; the checkpoint stands
                store.log("pickup_prepare_failed", error=f"{type(e).__name__}: {e}"[:500])
    if adapter is not None and event is not None and cp.session is not None and hooked is None:
        note_transcript_limit(store, adapter, event, cp.session)
    if event is not None and event.kind in ("stop", "notify"):
        from continuity_core import inflight

        if event.session_id:
            inflight.clear(store, event.agent, event.session_id)  # the turn ended: nothing runs
        _auto_push(store)
    summary = f"checkpoint {cp.id}"
    if cp.session is not None:
        summary += f" ({cp.session.agent} session {cp.session.session_id})"
    return summary


def _auto_push(store: Store) -> None:
    """Opted in through the clone's own git config: push the snapshot from a detached process
    that the hook never waits for (`continuity_core.machines`)."""
    from continuity_core.git import local_config_may_name

    if not local_config_may_name(store.root, b"baker"):  # not opted in: the common case
        return
    from continuity_core import machines

    try:
        machines.spawn_auto_push(store.root)
    except Exception as e:  # a push that cannot start never costs the checkpoint
        store.log("push_failed", command="push", error=f"{type(e).__name__}: {e}"[:500])


def _account(adapter: Adapter, event: HookEvent, session_account: str | None) -> tuple[str, str]:
    """The folder and the [accounts] name of the account the hook's turn ran on."""
    from continuity_core import limits
    from continuity_core.config import config_or_defaults

    config = config_or_defaults()[0]
    account = session_account
    if account is None:
        ref = adapter.session_for_hook(event, adapter.accounts(config))
        account = ref.account if ref is not None else ""
    folder = limits.account_dir(adapter, config, account)
    return folder, limits.account_name(config, adapter.name, folder)


def note_limit(adapter: Adapter, event: HookEvent) -> Any:
    """Record the limit a hook reported (Claude's StopFailure) in the ledger; the Limit, or
    None when the error is not a usage or rate limit."""
    from continuity_core import limits, stamps

    if event.error not in limits.LIMIT_KINDS:
        return None
    folder, account = _account(adapter, event, None)
    at = limits.now()
    return limits.record(
        limits.Limit(
            agent=adapter.name,
            dir=folder,
            account=account,
            since=stamps.iso(at),
            until=event.reset_at or limits.reset_in_text(event.error_message or "", at),
            source="hook",
            kind=event.error or "usage_limit",
            message=(event.error_message or "")[:500],
            session_id=event.session_id or "",
        )
    )


def note_transcript_limit(store: Store, adapter: Adapter, event: HookEvent, session: Any) -> None:
    """After a turn: a turn that ended on a limit record (Codex's and Gemini's rate-limit
    records, Claude's usage-limit record) goes into the ledger; a turn that completed
    clears its account's entry."""
    from continuity_core import limits

    err = limits.turn_ended_on_limit(session)
    if err is None and event.kind not in ("stop", "notify"):
        return
    folder, account = _account(adapter, event, session.account or None)
    if err is None:
        if limits.clear(adapter.name, folder):
            store.log("limit_cleared", agent=adapter.name, session=session.session_id)
        return
    found = limits.from_transcript(err, session, agent=adapter.name, dir=folder, account=account)
    _log_limit(store, limits.record(found))


def _log_limit(store: Store, found: Any) -> None:
    store.log(
        "limit_recorded",
        agent=found.agent,
        account=found.account or None,
        until=found.until,
        source=found.source,
        session=found.session_id,
    )


def plain_event(payload: bytes, kind: Any) -> HookEvent | None:
    """A hook payload read without an adapter (`--agent` omitted): the common JSON keys only."""
    from continuity_core import jsonl

    try:
        raw = jsonl.loads(payload) if payload.strip() else {}
    except ValueError:
        return None
    if not isinstance(raw, dict):
        return None

    def text(key: str, source: dict[str, Any] = raw) -> str | None:
        value = source.get(key)
        return value if isinstance(value, str) and value else None

    tool_input = raw.get("tool_input")
    tool_input = tool_input if isinstance(tool_input, dict) else {}
    paths = [p for k in ("file_path", "path", "notebook_path") if (p := text(k, tool_input))]
    return HookEvent(
        agent="",
        kind=kind,
        session_id=text("session_id"),
        cwd=text("cwd"),
        transcript_path=text("transcript_path"),
        source=text("source"),
        tool_name=text("tool_name"),
        tool_input=tool_input,
        paths=paths,
        command=text("command", tool_input),
    )


def _begin(
    command: str,
    agent: str | None,
    payload: bytes,
    argv: list[str],
    kind: Any,
    *,
    light: bool = False,
) -> tuple[Any, HookEvent, Store] | None:
    """The adapter (with `light`, its hook module), event and project store of a hook call;
    None when there is nothing to do: outside a project, or input that is not this agent's
    (logged for `baker audit`)."""
    adapter: Any
    if agent is None:
        adapter, event = None, plain_event(payload, kind)
    elif light:
        adapter, event = parse_light(agent, payload, argv)
    else:
        adapter, event = parse_event(agent, payload, argv)
    store = project_store(event, command)
    if store is None:
        return None
    if event is None:
        if payload.strip():
            store.log("hook_bad_input", command=command, agent=agent, size=len(payload))
        return None
    return adapter, event, store


def pickup(agent: str | None, payload: bytes, argv: list[str]) -> str:
    """SessionStart: environment facts, the note and the previous session, for the agent."""
    begun = _begin("pickup", agent, payload, argv, "session_start", light=True)
    if begun is None:
        return _pickup_outside(agent, payload, argv)
    handler, event, store = begun
    from continuity_core import git

    facts = git.Begun(store.root)  # git works while the pickup's modules and adapters load
    try:
        from continuity_core import pickup as pickup_mod
        from continuity_core.adapters import registry

        # What the last checkpoint prepared; else every agent's sessions are searched (the
        # previous session may be another agent's: one rule).
        ready = pickup_mod.prepared(store.root, event.session_id)
        adapters = {} if ready is not None else registry.load_all()[0]
        if agent is not None and ready is None and agent not in adapters:
            # the calling agent's, whatever BAKER_ADAPTERS says
            adapters[agent] = registry.load(agent)
    except BaseException:  # a hook's deadline included: no git left running behind it
        facts.close(0)
        raise

    def compacted() -> Any:  # after a compaction the session holds what its summary dropped
        full = adapters.get(agent or "") or registry.load(agent or "")
        return pickup_mod.before_compaction(full, event, store)

    text = pickup_mod.build(
        store.root,  # a str: a pickup imports no pathlib
        adapters,
        exclude=event.session_id,
        store=store,
        brief=pickup_mod.launched_with_brief(event.source),
        begun=facts,  # read by the environment's worker
        ready=ready,
        same=compacted if agent is not None and event.source == "compact" else None,
    )
    return text if handler is None else handler.render_context(event, text) or ""


def _pickup_outside(agent: str | None, payload: bytes, argv: list[str]) -> str:
    """SessionStart in a git repository never set up with `baker init`: the read-only facts
    (live repo state, the previous session's interrupted call), saying that nothing is kept
    here. Nothing is written, in the repository or the store; a refused `.baker/` (a trust
    check failed) gets nothing at all."""
    adapter, event = parse_event(agent, payload, argv) if agent else (None, None)
    if adapter is None or event is None or event.kind != "session_start":
        return ""
    cwd = event.cwd or os.getcwd()
    root = worktree_root(cwd)
    if root is None or project_root(cwd) is not None:
        return ""
    from continuity_core import pickup as pickup_mod
    from continuity_core.adapters import registry

    adapters = registry.load_all()[0]
    adapters[adapter.name] = adapter
    text = pickup_mod.build(
        root,
        adapters,
        exclude=event.session_id,
        brief=pickup_mod.launched_with_brief(event.source),
        set_up=False,
    )
    return adapter.render_context(event, text) or ""


PRETOOL_HEADER = (
    "Continuity traps for this tool call: approaches already tried and rejected here "
    "(.baker/traps.jsonl). Check the reason still holds before repeating one."
)


def pretool(
    agent: str | None,
    payload: bytes,
    argv: list[str],
    later: list[Callable[[], None]] | None = None,
) -> str:
    """PreToolUse: up to five unseen traps matching the call's paths or command; never blocks.
    With `later`, the bookkeeping the answer does not need (the in-flight record, the traps
    marked seen and logged) is appended there for the caller to run once it has answered."""
    from continuity_core import traps

    begun = _begin("pretool", agent, payload, argv, "pre_tool", light=True)
    if begun is None:
        return ""
    handler, event, store = begun
    work: list[Callable[[], None]] = [] if later is None else later
    if handler is not None:
        started = now_iso(ms=True)  # the call starts now, whenever the record is written
        work.append(lambda: _record_inflight(store, event, agent, started))
    output = ""
    try:
        session = event.session_id or "no-session"
        found = traps.unseen(store.root, session, event.paths, event.command, cwd=event.cwd)
        if found:
            text = "\n".join([PRETOOL_HEADER, *(t.line(store.root) for t in found)])
            output = text if handler is None else handler.render_context(event, text) or ""
        if output:
            work.append(lambda: traps.record_delivered(store, session, found))
    finally:
        if later is None:
            for step in work:
                step()
    return output


def _record_inflight(store: Store, event: HookEvent, agent: str | None, started: str) -> None:
    from continuity_core import inflight

    try:
        inflight.record(store, event, started)
    except OSError as e:  # a read-only store costs the in-flight record, not the traps
        store.log("hook_error", command="pretool", agent=agent, error=f"in-flight: {e}")
