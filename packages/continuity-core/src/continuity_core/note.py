"""The note `memory/hot.md`: one file for the goal, the single next action and the traps.

Front matter (`updated`, `agent`, `branch`) and fixed sections. Writes supersede, go through
the atomic writer and never exceed `CAP` lines: an over-long note is refused with a message,
never silently truncated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from continuity_core.errors import BakerError
from continuity_core.fs import atomic_write

NOTE_PATH = Path("memory") / "hot.md"
CAP = 120
SECTIONS = (
    "Goal", "Now", "Done", "Next", "In flight", "Blocked", "Routing", "Gotchas", "Open questions",
)
_HINTS = {
    "Goal": "What this work is for, in a sentence or two.",
    "Now": "Exactly one next action.",
    "Done": "Finished steps, newest last.",
    "Next": "What follows after Now.",
    "In flight": "Jobs, branches or PRs still running, and how to check them.",
    "Blocked": "What waits on someone or something, and on what.",
    "Routing": "Which agent or model does what.",
    "Gotchas": "Traps already fallen into: what failed and why.",
    "Open questions": "Decisions still owed by the owner.",
}


class NoteTooLong(BakerError):
    pass


@dataclass
class Note:
    meta: dict[str, str] = field(default_factory=dict)
    sections: dict[str, str] = field(default_factory=dict)  # title -> body (no heading)
    extra: list[str] = field(default_factory=list)  # sections we do not know, kept verbatim

    def get(self, title: str) -> str:
        return self.sections.get(title, "").strip()

    def is_empty(self) -> bool:
        return not any(self.get(t) for t in SECTIONS)


def template(agent: str = "", branch: str = "", updated: str = "") -> str:
    lines = ["---", f"updated: {updated}", f"agent: {agent}", f"branch: {branch}", "---"]
    for title in SECTIONS:
        lines += [f"# {title}", f"<!-- {_HINTS[title]} -->", ""]
    return "\n".join(lines).rstrip() + "\n"


_HEADING = re.compile(r"^#{1,3}\s+(.+?)\s*$")
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def parse(text: str) -> Note:
    note = Note()
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        for i, line in enumerate(lines[1:], 1):
            if line.strip() == "---":
                lines = lines[i + 1 :]
                break
            key, sep, value = line.partition(":")
            if sep:
                note.meta[key.strip()] = value.strip()
    current: str | None = None
    buf: list[str] = []

    def flush() -> None:
        if current is None:
            return
        body = _COMMENT.sub("", "\n".join(buf)).strip("\n")
        known = {t.lower(): t for t in SECTIONS}
        if current.lower() in known:
            note.sections[known[current.lower()]] = body
        else:
            note.extra.append(f"# {current}\n{body}".rstrip())

    for line in lines:
        m = _HEADING.match(line)
        if m:
            flush()
            current, buf = m.group(1), []
        else:
            buf.append(line)
    flush()
    return note


def render(note: Note) -> str:
    lines = ["---", *(f"{k}: {v}" for k, v in note.meta.items()), "---"]
    for title in SECTIONS:
        lines.append(f"# {title}")
        body = note.sections.get(title, "").strip("\n")
        lines += [body, ""] if body else [f"<!-- {_HINTS[title]} -->", ""]
    for block in note.extra:
        lines += [block, ""]
    return "\n".join(lines).rstrip() + "\n"


def read(root: Path) -> Note | None:
    try:
        return parse((root / NOTE_PATH).read_text(errors="replace"))
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def write(root: Path, note: Note) -> Path:
    text = render(note)
    n = text.count("\n")
    if n > CAP:
        raise NoteTooLong(
            f"{root / NOTE_PATH} would be {n} lines, over the {CAP}-line cap; move finished "
            "items out of Done or shorten a section, then retry"
        )
    path = root / NOTE_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text, mode=0o600)
    return path
