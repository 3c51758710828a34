"""Entry point. Hook commands, and `handoff` in its everyday form, take a path that never
imports click or unused adapters; every call is one plain process that is gone when it
returns (docs/decisions.md)."""

from __future__ import annotations

import sys

HOOK_COMMANDS = frozenset({"checkpoint", "pickup", "pretool"})


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in HOOK_COMMANDS and not {"--help", "-h"} & set(args):
        from continuity_cli.hooks import run

        raise SystemExit(run(args))
    if args and args[0] == "handoff":  # its everyday form runs without click
        from continuity_cli import handoff

        options = handoff.plain_args(args[1:])
        if options is not None:
            raise SystemExit(handoff.run(options))
    from continuity_cli.app import cli

    cli.main(args=args, prog_name="baker")


if __name__ == "__main__":  # pragma: no cover
    main()
