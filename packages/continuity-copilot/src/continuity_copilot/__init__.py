"""Continuity adapter for GitHub Copilot CLI: session folders, hooks, launch.

Vendor formats stay in this package (`formats/copilot.md` records what Copilot CLI 1.0.102
writes); only core schemas leave it.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from continuity_copilot.adapter import CopilotAdapter

__all__ = ["CopilotAdapter"]


def __getattr__(name: str) -> object:
    """`CopilotAdapter` on first use: the hooks import `continuity_copilot.hooks` alone."""
    if name != "CopilotAdapter":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from continuity_copilot.adapter import CopilotAdapter

    return CopilotAdapter
