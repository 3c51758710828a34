"""Continuity adapter for OpenCode: its SQLite sessions, a plugin for hooks, launch.

Vendor formats stay in this package (`formats/opencode.md` records what OpenCode 1.18.33
writes); only core schemas leave it.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from continuity_opencode.adapter import OpenCodeAdapter

__all__ = ["OpenCodeAdapter"]


def __getattr__(name: str) -> object:
    """`OpenCodeAdapter` on first use: the hooks import `continuity_opencode.hooks` alone."""
    if name != "OpenCodeAdapter":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from continuity_opencode.adapter import OpenCodeAdapter

    return OpenCodeAdapter
