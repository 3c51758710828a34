"""Continuity adapter for codex."""
