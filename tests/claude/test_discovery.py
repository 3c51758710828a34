"""Finding a project's Claude Code sessions: accounts, the slug rule, subdirectories, moves."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from continuity_claude import ClaudeAdapter
from continuity_claude.discovery import project_slug
from continuity_core.adapters import Account
from continuity_core.schemas.config import AccountConfig, GlobalConfig
from tests.claude.helpers import TRANSCRIPTS


def java_hash_b36(text: str) -> str:
    """String.hashCode as a sum of powers, wrapped to int32, in base 36: a second derivation."""
    data = text.encode("utf-16-le", "surrogatepass")
    units = [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]
    n = len(units)
    h = sum(u * pow(31, n - 1 - i, 1 << 32) for i, u in enumerate(units)) % (1 << 32)
    h = abs(h - (1 << 32)) if h >= 1 << 31 else h
    digits = ""
    while True:
        h, r = divmod(h, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + digits
        if not h:
            return digits


@pytest.mark.parametrize(
    ("cwd", "slug"),
    [
        ("/tmp/research/claude/odd dir/my_proj.v2", "-tmp-research-claude-odd-dir-my-proj-v2"),
        ("/a/.b", "-a--b"),
        (
            "/home/dev/src/client work/acme_site.v1.2/docs",
            "-home-dev-src-client-work-acme-site-v1-2-docs",
        ),
        ("/x/über", "-x--ber"),
        ("/x/\U0001f600", "-x---"),  # outside the BMP: two UTF-16 units, two dashes
        ("C:\\Users\\me\\proj", "C--Users-me-proj"),
    ],
)
def test_slug_rule(cwd: str, slug: str) -> None:
    assert project_slug(cwd) == slug


def test_long_paths_are_cut_and_hashed() -> None:
    cwd = "/tmp/" + "über dir/" * 30
    slug = project_slug(cwd)
    head, _, digits = slug.rpartition("-")
    assert len(head) == 200 and head == project_slug(cwd[:200])
    assert digits == java_hash_b36(cwd)
    assert project_slug("/" + "a" * 199) == "-" + "a" * 199  # exactly 200: not cut


def test_hash_matches_javas_int32_edge() -> None:
    # "polygenelubricants".hashCode() is Integer.MIN_VALUE; Math.abs in JS gives 2**31
    assert java_hash_b36("polygenelubricants") == "zik0zk"
    cwd = "/" + "x" * 200 + "polygenelubricants"
    assert project_slug(cwd).endswith("-" + java_hash_b36(cwd))


def test_fixture_folders_follow_the_rule() -> None:
    for rel, gt in TRANSCRIPTS.items():
        assert Path(rel).parent.name == project_slug(gt["cwd"])


def test_every_fixture_session_is_found_and_tagged(
    adapter: ClaudeAdapter, account: Account
) -> None:
    for gt in TRANSCRIPTS.values():
        refs = list(adapter.discover(Path(gt["cwd"]), [account]))
        assert [r.session_id for r in refs] == [gt["session_id"]]
        assert refs[0].account == "~/.claude" and refs[0].cwd == gt["cwd"]


def test_subagent_files_are_not_sessions(adapter: ClaudeAdapter, account: Account) -> None:
    refs = list(adapter.discover(Path("/home/dev/src/utils-lib"), [account]))
    assert [r.session_id for r in refs] == ["1eaad959-5ccb-4d3c-9780-4543a308bad6"]


def test_sessions_in_subdirectories_belong_to_the_project(
    adapter: ClaudeAdapter, account: Account
) -> None:
    refs = list(adapter.discover(Path("/home/dev/src/client work/acme_site.v1.2"), [account]))
    assert [r.cwd for r in refs] == ["/home/dev/src/client work/acme_site.v1.2/docs"]
    # a sibling whose slug merely starts the same is not a subdirectory
    assert list(adapter.discover(Path("/home/dev/src/client work/acme"), [account])) == []


def session(folder: Path, sid: str, cwd: str, mtime: float | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{sid}.jsonl"
    records = [
        {"type": "queue-operation", "operation": "enqueue", "sessionId": sid},
        {"type": "user", "cwd": cwd, "message": {"role": "user", "content": "hi"}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def test_colliding_slugs_are_told_apart_by_cwd(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    acc = Account(agent="claude", name="a", dir=str(tmp_path))
    folder = tmp_path / "projects" / project_slug("/w/a-b")
    session(folder, "dash", "/w/a-b")
    session(folder, "slash", "/w/a/b")
    assert [r.session_id for r in adapter.discover(Path("/w/a-b"), [acc])] == ["dash"]
    assert [r.session_id for r in adapter.discover(Path("/w/a/b"), [acc])] == ["slash"]
    # `/w/a` sees its subdirectory's session, not the other project's
    assert [r.session_id for r in adapter.discover(Path("/w/a"), [acc])] == ["slash"]


def test_newest_first_across_accounts(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    slug = project_slug("/w/p")
    session(one / "projects" / slug, "old", "/w/p", mtime=1_000)
    session(two / "projects" / slug, "new", "/w/p", mtime=3_000)
    session(one / "projects" / project_slug("/w/p/sub"), "mid", "/w/p/sub", mtime=2_000)
    accounts = [
        Account(agent="claude", name="one", dir=str(one)),
        Account(agent="claude", name="two", dir=str(two)),
    ]
    refs = list(adapter.discover(Path("/w/p"), accounts))
    assert [(r.session_id, r.account) for r in refs] == [
        ("new", "two"),
        ("mid", "one"),
        ("old", "one"),
    ]


def test_moved_project_found_by_cwd(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    acc = Account(agent="claude", name="a", dir=str(tmp_path))
    session(tmp_path / "projects" / "-renamed-by-hand", "moved", "/w/here")
    assert [r.session_id for r in adapter.discover(Path("/w/here"), [acc])] == ["moved"]
    assert list(adapter.discover(Path("/w/elsewhere"), [acc])) == []


def test_project_dir_name_from_the_environment(
    adapter: ClaudeAdapter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`CLAUDE_CODE_PROJECT_DIR_NAME` names the folder; it is searched beside the slugged one,
    and its sessions still have to be the project's by their cwd."""
    acc = Account(agent="claude", name="a", dir=str(tmp_path))
    session(tmp_path / "projects" / project_slug("/w/p"), "slugged", "/w/p", mtime=1_000)
    session(tmp_path / "projects" / "shared-name", "named", "/w/p", mtime=2_000)
    session(tmp_path / "projects" / "shared-name", "other", "/w/q", mtime=3_000)
    assert [r.session_id for r in adapter.discover(Path("/w/p"), [acc])] == ["slugged"]
    monkeypatch.setenv("CLAUDE_CODE_PROJECT_DIR_NAME", "shared-name")
    assert [r.session_id for r in adapter.discover(Path("/w/p"), [acc])] == ["named", "slugged"]


def test_symlinked_project_uses_the_real_path(adapter: ClaudeAdapter, tmp_path: Path) -> None:
    real = tmp_path / "real dir"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    acc = Account(agent="claude", name="a", dir=str(tmp_path / "cfg"))
    session(tmp_path / "cfg" / "projects" / project_slug(str(real)), "s", str(real))
    assert [r.session_id for r in adapter.discover(link, [acc])] == ["s"]


def test_discovery_reads_only_the_ends_of_files(
    adapter: ClaudeAdapter, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    acc = Account(agent="claude", name="a", dir=str(tmp_path))
    path = session(tmp_path / "projects" / project_slug("/w/big"), "big", "/w/big")
    with path.open("a") as f:
        f.write(('{"type":"progress","data":"%s"}\n' % ("x" * 1000)) * 5000)  # ~5 MB
    reads: list[int] = []
    real_open = open

    def spy(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        # Any: `open` returns a text or a binary file depending on `mode`.
        handle: Any = real_open(file, mode, *args, **kwargs)
        if str(file) == str(path):
            real_read = handle.read

            def read(n: int = -1) -> Any:
                reads.append(n)
                return real_read(n)

            handle.read = read
        return handle

    monkeypatch.setattr("builtins.open", spy)
    assert [r.session_id for r in adapter.discover(Path("/w/big"), [acc])] == ["big"]
    assert reads and all(0 < n <= 64 << 10 for n in reads)


def test_accounts(monkeypatch: pytest.MonkeyPatch, isolated_home: Path, tmp_path: Path) -> None:
    adapter = ClaudeAdapter()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{tmp_path / 'a'}, {tmp_path / 'b'}")
    config = GlobalConfig(
        transcripts={"claude": ["~/.claude-work", str(tmp_path / "a")]},
        accounts={
            "personal": AccountConfig(agent="claude", dir="~/.claude-personal"),
            "other": AccountConfig(agent="codex", dir="~/.codex-other"),
        },
    )
    got = [(a.name, a.dir) for a in adapter.accounts(config)]
    assert got == [
        ("CLAUDE_CONFIG_DIR[1]", str(tmp_path / "a")),  # named by the variable, as CODEX_HOME
        ("CLAUDE_CONFIG_DIR[2]", str(tmp_path / "b")),
        ("~/.claude", str(isolated_home / ".claude")),
        ("~/.claude-work", str(isolated_home / ".claude-work")),
        ("personal", str(isolated_home / ".claude-personal")),
    ]
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "a"))
    assert adapter.accounts(GlobalConfig())[0].name == "CLAUDE_CONFIG_DIR"
    (isolated_home / ".config" / "claude").mkdir(parents=True)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert [a.name for a in adapter.accounts(GlobalConfig())] == ["~/.claude", "~/.config/claude"]
