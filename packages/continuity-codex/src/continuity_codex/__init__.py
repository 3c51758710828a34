"""Continuity adapter for Codex CLI: rollouts, notify and hooks, launch.

Vendor formats stay in this package (`formats/codex.md` records what Codex 0.171.0 writes);
only core schemas leave it.
"""

from continuity_codex.adapter import CodexAdapter

__all__ = ["CodexAdapter"]
