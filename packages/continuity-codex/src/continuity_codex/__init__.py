"""Continuity adapter for Codex CLI: rollouts, notify and hooks, launch.

Vendor formats stay in this package (`formats/codex.md` records what Codex 0.171.0 writes);
only core schemas leave it.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from continuity_codex.adapter import CodexAdapter

__all__ = ["CodexAdapter"]


def __getattr__(name: str) -> object:
    """`CodexAdapter` on first use: the hooks import `continuity_codex.hooks` alone."""
    if name != "CodexAdapter":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from continuity_codex.adapter import CodexAdapter

    return CodexAdapter
