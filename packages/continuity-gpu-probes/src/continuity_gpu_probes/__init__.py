"""Continuity GPU probes."""
