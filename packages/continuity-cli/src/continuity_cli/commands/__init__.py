"""One module per command group; `continuity_cli.app.COMMANDS` maps names to them."""
