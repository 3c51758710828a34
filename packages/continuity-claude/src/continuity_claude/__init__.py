"""Continuity adapter for Claude Code: transcript discovery and parsing, hooks, launch."""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from continuity_claude.adapter import ClaudeAdapter

__all__ = ["ClaudeAdapter"]


def __getattr__(name: str) -> object:
    """`ClaudeAdapter` on first use: the hooks import `continuity_claude.hooks` alone."""
    if name != "ClaudeAdapter":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from continuity_claude.adapter import ClaudeAdapter

    return ClaudeAdapter
