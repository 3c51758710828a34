"""The seam between core and the agents' adapters.

`protocol` says what an adapter is (`Adapter` and its optional abilities), `registry` finds
and loads adapters and probes through entry points, and `kit` holds what adapter authors
share. Everything public is re-exported here.
Names are imported from their module on first use (PEP 562): the hooks load `registry` alone,
without the protocol's msgspec Structs or the kit's `re` (docs/decisions.md, "How the hooks
stay fast").
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from continuity_core.adapters.kit import (
        CLI_VERSION_TIMEOUT_S,
        INLINE_PROMPT_MAX,
        MCP_NAME,
        MCP_SERVER,
        cli_version,
        expand,
        hook_command,
        is_our_mcp,
        unique_accounts,
        version_finding,
        version_key,
        version_state,
    )
    from continuity_core.adapters.protocol import (
        MEMBERS,
        Account,
        Adapter,
        Change,
        Finding,
        InstallOption,
        LaunchOptions,
        LaunchSpec,
        Measurement,
        RetentionPolicy,
        SessionRecords,
        UsageSource,
        UserOptions,
        missing,
    )
    from continuity_core.adapters.registry import (
        ALLOW_ENV,
        GROUP,
        HOOK_GROUP,
        PROBE_GROUP,
        Registered,
        entry_points,
        hook_module,
        load,
        load_all,
        load_plugin,
        registered,
    )


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import sys

    for module in ("registry", "protocol", "kit"):  # the hooks need the registry alone
        full = f"{__name__}.{module}"
        __import__(full)  # importlib.import_module, without importing importlib
        if hasattr(sys.modules[full], name):
            value = getattr(sys.modules[full], name)
            globals()[name] = value
            return value
    raise AttributeError(name)  # pragma: no cover - every name of __all__ is in one of them


__all__ = [
    "ALLOW_ENV",
    "CLI_VERSION_TIMEOUT_S",
    "GROUP",
    "HOOK_GROUP",
    "INLINE_PROMPT_MAX",
    "MCP_NAME",
    "MCP_SERVER",
    "MEMBERS",
    "PROBE_GROUP",
    "Account",
    "Adapter",
    "Change",
    "Finding",
    "InstallOption",
    "LaunchOptions",
    "LaunchSpec",
    "Measurement",
    "Registered",
    "RetentionPolicy",
    "SessionRecords",
    "UsageSource",
    "UserOptions",
    "cli_version",
    "entry_points",
    "expand",
    "hook_command",
    "hook_module",
    "is_our_mcp",
    "load",
    "load_all",
    "load_plugin",
    "missing",
    "registered",
    "unique_accounts",
    "version_finding",
    "version_key",
    "version_state",
]
