"""The client side of the warm server: hand this process's command to `baker`'s server.

Every hook call is a new process, and on a slow machine importing msgspec, click and an
adapter costs several bare interpreter starts, so a warm server (`continuity_cli.server`)
keeps them imported and forks a child per command, as Mercurial's `chg` does. This client
passes the child its argv, cwd, umask, environment and the very stdin/stdout/stderr file
descriptors, then exits with the child's exit code: to the agent it is the same process.

It imports nothing beyond os, sys, time and _socket. When no server answers it starts one and the
command runs here as before; `BAKER_SERVER=0` turns the server off (docs/decisions.md).
"""

from __future__ import annotations

import _socket
import os
import stat
import sys
from time import time

SERVED = frozenset({"checkpoint", "pickup", "pretool", "handoff", "recall"})
HOOKS = frozenset({"checkpoint", "pickup", "pretool"})
PROTOCOL = b"baker-served-1"
SOCKET_NAME_MAX = 96  # sun_path holds 104 bytes on macOS, 108 on Linux; the server binds
# a temporary "<path>.<pid>" first
START_WAIT_S = 2.0  # for the server to fork a child for this call
RESPAWN_S = 30.0


def enabled(args: list[str]) -> bool:
    """Whether `args` may run in the server: a served command, the server on, and Linux, where
    the server can tell a sandboxed caller from its own context (docs/decisions.md)."""
    return (bool(args) and args[0] in SERVED and sys.platform == "linux"
            and os.environ.get("BAKER_SERVER", "1").lower() not in ("0", "off", "no", "false"))


def socket_path() -> str | None:
    """`$BAKER_HOME/run/server-<install>-<venv>.sock`, one server per installation and
    interpreter; None when the path would be too long for a unix socket."""
    home = os.environ.get("BAKER_HOME") or os.path.join("~", ".baker")
    try:
        install = os.stat(os.path.dirname(os.path.abspath(__file__)))
        prefix = os.stat(sys.prefix)
    except OSError:  # mid-upgrade, say
        return None
    name = f"server-{install.st_dev:x}-{install.st_ino:x}-{prefix.st_ino:x}.sock"
    path = os.path.join(os.path.expanduser(home), "run", name)
    return path if len(os.fsencode(path)) <= SOCKET_NAME_MAX else None


def private(folder: str) -> bool:
    """Whether `folder` is ours alone: our environment and descriptors go nowhere else."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and st.st_mode & 0o7077 == 0


def running() -> tuple[str | None, int | None]:
    """This installation's server socket path and the pid of a live server, if any."""
    path = socket_path()
    if path is None:
        return None, None
    try:
        with open(path + ".lock") as f:
            pid = int(f.read().split()[0])
        os.kill(pid, 0)
    except (OSError, ValueError, IndexError):
        return path, None
    return path, pid if os.path.exists(path) else None


def call(args: list[str]) -> int | None:
    """Run `args` in the server and return its exit code; None when it must run here."""
    path = socket_path()
    if path is None:
        return None
    if not private(os.path.dirname(path)):
        start_server(path)  # it makes the folder, 0700; a folder not ours stays unused
        return None
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(START_WAIT_S)  # a stopped or wedged server must not hang the agent
    try:
        try:
            sock.connect(path)
        except OSError:
            start_server(path)
            return None
        try:
            if readline(sock) != b"R":  # a child is ready (or S: stale); only then do our
                return None             # descriptors leave, so no wedged server holds them
            sock.settimeout(None)  # from here the command runs: as long as it takes
            send_request(sock, args)
        except OSError:  # no child in time, or e.g. a closed stdin: run here
            return None
        return wait(sock, args[0] in HOOKS)
    finally:
        sock.close()


def send_request(sock: _socket.socket, args: list[str]) -> None:
    umask = os.umask(0o077)
    os.umask(umask)
    fields = [PROTOCOL, b"%o" % umask, os.fsencode(os.getcwd()), b"%d" % len(args),
              *map(os.fsencode, args), *(k + b"=" + v for k, v in os.environb.items())]
    data = b"\0".join(fields)
    message = b"%08x" % len(data) + data
    fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))
    sent = sock.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    if sent < len(message):
        sock.sendall(message[sent:])


def readline(sock: _socket.socket) -> bytes:
    """The server's first line, byte by byte so nothing after it is consumed."""
    line = b""
    while not line.endswith(b"\n"):
        byte = sock.recv(1)
        if not byte:
            break
        line += byte
    return line.rstrip(b"\n")


def wait(sock: _socket.socket, hook: bool) -> int | None:
    """Read the child's replies: `P<pid>` when the command starts, `X<code> <rss>` when it
    ends, or `S` when it could not start it."""
    buf, pid = b"", 0
    while True:
        try:
            chunk = sock.recv(4096)
        except KeyboardInterrupt:  # Ctrl-C reached us, not the child: pass it on (before
            if pid:                # `P` nothing runs yet, and our exit stops the child)
                import contextlib  # here: Ctrl-C is rare, and every hook pays for an import

                with contextlib.suppress(ProcessLookupError):  # it has just ended
                    os.kill(pid, 2)
                continue
            raise
        except OSError:
            chunk = b""
        if not chunk:
            if not pid:  # no command started: run it here
                return None
            if hook:  # the child died without a word: the command may have half run
                return 0
            os.write(2, b"baker: the command ended without an exit status (killed?)\n")
            return 1
        buf += chunk
        while b"\n" in buf:
            line, _, buf = buf.partition(b"\n")
            if line == b"S":
                return None
            if line.startswith(b"P"):
                pid = int(line[1:])
            elif line.startswith(b"X"):
                code, _, rss = line[1:].partition(b" ")
                stats = os.environ.get("BAKER_SERVER_STATS")
                if stats:  # scripts/bench.py: the served child's peak RSS, KiB
                    with open(stats, "a") as f:
                        f.write(rss.decode() + "\n")
                return int(code)


def start_server(path: str) -> None:
    """Start `continuity_cli.server` fully detached (its own session, no inherited descriptors
    but /dev/null), so the agent waiting on this hook's pipes never waits on the server. Not
    again within RESPAWN_S of the last try: a server that cannot start costs one try, not one
    per call."""
    lock = path + ".lock"
    try:
        if os.stat(lock).st_mtime > time() - RESPAWN_S:
            return
        os.utime(lock)
    except OSError:
        pass  # no lock yet: the first start
    try:
        pid = os.fork()
    except OSError:
        return
    if pid:
        os.waitpid(pid, 0)
        return
    try:
        os.setsid()
        if os.fork() == 0:
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            os.closerange(3, 1 << 16)
            os.chdir("/")  # hold no folder, and -P: nothing there shadows a module
            server = [sys.executable, "-P", "-m", "continuity_cli.server", path]
            os.execv(sys.executable, server)  # noqa: S606 - our own interpreter, no shell
    finally:
        os._exit(0)
