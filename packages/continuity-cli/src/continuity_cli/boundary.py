"""The output boundary: what baker writes to stdout and stderr as text carries no terminal
control that came from data (an escape sequence, a C0 or C1 character but newline and tab).

`main` puts `Printable` around both streams once, before any command runs, so every command
and every line it prints passes through the one sanitizer (`redact.printable`). JSON goes to
the byte buffer: msgspec writes control characters as `\\u` escapes, and what is in them was
cleaned where it was read. baker's own terminal writes (the OSC 52 clipboard, `baker run`'s
status line and the agent's screen) go to the file descriptor, past this.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO


class Printable:
    """A text stream whose `write` drops terminal control; everything else is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        from continuity_core.redact import printable

        self.stream.write(printable(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def install() -> None:
    """Sanitize both standard streams from here on (once)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, Printable):
            setattr(sys, name, Printable(stream))
