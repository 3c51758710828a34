from __future__ import annotations

import json
from pathlib import Path

from continuity_core.jsonl import ForwardReader


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
    assert list(ForwardReader(p, reader.offset)) == [b'{"a":3}']


def test_torn_tail_is_not_consumed(tmp_path: Path) -> None:
    p = write(tmp_path / "t.jsonl", b'{"a":1}\n{"a":')
    reader = ForwardReader(p)
    assert list(reader) == [b'{"a":1}']
    assert reader.offset == 8
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
    assert list(ForwardReader(p)) == [b"\xff\xfe", b"ok"]


def test_empty_file(tmp_path: Path) -> None:
    p = write(tmp_path / "t.jsonl", b"")
    assert list(ForwardReader(p)) == []


def test_backward_scan_finds_lines_newest_first_each_once(tmp_path: Path) -> None:
    from continuity_core.jsonl import scan_backward

    lines = [
        b'{"n":0,"k":"req"}',
        b'{"n":1}',
        b'{"n":2,"k":"req","again":"req"}',
        b'{"n":3,"k":"other"}',
        b'{"n":4,"k":"req"}',
        b'{"n":5,"k":"req"}',
    ]
    data = b"\n".join(lines) + b"\n"
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    end = data.index(lines[5])  # the last line lies past `end`: not scanned
    for chunk in (5, 8, 64, 1 << 20):
        scan = scan_backward(path, end, find=(b'"req"', b'"other"'), chunk=chunk)
        got = list(scan)
        assert [head for _, _, head in got] == [lines[4], lines[3], lines[2], lines[0]], chunk
        assert all(data[start : start + size] == head for start, size, head in got)
    # With a floor, no block before the one holding it is read: the oldest line is not found.
    floor = data.index(lines[2])
    got = list(scan_backward(path, end, find=(b'"req"', b'"other"'), chunk=8, floor=floor))
    assert [head for _, _, head in got] == [lines[4], lines[3], lines[2]]


def test_backward_scan_reads_only_the_start_of_a_long_line(tmp_path: Path) -> None:
    from continuity_core.jsonl import scan_backward

    long = b'{"k":"req","text":"' + b"a" * 5000 + b'"}'
    data = b'{"c":"mark"}\n' + long + b'\n{"c":"mark"}\n{"x":1}\n'
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    scan = scan_backward(path, len(data), find=(b'"req"',), chunk=64, max_line=100)
    start, size, head = next(iter(scan))
    assert start == data.index(long) and size == len(long)
    assert head == long[:100]


def test_close_prefix_closes_a_string_value_cut_anywhere() -> None:
    from continuity_core.jsonl import close_prefix

    whole = json.dumps(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": 'é "quoted" \\ back \u2603 😀 tail'}],
            },
        },
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()
    start = whole.index(b'"text":"') + 8
    for cut in range(start, len(whole) - 5):
        closed = close_prefix(whole[:cut])
        assert closed is not None, cut
        value = json.loads(closed)["message"]["content"][0]["text"]
        assert 'é "quoted" \\ back ☃ 😀 tail'.startswith(value), (cut, value)
    ascii_escaped = json.dumps({"t": "\u2603😀 x"}, separators=(",", ":")).encode()  # \u escapes
    for cut in range(6, len(ascii_escaped) - 1):
        closed = close_prefix(ascii_escaped[:cut])
        assert closed is not None and "☃😀 x".startswith(json.loads(closed)["t"]), cut
    assert close_prefix(b'{"type":"us') == b'{"type":"us"}'
    assert close_prefix(b'[1,"a\\') == b'[1,"a"]'  # a cut escape is dropped
    assert close_prefix(b'{"ty') is None  # cut in a key
    assert close_prefix(b'{"n":12') is None  # cut in a number
    assert close_prefix(b'{"a":"b"}') is None  # not cut at all
