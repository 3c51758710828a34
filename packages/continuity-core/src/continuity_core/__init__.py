"""Continuity core: vendor-neutral schemas, the project store, redaction and the brief."""

__version__ = "0.1.0"
