"""`.baker/probes.json` and probe results."""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct, field

from continuity_core.schemas.checkpoint import GitFacts

ProbeState = Literal["ok", "warn", "fail", "skipped", "timeout", "error"]


class ProbesFile(Struct, kw_only=True):
    """The raw file: entries are kept as plain values and validated individually."""

    schema_version: int = 1
    jobs: list[Any] = field(default_factory=list)
    probes: list[Any] = field(default_factory=list)
    gpu: dict[str, Any] = field(default_factory=dict)
    venvs: list[Any] = field(default_factory=list)  # extra venv folders to resolve


class ProbeResult(Struct, kw_only=True, omit_defaults=True):
    name: str
    state: ProbeState
    detail: str = ""
    kind: str = "probe"
    elapsed_s: float | None = None
    verdict: str | None = None  # the probe's own word, e.g. GPU "live" / "no device"


class Environment(Struct, kw_only=True, omit_defaults=True):
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
