"""One run per hook event: project and user-level hooks may both be installed.

When an agent has baker's hooks in both its project settings and its user settings, it runs
each one twice for the same event, with the same input. The first call of an event claims a
marker named by a checksum of (command, agent, arguments, payload bytes) — the payload holds the
session id and what makes a turn or a tool call unique (Claude's `prompt_id`/`tool_use_id`,
Gemini's `timestamp`, Codex's `turn-id`) — with `O_CREAT|O_EXCL` in the private
`~/.baker/cache/hooks-seen/`; a second call that finds the marker younger than `WINDOW_S`
does nothing. No lock, no wait: the file system picks the winner. A marker older than the
window is taken over (the same bytes much later are a new event), and old markers are swept
now and then. A call without input (a person running `baker checkpoint`) always runs, and so
does every call when ~/.baker cannot be used: a duplicate is better than a lost checkpoint.
"""

from __future__ import annotations

import os
import time

from continuity_core import trust

SEEN = ("cache", "hooks-seen")
WINDOW_S = 60.0  # both levels' calls start within a hook's own deadline of each other
SWEEP_AGE_S = 300.0
SWEEP_ONE_IN = 64
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | trust.NOFOLLOW | trust.CLOEXEC


def marker_name(command: str, agent: str | None, payload: bytes, argv: list[str]) -> str:
    """The marker of one hook call: equal for the duplicate calls of one event."""
    from continuity_core.fs import checksum

    head = b"".join(
        part.encode("utf-8", "surrogateescape") + b"\0" for part in (command, agent or "", *argv)
    )
    return checksum(head + payload)


def first_call(command: str, agent: str | None, payload: bytes, argv: list[str]) -> bool:
    """True when this hook call should run; False for the duplicate of a call that already
    started (the same event, delivered by both the project's and the user's hooks)."""
    if not payload.strip() and not argv:
        return True
    try:
        folder = trust.home_path(*SEEN)
    except (OSError, trust.Untrusted):
        return True
    name = marker_name(command, agent, payload, argv)
    path = os.path.join(folder, name)
    if not _claim(path):
        try:
            age = time.time() - os.lstat(path).st_mtime
        except OSError:
            return True
        if age < WINDOW_S:
            return False
        try:
            os.unlink(path)  # the same bytes long after: a new event, not a duplicate
        except OSError:
            pass
        if not _claim(path):
            return False  # another call took the stale marker over first
    if int(name[:4], 16) % SWEEP_ONE_IN == 0:
        trust.sweep(folder, SWEEP_AGE_S)
    return True


def _claim(path: str) -> bool:
    """Create the marker; False when it exists. Any other failure counts as claimed."""
    try:
        os.close(os.open(path, _FLAGS, 0o600))
    except FileExistsError:
        return False
    except OSError:
        pass
    return True
