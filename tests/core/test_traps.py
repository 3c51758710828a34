"""Traps: storage, matching, batches of five unseen, broken lines, re-check after changes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from continuity_core import hooks, traps
from continuity_core.errors import BakerError


@pytest.fixture
def project(repo: Path) -> Path:
    (repo / ".baker").mkdir(mode=0o700)
    return repo


def pretool(payload: dict[str, object] | bytes) -> str:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return hooks.pretool(None, data, [])


def tool(session: str = "s1", **tool_input: str) -> dict[str, object]:
    return {"session_id": session, "tool_name": "Edit", "tool_input": tool_input}


def test_add_list_remove(project: Path) -> None:
    a = traps.add(
        project,
        "src/db/*.py",
        "raw SQL strings broke the migration tests",
        session="abc123",
        agent="claude",
    )
    b = traps.add(
        project, "pip install *", "the lock file pins everything; use uv sync", command=True
    )
    assert [t.id for t in traps.load(project)] == [a.id, b.id]
    assert a.kind == "path" and b.kind == "command"
    assert a.session == "abc123" and a.created_at
    assert traps.remove(project, a.id[:5]).id == a.id
    assert [t.id for t in traps.load(project)] == [b.id]
    with pytest.raises(traps.TrapNotFound):
        traps.remove(project, "ffffffff")


def test_add_refuses_empty_and_redacts(project: Path) -> None:
    with pytest.raises(BakerError):
        traps.add(project, "  ", "why")
    with pytest.raises(BakerError):
        traps.add(project, "x.py", "")
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    traps.add(project, "deploy.sh", f"hard-coding GITHUB_TOKEN {token} leaked it")
    assert token not in (project / ".baker" / "traps.jsonl").read_text()


def test_broken_lines_are_skipped_one_by_one_and_kept(project: Path) -> None:
    good = traps.add(project, "a.py", "first")
    path = project / ".baker" / "traps.jsonl"
    junk = [
        b"{torn",
        b"[1, 2]",
        b'"a string"',
        b"null",
        b'{"id": "x1", "pattern": 7, "why": "non-string", "created_at": "t"}',
        b'{"id": "x2", "pattern": ["a"], "why": "list", "created_at": "t"}',
        b'{"id": "x3", "why": "no pattern", "created_at": "t"}',
        b"\xff\xfe",
    ]
    with path.open("ab") as f:
        f.write(b"\n".join(junk) + b"\n")
    later = traps.add(project, "b.py", "second")
    assert [t.id for t in traps.load(project)] == [good.id, later.id]
    traps.remove(project, good.id)
    remaining = path.read_bytes().splitlines()
    assert all(line in remaining for line in junk)  # nothing stored is lost
    assert traps.matching_paths(project, ["b.py"])[0].id == later.id


@pytest.mark.parametrize(
    ("pattern", "path", "hit"),
    [
        ("src/db/*.py", "src/db/models.py", True),
        ("src/db/*.py", "src/api/models.py", False),
        ("*.lock", "deep/dir/poetry.lock", True),  # no slash: the file name, anywhere
        ("migrations", "app/migrations", True),
        ("migrations/", "migrations/0001_init.py", True),  # a folder covers what is inside
        ("server.py", "server.py", True),
        ("server.py", "server.pyc", False),
        ("./docs/*.md", "docs/index.md", True),
    ],
)
def test_path_patterns(pattern: str, path: str, hit: bool) -> None:
    assert traps.path_matches(pattern, path) is hit


@pytest.mark.parametrize(
    ("pattern", "command", "hit"),
    [
        ("pip install *", "cd api && pip install -e .", True),
        ("pytest -x", "python -m pytest -x tests", True),
        ("git push --force*", "git push origin main", False),
        ("npm run build", "npm run build:prod", True),
    ],
)
def test_command_patterns(pattern: str, command: str, hit: bool) -> None:
    assert traps.command_matches(pattern, command) is hit


def test_absolute_paths_and_shell_words_reach_path_traps(project: Path) -> None:
    t = traps.add(project, "src/db.py", "do not delete: the loader imports it")
    assert traps.matching(project, [t], [str(project / "src" / "db.py")], None) == [t]
    assert traps.matching(project, [t], [], "rm -f src/db.py && ls") == [t]
    assert traps.matching(project, [t], [], "echo 'unbalanced") == []


def test_a_seen_set_under_the_name_of_another_session_is_not_its_own(project: Path) -> None:
    """Seen sets are named by a checksum of the session id and hold the id: a session whose
    id shares the name is shown its traps, never told it saw them."""
    traps.add(project, "src/*.py", "raw SQL broke the migration tests")
    assert "raw SQL" in pretool(tool(session="a", file_path="src/app.py"))
    assert pretool(tool(session="a", file_path="src/app.py")) == ""  # seen by a
    Path(traps._seen_path(project, "a")).rename(traps._seen_path(project, "b"))
    assert "raw SQL" in pretool(tool(session="b", file_path="src/app.py"))


def test_pretool_delivers_five_unseen_per_call_then_the_rest(project: Path) -> None:
    made = [traps.add(project, "src/*.py", f"attempt {i} failed") for i in range(7)]
    first = pretool(tool(file_path=str(project / "src" / "app.py")))
    assert first.count("attempt ") == 5
    second = pretool(tool(file_path="src/app.py"))
    assert second.count("attempt ") == 2
    assert "attempt 5" in second and "attempt 6" in second
    assert pretool(tool(file_path="src/app.py")) == ""
    # another session has seen none of them
    assert pretool(tool(session="s2", file_path="src/app.py")).count("attempt ") == 5
    assert len(made) == 7


def test_pretool_records_only_what_it_delivered(project: Path) -> None:
    traps.add(project, "a.py", "trap for a")
    traps.add(project, "b.py", "trap for b")
    assert "trap for a" in pretool(tool(file_path="a.py"))
    assert "trap for b" in pretool(tool(file_path="b.py"))  # not marked seen by the first call
    assert pretool(tool(file_path="a.py")) == ""


def test_pretool_matches_shell_commands(project: Path) -> None:
    traps.add(project, "alembic downgrade*", "downgrade drops the audit table", command=True)
    out = pretool(
        {
            "session_id": "s",
            "tool_name": "Bash",
            "tool_input": {"command": "cd api && alembic downgrade -1"},
        }
    )
    assert "downgrade drops the audit table" in out


@pytest.mark.parametrize(
    "payload",
    [b"", b"{", b"[]", b"\x00\xff", b'{"tool_input": 5}', b'{"tool_input": {"file_path": 7}}'],
)
def test_pretool_ignores_bad_payloads(project: Path, payload: bytes) -> None:
    traps.add(project, "*", "everything")
    assert pretool(payload) == ""


def test_pretool_outside_a_project_does_nothing(repo: Path) -> None:
    assert hooks.pretool(None, json.dumps(tool(file_path="x.py")).encode(), []) == ""


def test_cited_files_are_hashed_and_changes_need_a_recheck(project: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "cache.py").write_text("TTL = 60\n")
    (project / "config.toml").write_text("ttl = 60\n")
    t = traps.add(
        project, "src/cache.py", "lowering TTL broke the rate limiter", files=["config.toml"]
    )
    assert set(t.file_hashes) == {"src/cache.py", "config.toml"}
    assert traps.changed_files(project, t) == []
    assert "needs re-check" not in traps.render(project, t)
    (project / "config.toml").write_text("ttl = 5\n")
    assert traps.changed_files(project, t) == ["config.toml"]
    assert "needs re-check: config.toml changed" in traps.render(project, t)
    assert "needs re-check" in pretool(tool(file_path="src/cache.py"))


def test_a_cited_file_that_kept_its_identity_is_not_hashed_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "config.toml").write_text("ttl = 3\n")
    traps.add(project, "config.toml", "a 3 s ttl made the cache tests flaky")
    aged(monkeypatch)  # a file and traps written long before the tool calls
    pretool(tool(session="s0", file_path="config.toml"))  # the cache: the file's identity too
    with monkeypatch.context() as m:
        m.setattr(traps, "file_hash", None)  # any hashing now fails the test
        shown = pretool(tool(session="s1", file_path="config.toml"))
    assert "a 3 s ttl" in shown and "needs re-check" not in shown
    (project / "config.toml").write_text("ttl = 5\n")  # the same size, another content
    shown = pretool(tool(session="s2", file_path="config.toml"))
    assert "needs re-check: config.toml changed" in shown


def test_matching_paths_for_the_brief(project: Path) -> None:
    a = traps.add(project, "server.py", "a")
    traps.add(project, "client.py", "b")
    traps.add(project, "server.py", "c", command=True)
    assert [t.id for t in traps.matching_paths(project, ["server.py"])] == [a.id]


def test_literal_prechecks_never_change_a_match() -> None:
    from continuity_core.traps import command_matches, path_matches

    assert path_matches("src/*.py", "src/a.py") and not path_matches("src/*.py", "lib/a.py")
    assert path_matches("*.lock", "deep/poetry.lock") and path_matches("docs", "docs/x.md")
    assert command_matches("pytest -k case_1*", "make && pytest -k case_12 -x")
    assert not command_matches("pytest -k case_1*", "pytest -k other")
    assert command_matches("rm -rf [ab]", "rm -rf a") and command_matches(
        "git push*", "git push -f"
    )


def _cache(project: Path) -> Path:
    return project / ".baker" / "cache" / "traps.json"


def aged(monkeypatch: pytest.MonkeyPatch) -> None:
    """As a tool call long after the traps were written: the cache is keyed on the file's
    identity, which one modified or changed in the last `traps.RACY_NS` does not yet name
    (`os.utime` would set the ctime: the window is closed instead)."""
    monkeypatch.setattr(traps, "RACY_NS", 0)


def cached(kinds: list[str], patterns: list[str]) -> traps._Cached:
    """A cache of these traps as `_cached` builds it, each trap's id its number."""
    shown = [
        traps.Shown(str(i), k, p, traps._translate(k, p), "", [])
        for i, (k, p) in enumerate(zip(kinds, patterns, strict=True))
    ]
    return traps._Cached(traps._encode("", shown))


def _header(data: bytes, change: Callable[[dict[str, Any]], object]) -> bytes:
    """The cache with its header changed (what follows is found relative to its end)."""
    head, _, body = data.partition(b"\n")
    fields = json.loads(head)
    change(fields)
    return json.dumps(fields).encode() + b"\n" + body


CORRUPT: dict[str, Callable[[bytes], bytes]] = {
    "garbage": lambda d: b"\x00\xff garbage",
    "nested too deep": lambda d: b"[" * 100_000 + b"\n",
    "no key": lambda d: b"{}\n",
    "another key": lambda d: b'{"key": 1}\n[1]\n',
    "a row no JSON": lambda d: d.replace(b"\n[", b"\n{", 1),
    "cut short": lambda d: d[: d.index(b"\n") + 8],
    "no buckets": lambda d: _header(d, lambda h: h.update(buckets=7)),
    "an empty list of buckets": lambda d: _header(d, lambda h: h.update(buckets=[])),
    "lengths as text": lambda d: _header(d, lambda h: h.update(lens=["4"])),
    "a bucket pointing into a row": lambda d: _header(d, lambda h: h.update(buckets=[[0, 4]])),
    "a bucket that is a list": lambda d: _header(d, lambda h: h.update(buckets=[h["command"]])),
}


@pytest.mark.parametrize("corrupt", sorted(CORRUPT))
def test_a_corrupt_trap_cache_is_rebuilt(
    project: Path, corrupt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the cache holds, pretool delivers the traps and writes a good cache again."""
    traps.add(project, "src/*.py", "raw SQL broke the migration tests")
    aged(monkeypatch)
    pretool(tool(session="s0", file_path="src/app.py"))  # a good cache
    good = _cache(project).read_bytes()
    _cache(project).write_bytes(CORRUPT[corrupt](good))
    assert "raw SQL broke" in pretool(tool(file_path="src/app.py"))
    assert _cache(project).read_bytes() == good


def test_a_linked_trap_cache_is_never_read(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    traps.add(project, "src/*.py", "raw SQL broke the migration tests")
    aged(monkeypatch)
    pretool(tool(session="s0", file_path="src/app.py"))  # the cache is written
    planted = tmp_path / "planted.json"
    planted.write_bytes(_cache(project).read_bytes().replace(b"raw SQL", b"PLANTED"))
    _cache(project).unlink()
    _cache(project).symlink_to(planted)
    # The store holds a link one folder down: it fails the trust check, nothing is read.
    assert "PLANTED" not in pretool(tool(file_path="src/app.py"))
    assert b"PLANTED" in planted.read_bytes()  # the link's target is left alone


def test_the_trap_cache_is_stale_once_the_redactor_or_the_traps_change(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    traps.add(project, "src/*.py", "raw SQL broke the migration tests")
    aged(monkeypatch)
    pretool(tool(session="s0", file_path="src/app.py"))
    data = _cache(project).read_bytes()
    _cache(project).write_bytes(data.replace(b"raw SQL", b"CACHED!"))  # the same length
    assert "CACHED!" in pretool(tool(session="s1", file_path="src/app.py"))  # current: read
    real = traps._identity
    monkeypatch.setattr(
        traps, "_identity", lambda p: "older" if p.endswith("redact.py") else real(p)
    )
    assert "raw SQL" in pretool(tool(session="s2", file_path="src/app.py"))  # rebuilt


def shown_then_rewritten(project: Path) -> None:
    """A trap shown once, then traps.jsonl rewritten in place to the same size (another
    reason), which the next call shows."""
    traps.add(project, "src/*.py", "first reason")
    assert "first reason" in pretool(tool(session="s0", file_path="src/app.py"))
    path = project / ".baker" / "traps.jsonl"
    path.write_bytes(path.read_bytes().replace(b"first reason", b"other reason"))
    assert "other reason" in pretool(tool(session="s1", file_path="src/app.py"))


def test_traps_rewritten_with_the_same_identity_are_not_read_from_the_cache(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system with coarse times that reuses the inode of a replaced file: a rewrite of
    the same size can keep every stat field; the cache still sees the new traps."""
    import os
    import time

    real = os.lstat
    frozen = real(project)

    def stat(path: str) -> os.stat_result:
        st = real(path)  # FileNotFoundError as before
        fields = list(st)
        fields[1], fields[6] = 7, 100  # st_ino, st_size
        fields[7:10] = [frozen.st_atime, frozen.st_mtime, frozen.st_ctime]
        return os.stat_result(fields, {"st_mtime_ns": when, "st_ctime_ns": when})

    when = time.time_ns()
    monkeypatch.setattr(traps, "_stat", lambda p: stat(p) if p.endswith(".jsonl") else None)
    shown_then_rewritten(project)
    assert not _cache(project).exists()  # nothing cached under an identity not yet settled
    # Long after, the identity alone names the file: the cache is written, then read.
    when -= 2 * traps.RACY_NS
    assert "other reason" in pretool(tool(session="s2", file_path="src/app.py"))
    monkeypatch.setattr(traps, "load", None)  # any read of the traps now fails the test
    assert "other reason" in pretool(tool(session="s3", file_path="src/app.py"))


def test_pretool_reads_half_an_emoji_and_refuses_deep_nesting(project: Path) -> None:
    """A lone surrogate escape (JSON.stringify's half emoji) in the session id, a command or
    a path still gets the traps; a payload nested too deep is bad input, not a failure."""
    traps.add(project, "src/*.py", "raw SQL broke the migration tests")
    payload = (
        b'{"session_id": "s\\ud83d", "tool_name": "Edit", "tool_input": '
        b'{"file_path": "src/a\\udc80.py", "command": "x \\ud800"}}'
    )
    assert "raw SQL broke" in pretool(payload)
    assert pretool(b'{"a": ' * 50_000 + b"1" + b"}" * 50_000) == ""


def test_a_long_word_in_a_command_costs_no_memory_per_prefix(project: Path) -> None:
    """A base64 blob in a command (`echo … | base64 -d`) is one word with `/` in it: a path
    to path traps. Telling most traps apart by their literal head never holds every prefix
    of it (a 100 KB word has 5 GB of them)."""
    import base64
    import os
    import tracemalloc

    blob = base64.b64encode(os.urandom(75_000)).decode()  # 100 KB, `/` in it
    command = f"echo {blob} | base64 -d > out.bin && vim src/db/models.py"
    patterns = ["src/db/*.py", "docs/*.md", "*.bin"]
    found = cached(["path"] * 3, patterns)
    tracemalloc.start()
    try:
        rels = traps._rels(str(project), [], command, None)
        hits = [int(t.id) for t in found.matching(rels, command)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert hits == [0, 2]
    assert peak < 16 << 20


@pytest.mark.parametrize(
    ("path", "cwd", "want"),
    [
        ("/proj/src/db.py", None, "src/db.py"),
        ("/proj//src/./db.py", None, "src/db.py"),
        ("/proj/src/../lib/db.py", None, "lib/db.py"),  # normpath: what the file system opens
        ("/proj", None, "."),
        ("/elsewhere/db.py", None, "/elsewhere/db.py"),
        ("/project2/db.py", None, "/project2/db.py"),  # a sibling sharing the prefix
        ("units.py", "/proj/weather", "weather/units.py"),
        ("../README.md", "/proj/weather", "README.md"),
        ("./src/db.py", None, "src/db.py"),
        ("src\\db.py", None, "src/db.py"),
    ],
)
def test_relative_paths_are_read_as_posix_from_the_root(
    path: str, cwd: str | None, want: str
) -> None:
    assert traps.relative("/proj", path, cwd) == want


def test_traps_with_an_old_mtime_and_a_new_ctime_are_not_read_from_the_cache(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cp -p` or `tar x` over traps.jsonl: an old mtime, the ctime of now. A second one in the
    same ctime tick (a second on coarse file systems), same size and mtime, keeps every field
    the cache is keyed on: until its ctime settled, the file is read again, nothing cached."""
    import os
    import time

    real = os.lstat

    def stat(path: str) -> os.stat_result:
        fields = list(real(path))
        fields[1], fields[6] = 7, 100  # st_ino, st_size
        return os.stat_result(fields, {"st_mtime_ns": old, "st_ctime_ns": tick})

    tick = time.time_ns()  # both copies' ctime: one tick
    old = tick - 60 * 10**9
    monkeypatch.setattr(traps, "_stat", lambda p: stat(p) if p.endswith(".jsonl") else None)
    shown_then_rewritten(project)
