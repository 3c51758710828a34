"""Continuity adapter for Claude Code: transcript discovery and parsing, hooks, launch."""

from continuity_claude.adapter import ClaudeAdapter

__all__ = ["ClaudeAdapter"]
