"""Continuity adapter for gemini."""
