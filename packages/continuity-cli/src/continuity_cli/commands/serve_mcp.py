"""`baker mcp`: the Model Context Protocol server (needs the `mcp` extra)."""

from __future__ import annotations

import click

INSTALL_HINT = (
    "`baker mcp` needs the Model Context Protocol SDK, which is not installed here: install "
    "`continuity-cli[mcp]` (or `[all]`) in baker's environment, e.g. "
    "`pip install 'continuity-cli[mcp]'`, or rerun `python3 scripts/dev.py install`"
)


@click.command("mcp")
@click.option(
    "--all-projects",
    is_flag=True,
    help="Let tool calls read other projects (`repo=`, recall's all_projects); they never "
    "write outside the project the server started in.",
)
def mcp(all_projects: bool) -> None:
    """Serve Continuity's tools to an agent over MCP (stdio): recall, handoff, and more.

    Agents start it themselves: `baker init --mcp` registers it for this project (each
    installed agent that reads a project file) and `baker global sync --mcp` for every
    project (each installed agent's user files; docs/mcp.md lists them). Tools: recall,
    handoff, sessions, traps, note, save, resume_check; each acts on the project the server
    started in; reading another one (`repo`) needs --all-projects, and writing one is
    refused. See docs/mcp.md.
    """
    try:
        from continuity_cli import mcp_server
    except ModuleNotFoundError as e:
        if (e.name or "").partition(".")[0] != "mcp":
            raise
        raise click.ClickException(INSTALL_HINT) from None

    mcp_server.serve(all_projects=all_projects)
