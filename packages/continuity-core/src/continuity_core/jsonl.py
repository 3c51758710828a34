"""The one JSONL reader: forward from a byte offset, or backward from the end.

Both yield raw line bytes and never decode: callers pick the records they need (often by a
cheap substring test first) and decode those alone. Memory stays bounded by `chunk` plus the
longest line kept; a line longer than `max_line` is skipped and counted, never buffered whole.
A last line without its newline may be half-written: forward reading reports it as a tail
that does not advance `offset`, so the next incremental read sees it again once complete.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

CHUNK = 1 << 20
MAX_LINE = 64 << 20


class ForwardReader:
    """Iterate complete lines from `offset`; `offset` afterwards is where the next read starts."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        offset: int = 0,
        *,
        include_tail: bool = False,
        chunk: int = CHUNK,
        max_line: int = MAX_LINE,
    ) -> None:
        self.path = Path(path)
        self.offset = offset
        self.include_tail = include_tail
        self.chunk = chunk
        self.max_line = max_line
        self.skipped_long = 0
        self.tail: bytes | None = None  # the unterminated last line, if any

    def __iter__(self) -> Iterator[bytes]:
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            pending = b""
            skipping = False  # inside a line longer than max_line
            while True:
                block = f.read(self.chunk)
                if not block:
                    break
                cut = block.rfind(b"\n")
                if cut < 0:
                    if skipping:
                        self.offset += len(block)
                        continue
                    pending += block
                    if len(pending) > self.max_line:
                        self.offset += len(pending)
                        pending = b""
                        skipping = True
                        self.skipped_long += 1
                    continue
                head, rest = block[: cut + 1], block[cut + 1 :]
                lines = head.split(b"\n")
                lines.pop()  # empty string after the final newline
                if skipping:
                    first = lines.pop(0)
                    self.offset += len(first) + 1
                    skipping = False
                elif pending:
                    lines[0] = pending + lines[0]
                    pending = b""
                for line in lines:
                    self.offset += len(line) + 1
                    if len(line) > self.max_line:
                        self.skipped_long += 1
                        continue
                    if line.strip():
                        yield line
                pending = rest
                if len(pending) > self.max_line:
                    self.offset += len(pending)
                    pending = b""
                    skipping = True
                    self.skipped_long += 1
            if pending and not skipping:
                self.tail = pending
                if self.include_tail and pending.strip():
                    yield pending


def read_forward(
    path: str | os.PathLike[str], offset: int = 0, *, include_tail: bool = False
) -> Iterator[bytes]:
    """Complete lines from `offset` to the end (plus the torn tail when asked)."""
    return iter(ForwardReader(path, offset, include_tail=include_tail))


def read_backward(
    path: str | os.PathLike[str], *, chunk: int = 1 << 16, max_line: int = MAX_LINE
) -> Iterator[bytes]:
    """Lines from the last to the first. The first one yielded may be a torn last line."""
    with open(path, "rb") as f:
        end = f.seek(0, os.SEEK_END)
        pending = b""
        skipping = False
        while end > 0:
            start = max(0, end - chunk)
            f.seek(start)
            block = f.read(end - start)
            end = start
            buf = block + (b"" if skipping else pending)
            parts = buf.split(b"\n")
            pending = parts[0]  # may continue in the previous block
            for line in reversed(parts[1:]):
                if skipping:
                    skipping = False  # this was the start of the overlong line: drop it
                    continue
                if line.strip():
                    yield line
            if len(pending) > max_line:
                pending = b""
                skipping = True
        if pending.strip() and not skipping:
            yield pending
