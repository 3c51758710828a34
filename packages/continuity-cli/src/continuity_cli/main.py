"""Entry point. Hook commands take a path that never imports click or unused adapters; every
call is one plain process that is gone when it returns (docs/decisions.md)."""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

HOOK_COMMANDS = frozenset({"checkpoint", "pickup", "pretool"})
# The cyclic collector's passes over what a process this short keeps are work it need not do
# (a handoff's reads free their records as they go). Set for the process, here, not in what a
# test may call in-process.
WITHOUT_GC = frozenset({"pretool", "handoff"})


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] and args[0] in WITHOUT_GC:
        gc.disable()
    if args and args[0] in HOOK_COMMANDS and not {"--help", "-h"} & set(args):
        from continuity_cli.hooks import run

        leave(run(args, fork=True))
    handoff = args[:1] == ["handoff"]
    from continuity_cli import boundary

    boundary.install()  # nothing printed from here on carries terminal control from data
    from continuity_cli.app import cli

    try:
        cli.main(args=args, prog_name="baker")
    except SystemExit as e:  # a handoff, its brief out, leaves as a hook does
        if not handoff or not isinstance(e.code, int | None):
            raise
        leave(e.code or 0)


def leave(code: int) -> NoReturn:
    """End a hook or a handoff without the interpreter's teardown, which clears every
    loaded module one by one and costs a checkpoint about as much as a bare start
    (docs/decisions.md, "How the hooks stay fast"). Every file these paths write is closed
    where it is written; what is left is the exit handlers, run here, and the two streams."""
    import atexit

    atexit._run_exitfuncs()  # e.g. coverage's, in the tests' child processes
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # the descriptor was closed when the process started
            continue
        try:
            stream.flush()
        except (OSError, ValueError):
            code = code or 1  # as the interpreter's own exit: output that was lost fails
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
