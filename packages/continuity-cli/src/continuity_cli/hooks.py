"""The hook commands' contract with the agent: always exit 0, print valid hook output or
nothing, never a traceback, within a deadline. Failures go to `.baker/log/` for `baker audit`.

This module is what an agent runs on every turn and before tool calls, so it imports neither
click nor any adapter it does not need.

A checkpoint an agent runs (`--agent` or `--quiet`: it prints nothing) answers at once: the
process reads its payload, forks, and exits; the child, detached from the agent's streams
and in a session of its own, does the work with the ordinary libraries under the same
deadline and exits (docs/decisions.md, "How the hooks stay fast"). A pre-tool call answers
first and leaves its bookkeeping (the call in flight, the traps it showed) to such a child.
`BAKER_HOOK_WAIT=1` makes the answering process wait for that child (the test suite sets
it, so a test reads what the call wrote).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    from collections.abc import Callable
    from types import FrameType
else:  # `signal` builds an enum of every signal at import, for nothing a hook uses
    import _signal as signal

DEADLINES_S = {"checkpoint": 20, "pickup": 8, "pretool": 3}
DETACHED_S = DEADLINES_S["checkpoint"]  # work after the answer, which no agent waits for
MAX_STDIN = 64 << 20
WAIT_ENV = "BAKER_HOOK_WAIT"


class Deadline(BaseException):
    """Raised by SIGALRM; a BaseException so no handler inside the hook swallows it."""


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    raise Deadline


def _parse(args: list[str]) -> tuple[str, str | None, bool, list[str]]:
    command, agent, quiet, rest = args[0], None, False, []
    it = iter(args[1:])
    for arg in it:
        if arg == "--agent":
            agent = next(it, None)
        elif arg.startswith("--agent="):
            agent = arg.partition("=")[2]
        elif arg in ("--quiet", "-q"):
            quiet = True
        else:
            rest.append(arg)  # Codex notify passes its JSON as an argument
    return command, agent or None, quiet, rest


def _stdin() -> bytes:
    if sys.stdin is None or sys.stdin.isatty():
        return b""
    data: bytes = sys.stdin.buffer.read(MAX_STDIN + 1)
    return b"" if len(data) > MAX_STDIN else data


def detach() -> bool:
    """Fork: True in the process that answers the agent (it has nothing to print), False in
    the child that does the work, which leaves the agent's streams (the agent waits for them
    to close) and its process group. With `BAKER_HOOK_WAIT` set the answering process waits
    for the child, so whoever started it sees the work done."""
    pid = os.fork()
    if pid:
        if os.environ.get(WAIT_ENV):
            os.waitpid(pid, 0)
        return True
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    # With BAKER_DEBUG the traceback still reaches the terminal (the agent then waits for it).
    for fd in (0, 1) if os.environ.get("BAKER_DEBUG") else (0, 1, 2):
        os.dup2(null, fd)
    if null > 2:
        os.close(null)
    return False


def run(args: list[str], *, fork: bool = False) -> int:
    """One hook call. With `fork` (the `baker` process, not a test calling in-process), a
    checkpoint that prints nothing finishes its work in a detached child (`detach`)."""
    command, agent, quiet, rest = _parse(args)
    deadline = DEADLINES_S.get(command, 10)
    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.alarm(deadline)
    output = ""
    later: list[Callable[[], None]] = []  # what the answer need not wait for (pretool's)
    try:
        payload = _stdin()
        if fork and command == "checkpoint" and (quiet or agent) and hasattr(os, "fork"):
            try:
                if detach():
                    return 0
            except OSError as e:  # no fork (a process limit): the work is done here instead
                _log_failure(command, agent, e)
            if hasattr(signal, "SIGALRM"):
                signal.alarm(deadline)  # the child's own: a fork does not inherit the alarm
        from continuity_core.hookonce import first_call

        if not first_call(command, agent, payload, rest):
            return 0  # the same event from the other hook level: it already runs
        from continuity_core import hooks

        if command == "checkpoint":
            summary = hooks.checkpoint(agent, payload, rest)
            output = "" if quiet or agent else summary or _not_written()
        elif command == "pickup":
            output = hooks.pickup(agent, payload, rest)
        elif command == "pretool":
            output = hooks.pretool(agent, payload, rest, later)
    except (Deadline, Exception) as e:
        output = ""
        _log_failure(command, agent, e)
        if command == "checkpoint" and not (quiet or agent):  # run by hand: a person reads it
            output = f"no checkpoint written: {e or type(e).__name__} (logged for `baker audit`)"
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.alarm(0)
    if output and sys.stdout is not None:  # None: started with its stdout closed
        try:
            sys.stdout.write(output if output.endswith("\n") else output + "\n")
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
    if later:
        _after_answer(command, agent, later, fork=fork)
    return 0


def _after_answer(
    command: str, agent: str | None, work: list[Callable[[], None]], *, fork: bool
) -> None:
    """Run `work` once the agent has its answer: with `fork`, in a detached child (`detach`),
    so the agent waits for none of it; under `DETACHED_S`, the deadline of the checkpoint's
    child, either way."""
    if fork and hasattr(os, "fork"):
        try:
            if detach():
                return
        except OSError as e:  # no fork (a process limit): the work is done here instead
            _log_failure(command, agent, e)
    if hasattr(signal, "SIGALRM"):
        signal.alarm(DETACHED_S)
    try:
        for step in work:
            step()
    except (Deadline, Exception) as e:
        _log_failure(command, agent, e)
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.alarm(0)


def _not_written() -> str:
    """What `baker checkpoint` run by hand says where a hook would say nothing."""
    return (
        f"no checkpoint written: {os.getcwd()} is not in a Continuity project "
        "(run `baker init` at the repository root)"
    )


def _log_failure(command: str, agent: str | None, exc: BaseException) -> None:
    """Into the project's log for `baker audit`; where that cannot be written (a read-only
    repository), into the per-user one, ~/.baker/log/events.jsonl."""
    try:
        from continuity_core import trust
        from continuity_core.store import Store, project_root

        if isinstance(exc, trust.Untrusted):  # never log into a store that failed the check
            trust.refused(exc, command)
            return

        root = project_root()
        if root is not None:
            store = Store(root)
            log = os.path.join(store.store_dir, "log")
            if os.access(log if os.path.isdir(log) else store.store_dir, os.W_OK):
                store.log_exception(command, exc, agent=agent)
            else:
                _user_log(command, agent, exc, root)
    except Exception:  # noqa: S110 - logging is best effort by design
        pass
    if os.environ.get("BAKER_DEBUG"):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)


def _user_log(command: str, agent: str | None, exc: BaseException, root: object) -> None:
    import json

    from continuity_core import trust
    from continuity_core.fs import ensure_private_dir
    from continuity_core.redact import redact
    from continuity_core.stamps import now_iso

    folder = ensure_private_dir(os.path.join(trust.home_root(), "log"))
    line = json.dumps(
        {
            "t": now_iso(),
            "event": "hook_error",
            "command": command,
            "agent": agent,
            "project": str(root),
            "error": f"{type(exc).__name__}: {exc}",
        }
    )
    fd = os.open(
        os.path.join(folder, "events.jsonl"), os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600
    )
    try:
        os.write(fd, (redact(line) + "\n").encode())
    finally:
        os.close(fd)
