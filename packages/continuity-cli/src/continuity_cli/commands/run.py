"""`baker run`: an agent in this terminal that continues in the next account or agent by itself
when it hits a usage limit."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

EX_TEMPFAIL = 75
# A rate limit passes in seconds or minutes: the same entry is retried after a wait that
# doubles each time (to the reset time where the agent named one, within the cap), and only
# after RATE_RETRIES such waits in a row does `baker run` move on as for a usage limit.
RATE_RETRIES = 3
RATE_WAIT_S = 30
RATE_WAIT_MAX_S = 600


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="[ENTRY] [-- AGENT_ARGS...]")
@click.option(
    "--countdown",
    type=click.IntRange(min=0),
    metavar="S",
    help="Seconds shown before switching (default: [rotation] countdown; 0 = ask).",
)
@click.option(
    "--max-hops",
    type=click.IntRange(min=0),
    metavar="N",
    help="Switches at most (default: [rotation] max_hops).",
)
def run(args: tuple[str, ...], countdown: int | None, max_hops: int | None) -> None:
    """Start an agent here; when it hits a usage limit, continue in the next one by itself.

    ENTRY is AGENT or AGENT:ACCOUNT (default: the first entry of `[rotation] order` in
    ~/.baker/config.toml that is not limited); AGENT_ARGS after `--` go to that first agent.
    Keys, colours, resizing, Ctrl-C and Ctrl-Z pass through as without `baker run`.

    When the agent's turn ends on a usage limit by its own record (its hook, its
    transcript's limit record, or its status line when the transcript shows the turn ended
    in an API error), a line over the agent counts down; Enter switches now, Esc (any other
    key) stays. Text on the screen alone (a file the agent printed, a tool's output, its
    answer) never switches, and only a confirmed limit enters the ledger. Then the agent is
    ended cleanly and the next entry that is not limited starts: with the brief, as `baker
    resume`, or continuing the very session (`--native`) when it is the same agent on
    another account. A rate limit waits instead (30 s, doubling, up to 3 times) and retries
    the same entry and session; then it moves on as for a usage limit. Nothing but a limit
    switches: when the agent exits, `baker run` exits with its status.

    After `max_hops` switches, or when every entry is limited, the agent is ended the same
    way, `baker run` says which entry resets first and exits 75 (EX_TEMPFAIL). Everything is
    logged for `baker audit`. Linux and macOS; on Windows use `baker resume --next`.

    \b
    ~/.baker/config.toml:
      [rotation]
      order = ["claude", "claude:work", "codex"]
      countdown = 10
      max_hops = 3
    \b
    Examples:
      baker run                      # the first entry that is not limited
      baker run codex -- --model o4  # start Codex with its own arguments
    """
    from continuity_core.errors import BakerError

    if sys.platform == "win32":
        raise BakerError(
            "`baker run` is not supported on Windows (it needs a Unix "
            "pseudo-terminal); after a limit, use `baker resume --next`"
        )
    entry_text, agent_args = split_args(args, sys.argv)
    code = Run(entry_text, agent_args, countdown, max_hops).main()
    raise SystemExit(code)


def split_args(args: tuple[str, ...], argv: list[str]) -> tuple[str | None, list[str]]:
    """ENTRY and AGENT_ARGS: what follows the first `--` on the command line is the agent's."""
    from continuity_core.errors import BakerError

    after = len(argv) - argv.index("--") - 1 if "--" in argv else 0
    before = list(args[: len(args) - after])
    agent_args = list(args[len(args) - after :])
    if len(before) > 1 or (before and before[0].startswith("-")):
        raise BakerError(
            f"unexpected {' '.join(before)!r}: put the agent's arguments after "
            "`--` (baker run [ENTRY] [-- AGENT_ARGS...])"
        )
    return (before[0] if before else None), agent_args


class Run:
    def __init__(
        self,
        entry_text: str | None,
        agent_args: list[str],
        countdown: int | None,
        max_hops: int | None,
    ) -> None:
        from continuity_core import handoff, limits
        from continuity_core.adapters import load
        from continuity_core.config import load_config
        from continuity_core.store import Store

        self.config = load_config()
        self.countdown = self.config.rotation.countdown if countdown is None else countdown
        self.max_hops = self.config.rotation.max_hops if max_hops is None else max_hops
        self.entries = limits.rotation(self.config, load)
        self.entry_text, self.agent_args = entry_text, agent_args
        self.root = handoff.project_root()
        store = Store(self.root)
        self.store = store if store.exists else None
        self.run_id = os.urandom(6).hex()
        self.hops = 0
        self.rate_waits = 0  # rate-limit retries of the current entry in a row
        self.child: Any = None

    def log(self, event: str, **fields: Any) -> None:
        if self.store is not None:
            self.store.log(event, run=self.run_id, **fields)

    def label(self, entry: Any) -> str:
        from continuity_core.adapters import load

        return str(entry.label(load(entry.agent).display_name))

    def first_entry(self) -> Any:
        from continuity_core import limits
        from continuity_core.adapters import load
        from continuity_core.errors import BakerError

        if self.entry_text:
            named = [entry for entry in self.entries if entry.text == self.entry_text]
            agent = self.entry_text.partition(":")[0]
            return named[0] if named else limits.resolve(self.entry_text, self.config, load(agent))
        if not self.entries:
            raise BakerError(
                "name the agent to start (`baker run claude`), or set "
                '`[rotation] order = ["claude", "codex"]` in '
                "~/.baker/config.toml"
            )
        return limits.next_entry(self.entries, None, limits.read())

    def main(self) -> int:
        from continuity_cli.supervise import Supervisor

        entry = self.first_entry()
        if entry is None:
            self.log("run_all_limited", hops=0)
            click.echo(
                f"baker run: every [rotation] entry is limited; {self.first_reset()}", err=True
            )
            return EX_TEMPFAIL
        argv, env = self.fresh(entry)
        sup = Supervisor(
            stdin=sys.stdin.fileno(), stdout=sys.stdout.fileno(), log=self.log, confirm=self.confirm
        )
        self.log(
            "run_start",
            agent=entry.text,
            order=[e.text for e in self.entries],
            max_hops=self.max_hops,
            countdown=self.countdown,
        )
        sup.install_signals()
        try:
            resumes = any("resume" in a or "continue" in a for a in self.agent_args)
            child = self.start(sup, entry, argv, env, resumed=resumes)
            while True:
                outcome = sup.watch(child, self.choose)
                if isinstance(outcome, int):
                    self.log("run_exit", agent=child.entry.text, status=outcome)
                    return outcome
                after = self.after_limit(sup, child, outcome)
                if isinstance(after, int):
                    return after
                child = after
        finally:
            if self.child is not None and self.child.alive:  # an error, or Ctrl-C to baker
                sup.end(self.child, polite=False)
            sup.term.restore()
            sup.restore_signals()

    def after_limit(self, sup: Any, child: Any, outcome: Any) -> Any:
        """The agent's turn ended on a limit and the countdown ran out (or Enter): the agent
        ended, the child that continues (the same entry after a rate limit's wait, else the
        next), or EX_TEMPFAIL when none may."""
        from continuity_cli.supervise import RESET_MODES
        from continuity_core import limits

        if outcome.pending:  # confirmed now: only then does it enter the ledger
            limits.record(outcome.limit)
        sup.end(child)
        sup.term.restore()
        os.write(sup.stdout, RESET_MODES + b"\r\n")
        gone = f"baker run: {child.label} {limits.describe(outcome.limit)}"
        if outcome.retry:  # a rate limit: the same entry, the same session, again
            self.rate_waits += 1
            click.echo(
                f"{gone}; retrying {child.label} (wait {self.rate_waits} of {RATE_RETRIES})",
                err=True,
            )
            argv, env, native = self.resumed(child.entry, child.entry)
            self.log("run_retry", agent=child.entry.text, wait=self.rate_waits)
            return self.start(sup, child.entry, argv, env, resumed=native)
        self.rate_waits = 0
        if outcome.target is None:
            why = (
                f"{self.max_hops} switches made (max_hops)"
                if self.hops >= self.max_hops
                else "every entry is limited"
            )
            self.log("run_all_limited", hops=self.hops, agent=child.entry.text)
            click.echo(f"{gone}; {why}; {self.first_reset()}", err=True)
            return EX_TEMPFAIL
        self.hops += 1
        target = outcome.target
        click.echo(
            f"{gone}; continuing in {self.label(target)} (switch {self.hops} of {self.max_hops})",
            err=True,
        )
        argv, env, native = self.resumed(child.entry, target)
        self.log(
            "run_switch", source=child.entry.text, target=target.text, hop=self.hops, native=native
        )
        return self.start(sup, target, argv, env, resumed=native)

    def start(
        self, sup: Any, entry: Any, argv: list[str], env: dict[str, str], *, resumed: bool
    ) -> Any:
        import shutil

        from continuity_cli.supervise import OUTPUT_GRACE_S, Child, spawn
        from continuity_core import limits
        from continuity_core.adapters import load
        from continuity_core.errors import BakerError

        if shutil.which(argv[0], path=env.get("PATH")) is None:
            raise BakerError(f"`{argv[0]}` is not on PATH: install {self.label(entry)} first")
        adapter = load(entry.agent)
        full_env = {**os.environ, **env, limits.RUN_ENV: self.run_id}
        pid, fd = spawn(argv, full_env, str(self.root), sup.stdin)
        sup.term.raw()
        self.log("run_agent_started", agent=entry.text, pid=pid)
        self.child = Child(
            pid=pid,
            fd=fd,
            entry=entry,
            label=self.label(entry),
            exit_input=adapter.exit_input,
            grace=OUTPUT_GRACE_S if resumed else 0.0,
        )
        return self.child

    def confirm(self, child: Any, text: str) -> Any | None:
        """The screen showed a limit and no hook recorded one. It counts only by the agent's
        own record: the transcript's limit record (with its reset time), or, where the
        transcript shows the turn ended in an API error with no answer, the agent's status
        line (its words give the kind and the reset). Text in a tool result, a file or the
        model's answer has no such record and never counts. Nothing is recorded here: the
        ledger gets the limit when the switch is confirmed (`main`)."""
        from continuity_core import limits, stamps
        from continuity_core.adapters import load
        from continuity_core.sessions import newest

        try:
            adapter = load(child.entry.agent)
            found = newest(
                self.root,
                {adapter.name: adapter},
                self.config,
                agent=adapter.name,
                account=child.entry.dir,
            )
            if found is None:
                return None
            session = adapter.read(found.ref).session
        except Exception as e:  # a transcript that cannot be read confirms nothing
            self.log("run_transcript_unread", error=f"{type(e).__name__}: {e}")
            return None
        err = limits.turn_ended_on_error(session)
        if err is None:
            return None
        since = stamps.parse_time(err.timestamp) or limits.now()
        if since.timestamp() < child.started - 2 or since.timestamp() <= child.stayed:
            return None  # the session's old error, shown again with its history
        who = {
            "agent": child.entry.agent,
            "dir": child.entry.dir,
            "account": child.entry.account or "",
            "run": self.run_id,
        }
        if err.kind in limits.LIMIT_KINDS:
            return limits.from_transcript(err, session, **who)
        return limits.from_status_line(text, err, session, **who)

    def fresh(self, entry: Any) -> tuple[list[str], dict[str, str]]:
        """The agent's program and account environment, as its adapter launches it, with the
        user's AGENT_ARGS instead of a brief."""
        from continuity_core.adapters import Account, LaunchOptions, load

        adapter = load(entry.agent)
        account = (
            Account(agent=entry.agent, name=entry.account, dir=entry.dir) if entry.account else None
        )
        # A dry run of a launch with an empty brief: its prompt is dropped, nothing is read.
        brief = self.root / "brief.md"
        spec = adapter.launch(self.root, brief, LaunchOptions(account=account, dry_run=True))
        return [spec.argv[0], *self.agent_args], dict(spec.env)

    def resumed(self, source: Any, target: Any) -> tuple[list[str], dict[str, str], bool]:
        """`baker resume` of `target` from the session `source` was running: the very session
        (`--native`) for the same agent, else the brief."""
        import functools

        from continuity_cli.commands.resume import prepare
        from continuity_core.errors import BakerError
        from continuity_core.sessions import NoMatch

        native = target.agent == source.agent
        account = target.account or (target.dir if native else None)
        taken = functools.partial(
            prepare, target.agent, source=source.agent, from_account=source.dir, account=account
        )
        try:
            prepared = taken(native=native)
        except BakerError as e:
            if not native and not isinstance(e, NoMatch):
                raise
            self.log("run_native_failed" if native else "run_no_session", error=str(e))
            native = False
            try:
                prepared = taken()
            except NoMatch:  # the limited agent wrote no session here: the project's brief
                prepared = prepare(target.agent, account=account)
        self.log("run_brief", brief=str(prepared.brief), bytes=prepared.brief_bytes)
        return list(prepared.spec.argv), dict(prepared.spec.env), native

    def choose(self, child: Any, limit: Any) -> Any:
        """The countdown for `limit`: to the next entry that is not limited, or to stop."""
        import time

        from continuity_cli.commands.limits import when
        from continuity_cli.supervise import Countdown
        from continuity_core import limits

        if limit.kind == "rate_limit" and self.rate_waits < RATE_RETRIES:
            return self.rate_wait(child, limit)
        target = None
        if self.hops < self.max_hops:
            target = limits.next_entry(
                self.entries, (child.entry.agent, child.entry.dir), limits.read()
            )
        head = f"{child.label} {limits.describe(limit)}"
        if limit.until:
            head += f", resets {when(limit.until)}"
        if target is not None:
            action = f"continuing in {self.label(target)}"
            ask = f"continue in {self.label(target)}?"
        else:
            reason = "no switch left" if self.hops >= self.max_hops else "no entry is free"
            action, ask = f"{reason}: ending it", f"{reason}: end it?"
        if self.countdown:
            text = f"{head} — {action} in {{s}} s · Enter now · Esc stay"
            deadline: float | None = time.time() + self.countdown
        else:
            text, deadline = f"{head} — {ask} Enter yes · Esc stay", None
        return Countdown(limit=limit, target=target, deadline=deadline, text=text)

    def rate_wait(self, child: Any, limit: Any) -> Any:
        """A rate limit: wait (doubling, to the named reset within the cap), then retry the
        same entry; Enter retries now, Esc stays without retrying."""
        import time

        from continuity_cli.supervise import Countdown
        from continuity_core import limits, stamps

        wait = min(RATE_WAIT_S * 2**self.rate_waits, RATE_WAIT_MAX_S)
        until = stamps.parse_time(limit.until)
        if until is not None:
            wait = min(max(wait, until.timestamp() - time.time()), RATE_WAIT_MAX_S)
        text = (
            f"{child.label} {limits.describe(limit)} — retrying it in {{s}} s "
            f"(wait {self.rate_waits + 1} of {RATE_RETRIES}) · Enter now · Esc stay"
        )
        return Countdown(
            limit=limit, target=child.entry, deadline=time.time() + wait, text=text, retry=True
        )

    def first_reset(self) -> str:
        from continuity_cli.commands.limits import when
        from continuity_core import limits

        recorded = limits.read()
        mine = [lim for e in self.entries if (lim := limits.find(recorded, e.agent, e.dir))]
        first = limits.earliest(mine or recorded)
        if first is None:
            return "no limit is recorded (see `baker limits`)"
        name = f"{first.agent}:{first.account}" if first.account else first.agent
        if first.until is None:
            return f"{name}'s reset time is unknown (see `baker limits`)"
        return f"{name} resets first, at {when(first.until)} ({first.until})"
