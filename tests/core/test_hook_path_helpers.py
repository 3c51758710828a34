"""What the pre-tool hook uses instead of `re`, `shlex`, `pathlib`, `json` and the
redactor gives the same answers as they do (docs/decisions.md, "How the hooks stay fast")."""

from __future__ import annotations

import json
import os
import re
import shlex
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from continuity_core import jsonl, traps
from continuity_core.redact import redact


@settings(max_examples=3000, deadline=None)
@given(
    command=st.text(alphabet="ab &|;\t\n ", max_size=16),
    pattern=st.text(alphabet="ab &|;*?", min_size=1, max_size=6),
)
def test_command_matches_as_the_whole_line_or_a_chained_command_did(
    command: str, pattern: str
) -> None:
    """The chained commands once matched one by one add nothing to the whole line's match."""
    parts = re.split(r"\s*(?:&&|\|\||;|\|)\s*", command)
    expected = fnmatchcase(command, f"*{pattern}*") or any(
        fnmatchcase(part, pattern) for part in parts if part
    )
    assert traps.command_matches(pattern, command) is expected


def test_command_matching_stays_fast_on_a_long_command_line() -> None:
    import time

    command = "make --force; " + "echo hello world > out.txt | tee -a log; deploy\n" * 40_000
    start = time.process_time()
    for _ in range(5):  # five traps whose pieces are all there, in another order
        assert not traps.command_matches("deploy*--force", command)
    assert time.process_time() - start < 0.5


def _shlex_paths(command: str) -> list[str]:
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    return [w for w in words if not w.startswith("-") and ("/" in w or "." in w.strip("."))]


@settings(max_examples=2000, deadline=None)
@given(command=st.text(alphabet="ab ./-\t\r\n'\"#\\;", max_size=20))
def test_command_paths_are_shlex_words(command: str) -> None:
    assert traps.command_paths(command) == _shlex_paths(command)


def _relative_pathlib(root: Path, path: str, cwd: str | None = None) -> str:
    """`traps.relative` as it was written with pathlib, but with `..` in an absolute path read
    as the file system opens it (`root/../x.py` is `x.py` beside the root, not `../x.py`)."""
    import contextlib

    p = Path(os.path.expanduser(path))
    if not p.is_absolute() and cwd and os.path.isabs(cwd):
        p = Path(os.path.normpath(os.path.join(cwd, p)))
    if p.is_absolute():
        p = Path(os.path.normpath(p))
        with contextlib.suppress(ValueError):
            return p.relative_to(root).as_posix()
        with contextlib.suppress(ValueError, OSError):
            return p.resolve().relative_to(root.resolve()).as_posix()
        return p.as_posix()
    return PurePosixPath(path.replace("\\", "/")).as_posix().removeprefix("./")


@pytest.mark.parametrize(
    ("path", "cwd"),
    [
        ("src/a.py", None),
        ("./src/a.py", None),
        ("src//a.py", None),
        ("src/./a.py/", None),
        (".", None),
        ("a\\b.py", None),
        ("{root}/src/a.py", None),
        ("{root}", None),
        ("{root}/../x.py", None),
        ("/elsewhere/a.py", None),
        ("//net/a.py", None),
        ("units.py", "{root}/weather"),
        ("../units.py", "{root}/weather"),
        ("units.py", "rel"),
        ("{root}/link/a.py", None),
        ("~/a.py", None),
    ],
)
def test_relative_paths_as_pathlib_read_them(tmp_path: Path, path: str, cwd: str | None) -> None:
    root = tmp_path / "root"
    (root / "weather").mkdir(parents=True)
    (root / "link").symlink_to(root / "weather")
    path = path.replace("{root}", str(root))
    cwd = cwd.replace("{root}", str(root)) if cwd else cwd
    assert traps.relative(root, path, cwd) == _relative_pathlib(root, path, cwd)
    linked = tmp_path / "linked"
    linked.symlink_to(root)
    assert traps.relative(linked, path, cwd) == _relative_pathlib(linked, path, cwd)


@pytest.mark.parametrize(
    "bad", [b"", b" ", b"{", b"[1,]", b"1 2", b"NaN", b'{"a": 1}x', b"\xff", b"{'a': 1}"]
)
def test_loads_refuses_what_is_not_one_json_document(bad: bytes) -> None:
    with pytest.raises(ValueError):
        jsonl.loads(bad)


@settings(max_examples=3000, deadline=None)
@given(
    patterns=st.lists(st.text(alphabet="ab/.*?", max_size=8), min_size=1, max_size=6),
    rels=st.lists(st.text(alphabet="ab/.", min_size=1, max_size=8), min_size=1, max_size=3),
)
def test_matching_many_traps_is_path_matches_on_each(patterns: list[str], rels: list[str]) -> None:
    shown = [
        traps.Shown(str(i), "path", p, traps._translate("path", p), "", [])
        for i, p in enumerate(patterns)
    ]
    found = traps._Cached(traps._encode("", shown)).matching(
        traps._rels("/nowhere", rels, None, None), None
    )
    assert [int(t.id) for t in found] == [
        i
        for i, p in enumerate(patterns)
        if any(traps.path_matches(p, traps.relative("/nowhere", r)) for r in rels)
    ]


def test_loads_reads_bytes_with_a_byte_order_mark_as_json_does() -> None:
    data = b"\xef\xbb\xbf" + json.dumps({"a": "\u00e9"}).encode()
    assert jsonl.loads(data) == json.loads(data) == {"a": "\u00e9"}


@pytest.mark.parametrize(
    "deep",
    [
        b"[" * 100_000,
        b'{"a": ' * 100_000 + b"1" + b"}" * 100_000,
        b'["\\ud800", ' * 100_000 + b"1" + b"]" * 100_000,
    ],
)
def test_loads_refuses_a_document_nested_too_deep_as_not_json(deep: bytes) -> None:
    with pytest.raises(ValueError):  # json.loads raises RecursionError, no ValueError
        jsonl.loads(deep)


def test_loads_reads_a_lone_surrogate_as_a_replacement_character() -> None:
    """JSON.stringify writes half an emoji as `\\ud83d`; what is read encodes as UTF-8."""
    value = jsonl.loads(b'{"s\\ud800": ["a\\udc80b", "\\ud83d\\ude00", "\\uDBFF", 1]}')
    assert value == {"s\ufffd": ["a\ufffdb", "\U0001f600", "\ufffd", 1]}
    json.dumps(value, ensure_ascii=False).encode()
    assert jsonl.loads('"\\\\ud800"') == "\\ud800"  # an escaped backslash: no escape


def test_loads_reads_undecodable_argv_bytes_as_replacement_characters() -> None:
    """Python hands argv's undecodable bytes over as lone surrogates (surrogateescape)."""
    assert jsonl.loads('{"id": "ab\udcffcd"}') == {"id": "ab\ufffdcd"}


# --- the quick answers of the redactor --------------------------------------------------------


@settings(max_examples=3000, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=0x2100), max_size=8))
def test_control_characters_are_found_as_the_pattern_found_them(text: str) -> None:
    """`printable` answers printable text at once (`str.isprintable`): never one that holds
    a C0 or C1 character but a newline and a tab."""
    from continuity_core.redact import printable

    assert (printable(text) != text) is bool(re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text))


def test_a_twilio_needle_is_the_capitals_it_opens_with() -> None:
    """`SK` is looked for as written: a lowered `sk` is in every "task" and "ask", and would
    send the redactor (and `re`) after every brief."""
    key = "SK" + "0123456789abcdef" * 2
    assert redact(f"key {key} here") == "key [REDACTED] here"
    assert redact("ask the user to confirm the task") == "ask the user to confirm the task"
