"""The `baker` command line: thin over continuity_core and the installed adapters."""

__version__ = "0.1.0"
