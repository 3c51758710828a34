"""`baker global sync`: the user-level pieces for every account of every agent."""

from __future__ import annotations

import functools
import re
from collections import Counter
from typing import TYPE_CHECKING, Any

import click

from continuity_cli.app import Group

if TYPE_CHECKING:
    from continuity_core.adapters import Adapter, InstallOption

# Where the declared options' values wait for the command: agent -> option name -> value.
DECLARED = "continuity.declared"
_NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")


class DeclaredOptions(click.Command):
    """A command that also takes the user-level install options the installed adapters declare
    (`Adapter.install_options`), each under its agent's heading in `--help`.

    A declared option NAME of agent AGENT is `--AGENT-NAME`, and `--NAME` too unless another
    adapter declares the same name or the command has an option of that name. Its value waits in
    `ctx.meta[DECLARED][AGENT][NAME]` (`declared_values`); nothing here knows what it means.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.bad_declarations: dict[str, str] = {}  # agent -> why an option was left out

    @functools.cached_property
    def declared(self) -> dict[str, tuple[str, list[click.Option]]]:
        """agent -> (its display name, the click options made from its declarations)."""
        from continuity_core.adapters import load_all

        adapters, _ = load_all()  # the broken ones are reported when the command runs
        return self._options(adapters)

    def _options(self, adapters: dict[str, Adapter]) -> dict[str, tuple[str, list[click.Option]]]:
        taken = {opt for p in self.params for opt in p.opts} | {"--help", "-h"}
        # every --AGENT-NAME first: agent `a` with `b-c` and agent `a-b` with `c` both spell
        # `--a-b-c`, and a name declared twice spells its flag twice; the later one is left out
        valid: dict[str, list[InstallOption]] = {}
        for agent, adapter in adapters.items():
            valid[agent], bad = [], []
            for declared in adapter.install_options:
                flag = f"--{agent}-{declared.name}"
                # the agent's name is in every flag: `--Co dex-chain` is none
                if not _NAME.match(agent) or not _NAME.match(declared.name) or flag in taken:
                    bad.append(declared.name)
                else:
                    valid[agent].append(declared)
                    taken.add(flag)
            if bad:
                self.bad_declarations[agent] = (
                    f"adapter {agent!r} declares install options baker cannot show: "
                    f"{', '.join(map(repr, bad))} (lower-case words joined by '-', declared "
                    "once, and not one of this command's or another agent's options; the "
                    "agent's name the same)"
                )
        counts = Counter(d.name for declared in valid.values() for d in declared)
        out: dict[str, tuple[str, list[click.Option]]] = {}
        for agent, declared_options in valid.items():
            options = []
            for declared in declared_options:
                flags = [f"--{agent}-{declared.name}"]
                if counts[declared.name] == 1 and f"--{declared.name}" not in taken:
                    flags.insert(0, f"--{declared.name}")
                    taken.add(f"--{declared.name}")
                options.append(
                    click.Option(
                        [*flags, f"declared__{agent}__{declared.name}".replace("-", "_")],
                        is_flag=True,
                        expose_value=False,
                        help=declared.help,
                        callback=functools.partial(_keep, agent, declared.name),
                    )
                )
            if options:
                out[agent] = (adapters[agent].display_name, options)
        return out

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        extra = [o for _, options in self.declared.values() for o in options]
        help_option = self.get_help_option(ctx)
        return [*self.params, *extra, *([help_option] if help_option is not None else [])]

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command's own options, then each agent's declared ones under its name."""
        declared = {id(o) for _, options in self.declared.values() for o in options}
        own = [p.get_help_record(ctx) for p in self.get_params(ctx) if id(p) not in declared]
        with formatter.section("Options"):
            formatter.write_dl([r for r in own if r is not None])
        for display, options in self.declared.values():
            records = [o.get_help_record(ctx) for o in options]
            with formatter.section(f"{display} options"):
                formatter.write_dl([r for r in records if r is not None])


def _keep(agent: str, name: str, ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    ctx.meta.setdefault(DECLARED, {}).setdefault(agent, {})[name] = bool(value)
    return value


def declared_values(agent: str) -> dict[str, bool]:
    """The values of `agent`'s declared options in the running command (False: not given)."""
    found: dict[str, dict[str, bool]] = click.get_current_context().meta.get(DECLARED, {})
    return dict(found.get(agent, {}))


@click.group(name="global", cls=Group)
def global_() -> None:
    """User-level set-up across every agent and account listed in ~/.baker/config.toml."""


@global_.command(cls=DeclaredOptions)
@click.option(
    "--user-hooks",
    is_flag=True,
    help="Also install user-level hooks for agents that otherwise get them per project "
    "(`baker sync`).",
)
@click.option(
    "--mcp",
    is_flag=True,
    help="Register `baker mcp` as a user-level MCP server in each account's user settings.",
)
@click.option("--uninstall", is_flag=True, help="Remove what an earlier sync added.")
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
@click.pass_context
def sync(
    ctx: click.Context, user_hooks: bool, mcp: bool, uninstall: bool, dry_run: bool, as_json: bool
) -> None:
    """Install each agent's user-level pieces in every account.

    An agent that reads hooks (or its notify program) only from user settings gets them here,
    so this is how its sessions get checkpoints; with --user-hooks the other agents get user
    hooks too. With --mcp, also registers `baker mcp` for every project in each account's user
    settings. User-level hooks act only in repositories set up with `baker init` (their
    `.baker/`): elsewhere a hook writes nothing and pickup gives only the live repo state, and
    `baker doctor` lists such repositories that have sessions. The options under an agent's
    heading come from its adapter and reach only it.
    Reports what changed, what was left alone and why. An account whose folder does not exist
    is skipped (run the agent once, or fix its `dir` in ~/.baker/config.toml when it is listed
    there); an account with nothing to change says "nothing to do".
    """
    from pathlib import Path

    from continuity_cli import output
    from continuity_core.adapters import Change, UserOptions, load_all
    from continuity_core.config import load_config

    config = load_config()
    adapters, errors = load_all()
    if isinstance(ctx.command, DeclaredOptions):
        errors = {**ctx.command.bad_declarations, **errors}
    report: list[dict[str, Any]] = [
        {
            "agent": name,
            "account": None,
            "changes": [Change(path=name, action="failed", detail=err)],
        }
        for name, err in errors.items()
    ]
    for name, adapter in adapters.items():
        options = UserOptions(
            hooks=True if user_hooks else None,
            dry_run=dry_run,
            uninstall=uninstall,
            mcp=mcp,
            declared=declared_values(name),
        )
        for account in adapter.accounts(config):
            if not Path(account.dir).is_dir():
                from_config = account.name in config.accounts or account.name in (
                    config.transcripts.get(name, [])
                )
                detail = (
                    f"no such folder: run {adapter.display_name} once with this account, "
                    "or fix its `dir` in ~/.baker/config.toml"
                    if from_config
                    else f"no {adapter.display_name} home here; run {name} once to create it"
                )
                skipped = Change(path=account.dir, action="skipped", detail=detail)
                changes = [] if uninstall else [skipped]  # nothing to remove, no advice to make it
            else:
                try:
                    changes = adapter.install_user(account, options)
                except Exception as e:
                    changes = [Change(path=account.dir, action="failed", detail=str(e))]
            if uninstall:  # as `baker uninstall`: nothing is said of a file that is not there
                changes = [c for c in changes if c.action != "unchanged" or Path(c.path).exists()]
            report.append({"agent": name, "account": account.name, "changes": changes})
    if as_json:
        output.emit_json(report)
    else:
        for entry in report:
            click.echo(f"{entry['agent']} ({entry['account'] or 'not loaded'}):")
            if entry["changes"]:
                output.changes(entry["changes"], dry_run=dry_run)
            else:
                click.echo("  nothing to do")
    output.fail_if_any_failed([c for entry in report for c in entry["changes"]])
