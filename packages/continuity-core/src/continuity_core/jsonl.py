"""The one JSONL reader: forward from a byte offset, or backward from the end by markers
(`scan_backward`).

Both yield raw line bytes and never decode: callers pick the records they need (often by a
cheap substring test first) and decode those alone. Memory stays bounded by `chunk` plus the
longest line kept; a line longer than `max_line` is skipped and counted, never buffered whole.
A last line without its newline may be half-written: forward reading reports it as a tail
that does not advance `offset`, so the next incremental read sees it again once complete.
"""

from __future__ import annotations

import json
import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any, BinaryIO

    Found = tuple[int, int, bytes]  # a line's start, its length (newline excluded), its head

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
        self.path = os.fspath(path)
        self.offset = offset
        self.include_tail = include_tail
        self.chunk = chunk
        self.max_line = max_line
        self.skipped_long = 0

    def __iter__(self) -> Iterator[bytes]:
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            pending = b""
            skipping = False  # inside a line longer than max_line
            while block := f.read(self.chunk):
                *lines, rest = block.split(b"\n")
                if skipping and lines:  # the end of the overlong line
                    self.offset += len(lines.pop(0)) + 1
                    skipping = False
                if skipping:
                    self.offset += len(rest)
                    continue
                if lines:
                    lines[0], pending = pending + lines[0], b""
                for line in lines:
                    self.offset += len(line) + 1
                    if len(line) > self.max_line:
                        self.skipped_long += 1
                    elif line.strip():
                        yield line
                pending += rest
                if len(pending) > self.max_line:
                    self.offset += len(pending)
                    pending, skipping = b"", True
                    self.skipped_long += 1
            if self.include_tail and pending.strip():  # the unterminated last line
                yield pending


def _blocks_backward(f: BinaryIO, end: int, chunk: int) -> Iterator[tuple[int, bytes]]:
    """The `chunk`-sized blocks of `f` before `end`, the last first, with their offsets."""
    while end > 0:
        start = max(0, end - chunk)
        f.seek(start)  # again before each block: the caller may read elsewhere between them
        yield start, f.read(end - start)
        end = start


HEAD_LINE = 256 << 10  # what `scan_backward` reads of a line longer than this: its first bytes


def scan_backward(
    path: str | os.PathLike[str],
    end: int,
    *,
    find: tuple[bytes, ...],
    chunk: int = CHUNK,
    max_line: int = HEAD_LINE,
    floor: int = 0,
) -> Iterator[Found]:
    """The lines holding one of `find` in the first `end` bytes of a file, newest first, each
    line once, as (start, size, the line or its first `max_line` bytes): read backward in
    `chunk` blocks, in one pass, no further back than the block holding offset `floor`.

    Memory stays bounded by `chunk` and `max_line` whatever a line's length: a long line is
    located by bounded reads and only its first `max_line` bytes are read. A marker split by
    a block boundary is found (a block is searched with the first bytes of the one after it).
    """
    markers = tuple(m for m in find if m)
    plan, keep = _plan(markers), max(map(len, markers), default=1) - 1
    limit = end  # a hit must start before the last line yielded
    above = b""  # the first bytes of the block after this one
    with open(path, "rb") as f:
        for base, block in _blocks_backward(f, end, chunk):
            data = block + above
            above = data[:keep]
            hits = {i for n, at, ms in plan for i in _positions(data, n, at, ms, len(block))}
            for i in sorted(hits, reverse=True):
                if base + i < limit:
                    found = _line(f, base, data, i, chunk, max_line)
                    limit = found[0]
                    yield found
            if base <= floor:
                return


def _line(f: BinaryIO, base: int, data: bytes, i: int, chunk: int, max_line: int) -> Found:
    """The line holding `data[i]`, `data` being the file's bytes from `base`."""
    cut = data.rfind(b"\n", 0, i)
    if cut >= 0:
        start = base + cut + 1
    else:  # it began before this block: look further back, a chunk at a time
        start = 0
        for low, block in _blocks_backward(f, base, chunk):
            if (cut := block.rfind(b"\n")) >= 0:
                start = low + cut + 1
                break
    cut = data.find(b"\n", i)
    if cut >= 0:
        stop = base + cut
    else:  # it ends after these bytes: look further on, in bounded reads
        f.seek(base + len(data))
        while (part := f.readline(chunk)) and part[-1:] != b"\n":
            pass
        stop = f.tell() - (part[-1:] == b"\n")
    size = stop - start
    take = min(size, max_line)
    if base <= start and start + take <= base + len(data):
        head = data[start - base : start - base + take]
    else:
        f.seek(start)
        head = f.read(take)
    return start, size, head


_WORD = rb"\w+"  # patterns compiled on first use (`re`'s cache): not at a hook's import


def _needle(marker: bytes) -> tuple[bytes, int]:
    """What to search for `marker` and where it sits in it: its longest word when that is
    long enough to be rare (CPython finds a plain word several times faster than a quoted
    needle), else the marker itself."""
    words = re.findall(_WORD, marker)
    word = max(words, key=len) if words else marker
    return (word, marker.find(word)) if len(word) >= 8 or word == marker else (marker, 0)


def _plan(markers: tuple[bytes, ...]) -> list[tuple[bytes, int, tuple[bytes, ...]]]:
    """(needle, its offset in each marker, the markers it stands for): markers sharing a long
    start are found by one search for it."""
    common = os.path.commonprefix(markers) or b""  # noqa: RUF071 (bytes, not paths)
    if len(markers) > 1 and len(common) >= 12:
        return [(common, 0, markers)]
    return [(*_needle(m), (m,)) for m in markers]


def _positions(
    data: bytes, needle: bytes, at: int, markers: tuple[bytes, ...], stop: int
) -> Iterator[int]:
    """Where one of `markers` starts in `data`, before `stop`; `needle` sits `at` bytes in."""
    hit = data.find(needle, at)
    while 0 <= hit - at < stop:
        start = hit - at
        if any(data.startswith(m, start) for m in markers):
            yield start
        hit = data.find(needle, hit + 1)


# A JSON string (possessive: no backtracking), a bracket or separator, or a lone quote (a
# string that runs to the end of the text); a cut escape.
_TOKEN = rb'"(?:[^"\\]++|\\.)*+"|[\[\]{}:,]|"'
_CUT_ESCAPE = rb"(\\+)(u[0-9a-fA-F]{0,3}|u[dD][89abAB][0-9a-fA-F]{2})?\Z"


def close_prefix(head: bytes) -> bytes | None:
    """The first bytes of a JSON text cut inside a string value, made whole: the string ends
    where its last whole character does, then every open array and object closes. None when
    the cut is anywhere else (a key, a number, between values): nothing sure to decode."""
    stack: list[bytes] = []
    prev = b""
    for m in re.finditer(_TOKEN, head):
        tok = m.group()
        if tok == b'"':
            value = prev in (b":", b"[") or (prev == b"," and stack[-1:] == [b"["])
            if not value:
                return None
            body = head[m.end() :]
            # an escape the cut split, or a surrogate pair's first half: drop it (twice for
            # `\ud83d\` cut after the first half)
            while (esc := re.search(_CUT_ESCAPE, body)) and len(esc.group(1)) % 2:
                body = body[: esc.start(1) + len(esc.group(1)) - 1]
            return (
                head[: m.end()]
                + _whole_utf8(body)
                + b'"'
                + b"".join(b"]" if b == b"[" else b"}" for b in reversed(stack))
            )
        if tok in (b"[", b"{"):
            stack.append(tok)
        elif tok in (b"]", b"}"):
            if not stack:
                return None
            stack.pop()
        prev = tok
    return None


def _whole_utf8(data: bytes) -> bytes:
    """`data` without a UTF-8 character its end cut in two (what a decoder would wait for)."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")("surrogateescape")
    decoder.decode(data)
    return data[: len(data) - len(decoder.getstate()[0])]


def loads(data: bytes | str) -> Any:
    """One JSON document as plain data (`json.loads`); ValueError when it is not one.

    A lone surrogate (an escape such as `\\ud83d`, half an emoji as JSON.stringify writes it,
    or argv's undecodable bytes in a `str`) is read as U+FFFD, so whatever was read can be
    written as UTF-8 (a file name, a digest, the hook's output); nesting too deep for json is
    a ValueError, not a RecursionError, and so are NaN and Infinity.
    """
    try:
        value = json.loads(data, parse_constant=_not_json)
    except RecursionError:
        raise ValueError("not JSON: nested too deep") from None
    if isinstance(data, str) or b"\\ud" in data or b"\\uD" in data:
        text = json.dumps(value, ensure_ascii=False)
        whole = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        if whole != text:
            value = json.loads(whole)
    return value


def _not_json(name: str) -> float:
    raise ValueError(f"not JSON: {name}")  # json.loads takes NaN and Infinity; JSON has neither


def raw_string(text: bytes, name: bytes) -> bytes | None:
    """The raw bytes (escapes as written) of the first string value of key `name` in `text`,
    which may be a JSON text cut anywhere: one field of a huge first line, not decoded."""
    m = re.search(rb'"' + re.escape(name) + rb'"\s*:\s*"((?:[^"\\]|\\.)*)"', text)
    return m.group(1) if m else None
