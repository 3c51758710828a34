"""`.baker/probes.json`, what a plugin probe is given, and probe results."""

from __future__ import annotations

from typing import Any, Literal

from msgspec import Struct, field

from continuity_core.schemas.checkpoint import GitFacts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

ProbeState = Literal["ok", "warn", "fail", "skipped", "timeout", "error"]


class ProbesFile(Struct, kw_only=True):
    """The raw file: entries are kept as plain values and validated individually."""

    schema_version: int = 1
    jobs: list[Any] = field(default_factory=list)
    probes: list[Any] = field(default_factory=list)
    gpu: dict[str, Any] = field(default_factory=dict)
    venvs: list[Any] = field(default_factory=list)  # extra venv folders to resolve


class ProbesConfig(Struct, kw_only=True):  # the file as `probes.read_config` checked it
    jobs: list[Any] = field(default_factory=list)
    probes: list[Any] = field(default_factory=list)
    venvs: list[Any] = field(default_factory=list)
    gpu: Mapping[str, Any] | None = None  # None: not configured
    errors: list[dict[str, Any]] = field(default_factory=list)  # `ProbeResult`s' fields


class ProbeContext(Struct, kw_only=True):
    """What a plugin probe gets: the project, its section of probes.json, the project's venv
    interpreters (a default for plugins that run inside them) and its time limit."""

    root: Path
    config: Mapping[str, Any]
    interpreters: list[str] = field(default_factory=list)
    timeout_s: float


class Ran(Struct, kw_only=True):  # what `probes.run_command` ran
    returncode: int | None  # None: timed out (the whole process group was killed)
    out: str
    err: str
    elapsed_s: float


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
