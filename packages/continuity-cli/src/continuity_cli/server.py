"""The warm server: `python -m continuity_cli.server SOCKET`, started by `continuity_cli.served`.

It imports every module the served commands use once, then forks a child per connection. The
child takes the client's stdin/stdout/stderr, cwd, umask and environment, runs the command as
`baker` would, and reports its exit code; the parent only accepts. The server leaves when it
has been idle for `BAKER_SERVER_IDLE` seconds (default 600), when its socket was removed or
replaced, when another server holds its lock, or when a module it imported changed on disk (an
upgrade, an edit in a dev install): that client is told so before anything runs and runs its
command itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import io
import os
import pkgutil
import select
import signal
import socket
import struct
import sys
import threading
import time
import traceback

from continuity_cli.served import PROTOCOL

IDLE_S = 600.0
CHECK_S = 5.0  # how often an idle server checks that its socket is still its own
REQUEST_WAIT_S = 10.0
NAMESPACES = ("mnt", "net", "pid", "user", "ipc", "uts", "cgroup")
MAX_REQUEST = 4 << 20
PACKAGES = ("continuity_core", "continuity_cli", "continuity_claude", "continuity_codex",
            "continuity_gemini", "continuity_gpu_probes")
SKIP = ("continuity_core.testing", "continuity_cli.server", "continuity_cli.__main__")


def warm() -> None:
    """Import every installed continuity module (what a child would otherwise import anew
    each time), and compile the redactor's default pattern."""
    for name in PACKAGES:
        try:
            package = importlib.import_module(name)
        except ImportError:
            continue
        for info in pkgutil.walk_packages(package.__path__, name + "."):
            if not info.name.startswith(SKIP):
                with contextlib.suppress(Exception):
                    importlib.import_module(info.name)
    with contextlib.suppress(Exception):
        from continuity_core import redact

        redact.redact("warm")


def stamp() -> dict[str, int]:
    """The modification time of every continuity module this process has imported."""
    seen: dict[str, int] = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and name.partition(".")[0] in PACKAGES:
            try:
                seen[path] = os.stat(path).st_mtime_ns
            except OSError:
                seen[path] = -1
    return seen


def idle_seconds() -> float:
    try:
        return max(0.1, float(os.environ.get("BAKER_SERVER_IDLE", IDLE_S)))
    except ValueError:
        return IDLE_S


def still_ours(path: str, ino: int) -> bool:
    """Whether `path` is still this server's socket: a deleted `run/` folder or a newer server
    means no client can reach this one any more."""
    try:
        return os.stat(path).st_ino == ino
    except OSError:
        return False


def peer(conn: socket.socket) -> tuple[int, int]:
    """The connecting process's pid and uid."""
    raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _ = struct.unpack("3i", raw)
    return pid, uid


def confinement(pid: int | str) -> tuple[str, ...] | None:
    """What confines a process: its namespaces, seccomp mode and no_new_privs (how bubblewrap,
    Landlock and seccomp sandboxes show); None when it cannot be read."""
    try:
        spaces = tuple(os.readlink(f"/proc/{pid}/ns/{ns}") for ns in NAMESPACES)
        with open(f"/proc/{pid}/status") as f:
            flags = tuple(line.strip() for line in f
                          if line.startswith(("Seccomp:", "NoNewPrivs:")))
    except OSError:
        return None
    return spaces + flags


def admissible(conn: socket.socket, own: tuple[str, ...] | None) -> bool:
    """Same user, and confined exactly as this server: a sandboxed agent's tool must not get
    a command run outside its sandbox (nor a server started in one serve the hooks)."""
    pid, uid = peer(conn)
    return uid == os.getuid() and own is not None and confinement(pid) == own


def serve(path: str) -> int:
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another server for this installation is up or starting
    os.ftruncate(lock, 0)
    os.write(lock, b"%d\n" % os.getpid())
    warm()
    known = stamp()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    temp = f"{path}.{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(temp)
    listener.bind(temp)
    os.chmod(temp, 0o600)
    listener.listen(128)
    os.replace(temp, path)  # clients never see a socket that is not listening yet
    ours = os.stat(path).st_ino
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    idle = idle_seconds()
    own = confinement("self")
    last = time.monotonic()
    try:
        while True:
            if not select.select([listener], [], [], min(idle, CHECK_S))[0]:
                if time.monotonic() - last >= idle or not still_ours(path, ours):
                    break
                continue
            last = time.monotonic()
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            if not admissible(conn, own):
                with contextlib.suppress(OSError):
                    conn.sendall(b"S\n")  # the client runs the command itself
                conn.close()
                continue
            if stamp() != known:
                conn.sendall(b"S\n")
                conn.close()
                break
            if os.fork() == 0:  # the child never returns into this loop
                status = 1
                try:
                    listener.close()
                    os.close(lock)  # a long command must not keep the next server out
                    status = child(conn)
                finally:
                    os._exit(status)
            conn.close()
    finally:
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == ours:
                os.unlink(path)
        with contextlib.suppress(OSError):
            os.utime(path + ".lock", (0, 0))  # a clean exit: the next call may start another
        listener.close()
    return 0


def read_request(conn: socket.socket) -> tuple[bytes, list[int]]:
    conn.settimeout(REQUEST_WAIT_S)  # a client stopped halfway must not pin this child
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    if len(fds) != 3:
        raise ValueError("a request comes with stdin, stdout and stderr")
    while len(data) < 8 or len(data) < 8 + int(data[:8], 16):
        more = conn.recv(1 << 16)
        if not more or len(data) > MAX_REQUEST:
            raise ValueError("a truncated request")
        data += more
    conn.settimeout(None)
    return data[8:8 + int(data[:8], 16)], fds


def watch(conn: socket.socket) -> None:
    """Stop this child when its client goes (killed by the agent's hook timeout, say), as the
    command would have stopped with it had it run in that process."""
    with contextlib.suppress(OSError):
        while conn.recv(1):
            pass
    os.kill(os.getpid(), signal.SIGTERM)


def child(conn: socket.socket) -> int:
    """One command, in a fork of the warm server; returns the status for `os._exit`."""
    for sig in (signal.SIGCHLD, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    conn.sendall(b"R\n")  # fails if the client gave up waiting: then nothing runs
    try:
        data, fds = read_request(conn)
        fields = data.split(b"\0")
        if fields[0] != PROTOCOL:
            raise ValueError("a client of another version")
        umask, cwd, argc = int(fields[1], 8), fields[2], int(fields[3])
        args = [os.fsdecode(a) for a in fields[4:4 + argc]]
        env = dict(item.partition(b"=")[::2] for item in fields[4 + argc:])
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        if os.isatty(1) and isinstance(sys.stdout, io.TextIOWrapper):
            sys.stdout.reconfigure(line_buffering=True)  # as it is for a terminal at start-up
        os.umask(umask)
        os.chdir(cwd)
        os.environ.clear()
        os.environb.update(env)
        time.tzset()
        sys.argv = ["baker", *args]
    except Exception:  # nothing ran yet: the client runs it itself
        with contextlib.suppress(OSError):
            conn.sendall(b"S\n")
        return 0
    conn.sendall(b"P%d\n" % os.getpid())
    threading.Thread(target=watch, args=(conn,), daemon=True).start()
    code = run(args)
    import resource

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with contextlib.suppress(OSError):
        conn.sendall(b"X%d %d\n" % (code, rss))
    return 0


def run(args: list[str]) -> int:
    """`baker ARGS` as the entry point runs it; the exit code, streams flushed."""
    from continuity_cli.main import main

    code: object = 0
    try:
        main(args)
    except SystemExit as e:
        code = e.code
    except KeyboardInterrupt:  # Ctrl-C, forwarded by the client
        code = 130
    except BaseException:
        traceback.print_exc()
        code = 1
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)  # as the interpreter does with SystemExit("message")
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    raise SystemExit(serve(sys.argv[1]))
