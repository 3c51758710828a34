"""Codex's apply_patch format: which files a patch adds, updates, deletes or moves.

A patch is `*** Begin Patch`, then per file `*** Add File: P` (lines prefixed `+`),
`*** Delete File: P`, or `*** Update File: P` (optionally `*** Move to: Q`, then `@@` hunks),
and `*** End Patch`. The model may also send it to the shell as an `apply_patch` heredoc.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    # One file a patch adds, updates (and maybe moves) or deletes: (action, path, move_to). A
    # plain tuple: the pre-tool hook reads patches, and a class library costs it more.
    FileOp = tuple[Literal["add", "update", "delete"], str, str | None]

BEGIN = "*** Begin Patch"
END = "*** End Patch"
_HEADERS: dict[str, Literal["add", "update", "delete"]] = {
    "*** Add File: ": "add",
    "*** Delete File: ": "delete",
    "*** Update File: ": "update",
}
MOVE = "*** Move to: "


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
            ops.append((_HEADERS[header], path, None))
        elif line.startswith(MOVE):
            target = line[len(MOVE) :].strip()
            if not ops or ops[-1][0] != "update" or not target:
                raise PatchError(f"line {number}: '*** Move to' outside an update")
            ops[-1] = ("update", ops[-1][1], target)
        elif line.startswith("*** ") and line.strip() != "*** End of File":
            raise PatchError(f"line {number}: unknown header {line[:40]!r}")
        elif not ops and line.strip():
            raise PatchError(f"line {number}: content before the first file header")
    if not ops:
        raise PatchError("a patch without files")
    return ops
