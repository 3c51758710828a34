from __future__ import annotations

from pathlib import Path

from continuity_core.jsonl import ForwardReader, read_backward, read_forward


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_forward_yields_lines_and_remembers_offset(tmp_path: Path) -> None:
    p = write(tmp_path / "t.jsonl", b'{"a":1}\n{"a":2}\n')
    reader = ForwardReader(p)
    assert list(reader) == [b'{"a":1}', b'{"a":2}']
    assert reader.offset == p.stat().st_size
    with p.open("ab") as f:
        f.write(b'{"a":3}\n')
    assert list(read_forward(p, reader.offset)) == [b'{"a":3}']


def test_torn_tail_is_not_consumed(tmp_path: Path) -> None:
    p = write(tmp_path / "t.jsonl", b'{"a":1}\n{"a":')
    reader = ForwardReader(p)
    assert list(reader) == [b'{"a":1}']
    assert reader.offset == 8
    assert reader.tail == b'{"a":'
    assert list(ForwardReader(p, include_tail=True)) == [b'{"a":1}', b'{"a":']


def test_lines_across_chunks_and_long_lines_skipped(tmp_path: Path) -> None:
    long = b"x" * 5000
    p = write(tmp_path / "t.jsonl", b"a\n" + long + b"\nb\n" + b"c" * 3000 + b"\nd\n")
    reader = ForwardReader(p, chunk=64, max_line=4000)
    assert list(reader) == [b"a", b"b", b"c" * 3000, b"d"]
    assert reader.skipped_long == 1
    assert reader.offset == p.stat().st_size


def test_invalid_utf8_and_blank_lines_pass_through(tmp_path: Path) -> None:
    p = write(tmp_path / "t.jsonl", b"\xff\xfe\n\n  \nok\n")
    assert list(read_forward(p)) == [b"\xff\xfe", b"ok"]


def test_backward_from_the_end(tmp_path: Path) -> None:
    lines = [f'{{"n":{i}}}'.encode() for i in range(200)]
    p = write(tmp_path / "t.jsonl", b"\n".join(lines) + b"\n")
    assert list(read_backward(p, chunk=37)) == list(reversed(lines))


def test_backward_yields_torn_last_line_first(tmp_path: Path) -> None:
    p = write(tmp_path / "t.jsonl", b'{"a":1}\n{"a":2}\n{"a"')
    assert list(read_backward(p)) == [b'{"a"', b'{"a":2}', b'{"a":1}']


def test_backward_skips_overlong_line(tmp_path: Path) -> None:
    p = write(tmp_path / "t.jsonl", b"first\n" + b"y" * 500 + b"\nlast\n")
    assert list(read_backward(p, chunk=16, max_line=100)) == [b"last", b"first"]


def test_empty_file(tmp_path: Path) -> None:
    p = write(tmp_path / "t.jsonl", b"")
    assert list(read_forward(p)) == []
    assert list(read_backward(p)) == []
