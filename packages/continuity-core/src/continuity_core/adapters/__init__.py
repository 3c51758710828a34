"""The seam between core and the agents' adapters.

`protocol` says what an adapter is (`Adapter` and its optional abilities), `registry` finds
and loads adapters and probes through entry points, and `kit` holds what adapter authors
share. Everything public is re-exported here.
"""

from continuity_core.adapters.kit import (
    CLI_VERSION_TIMEOUT_S,
    INLINE_PROMPT_MAX,
    MCP_NAME,
    MCP_SERVER,
    cli_version,
    expand,
    hook_command,
    is_our_mcp,
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
    UsageSource,
    UserOptions,
    missing,
)
from continuity_core.adapters.registry import (
    ALLOW_ENV,
    GROUP,
    PROBE_GROUP,
    Registered,
    entry_points,
    load,
    load_all,
    load_plugin,
    registered,
)

__all__ = [
    "ALLOW_ENV", "CLI_VERSION_TIMEOUT_S", "GROUP", "INLINE_PROMPT_MAX", "MCP_NAME", "MCP_SERVER",
    "MEMBERS", "PROBE_GROUP", "Account", "Adapter", "Change", "Finding", "InstallOption",
    "LaunchOptions", "LaunchSpec", "Measurement", "Registered", "RetentionPolicy", "UsageSource",
    "UserOptions",
    "cli_version", "entry_points", "expand", "hook_command", "is_our_mcp", "load", "load_all",
    "load_plugin", "missing", "registered", "version_finding", "version_key", "version_state",
]
