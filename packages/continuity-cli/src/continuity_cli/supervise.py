"""`baker run`'s supervisor: the agent behind a pseudo-terminal, switched only on a limit.

Everything the user types goes to the agent and everything it writes comes back unchanged
(raw mode, window size, exit code, Ctrl-Z). Two things are watched besides: the limit ledger
(`continuity_core.limits`, written by the agent's hooks), by its modification time, and the
agent's output for a limit message, which counts only when the agent's own transcript
confirms it (`Run.confirm`): text a tool printed, a file or the model's answer never
switches. A limit shows a one-line countdown over the agent; Enter switches now, any other
key cancels and stays. Unix only (pty, termios).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from continuity_core import limits, stamps

OUTPUT_GRACE_S = 5.0  # a resumed session's first output is its history redrawn, not a turn
HOOK_WAIT_S = 2.0  # after a limit message in the output, how long the hook gets to record it
EXIT_INPUT_WAIT_S = 4.0  # after typing the agent's exit command
SIGNAL_WAIT_S = 2.0  # after each of SIGHUP, SIGTERM
TICK_S = 0.25
# Modes a full-screen agent may leave on when it is ended: alternate screen, bracketed paste,
# mouse reporting, hidden cursor, colours.
RESET_MODES = b"\x1b[?1049l\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?25h\x1b[0m"
_ANSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_LIMIT_TEXT = re.compile(limits.OUTPUT_LIMIT, re.I)
# What the terminal itself sends in answer to the agent (cursor position, device attributes,
# focus, OSC colour replies): not a key the user pressed, so it never cancels a countdown.
_REPORT = re.compile(
    rb"(?:\x1b\[\??[\d;]*[Rcn]|\x1b\[[IO]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    rb"|\x1bP[^\x1b]*\x1b\\)+"
)
# What `baker run` watches (`Supervisor.install_signals`); the agent's process starts with these
# and those of job control back at their defaults.
_WATCHED = (signal.SIGWINCH, signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGCONT)
_RESET = (*_WATCHED, signal.SIGINT, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU)


@dataclass
class Child:
    pid: int
    fd: int  # the pty's master side
    entry: limits.Entry
    label: str
    exit_input: tuple[str, ...] = ()
    grace: float = 0.0  # seconds of output not scanned for a limit message (history redrawn)
    stayed: float = 0.0  # when the user last chose to stay: limits from before it are old
    scan: bool = True  # scan the output for a limit message (off after staying, until Enter)
    started: float = field(default_factory=time.time)
    status: int | None = None  # the exit code once it ended

    @property
    def alive(self) -> bool:
        return self.status is None


@dataclass
class Countdown:
    limit: limits.Limit
    target: limits.Entry | None  # None: nothing to switch to, stop
    deadline: float | None  # None: countdown = 0, wait for Enter
    text: str = ""
    # A limit read from the agent's transcript or status line, not yet in the ledger: it
    # enters it only when the switch is confirmed (Enter, or the countdown ran out); Esc
    # drops it. A limit a hook recorded is in the ledger already.
    pending: bool = False
    retry: bool = False  # a rate limit: the same entry again after the wait, not the next one


@dataclass
class _Seen:
    """What `Supervisor.watch` keeps from one tick to the next."""

    tail: bytes = b""  # the output's last bytes, without terminal control
    hit: float | None = None  # when the output showed a limit message not yet confirmed
    text: str = ""  # that message's line
    counting: Countdown | None = None
    painted: float = 0.0  # when the countdown line was last drawn


class Terminal:
    """The user's terminal: raw while an agent runs, restored on every way out."""

    def __init__(self, fd: int) -> None:
        import termios

        self.fd = fd
        self.saved: list[Any] | None = None
        if os.isatty(fd):
            with contextlib.suppress(termios.error):
                self.saved = termios.tcgetattr(fd)

    def raw(self) -> None:
        if self.saved is not None:
            import tty

            tty.setraw(self.fd)

    def restore(self) -> None:
        if self.saved is not None:
            import termios

            with contextlib.suppress(termios.error, OSError):
                termios.tcsetattr(self.fd, termios.TCSADRAIN, self.saved)

    def size(self) -> tuple[int, int]:
        """(rows, columns); (24, 80) when stdin is not a terminal."""
        try:
            cols, rows = os.get_terminal_size(self.fd)
        except OSError:
            return 24, 80
        return rows or 24, cols or 80


def copy_size(src: int, dst: int) -> None:
    import fcntl
    import termios

    with contextlib.suppress(OSError):
        packed = fcntl.ioctl(src, termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(dst, termios.TIOCSWINSZ, packed)


def spawn(argv: list[str], env: dict[str, str], cwd: str, size_from: int) -> tuple[int, int]:
    """Start `argv` on a new pty whose size is the user's terminal's; (pid, master fd)."""
    master, slave = os.openpty()
    copy_size(size_from, slave)
    pid = os.fork()
    if pid == 0:  # the child: new session, the pty as controlling terminal and stdio
        try:
            os.close(master)
            for sig in _RESET:
                signal.signal(sig, signal.SIG_DFL)
            signal.set_wakeup_fd(-1)
            os.login_tty(slave)
            os.chdir(cwd)
            _job(argv, env)
        except OSError as e:
            os.write(2, f"baker run: cannot start {argv[0]}: {e.strerror}\r\n".encode())
        finally:
            os._exit(127)  # never back into baker's code in a forked copy
    os.close(slave)
    return pid, master


def _job(argv: list[str], env: dict[str, str]) -> None:
    """Run the agent as a shell runs a job: in its own foreground process group of this pty
    session, with this process (the session leader) waiting for it. A session leader's own
    group is orphaned, and the kernel drops a Ctrl-Z (SIGTSTP) sent to an orphaned group; in
    a group of its own the agent stops, and this process stops too, so `baker run` sees it.
    Never returns: exits with the agent's status."""
    agent = os.fork()
    if agent == 0:  # a failure to start it ends in `spawn`'s handler, in this copy too
        os.setpgid(0, 0)
        os.execvpe(argv[0], argv, env)  # noqa: S606 - starting the agent is the point
    with contextlib.suppress(OSError):
        os.setpgid(agent, agent)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # tcsetpgrp from the background group
    with contextlib.suppress(OSError):
        os.tcsetpgrp(0, agent)

    def forward(signum: int, frame: Any) -> None:
        with contextlib.suppress(OSError):
            os.killpg(agent, signum)

    for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, forward)
    while True:
        _, status = os.waitpid(agent, os.WUNTRACED)
        if os.WIFSTOPPED(status):
            os.kill(os.getpid(), signal.SIGSTOP)  # `baker run` sees this and stops in turn
            with contextlib.suppress(OSError):
                os.tcsetpgrp(0, agent)
                os.killpg(agent, signal.SIGCONT)
            continue
        code = os.waitstatus_to_exitcode(status)
        os._exit(code if code >= 0 else 128 - code)


def write_all(fd: int, data: bytes) -> None:
    while data:
        try:
            n = os.write(fd, data)
        except InterruptedError:
            continue
        except BlockingIOError:
            select.select([], [fd], [], 1.0)
            continue
        data = data[n:]


class Supervisor:
    """One `baker run`: the current child, its watchers, the countdown."""

    def __init__(
        self,
        *,
        stdin: int,
        stdout: int,
        log: Callable[..., None],
        confirm: Callable[[Child, str], limits.Limit | None],
    ) -> None:
        self.stdin, self.stdout = stdin, stdout
        self.term = Terminal(stdin)
        self.log = log
        self.confirm = confirm  # what the screen showed, checked against the agent's own record
        self.ledger = limits.ledger_path()
        self._ledger_mtime = self._mtime()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        self._signals: list[int] = []
        self._old: dict[int, Any] = {}
        self.stdin_open = True

    # --- signals ----------------------------------------------------------------------------

    def install_signals(self) -> None:
        for sig in _WATCHED:
            self._old[sig] = signal.signal(sig, self._on_signal)
        self._old_wakeup = signal.set_wakeup_fd(self._wake_w, warn_on_full_buffer=False)

    def restore_signals(self) -> None:
        for sig, old in self._old.items():
            with contextlib.suppress(ValueError, OSError):
                signal.signal(sig, old)
        with contextlib.suppress(ValueError):
            signal.set_wakeup_fd(self._old_wakeup)

    def _on_signal(self, signum: int, frame: Any) -> None:
        self._signals.append(signum)

    # --- the loop ---------------------------------------------------------------------------

    def _mtime(self) -> int:
        try:
            return os.stat(self.ledger).st_mtime_ns
        except OSError:
            return 0

    def _ledger_limit(self, child: Child) -> limits.Limit | None:
        mtime = self._mtime()
        if mtime == self._ledger_mtime:
            return None
        self._ledger_mtime = mtime
        found = limits.find(limits.read(self.ledger), child.entry.agent, child.entry.dir)
        return found if found is not None and self.fresh(child, found) else None

    @staticmethod
    def fresh(child: Child, found: limits.Limit) -> bool:
        """A limit of this child's life, not one known before it started (it was named on
        purpose) nor one the user already chose to stay with."""
        since = stamps.parse_time(found.since)
        at = since.timestamp() if since is not None else time.time()
        return at >= child.started - 2 and at > child.stayed

    def watch(
        self, child: Child, choose: Callable[[Child, limits.Limit], Countdown]
    ) -> Countdown | int:
        """Pass everything through until the child exits (its exit code) or a limit's
        countdown runs out or Enter is pressed (that Countdown)."""
        seen = _Seen()
        while True:
            fds = [child.fd, self._wake_r] + ([self.stdin] if self.stdin_open else [])
            try:
                ready, _, _ = select.select(fds, [], [], TICK_S)
            except InterruptedError:
                ready = []
            if self._wake_r in ready:
                with contextlib.suppress(OSError):
                    os.read(self._wake_r, 512)
            stop = self._handle_signals(child)
            if stop is not None:
                return stop
            if child.fd in ready:
                data = self._read(child.fd)
                if data is None:
                    self._reap(child, block=True)
                    return child.status if child.status is not None else 0
                self._output(child, data, seen)
            if self.stdin in ready and self.stdin_open:
                chosen = self._keys(child, seen)
                if chosen is not None:
                    return chosen
            self._reap(child)
            if not child.alive:
                self._drain(child)
                return child.status if child.status is not None else 0
            if seen.counting is None:
                self._limit(child, seen, choose)
            if seen.counting is not None:
                now = time.time()
                if seen.counting.deadline is not None and now >= seen.counting.deadline:
                    self._clear_line()
                    return seen.counting
                if now - seen.painted >= 0.5:
                    self._paint(seen.counting)
                    seen.painted = now

    def _output(self, child: Child, data: bytes, seen: _Seen) -> None:
        """The agent's output to the terminal, and scanned for a limit message."""
        write_all(self.stdout, data)
        if seen.counting is not None:
            seen.painted = 0.0  # the agent may have drawn over the line
        seen.tail = (seen.tail + _ANSI.sub(b"", data.replace(b"\x1b[1C", b" ")))[-2048:]
        if child.scan and seen.hit is None and time.time() - child.started >= child.grace:
            m = _LIMIT_TEXT.search(seen.tail.decode(errors="replace"))
            if m:
                seen.hit, seen.text = time.time(), self._line_of(seen.tail, m)
                seen.tail = b""

    def _keys(self, child: Child, seen: _Seen) -> Countdown | None:
        """The user's keys to the agent, or, during a countdown, Enter (that Countdown) or
        any other key (stay: the countdown is dropped)."""
        keys = self._read(self.stdin)
        counting = seen.counting
        if keys is None:
            self.stdin_open = False
        elif counting is None or _REPORT.fullmatch(keys):
            write_all(child.fd, keys)
            if b"\r" in keys or b"\n" in keys:
                child.scan = True  # a new turn may end on a new limit
        elif keys[:1] in (b"\r", b"\n"):
            self.log("run_countdown_enter", agent=child.entry.text)
            self._clear_line()
            return counting
        else:
            self.log(
                "run_countdown_cancelled",
                agent=child.entry.text,
                key="esc" if keys[:1] == b"\x1b" else "other",
                dropped=counting.pending,  # never entered the ledger
            )
            child.stayed, child.scan = time.time(), False
            seen.counting = None
            self._clear_line()
            with contextlib.suppress(OSError):  # let the agent redraw the line
                os.killpg(os.tcgetpgrp(child.fd), signal.SIGWINCH)
        return None

    def _limit(
        self, child: Child, seen: _Seen, choose: Callable[[Child, limits.Limit], Countdown]
    ) -> None:
        """A limit of this child's, from the ledger (a hook recorded it) or from a limit
        message the agent's own record confirms: its countdown starts."""
        found = self._ledger_limit(child)
        pending = False
        if found is None and seen.hit is not None and time.time() - seen.hit >= HOOK_WAIT_S:
            seen.hit = None
            found = self.confirm(child, seen.text)
            self._ledger_mtime = self._mtime()
            if found is not None and not self.fresh(child, found):
                found = None
            if found is None:  # no record of the agent's says so: text, not a limit
                self.log("run_output_ignored", agent=child.entry.text)
            pending = found is not None
        if found is None:
            return
        seen.hit = None
        self.log(
            "run_limit",
            agent=child.entry.text,
            source=found.source,
            kind=found.kind,
            until=found.until,
        )
        seen.counting = choose(child, found)
        seen.counting.pending = pending
        seen.painted = 0.0

    @staticmethod
    def _line_of(tail: bytes, m: re.Match[str]) -> str:
        text = tail.decode(errors="replace")
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        return " ".join(text[start : end if end >= 0 else None].split())

    def _read(self, fd: int) -> bytes | None:
        """Bytes from `fd`; None at its end (EOF, or EIO: the pty's other side is closed)."""
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return b""
        except OSError as e:
            if e.errno in (errno.EIO, errno.EBADF):
                return None
            raise
        return data or None

    def _drain(self, child: Child) -> None:
        """What the child wrote before it ended."""
        with contextlib.suppress(OSError):
            os.set_blocking(child.fd, False)
        while select.select([child.fd], [], [], 0.05)[0] and (data := self._read(child.fd)):
            write_all(self.stdout, data)

    def _reap(self, child: Child, *, block: bool = False) -> None:
        if not child.alive:
            return
        try:
            pid, status = os.waitpid(child.pid, os.WUNTRACED | (0 if block else os.WNOHANG))
        except ChildProcessError:
            child.status = 0
            return
        if pid == 0:
            return
        if os.WIFSTOPPED(status):
            self._suspend(child)
            return
        code = os.waitstatus_to_exitcode(status)
        child.status = code if code >= 0 else 128 - code

    def _suspend(self, child: Child) -> None:
        """The agent stopped itself (Ctrl-Z): stop too, as the shell expects; resume it after."""
        self.term.restore()
        os.kill(os.getpid(), signal.SIGSTOP)
        self.term.raw()
        copy_size(self.stdin, child.fd)
        with contextlib.suppress(OSError):
            os.killpg(child.pid, signal.SIGCONT)

    def _handle_signals(self, child: Child) -> int | None:
        while self._signals:
            sig = self._signals.pop(0)
            if sig == signal.SIGWINCH:
                copy_size(self.stdin, child.fd)  # the kernel tells the agent's group
            elif sig in (signal.SIGTERM, signal.SIGHUP):
                self.log("run_signalled", signal=signal.Signals(sig).name)
                with contextlib.suppress(OSError):
                    os.killpg(child.pid, sig)
                self.end(child, polite=False)
                return 128 + sig
        return None

    # --- countdown line ---------------------------------------------------------------------

    def _paint(self, counting: Countdown) -> None:
        rows, cols = self.term.size()
        text = counting.text
        if counting.deadline is not None:
            left = max(0, int(counting.deadline - time.time() + 0.999))
            text = text.replace("{s}", str(left))
        text = text[: max(10, cols - 1)]
        write_all(self.stdout, (f"\x1b7\x1b[{rows};1H\x1b[2K\x1b[7m {text} \x1b[0m\x1b8").encode())

    def _clear_line(self) -> None:
        rows, _ = self.term.size()
        write_all(self.stdout, f"\x1b7\x1b[{rows};1H\x1b[2K\x1b8".encode())

    # --- ending an agent --------------------------------------------------------------------

    def end(self, child: Child, *, polite: bool = True) -> None:
        """End `child` cleanly and bounded: its own exit command when its adapter names one,
        then SIGHUP, SIGTERM, SIGKILL to its process group, each with a short wait."""
        if polite and child.exit_input and child.alive:
            for i, part in enumerate(child.exit_input):
                if i:
                    self._pump(child, 0.3)
                with contextlib.suppress(OSError):
                    write_all(child.fd, part.encode())
            self._pump(child, EXIT_INPUT_WAIT_S)
        for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGKILL):
            if not child.alive:
                break
            with contextlib.suppress(OSError):
                os.killpg(child.pid, sig)
            self._pump(child, SIGNAL_WAIT_S)
        self._reap(child, block=child.alive)
        with contextlib.suppress(OSError):
            os.close(child.fd)
        self.log("run_agent_ended", agent=child.entry.text, status=child.status)

    def _pump(self, child: Child, seconds: float) -> None:
        """Pass the child's output through for up to `seconds`, or until it ended."""
        end = time.time() + seconds
        while child.alive and time.time() < end:
            ready, _, _ = select.select([child.fd], [], [], min(0.05, max(0.0, end - time.time())))
            if ready:
                data = self._read(child.fd)
                if data:
                    write_all(self.stdout, data)
                elif data is None:
                    time.sleep(0.05)  # the pty is closed; the process may still be ending
            self._reap(child)
