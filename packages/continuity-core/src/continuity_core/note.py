"""The note `memory/hot.md`: one file for the goal, the single next action and the traps.

Front matter (`updated`, `agent`, `branch`) and fixed sections. Writes supersede, go through
the atomic writer and never exceed `CAP` lines: an over-long note is refused with a message,
never silently truncated.
"""

from __future__ import annotations

import re

from msgspec import Struct, field

from continuity_core import trust
from continuity_core.errors import BakerError
from continuity_core.fs import atomic_write

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from continuity_core.trust import StrPath

NOTE_PATH = f"{trust.NOTE_DIR}/{trust.NOTE_NAME}"  # relative to the project's root
CAP = 120
_HINTS = {  # each section, in order, and what goes in it
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
SECTIONS = tuple(_HINTS)


class NoteTooLong(BakerError):
    pass


class Note(Struct, kw_only=True):
    meta: dict[str, str] = field(default_factory=dict)
    # title -> body as written (no heading; comments kept, `get` drops them)
    sections: dict[str, str] = field(default_factory=dict)
    extra: list[str] = field(default_factory=list)  # sections we do not know, kept verbatim
    preamble: str = ""  # text before the first heading, kept verbatim

    def get(self, title: str) -> str:
        return uncomment(self.sections.get(title, ""))


def template(agent: str = "", branch: str = "", updated: str = "") -> str:
    """A new note: its front matter, and a hint under each empty section."""
    return render(Note(meta={"updated": updated, "agent": agent, "branch": branch}))


_HEADING = r"^#{1,3}\s+(.+?)\s*$"  # these compile where first used (`re` keeps them)
_COMMENT = r"(?s)<!--.*?-->"


def uncomment(text: str) -> str:
    """`text` without its `<!-- … -->` comments (an unclosed one is kept), stripped."""
    return re.sub(_COMMENT, "", text).strip()


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
    heading = ""
    buf: list[str] = []
    known = {t.lower(): t for t in SECTIONS}

    def flush() -> None:
        body = "\n".join(buf).strip("\n")
        if current is None:
            note.preamble = body
        elif current.lower() in known and known[current.lower()] not in note.sections:
            note.sections[known[current.lower()]] = body
        else:  # unknown, or a second copy of a known one: kept as written
            note.extra.append(f"{heading}\n{body}".rstrip())

    for line in lines:
        m = re.match(_HEADING, line)  # a `#`, `##` or `###` heading
        if m:
            flush()
            current, heading, buf = m.group(1), line.rstrip(), []
        else:
            buf.append(line)
    flush()
    return note


def render(note: Note) -> str:
    lines = ["---", *(f"{k}: {v}" for k, v in note.meta.items() if v), "---"]  # no `agent: `
    if note.preamble.strip():
        lines += [note.preamble.strip("\n"), ""]
    for title in SECTIONS:
        lines.append(f"# {title}")
        body = note.sections.get(title, "").strip("\n")
        lines += [body, ""] if body.strip() else [f"<!-- {_HINTS[title]} -->", ""]
    for block in note.extra:
        lines += [block, ""]
    return "\n".join(lines).rstrip() + "\n"


def filled(note: Note) -> str:
    """The note's filled sections only, for a reader (pickup, the brief): no front matter
    noise, no empty section, no placeholder comment."""
    meta = ", ".join(f"{k}: {v}" for k, v in note.meta.items() if v)
    lines = [f"({meta})"] if meta else []
    preamble = uncomment(note.preamble)
    if preamble:
        lines.append(preamble)
    for title in SECTIONS:
        if note.get(title):
            lines += [f"### {title}", note.get(title)]
    for block in note.extra:
        head, _, body = block.partition("\n")
        body = uncomment(body)
        if body:
            lines += [f"### {head.lstrip('#').strip()}", body]
    return "\n".join(lines)


def read_text(root: StrPath) -> str | None:
    """The note's text, None when there is none; `trust.Untrusted` when `memory/` or the
    note is a symlink, another user's or writable by others (a cloned repository's)."""
    try:
        return trust.read_bytes(trust.note_path(root)).decode(errors="replace")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


def read(root: StrPath) -> Note | None:
    text = read_text(root)
    return None if text is None else parse(text)


def write(root: Path, note: Note) -> Path:
    text = render(note)
    n = text.count("\n")
    if n > CAP:
        raise NoteTooLong(
            f"{root / NOTE_PATH} would be {n} lines, over the {CAP}-line cap; move finished "
            "items out of Done or shorten a section, then retry"
        )
    from pathlib import Path

    trust.dirs(root, trust.NOTE_DIR, create=True)
    path = Path(trust.note_path(root))
    atomic_write(path, text, mode=0o600, keep_mode=False)  # private, as docs/privacy.md says
    return path


# --- `baker now` / `baker block`: small superseding edits ------------------------------------


def shown(note: Note) -> Note:
    """The note as baker prints or hands it out: redacted (an agent writes the file itself,
    and may write a secret into it)."""
    from continuity_core.redact import redact

    return Note(
        meta={k: redact(v) for k, v in note.meta.items()},
        sections={t: redact(b) for t, b in note.sections.items()},
        extra=[redact(b) for b in note.extra],
        preamble=redact(note.preamble),
    )


def as_json(root: Path) -> dict[str, Any]:
    """The note as `baker note --json` prints it and the MCP `note` tool returns it: each
    section's text without the template's placeholder comments, redacted."""
    text = read_text(root)
    if text is None:
        raise BakerError(f"{root / NOTE_PATH} does not exist yet: run `baker init`")
    current = shown(parse(text))  # an agent may have written a secret in it
    return {
        "path": str(root / NOTE_PATH),
        "lines": text.count("\n"),
        "cap": CAP,
        "meta": current.meta,
        "sections": {t: current.get(t) for t in current.sections},
        "unknown_sections": [block.splitlines()[0].lstrip("# ") for block in current.extra],
    }


def set_now(root: Path, text: str, agent: str | None = None) -> Path:
    """Replace Now with exactly one next action (the old one is superseded, not kept)."""
    missing = "Now needs a next action; `baker now` alone shows the current one"
    return edit(root, text, missing, lambda note, item: note.sections.update(Now=item), agent)


def add_blocked(root: Path, text: str, agent: str | None = None) -> Path:
    """Append one item to Blocked, dated, so the reader knows how long it has waited."""
    from continuity_core.stamps import now_iso

    def change(note: Note, item: str) -> None:
        line = f"- {item} (since {now_iso()[:10]})"
        current = note.sections.get("Blocked", "").strip("\n") if note.get("Blocked") else ""
        note.sections["Blocked"] = f"{current}\n{line}" if current else line

    return edit(root, text, "say what is blocked and on what", change, agent)


def edit(root: Path, text: str, missing: str, change: Any, agent: str | None = None) -> Path:
    """`change(note, item)` with `text` on one line and redacted as `item` (an agent may write
    a secret into it; BakerError `missing` when there is none): read, change and write the
    note under the store lock, so two writers (an agent's `baker now`, a person's `baker
    block`) never lose each other's edit. Only in a project set up with `baker init` (raises
    `NotAProject` otherwise, as `baker note` and `trap add` do): outside one the note would
    be a new file without its `.gitignore` line."""
    from continuity_core.git import git_facts
    from continuity_core.redact import redact
    from continuity_core.stamps import now_iso
    from continuity_core.store import Store

    item = redact(" ".join(text.split()))
    if not item:
        raise BakerError(missing)
    store = Store.here(root)
    with store.lock():
        note = read(root) or parse(template())  # an empty one with every section when none
        change(note, item)
        # The front matter a write keeps current.
        note.meta["updated"] = now_iso()
        note.meta["agent"] = agent or note.meta.get("agent", "")
        branch = git_facts(root, worktrees=False).branch
        note.meta["branch"] = branch or note.meta.get("branch", "")
        return write(root, note)


_BACKTICKS = r"`([^`\n]{3,})`"
_PATHLIKE = r"(?:\./|/)?[\w.\-]+(?:/[\w.\-]+)*\.[A-Za-z0-9]{1,6}\b|\./[\w.\-/]+"


def action_keys(now: str) -> list[str]:
    """What in a Now line would show up in a tool call that carried it out: quoted commands,
    else script and file paths."""
    quoted = [q.strip() for q in re.findall(_BACKTICKS, now) if q.strip()]
    if quoted:
        return quoted
    return [m for m in re.findall(_PATHLIKE, now) if len(m) >= 4]


def executed(now: str, session: Any, since: str | None = None, *, finished: bool = True) -> Any:
    """The finished tool call in `session` that already did `now`, if its records show one.

    Only calls that returned without error count, and only those after `since` (the note's
    `updated`), so an action re-set after a failed run is not flagged. `finished` False: a
    call doing `now` that started and never returned: its effect is unknown, however long
    ago it began.
    """
    keys = action_keys(now)
    if not keys:
        return None
    for call in reversed(session.tool_calls):
        if (call.output is not None) is not finished or call.is_error:
            continue
        if since and call.timestamp and call.timestamp < since:
            continue
        haystack = _what_it_did(call.input)
        if haystack and any(k in haystack for k in keys):
            return call
    return None


def does(now: str, command: str | None, paths: Any = ()) -> bool:
    """Whether a call running `command` on `paths` carries out `now` (the pre-tool hook's
    record of a call the transcript never got)."""
    keys = action_keys(now)
    haystack = "\n".join([command or "", *paths])
    return bool(keys and haystack.strip() and any(k in haystack for k in keys))


_DOING_KEYS = ("command", "cmd", "file_path", "path", "notebook_path", "absolute_path")


def _what_it_did(tool_input: dict[str, Any]) -> str:
    """The command a call ran and the files it touched; a todo list or plan mentions an action
    without doing it, so other input never counts."""
    parts: list[str] = []
    for key in _DOING_KEYS:
        value = tool_input.get(key)
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        if isinstance(value, str):
            parts.append(value)
    return "\n".join(parts)
