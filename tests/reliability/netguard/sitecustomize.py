"""Loaded into every `baker` process the reliability tests start: any attempt to open a
network connection is recorded in $BAKER_NETGUARD_LOG and refused."""

import os
import sys


def _guard(event: str, args: tuple[object, ...]) -> None:
    if event in ("socket.connect", "socket.getaddrinfo", "socket.sendto"):
        path = os.environ.get("BAKER_NETGUARD_LOG")
        if path:
            with open(path, "a") as f:
                f.write(f"{event} {args!r}\n")
        raise OSError(f"network access refused by the test guard: {event}")


sys.addaudithook(_guard)
