"""Git's index as a hook finds it between commits."""

from __future__ import annotations

import os
from pathlib import Path


def age_index(repo: Path, seconds: float = 60) -> None:
    """Date git's index back, as an index nobody wrote for a while: only then is a clean
    "nothing under .baker is tracked" verdict remembered (`trust.RACY_S`)."""
    index = repo / ".git" / "index"
    when = index.stat().st_mtime - seconds
    os.utime(index, (when, when))
