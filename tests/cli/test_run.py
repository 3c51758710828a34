"""`baker run` behind a real pseudo-terminal, with tiny fake agents on PATH named `claude` and
`codex`: switch on a hook's limit, Esc stays, every entry limited exits 75, the output's limit
message when no hook says so, and the agent's exit code passed through."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from continuity_core import limits, stamps
from tests.conftest import BAKER
from tests.helpers.config import rotation, work_account, write_config
from tests.helpers.invoke import Invoke

pytest.importorskip("continuity_claude")  # the agents these flows run
pytest.importorskip("continuity_codex")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="baker run is Unix only")

FAKE = r'''#!{python}
"""A fake agent: logs how it was started, echoes lines, and on command hits a limit."""
import json, os, subprocess, sys
name = os.path.basename(sys.argv[0])
with open(os.environ["FAKE_LOG"], "a") as f:
    f.write(json.dumps({{"name": name, "argv": sys.argv[1:], "run": os.environ.get("BAKER_RUN_ID"),
                        "claude_dir": os.environ.get("CLAUDE_CONFIG_DIR")}}) + "\n")
import signal as _signal
_signal.signal(_signal.SIGWINCH, lambda *_: print("redraw", flush=True))
print(f"{{name}} ready", flush=True)
for line in sys.stdin:
    cmd = line.strip()
    if cmd == "/exit":
        print("bye", flush=True)
        sys.exit(0)
    if cmd.startswith("exit "):
        sys.exit(int(cmd[5:]))
    if cmd == "hook-limit":  # what Claude Code's StopFailure hook sends
        payload = {{"session_id": "s-1", "cwd": os.getcwd(), "hook_event_name": "StopFailure",
                    "error": "rate_limit",
                    "last_assistant_message": "You've hit your 5-hour limit · resets 5:41am (UTC)"}}
        subprocess.run(["{baker}", "checkpoint", "--agent", "claude"],
                       input=json.dumps(payload).encode(), check=False)
        print("limit hit", flush=True)
    elif cmd == "size":
        cols, rows = os.get_terminal_size(0)
        print(f"size {{cols}}x{{rows}}", flush=True)
    elif cmd == "suspend":  # as Ctrl-Z does to a program in a terminal
        import signal
        os.kill(os.getpid(), signal.SIGTSTP)
        print("resumed", flush=True)
    elif cmd == "say-limit":  # as a README it `cat`s, a log, or its own answer would
        print("You've hit your usage limit. Upgrade or try again later.", flush=True)
    elif cmd.startswith("api-error"):  # its turn ends in an API error, then its status line
        import datetime, uuid
        now = datetime.datetime.now(datetime.timezone.utc)
        ts = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{{now.microsecond // 1000:03d}}Z"
        sid = str(uuid.uuid4())
        home = os.environ.get("CODEX_HOME") or os.path.expanduser("~/.codex")
        day = os.path.join(home, "sessions", now.strftime("%Y/%m/%d"))
        os.makedirs(day, exist_ok=True)
        meta = {{"id": sid, "session_id": sid, "timestamp": ts, "cwd": os.getcwd(),
                 "originator": "codex_cli_rs", "cli_version": "0.171.0", "source": "cli"}}
        error = {{"message": "stream disconnected before completion"}}
        lines = [{{"timestamp": ts, "type": "session_meta", "payload": meta}},
                 {{"timestamp": ts, "type": "event_msg",
                   "payload": {{"type": "user_message", "message": "go on"}}}},
                 {{"timestamp": ts, "type": "event_msg",
                   "payload": {{"type": "task_complete", "last_agent_message": None,
                               "error": error}}}}]
        name = f"rollout-{{now.strftime('%Y-%m-%dT%H-%M-%S')}}-{{sid}}.jsonl"
        with open(os.path.join(day, name), "w") as f:
            f.write("".join(json.dumps(x) + "\n" for x in lines))
        said = cmd[len("api-error"):].strip() or "You've hit your usage limit."
        print(said, flush=True)
    else:
        print(f"echo {{cmd}}", flush=True)
'''


class Pty:
    """`baker run` on a pty, read and written like a person at a terminal."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        import fcntl
        import struct
        import termios

        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 200, 0, 0))
        os.set_blocking(master, False)
        self.proc = subprocess.Popen(
            [BAKER, "run", *args],
            cwd=cwd,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        self.slave = slave  # kept open: the terminal's modes can be read after baker run ends
        self.fd = master
        self.seen = b""

    def expect(self, pattern: str, timeout: float = 20) -> str:
        regex = re.compile(pattern.encode())
        end = time.time() + timeout
        while time.time() < end:
            if m := regex.search(self.seen):
                found = self.seen[: m.end()].decode(errors="replace")
                self.seen = self.seen[m.end() :]
                return found
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:
                    time.sleep(0.05)
        raise AssertionError(f"{pattern!r} not seen; got {self.seen[-2000:]!r}")

    def send(self, data: str) -> None:
        os.write(self.fd, data.encode())

    def wait(self, timeout: float = 20) -> int:
        end = time.time() + timeout
        while time.time() < end:
            with_code = self.proc.poll()
            if with_code is not None:
                return with_code
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if ready:
                with contextlib.suppress(OSError):
                    self.seen += os.read(self.fd, 65536)
        raise AssertionError(f"baker run did not exit; got {self.seen[-2000:]!r}")

    def __enter__(self) -> Pty:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.fd)
        os.close(self.slave)

    def canonical(self) -> bool:
        import termios

        return bool(termios.tcgetattr(self.slave)[3] & termios.ICANON)


@pytest.fixture
def agents(tmp_path: Path, isolated_home: Path, repo: Path) -> dict[str, str]:
    from tests.conftest import run_baker

    assert run_baker("init", cwd=repo).returncode == 0  # a store: `baker run` logs there
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("claude", "codex"):
        path = bin_dir / name
        path.write_text(FAKE.format(python=sys.executable, baker=BAKER))
        path.chmod(0o755)
    return {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "FAKE_LOG": str(tmp_path / "fake.log"),
        "TERM": "xterm",
    }


def _rotation(home: Path, order: list[str], countdown: int = 1, max_hops: int = 3) -> None:
    write_config(
        home, work_account(home) + "\n" + rotation(order, countdown=countdown, max_hops=max_hops)
    )


def _started(env: dict[str, str]) -> list[dict[str, Any]]:
    path = Path(env["FAKE_LOG"])
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_hook_limit_switches_to_the_next_agent_with_the_brief(
    repo: Path, agents: dict[str, str], isolated_home: Path
) -> None:
    _rotation(isolated_home, ["claude", "codex"])
    with Pty(["--", "--model", "m1"], repo, agents) as term:
        term.expect("claude ready")
        term.send("hook-limit\r")
        term.expect(
            r"Claude Code hit its 5-hour limit, resets (?:\d{4}-\d\d-\d\d )?\d\d:\d\d .{0,20}continuing in "
            r"Codex CLI in \d s"
        )
        term.expect("bye")  # ended with its own exit command
        term.expect("continuing in Codex")
        term.expect("codex ready")
        term.send("hello\r")
        term.expect("echo hello")
        term.send("exit 3\r")
        assert term.wait() == 3  # the last agent's status is baker run's
    claude, codex = _started(agents)
    assert claude["argv"] == ["--model", "m1"]
    assert claude["run"] and claude["run"] == codex["run"]
    prompt = codex["argv"][0]
    assert isinstance(prompt, str) and "Handoff brief" in prompt
    (recorded,) = limits.read()
    assert (recorded.agent, recorded.source) == ("claude", "hook")
    log = (repo / ".baker" / "log" / "events.jsonl").read_text()
    for event in ("run_start", "run_limit", "run_switch", "run_exit"):
        assert f'"{event}"' in log


def test_same_agent_other_account_gets_its_config_dir(
    repo: Path, agents: dict[str, str], isolated_home: Path
) -> None:
    _rotation(isolated_home, ["claude", "claude:work"])
    with Pty([], repo, agents) as term:
        term.expect("claude ready")
        term.send("hook-limit\r")
        term.expect("continuing in Claude Code \\(work\\)")
        term.expect("claude ready")
        term.send("/exit\r")
        assert term.wait() == 0
    first, second = _started(agents)
    assert first["claude_dir"] is None
    assert second["claude_dir"] == str(isolated_home / ".claude-work")


def test_esc_during_the_countdown_stays_in_the_agent(
    repo: Path, agents: dict[str, str], isolated_home: Path
) -> None:
    _rotation(isolated_home, ["claude", "codex"], countdown=30)
    with Pty([], repo, agents) as term:
        term.expect("claude ready")
        term.send("hook-limit\r")
        term.expect("Esc stay")
        term.send("\x1b[3;1R")  # the terminal answering a cursor query: not a key
        time.sleep(0.5)
        log = repo / ".baker" / "log" / "events.jsonl"
        assert '"run_countdown_cancelled"' not in log.read_text()
        term.send("\x1b")
        term.expect("redraw")  # the agent is asked to draw over the countdown line
        term.send("still here\r")
        term.expect("echo .{0,12}still here")  # (after the report the fake read as text)
        term.send("exit 0\r")
        assert term.wait() == 0
    assert [s["name"] for s in _started(agents)] == ["claude"]
    assert '"run_countdown_cancelled"' in (repo / ".baker" / "log" / "events.jsonl").read_text()


def test_every_entry_limited_ends_the_agent_and_exits_75(
    repo: Path, agents: dict[str, str], isolated_home: Path
) -> None:
    _rotation(isolated_home, ["claude"])
    with Pty([], repo, agents) as term:
        term.expect("claude ready")
        term.send("hook-limit\r")
        term.expect("no entry is free: ending it in")
        term.expect("bye")
        assert term.wait() == 75
        text = term.seen.decode(errors="replace")
    assert re.search(
        r"every entry is limited; claude resets first, at (?:\d{4}-\d\d-\d\d )?\d\d:\d\d", text
    )


def test_nothing_to_start_when_everything_is_limited(
    repo: Path, agents: dict[str, str], isolated_home: Path
) -> None:
    _rotation(isolated_home, ["codex"])
    limits.record(
        limits.Limit(agent="codex", dir=str(isolated_home / ".codex"), since=stamps.now_iso())
    )
    with Pty([], repo, agents) as term:
        assert term.wait() == 75
    assert "codex's reset time is unknown" in term.seen.decode(errors="replace")
    assert _started(agents) == []


def test_the_status_line_switches_when_the_transcript_shows_the_turn_failed(
    repo: Path, agents: dict[str, str], isolated_home: Path
) -> None:
    """No hook said so, but the agent's transcript shows its turn ended in an API error with
    no answer: then its status line ("You've hit your usage limit") says what the error was.
    The limit enters the ledger only once the switch is made."""
    from continuity_cli.supervise import OUTPUT_GRACE_S

    _rotation(isolated_home, ["codex", "claude"])
    with Pty(["--", "resume", "--last"], repo, agents) as term:  # a resumed session redraws history
        term.expect("codex ready")
        term.send("api-error\r")  # too early: history being redrawn, not a turn
        term.expect("hit your usage limit")
        time.sleep(OUTPUT_GRACE_S)
        term.send("api-error\r")
        term.expect("continuing in Claude Code in")
        term.expect("claude ready", timeout=30)  # codex has no exit command: SIGHUP
        term.send("exit 0\r")
        assert term.wait() == 0
    (recorded,) = limits.read()
    assert (recorded.agent, recorded.source, recorded.kind) == ("codex", "output", "usage_limit")
    assert "hit your usage limit" in recorded.message


def test_a_crash_is_passed_through_without_switching(
    repo: Path, agents: dict[str, str], isolated_home: Path
) -> None:
    _rotation(isolated_home, ["claude", "codex"])
    with Pty([], repo, agents) as term:
        term.expect("claude ready")
        assert not term.canonical()  # raw while the agent runs
        term.send("exit 7\r")
        assert term.wait() == 7
        assert term.canonical()  # and restored after
    assert [s["name"] for s in _started(agents)] == ["claude"]


def test_arguments_before_the_separator_are_refused(repo: Path) -> None:
    from tests.conftest import run_baker

    result = run_baker("run", "claude", "extra", cwd=repo)
    assert result.returncode == 1
    assert "after `--`" in result.stderr


def test_a_fresh_agent_s_limit_message_counts_at_once(
    repo: Path, agents: dict[str, str], isolated_home: Path
) -> None:
    _rotation(isolated_home, ["codex", "claude"], max_hops=0)
    with Pty([], repo, agents) as term:
        term.expect("codex ready")
        term.send("api-error\r")
        term.expect("no switch left: ending it in")
        assert term.wait(30) == 75
    assert "max_hops" in term.seen.decode(errors="replace")


def test_resize_and_suspend_pass_through(
    repo: Path, agents: dict[str, str], isolated_home: Path
) -> None:
    import fcntl
    import struct
    import termios

    _rotation(isolated_home, ["claude"])
    with Pty([], repo, agents) as term:
        term.expect("claude ready")
        term.send("size\r")
        term.expect("size 200x30")
        fcntl.ioctl(term.slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 132, 0, 0))
        os.kill(term.proc.pid, signal.SIGWINCH)  # what the terminal does on a resize
        time.sleep(0.5)
        term.send("size\r")
        term.expect("size 132x50")
        term.send("suspend\r")
        # baker run stops with the agent, as the shell expects of a job, terminal restored
        proc = Path("/proc").is_dir()
        deadline = time.time() + 10
        while time.time() < deadline and not (
            term.canonical() and (not proc or _state(term.proc.pid) == "T")
        ):
            time.sleep(0.1)
        assert term.canonical()
        assert not proc or _state(term.proc.pid) == "T"
        os.kill(term.proc.pid, signal.SIGCONT)  # `fg`
        term.expect("resumed")
        assert not term.canonical()
        term.send("exit 0\r")
        assert term.wait() == 0


def _state(pid: int) -> str:
    """The process state letter from /proc (T: stopped); "" where there is no /proc."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return ""


def test_windows_is_told_to_use_resume_next(monkeypatch: pytest.MonkeyPatch, cli: Invoke) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    result = cli("run", "claude")
    assert result.exit_code == 1
    assert "not supported on Windows" in result.output
    assert "baker resume --next" in result.output
