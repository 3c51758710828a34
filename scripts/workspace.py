#!/usr/bin/env python3
"""The workspace's packages, read from `packages/*/pyproject.toml`: the one list of them.

    python3 scripts/workspace.py             # one short name a line (core, claude, …, cli)
    python3 scripts/workspace.py --json      # the names as a JSON list (the CI matrix)

`dev.py`, `release.py` and CI take every list of packages from here, and the tool configs in
the root pyproject.toml use patterns (`continuity_*`, `packages/`), so a new adapter is one
folder under packages/ and no edit elsewhere (issue 29). Standard library only: it runs
before the virtual environment exists.
"""

from __future__ import annotations

import json
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "continuity-"
ADAPTER_GROUP = "continuity_core.adapters"
CORE, CLI = "core", "cli"


@dataclass(frozen=True)
class Package:
    folder: Path  # packages/continuity-<name>
    name: str  # the short name: "core", "claude", "gpu-probes"
    dist: str  # the distribution: "continuity-claude"
    module: str  # the import name: "continuity_claude"
    version: str
    entry_points: dict[str, dict[str, str]] = field(default_factory=dict)  # group -> name -> ref

    @property
    def adapters(self) -> list[str]:
        """The adapter names this package registers (`continuity_core.adapters`)."""
        return sorted(self.entry_points.get(ADAPTER_GROUP, {}))


def packages(root: Path = ROOT) -> list[Package]:
    """Every package folder under `root/packages`, core first and the CLI last (the order
    installs and reports read best in); the rest by name."""
    found = []
    for toml in sorted((root / "packages").glob(f"{PREFIX}*/pyproject.toml")):
        project = tomllib.loads(toml.read_text(encoding="utf-8")).get("project", {})
        dist = project.get("name") or toml.parent.name
        name = dist.removeprefix(PREFIX)
        found.append(
            Package(
                folder=toml.parent,
                name=name,
                dist=dist,
                module=dist.replace("-", "_"),
                version=str(project.get("version", "")),
                entry_points={g: dict(eps) for g, eps in project.get("entry-points", {}).items()},
            )
        )
    rank = {CORE: 0, CLI: 2}
    return sorted(found, key=lambda p: (rank.get(p.name, 1), p.name))


def names(root: Path = ROOT) -> list[str]:
    return [p.name for p in packages(root)]


def adapters(root: Path = ROOT) -> list[str]:
    """Every adapter name the workspace's packages register, sorted."""
    return sorted(a for p in packages(root) for a in p.adapters)


def main(argv: list[str]) -> int:
    if argv in ([], ["--json"]):
        listed = names()
        print(json.dumps(listed) if argv else "\n".join(listed))
        return 0
    print(__doc__, file=sys.stderr)
    return 0 if argv and argv[0] in ("-h", "--help") else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
