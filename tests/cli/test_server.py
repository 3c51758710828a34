"""The warm server (`continuity_cli.server`) behind `continuity_cli.served`: a served command is
the same command, with the caller's stdin/stdout/stderr, cwd, environment and exit code; the
server never holds the caller's pipes, leaves when idle or when its code changed, and a command
runs in its own process whenever no server answers."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.cli.test_hooks_baton import real_payload
from tests.conftest import BAKER, FIXTURES, run_baker, server_processes

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the server is Linux only")


def payload(name: str, root: Path, **changes: object) -> bytes:
    data = json.loads(real_payload(FIXTURES, "claude", name, root))
    data.update(changes)
    return json.dumps(data).encode()


class Server:
    def __init__(self, home: Path) -> None:
        self.run_dir = home / "run"
        self.stats = home / "stats"

    def socket(self) -> Path | None:
        found = list(self.run_dir.glob("*.sock"))
        return found[0] if found else None

    def pids(self) -> list[int]:
        return [int(p.read_text().split()[0]) for p in self.run_dir.glob("*.lock")
                if p.read_text().strip()]

    def wait_up(self, timeout: float = 30) -> Path:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if (sock := self.socket()) is not None:
                return sock
            time.sleep(0.05)
        raise AssertionError("the server did not come up")

    def wait_gone(self, timeout: float = 30) -> None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.socket() is None and not any(alive(p) for p in self.pids()):
                return
            time.sleep(0.05)
        raise AssertionError("the server did not leave")

    def start(self, cwd: Path) -> Path:
        """A served command outside any project starts the server and does nothing else."""
        assert run_baker("pretool", cwd=cwd, input=b"").returncode == 0
        return self.wait_up()

    def stop(self) -> None:
        """Stop every server of this home, one still starting (or started by a late hook of an
        agent that is still exiting) included; SIGKILL what SIGTERM did not stop in time."""
        end = time.monotonic() + 20
        while time.monotonic() < end:
            pids = {*self.pids(), *self.processes()}
            if not any(alive(p) for p in pids):
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM if time.monotonic() < end - 5 else signal.SIGKILL)
            time.sleep(0.2)

    def processes(self) -> list[int]:
        """Every running server of this home (Linux /proc)."""
        return server_processes(self.run_dir)

    def served(self) -> int:
        """How many commands the server ran since the last call (from BAKER_SERVER_STATS)."""
        try:
            count = len(self.stats.read_text().split())
        except FileNotFoundError:
            return 0
        self.stats.unlink()
        return count


def alive(pid: int) -> bool:
    """Running: a zombie nobody reaped yet (its parent is init, or a subreaper) is not."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    return True


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """BAKER_HOME in a short folder (a unix socket path holds ~100 bytes), the server on."""
    home = Path(tempfile.mkdtemp(prefix="bk-", dir="/tmp"))
    monkeypatch.setenv("BAKER_HOME", str(home))
    monkeypatch.setenv("BAKER_SERVER", "1")
    monkeypatch.setenv("BAKER_SERVER_STATS", str(home / "stats"))
    s = Server(home)
    yield s
    try:
        s.stop()
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def project(repo: Path) -> Path:
    assert run_baker("init", cwd=repo, env={"BAKER_SERVER": "0"}).returncode == 0
    assert run_baker("trap", "add", "weather/*.py", "float maths broke the rounding",
                     cwd=repo).returncode == 0
    return repo


def test_served_hooks_print_what_the_hooks_print_alone(server: Server, project: Path) -> None:
    server.start(project.parent)
    assert server.served() == 0  # it started the server and ran itself
    for n, env in enumerate(({}, {"BAKER_SERVER": "0"})):
        data = payload("PreToolUse.Write.json", project, session_id=f"s{n}",
                       tool_input={"file_path": str(project / "weather" / "units.py")})
        out = run_baker("pretool", "--agent", "claude", cwd=project, input=data, env=env)
        assert out.returncode == 0 and out.stderr == ""
        assert "float maths broke the rounding" in out.stdout
        assert json.loads(out.stdout)["hookSpecificOutput"]["hookEventName"] == "PreToolUse"
        assert server.served() == (1 if n == 0 else 0)
    stop = payload("Stop.json", project)
    assert run_baker("checkpoint", "--agent", "claude", cwd=project, input=stop).returncode == 0
    assert server.served() == 1
    assert len(list((project / ".baker" / "checkpoints").iterdir())) == 1
    served = run_baker("pickup", "--agent", "claude", cwd=project,
                       input=payload("SessionStart.json", project, session_id="other"))
    alone = run_baker("pickup", "--agent", "claude", cwd=project, env={"BAKER_SERVER": "0"},
                      input=payload("SessionStart.json", project, session_id="other"))
    assert served.returncode == alone.returncode == 0
    assert served.stdout == alone.stdout and "weather-cli" not in served.stderr


def test_the_caller_s_cwd_env_and_exit_codes_reach_the_command(server: Server,
                                                               project: Path) -> None:
    server.start(project.parent)
    usage = run_baker("handoff", "--no-such-flag", cwd=project)
    assert usage.returncode == 2 and "No such option" in usage.stderr
    missing = run_baker("handoff", "--from", "codex", cwd=project,
                        env={"BAKER_ADAPTERS": "claude"})
    assert missing.returncode == 1 and "no adapter named 'codex'" in missing.stderr
    (project / "sub").mkdir()
    found = run_baker("handoff", "--from", "claude", "--json", cwd=project / "sub")
    assert server.served() == 3
    alone = run_baker("handoff", "--from", "claude", "--json", cwd=project / "sub",
                      env={"BAKER_SERVER": "0"})
    assert (found.returncode, found.stderr) == (alone.returncode, alone.stderr)
    # no Claude session here: both exit 1 naming the project found from the caller's cwd
    assert found.returncode == 1 and f"no session of {project.resolve()}" in found.stderr


def test_starting_the_server_never_holds_the_caller_s_pipes(server: Server, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BAKER_SERVER_IDLE", "120")
    started = time.monotonic()
    proc = subprocess.run([BAKER, "pretool"], cwd=tmp_path, input=b"", capture_output=True,
                          timeout=60)
    assert proc.returncode == 0 and time.monotonic() - started < 30
    server.wait_up()
    pid = server.pids()[0]
    assert alive(pid) and os.getsid(pid) != os.getsid(0)


def test_an_idle_server_leaves_and_the_next_call_starts_another(
        server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BAKER_SERVER_IDLE", "0.5")
    server.start(tmp_path)
    server.wait_gone()
    server.start(tmp_path)


def test_a_server_whose_code_changed_leaves_before_running_anything(
        server: Server, tmp_path: Path) -> None:
    import continuity_cli.hooks as module

    server.start(tmp_path)
    before = os.stat(module.__file__)
    os.utime(module.__file__, ns=(before.st_atime_ns, before.st_mtime_ns + 10**9))
    try:
        out = run_baker("pretool", cwd=tmp_path, input=b"")
        assert out.returncode == 0 and server.served() == 0  # it ran in its own process
        server.wait_gone()
    finally:
        os.utime(module.__file__, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_one_server_per_installation_and_concurrent_commands(server: Server,
                                                             project: Path) -> None:
    procs = [subprocess.Popen([BAKER, "pretool"], cwd=project.parent, stdin=subprocess.DEVNULL)
             for _ in range(6)]
    assert all(p.wait(60) == 0 for p in procs)
    server.wait_up()
    time.sleep(0.5)  # the losers of the lock have left by now
    assert len([p for p in server.pids() if alive(p)]) == 1
    if Path("/proc/self").exists():
        assert len(server.processes()) == 1

    def checkpoint(n: int) -> tuple[int, str]:
        data = payload("Stop.json", project, session_id=f"s{n}")
        out = run_baker("checkpoint", "--agent", "claude", cwd=project, input=data)
        return out.returncode, out.stderr

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(checkpoint, range(16))) == [(0, "")] * 16
    assert server.served() == 16
    assert len(list((project / ".baker" / "checkpoints").iterdir())) == 16


def test_sigterm_stops_the_server_and_removes_its_socket(server: Server, tmp_path: Path) -> None:
    sock = server.start(tmp_path)
    os.kill(server.pids()[0], signal.SIGTERM)
    server.wait_gone()
    assert not sock.exists()
    out = run_baker("pretool", cwd=tmp_path, input=b"")
    assert out.returncode == 0 and server.served() == 0
    server.wait_up()  # that call found no server, so it started one


def test_no_server_when_turned_off_or_the_socket_path_is_too_long(
        server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_baker("pretool", cwd=tmp_path, input=b"", env={"BAKER_SERVER": "0"}).returncode == 0
    time.sleep(0.5)
    assert server.socket() is None and not server.run_dir.exists()
    deep = tmp_path / ("d" * 120)
    monkeypatch.setenv("BAKER_HOME", str(deep))
    assert run_baker("pretool", cwd=tmp_path, input=b"").returncode == 0
    time.sleep(0.5)
    assert not (deep / "run").exists()


def test_doctor_says_whether_the_server_runs(server: Server, tmp_path: Path) -> None:
    def line() -> str:
        found = json.loads(run_baker("doctor", "--json", cwd=tmp_path).stdout)
        return next(f["message"] for f in found if "warm server" in f["message"])

    assert line().startswith("no warm server running")
    server.start(tmp_path)
    assert line().startswith(f"warm server running (pid {server.pids()[0]}")
    assert run_baker("doctor", "--json", cwd=tmp_path, env={"BAKER_SERVER": "0"}).stdout.count(
        "warm server off") == 1


def test_a_stopped_server_costs_a_wait_not_a_hang(server: Server, project: Path) -> None:
    server.start(project.parent)
    pid = server.pids()[0]
    os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        data = payload("PreToolUse.Write.json", project, session_id="stopped",
                       tool_input={"file_path": str(project / "weather" / "units.py")})
        out = run_baker("pretool", "--agent", "claude", cwd=project, input=data)
        assert out.returncode == 0 and "float maths broke" in out.stdout
        assert time.monotonic() - started < 30 and server.served() == 0
    finally:
        os.kill(pid, signal.SIGCONT)
    time.sleep(1)  # the server now forks for the abandoned request: it must not run it
    assert server.served() == 0
    again = run_baker("pretool", "--agent", "claude", cwd=project, input=data)
    assert again.returncode == 0 and again.stdout == ""  # delivered once, to that session
    assert server.served() == 1


def test_a_server_whose_socket_was_removed_leaves(server: Server, tmp_path: Path) -> None:
    sock = server.start(tmp_path)
    pid = server.pids()[0]
    shutil.rmtree(server.run_dir)  # e.g. the user deleted ~/.baker
    end = time.monotonic() + 30
    while alive(pid) and time.monotonic() < end:
        time.sleep(0.1)
    assert not alive(pid) and not sock.exists()


def children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (Linux /proc)."""
    found = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            if int(stat_file.read_text().rpartition(")")[2].split()[1]) == pid:
                found.append(int(stat_file.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="finds the child through /proc")
def test_ctrl_c_reaches_the_served_command(server: Server, project: Path) -> None:
    server.start(project.parent)
    env = {**os.environ, "BAKER_SERVER_STATS": str(server.stats)}
    # pretool waits for its payload on stdin, which this pipe never closes
    proc = subprocess.Popen([BAKER, "pretool"], cwd=project, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        end = time.monotonic() + 20
        while not children(server.pids()[0]) and time.monotonic() < end:
            time.sleep(0.05)
        time.sleep(0.3)  # the child has told the client its pid, and waits on stdin
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=2.5) == 130  # before pretool's own 3 s deadline
        assert time.monotonic() - started < 2.5
    finally:
        proc.kill()
        proc.communicate()
    assert server.served() == 1


def no_new_privs() -> None:
    """In the child before exec: set no_new_privs, as Landlock and seccomp sandboxes do."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS


def test_a_sandboxed_caller_is_not_served(server: Server, tmp_path: Path) -> None:
    """A tool call inside an agent's sandbox must not get commands run outside of it."""
    server.start(tmp_path)
    env = {**os.environ, "BAKER_SERVER_STATS": str(server.stats)}
    confined = subprocess.run([BAKER, "pretool"], cwd=tmp_path, input=b"", env=env,
                              capture_output=True, preexec_fn=no_new_privs, timeout=60)
    assert confined.returncode == 0 and server.served() == 0  # it ran in its own process
    free = subprocess.run([BAKER, "pretool"], cwd=tmp_path, input=b"", env=env,
                          capture_output=True, timeout=60)
    assert free.returncode == 0 and server.served() == 1


def test_a_killed_client_takes_its_command_with_it(server: Server, project: Path) -> None:
    server.start(project.parent)
    proc = subprocess.Popen([BAKER, "pretool"], cwd=project, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 20
        while not (kids := children(server.pids()[0])) and time.monotonic() < end:
            time.sleep(0.05)
        assert kids
        proc.kill()  # as an agent's hook timeout does; the child waits on stdin meanwhile
        started = time.monotonic()
        proc.stdout.read()  # type: ignore[union-attr]  # EOF once no process holds the pipe
        while any(alive(k) for k in kids) and time.monotonic() - started < 1.5:
            time.sleep(0.02)  # its descriptors close a moment before it is gone
        assert time.monotonic() - started < 1.5  # well before pretool's own 3 s deadline
    finally:
        proc.kill()
        proc.communicate()


def test_a_run_folder_others_can_enter_is_not_used(server: Server, tmp_path: Path) -> None:
    server.start(tmp_path)
    server.run_dir.chmod(0o755)
    assert run_baker("pretool", cwd=tmp_path, input=b"").returncode == 0
    assert server.served() == 0
