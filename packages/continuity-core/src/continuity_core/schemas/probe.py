"""`.baker/probes.json` and probe results.

Plain records (`continuity_core.records`): every `baker pickup` gathers the environment facts
at a session's start, and its budget has no room for msgspec's import (docs/decisions.md,
"Hook start-up budget").
"""

from __future__ import annotations

from continuity_core.records import Record, field
from continuity_core.schemas.checkpoint import GitFacts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    ProbeState = Literal["ok", "warn", "fail", "skipped", "timeout", "error"]

# The values of the Literal alias above, by name, for the records' checks and schema.
CHOICES = {"ProbeState": ("ok", "warn", "fail", "skipped", "timeout", "error")}
if not TYPE_CHECKING:
    ProbeState = CHOICES["ProbeState"]


class ProbeSpec(Record, omit_defaults=True):
    """One entry; validated one by one so a bad entry never hides the others."""

    name: str
    command: str | None = None  # a shell probe
    artifact: str | None = None  # a background job checked by its effect
    max_age_s: float | None = None
    timeout_s: float = 10.0


class ProbesFile(Record):
    """The raw file: entries are kept as plain values and validated individually."""

    schema_version: int = 1
    jobs: list[Any] = field(default_factory=list)
    probes: list[Any] = field(default_factory=list)
    gpu: dict[str, Any] = field(default_factory=dict)
    venvs: list[Any] = field(default_factory=list)  # extra venv folders to resolve


class ProbeResult(Record, omit_defaults=True):
    name: str
    state: ProbeState
    detail: str = ""
    kind: str = "probe"
    elapsed_s: float | None = None
    verdict: str | None = None  # the probe's own word, e.g. GPU "live" / "no device"


class Environment(Record, omit_defaults=True):
    """`baker status`: environment facts regenerated on every call, never read back."""

    schema_version: int = 1
    created_at: str
    project: str
    git: GitFacts = field(default_factory=GitFacts)
    interpreters: list[ProbeResult] = field(default_factory=list)
    jobs: list[ProbeResult] = field(default_factory=list)
    probes: list[ProbeResult] = field(default_factory=list)
    gpu: list[ProbeResult] = field(default_factory=list)
    elapsed_s: float = 0.0
