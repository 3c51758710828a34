"""Loaded into every `baker` process the reliability tests start: any attempt to open a
network connection is recorded in $BAKER_NETGUARD_LOG and refused. A unix socket (a path) is
local, not network, and allowed."""

import os
import sys


def _guard(event: str, args: tuple[object, ...]) -> None:
    if event == "socket.connect" and isinstance(args[1], (str, bytes)):
        return
    if event in ("socket.connect", "socket.getaddrinfo", "socket.sendto"):
        path = os.environ.get("BAKER_NETGUARD_LOG")
        if path:
            with open(path, "a") as f:
                f.write(f"{event} {args!r}\n")
        raise OSError(f"network access refused by the test guard: {event}")


sys.addaudithook(_guard)
