"""Entry point. Served commands go to the warm server when one is up (`served`); hook commands
otherwise take a fast path that never imports click or unused adapters."""

from __future__ import annotations

import sys

HOOK_COMMANDS = frozenset({"checkpoint", "pickup", "pretool"})


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    helping = {"--help", "-h"} & set(args)
    if argv is None and not helping:
        from continuity_cli import served

        if served.enabled(args) and (code := served.call(args)) is not None:
            raise SystemExit(code)
    if args and args[0] in HOOK_COMMANDS and not helping:
        from continuity_cli.hooks import run

        raise SystemExit(run(args))
    from continuity_cli.app import cli

    cli.main(args=args, prog_name="baker")


if __name__ == "__main__":  # pragma: no cover
    main()
