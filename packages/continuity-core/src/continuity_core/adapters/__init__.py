"""The seam between core and the agents' adapters.

`protocol` says what an adapter is (`Adapter` and its optional abilities), `registry` finds
and loads adapters and probes through entry points, and `kit` holds what adapter authors
share. The protocol's types and the registry's loaders are re-exported here (everything else
is imported from its module), each imported on first use (PEP 562): the hooks load
`registry` alone, without the protocol's msgspec Structs (docs/decisions.md, "How the hooks
stay fast").
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from continuity_core.adapters.protocol import (
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
    )
    from continuity_core.adapters.registry import (
        load,
        load_all,
        registered,
    )


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import sys

    for module in ("registry", "protocol"):  # the hooks need the registry alone
        full = f"{__name__}.{module}"
        __import__(full)  # importlib.import_module, without importing importlib
        if hasattr(sys.modules[full], name):
            value = getattr(sys.modules[full], name)
            globals()[name] = value
            return value
    raise AttributeError(name)  # pragma: no cover - every name of __all__ is in one of them


__all__ = [
    "Account",
    "Adapter",
    "Change",
    "Finding",
    "InstallOption",
    "LaunchOptions",
    "LaunchSpec",
    "Measurement",
    "RetentionPolicy",
    "SessionRecords",
    "UsageSource",
    "UserOptions",
    "load",
    "load_all",
    "registered",
]
