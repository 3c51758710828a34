"""Writing agents' settings files safely: the one helper every adapter's installer uses.

- A *user-level* settings file that is a symlink (a dotfile manager's) is written through to
  its target, and the change says so; the link stays a link.
- A *project-level* one whose target lies outside the project is refused, as the store is
  (`continuity_core.trust`): a cloned repository could commit such a link.
- A read-only file is refused: the user made it so, baker does not rewrite it.
- A file baker found missing or empty before it added hooks is remembered (in
  `~/.baker/settings-before.json`), so uninstall gives back exactly that: no file, or the
  empty file as it was. A file baker cannot prove it made is never deleted.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from msgspec import Struct

from continuity_core import trust
from continuity_core.errors import BakerError
from continuity_core.fs import atomic_write, inside

RECORD = "settings-before.json"


class Refused(BakerError):
    """A settings file baker must not write; the message names it and says what to do."""


class Target(Struct, frozen=True):
    path: Path  # the file to read and write: the link's target for a user-level link
    via: str = ""  # "written through the link A -> B" when `path` is a link's target


def resolve(path: Path, project: Path | None) -> Target:
    """Where to read and write `path`: `project` is the project for a project-level file,
    None for a user-level one. Raises Refused for a project file linked out of the project.
    Call `check_writable(target.path)` once a change is due: a read-only file that needs no
    change is no failure."""
    real = Path(os.path.realpath(path))
    linked = os.path.islink(path)
    if project is not None and not inside(project, real):
        raise Refused(
            f"{path} leads to {real}, outside the project, so it is refused: a project's "
            "settings are not written through a link a repository could commit. Remove the "
            f"link (`rm {path}`) and run again"
        )
    return Target(path=real, via=f"written through the link {path} -> {real}" if linked else "")


def check_writable(path: Path) -> None:
    """Refused when `path` exists without its owner's write bit (or we may not write it)."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return
    if not stat.S_ISREG(st.st_mode):
        raise Refused(f"{path} is not a regular file; baker does not rewrite it")
    if not st.st_mode & stat.S_IWUSR or not os.access(path, os.W_OK):
        raise Refused(
            f"{path} is read-only (mode {stat.S_IMODE(st.st_mode):04o}), so baker leaves it "
            f"as it is: make it writable (`chmod u+w {path}`) and run again, or add the "
            "hooks by hand"
        )


def is_empty_settings(text: str | None) -> bool:
    """No file, a blank one, or an empty JSON object: what uninstall must give back."""
    if text is None or not text.strip():
        return True
    try:
        return bool(json.loads(text) == {})
    except ValueError:
        return False


def _record_path() -> Path:
    return Path(trust.home_path(), RECORD)


def _load_record() -> dict[str, str | None]:
    try:
        data = json.loads(trust.read_bytes(_record_path(), home=True))
    except (FileNotFoundError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if v is None or isinstance(v, str)}


def remember_before(path: Path, old: str | None) -> None:
    """Before hooks go into `path`: remember it was missing (`old` None) or empty."""
    if not is_empty_settings(old):
        return
    record = _load_record()
    if str(path) not in record:
        record[str(path)] = old
        atomic_write(_record_path(), json.dumps(record, indent=2) + "\n")


def restore_empty(path: Path, emptied: str, *, dry_run: bool = False) -> tuple[str | None, str]:
    """What uninstall leaves at `path` once nothing but our hooks was in it, and how to say
    so: None (delete it) only when baker found no file there; the empty text baker found;
    else `emptied` (the file minus our hooks): a file baker cannot prove it made stays."""
    record = _load_record()
    key = str(path)
    if key not in record:
        return emptied, "kept: baker did not create it"
    before = record.pop(key)
    if not dry_run:
        atomic_write(_record_path(), json.dumps(record, indent=2) + "\n")
    if before is None:
        return None, ""
    return before, "restored as it was before baker"
