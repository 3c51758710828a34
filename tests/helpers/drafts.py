"""Saved-checkpoint drafts several test folders share (core, CLI and reliability tests)."""

from __future__ import annotations

from pathlib import Path

from continuity_core import saved
from continuity_core.git import git_facts

FILLED = {
    "Decisions and constraints": "- Keep the v1 JSON output stable; clients parse it.",
    "History": "- Added the /rooms endpoint, then paginated it.",
    "External state": "- PR #42 open on origin; the staging deploy is paused.",
    "Artifacts": "- `README.md` — the project readme\n- `.git/HEAD` — the checked-out ref",
    "Commands and errors": "```\npytest -q tests/test_rooms.py\nE   KeyError: 'limit'\n```",
    "Failed attempts": "- Caching the room list broke the offset test; reverted.",
    "Unverified claims": "- CI passes on main (from the user's message)",
    "Owner decisions": '- "No new dependencies this sprint" — Alice, 2026-11-29',
}


def make_draft(
    root: Path,
    *,
    front: dict[str, object] | None = None,
    sections: dict[str, str | None] | None = None,
) -> str:
    """A valid draft for the worktree `root`; `front` and `sections` override (None drops)."""
    values: dict[str, object] = saved.front_matter(
        root, git_facts(root), agent="claude", session="s-1"
    )
    values.update(front or {})
    lines = ["---", *(f"{k}: {v}" for k, v in values.items() if v is not None), "---", ""]
    body = {**FILLED, **(sections or {})}
    for title, text in body.items():
        if text is not None:
            lines += [f"## {title}", text, ""]
    return "\n".join(lines)


# Shapes of secrets the redactor knows; built by concatenation so no scanner flags this file.
SECRETS = [
    "AKIA" + "IOSFODNN7EXAMPLE",
    "ghp_" + "FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6",
    "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuv",
    "sk-ant-api03-" + "FAKE-NOT-A-REAL-KEY-0123456789abcdef",
    "sk-proj-" + "abcdefghijklmnop0123456789",
    "xoxb-" + "123456789012-abcdefghijkl",
    "AIza" + "SyA1234567890abcdefghijklmnopqrstuv",
    "eyJhbGciOiJIUzI1NiJ9."
    + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEFAKEKEYBODY\n-----END RSA PRIVATE KEY-----",
    "https://deploy:" + "hunter2hunter2@git.example.com/repo.git",
    "DB_PASSWORD=" + "s3cr3t-Passw0rd",
    "hf_" + "abcdefghijklmnopqrstuvwxyzABCDEF12",
    "glpat-" + "abcdefghij0123456789",
    "Authorization: Bearer " + "abcdefghijklmnop0123456789",
]
