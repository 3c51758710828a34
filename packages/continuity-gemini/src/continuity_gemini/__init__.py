"""Continuity adapter for Gemini CLI: chat logs, hooks, launch."""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from continuity_gemini.adapter import GeminiAdapter

__all__ = ["GeminiAdapter"]


def __getattr__(name: str) -> object:
    """`GeminiAdapter` on first use: the hooks import `continuity_gemini.hooks` alone."""
    if name != "GeminiAdapter":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from continuity_gemini.adapter import GeminiAdapter

    return GeminiAdapter
