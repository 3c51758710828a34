"""The `continuity` agent skill (an Agent Skills `SKILL.md`) for each agent's skills folder.

Each adapter names the project-relative folders its agent loads skills from (`skill_dirs`);
`baker init` writes `<dir>/continuity/SKILL.md` into each, `baker uninstall` removes it; neither
follows a link out of the project (`project.outside_project`) or touches a skill of that name
baker did not write.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from pathlib import Path

from continuity_core.adapters import Change
from continuity_core.adapters.kit import remove_emptied
from continuity_core.project import outside_project, write_text_change

NAME = "continuity"


def text() -> str:
    """The SKILL.md shipped inside this package."""
    return (resources.files("continuity_core") / "skill" / "SKILL.md").read_text(encoding="utf-8")


def _targets(root: Path, dirs: Iterable[str]) -> list[Path]:
    return list(dict.fromkeys(root / d / NAME / "SKILL.md" for d in dirs))


def install(root: Path, dirs: Iterable[str], *, dry_run: bool = False) -> list[Change]:
    """Write (or refresh) the skill under each folder of `dirs`, relative to `root`. A folder
    that leads out of the project is refused, another `continuity` skill is left as it is."""
    body = text()
    return [
        _current(path, root, body)[1] or write_text_change(path, body, root, dry_run=dry_run)
        for path in _targets(root, dirs)
    ]


def uninstall(root: Path, dirs: Iterable[str], *, dry_run: bool = False) -> list[Change]:
    """Remove the skill where it is ours (any version); another `continuity` skill stays."""
    body = text()
    changes: list[Change] = []
    for path in _targets(root, dirs):
        rel = str(path.relative_to(root))
        current, refused = _current(path, root, body)
        if refused is not None or current is None:
            changes.append(refused or Change(path=rel, action="unchanged"))
            continue
        if not dry_run:
            remove_emptied(path, root)
        changes.append(Change(path=rel, action="removed"))
    return changes


def _current(path: Path, root: Path, body: str) -> tuple[str | None, Change | None]:
    """The skill's text at `path` (None: there is none), or the change that leaves it alone:
    a folder that leads out of the project (never read, never written or deleted), a file
    that cannot be read, another `continuity` skill than ours."""
    rel = str(path.relative_to(root))
    why = outside_project(path, root)
    if why:
        return None, Change(path=rel, action="failed", detail=why)
    try:
        current = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None, None
    except (OSError, UnicodeDecodeError) as e:
        detail = getattr(e, "strerror", None) or str(e)
        return None, Change(path=rel, action="failed", detail=detail)
    # ours, of any version: our name in the front matter and our title
    ours = f"name: {NAME}\n" in current[:400] and "# Continuity: save, resume, check" in current
    if current != body and not ours:
        return None, Change(
            path=rel, action="skipped", detail="not written by baker; left in place"
        )
    return current, None
