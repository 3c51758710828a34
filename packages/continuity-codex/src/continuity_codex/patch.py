"""Codex's apply_patch format: which files a patch adds, updates, deletes or moves.

A patch is `*** Begin Patch`, then per file `*** Add File: P` (lines prefixed `+`),
`*** Delete File: P`, or `*** Update File: P` (optionally `*** Move to: Q`, then `@@` hunks),
and `*** End Patch`. The model may also send it to the shell as an `apply_patch` heredoc.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

BEGIN = "*** Begin Patch"
END = "*** End Patch"
_HEADERS: dict[str, Literal["add", "update", "delete"]] = {
    "*** Add File: ": "add",
    "*** Delete File: ": "delete",
    "*** Update File: ": "update",
}
MOVE = "*** Move to: "


class FileOp:
    """One file a patch adds, updates (and maybe moves) or deletes. A plain class: the
    pre-tool hook reads patches, and `dataclasses` costs it more than the patch."""

    __slots__ = ("action", "move_to", "path")

    def __init__(
        self, action: Literal["add", "update", "delete"], path: str, move_to: str | None = None
    ) -> None:
        self.action: Literal["add", "update", "delete"] = action
        self.path = path
        self.move_to = move_to

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FileOp):
            return NotImplemented
        return (self.action, self.path, self.move_to) == (other.action, other.path, other.move_to)

    def __hash__(self) -> int:
        return hash((self.action, self.path, self.move_to))

    def __repr__(self) -> str:
        return f"FileOp(action={self.action!r}, path={self.path!r}, move_to={self.move_to!r})"


class PatchError(ValueError):
    """The text is not a well-formed apply_patch patch."""


def find_patch(text: str) -> str | None:
    """The patch inside `text` (a freeform tool input or a shell heredoc), if there is one."""
    start = text.find(BEGIN)
    if start < 0:
        return None
    end = text.find(END, start)
    return text[start : end + len(END)] if end >= 0 else text[start:]


def parse(text: str) -> list[FileOp]:
    """The file operations of a patch, in order; PatchError when it is malformed."""
    patch = find_patch(text)
    if patch is None:
        raise PatchError("no '*** Begin Patch' line")
    lines = patch.splitlines()
    if not lines or lines[-1].strip() != END:
        raise PatchError("no '*** End Patch' line")
    ops: list[FileOp] = []
    for number, line in enumerate(lines[1:-1], start=2):
        header = next((h for h in _HEADERS if line.startswith(h)), None)
        if header is not None:
            path = line[len(header) :].strip()
            if not path:
                raise PatchError(f"line {number}: a file header without a path")
            ops.append(FileOp(action=_HEADERS[header], path=path))
        elif line.startswith(MOVE):
            target = line[len(MOVE) :].strip()
            if not ops or ops[-1].action != "update" or not target:
                raise PatchError(f"line {number}: '*** Move to' outside an update")
            ops[-1] = FileOp(action="update", path=ops[-1].path, move_to=target)
        elif line.startswith("*** ") and line.strip() != "*** End of File":
            raise PatchError(f"line {number}: unknown header {line[:40]!r}")
        elif not ops and line.strip():
            raise PatchError(f"line {number}: content before the first file header")
    if not ops:
        raise PatchError("a patch without files")
    return ops
