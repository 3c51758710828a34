"""Continuity adapter for Gemini CLI: chat logs, hooks, launch."""

from continuity_gemini.adapter import GeminiAdapter

__all__ = ["GeminiAdapter"]
