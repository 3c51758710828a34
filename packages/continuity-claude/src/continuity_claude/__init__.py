"""Continuity adapter for claude."""
