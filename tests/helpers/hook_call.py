"""A hook command run in-process, through the same `run` as `baker`'s entry point."""

from __future__ import annotations

import io
import sys


def call(args: list[str], payload: bytes) -> tuple[int, str]:
    """(exit code, stdout) of `baker hook ARGS` with `payload` on stdin."""
    from continuity_cli.hooks import run  # the CLI: absent where an adapter is tested alone

    stdin, stdout = sys.stdin, sys.stdout
    sys.stdin = io.TextIOWrapper(io.BytesIO(payload))
    sys.stdout = io.StringIO()
    try:
        code = run(args)
        return code, sys.stdout.getvalue()
    finally:
        sys.stdin, sys.stdout = stdin, stdout
