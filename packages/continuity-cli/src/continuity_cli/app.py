"""The click application: a lazy group, so `baker --help` imports no command module twice
and a command imports only what it uses. Domain errors become one line and exit code 1."""

from __future__ import annotations

import errno
import importlib
import re
from typing import Any

import click

from continuity_cli import __version__

# name -> "module:attribute"; the order here is the order in `baker --help`.
COMMANDS: dict[str, str] = {
    "init": "continuity_cli.commands.setup:init",
    "sync": "continuity_cli.commands.setup:sync",
    "uninstall": "continuity_cli.commands.setup:uninstall",
    "adapters": "continuity_cli.commands.setup:adapters",
    "handoff": "continuity_cli.commands.handoff:handoff",
    "resume": "continuity_cli.commands.resume:resume",
    "push": "continuity_cli.commands.machines:push",
    "pull": "continuity_cli.commands.machines:pull",
    "sessions": "continuity_cli.commands.sessions:sessions",
    "run": "continuity_cli.commands.run:run",
    "limits": "continuity_cli.commands.limits:limits",
    "global": "continuity_cli.commands.global_:global_",
    "doctor": "continuity_cli.commands.doctor:doctor",
    "status": "continuity_cli.commands.status:status",
    "note": "continuity_cli.commands.notes:note",
    "now": "continuity_cli.commands.notes:now",
    "block": "continuity_cli.commands.notes:block",
    "trap": "continuity_cli.commands.notes:trap",
    "facts": "continuity_cli.commands.saved:facts",
    "save": "continuity_cli.commands.saved:save",
    "resume-check": "continuity_cli.commands.saved:resume_check",
    "usage": "continuity_cli.commands.saved:usage",
    "list": "continuity_cli.commands.saved:list_",
    "validate": "continuity_cli.commands.saved:validate",
    "prune": "continuity_cli.commands.saved:prune",
    "recall": "continuity_cli.commands.archive:recall",
    "audit": "continuity_cli.commands.archive:audit",
    "mcp": "continuity_cli.commands.serve_mcp:mcp",
    "checkpoint": "continuity_cli.commands.hooks:checkpoint",
    "pickup": "continuity_cli.commands.hooks:pickup",
    "pretool": "continuity_cli.commands.hooks:pretool",
    "precommit": "continuity_cli.commands.precommit:precommit",
}


class Group(click.Group):
    """A group whose command list shows each command's whole first sentence, wrapped, never
    cut with "…" (click cuts it to fit one line)."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=1_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """An unknown command is answered with the nearest names (`baker handof`: did you mean
        'handoff'?): click suggests only among the commands it holds, and a lazy group holds
        none until one is asked for."""
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand as e:
            raise click.exceptions.NoSuchCommand(
                e.command_name, possibilities=self.list_commands(ctx), ctx=ctx
            ) from None


class LazyGroup(Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*COMMANDS, *super().list_commands(ctx)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module, _, attr = target.partition(":")
        command: click.Command = getattr(importlib.import_module(module), attr)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        from continuity_core.errors import BakerError

        try:
            return super().invoke(ctx)
        except BakerError as e:
            raise click.ClickException(str(e)) from None
        except OSError as e:
            if e.filename is None:
                raise
            raise click.ClickException(os_error_line(e)) from None


# The atomic writer's temp name beside the target: `.NAME.PID.HEX.tmp`.
_TEMP = r"^\.(?P<name>.+)\.\d+\.[0-9a-f]{8}\.tmp$"


def os_error_line(e: OSError) -> str:
    """A failed read or write as one line naming the path (the file meant, not the atomic
    writer's temp file beside it), never a traceback."""
    from pathlib import Path  # here: a handoff, which never fails so, imports no pathlib

    path = Path(str(e.filename))
    m = re.match(_TEMP, path.name)
    if m:
        path = path.with_name(m.group("name"))
    reason = (e.strerror or str(e)).lower()
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"cannot write {path}: {reason} (check that it and its folder are writable)"
    return f"{path}: {reason}"


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="baker")
def cli() -> None:
    """Continuity: keep an AI coding agent's work alive when its session ends.

    `baker init` in a repository installs hooks that checkpoint after every agent turn;
    `baker handoff` prints a brief for the next agent or account; `baker resume AGENT` starts
    that agent with it.
    """
