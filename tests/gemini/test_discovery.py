"""Finding Gemini CLI sessions: accounts, the registry, markers, legacy folders, stubs."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import msgspec
import pytest

from continuity_core.adapters import Account
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.hook import HookEvent
from continuity_gemini import GeminiAdapter, discovery
from tests.gemini.chatlog import CONTEXT, SESSIONS, SID, gemini, header, user, write_log

ADAPTER = GeminiAdapter()
PROJECT = "/work/src/demo app"


def config(**transcripts: list[str]) -> GlobalConfig:

    return msgspec.convert({"transcripts": transcripts}, GlobalConfig)


def conversation(gemini_dir: Path, slug: str, name: str, sid: str = SID, **kw: object) -> Path:
    return write_log(
        gemini_dir / "tmp" / slug / "chats" / name,
        [header(sid, **kw), CONTEXT, user("u1", f"work in {slug}"), gemini("g1", "ok")],
    )


def stub(gemini_dir: Path, slug: str, name: str, sid: str = SID) -> Path:
    return write_log(gemini_dir / "tmp" / slug / "chats" / name, [header(sid), CONTEXT])


def register(gemini_dir: Path, projects: dict[str, str]) -> None:
    gemini_dir.mkdir(parents=True, exist_ok=True)
    (gemini_dir / "projects.json").write_text(json.dumps({"projects": projects}))


def found(project: str, gemini_dir: Path) -> list[str]:
    accounts = ADAPTER.accounts(config(gemini=[str(gemini_dir)]))
    return [r.path for r in ADAPTER.discover(Path(project), accounts)]


def test_accounts_from_env_default_and_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "work"))
    (tmp_path / "alt-home" / ".gemini").mkdir(parents=True)
    cfg = msgspec.convert(
        {
            "transcripts": {"gemini": [str(tmp_path / "alt-home"), str(isolated_home / ".gemini")]},
            "accounts": {
                "side": {"agent": "gemini", "dir": str(tmp_path / "side" / ".gemini")},
                "other": {"agent": "claude", "dir": str(tmp_path / "c")},
            },
        },
        GlobalConfig,
    )
    dirs = [(a.name, a.dir) for a in ADAPTER.accounts(cfg)]
    assert dirs == [
        ("GEMINI_CLI_HOME", str(tmp_path / "work" / ".gemini")),  # named by the variable
        ("~/.gemini", str(isolated_home / ".gemini")),
        (str(tmp_path / "alt-home"), str(tmp_path / "alt-home" / ".gemini")),
        ("side", str(tmp_path / "side" / ".gemini")),
    ]  # ~/.gemini listed twice is one account


def test_corrupt_registry_falls_back_to_markers(gemini_home: Path) -> None:
    (gemini_home / "projects.json").write_text('{"projects": {"/home/dev/src/weath')
    gt = next(v for v in SESSIONS.values() if v["scenario"] == "S1")
    refs = list(ADAPTER.discover(Path(gt["project_root"]), ADAPTER.accounts(GlobalConfig())))
    assert [r.session_id for r in refs] == [gt["session_id"]]


def test_legacy_sha256_folder(tmp_path: Path) -> None:
    g = tmp_path / ".gemini"
    digest = hashlib.sha256(PROJECT.encode()).hexdigest()
    path = conversation(g, digest, "session-2025-06-01T10-00-5e551011.jsonl")
    assert found(PROJECT, g) == [str(path)]


def test_sessions_below_the_project_root(tmp_path: Path) -> None:
    g = tmp_path / ".gemini"
    register(g, {f"{PROJECT}/docs": "docs", f"{PROJECT}-other": "demo-app-other"})
    inside = conversation(g, "docs", "session-2026-11-30T04-00-5e551011.jsonl")
    conversation(
        g,
        "demo-app-other",
        "session-2026-11-30T04-00-aaaaaaaa.jsonl",
        sid="aaaaaaaa-0000-4000-8000-000000000000",
    )
    assert found(PROJECT, g) == [str(inside)]


def test_collision_slugs_and_newest_first(tmp_path: Path) -> None:
    g = tmp_path / ".gemini"
    register(g, {PROJECT: "demo-app-1", "/elsewhere/demo app": "demo-app"})
    old = conversation(
        g,
        "demo-app-1",
        "session-2026-11-30T04-00-11111111.jsonl",
        sid="11111111-0000-4000-8000-000000000000",
    )
    new = conversation(
        g,
        "demo-app-1",
        "session-2026-11-30T05-00-22222222.jsonl",
        sid="22222222-0000-4000-8000-000000000000",
    )
    conversation(
        g,
        "demo-app",
        "session-2026-11-30T06-00-33333333.jsonl",
        sid="33333333-0000-4000-8000-000000000000",
    )
    os.utime(old, (1_000_000, 1_000_000))
    assert found(PROJECT, g) == [str(new), str(old)]


def test_resume_stub_is_ignored_and_jsonl_beats_json(tmp_path: Path) -> None:
    g = tmp_path / ".gemini"
    register(g, {PROJECT: "demo-app"})
    legacy = g / "tmp" / "demo-app" / "chats" / "session-2026-01-01T10-00-5e551011.json"
    legacy.parent.mkdir(parents=True)
    legacy.write_text(json.dumps({**header(), "messages": [user("u1", "old")]}))
    real = conversation(g, "demo-app", "session-2026-01-01T10-00-5e551011.jsonl")
    stub(g, "demo-app", "session-2026-11-30T09-59-5e551011.jsonl")
    os.utime(real, (1_000_000, 1_000_000))  # the .json beside it is newer: still the .jsonl
    only_stub = stub(
        g,
        "demo-app",
        "session-2026-11-30T10-00-44444444.jsonl",
        sid="44444444-0000-4000-8000-000000000000",
    )
    refs = list(ADAPTER.discover(Path(PROJECT), ADAPTER.accounts(config(gemini=[str(g)]))))
    assert [r.path for r in refs] == [str(real)]
    assert refs[0].mtime == legacy.stat().st_mtime  # as recent as its newest conversation file
    assert only_stub.exists()


def test_subagent_recordings_are_not_sessions(tmp_path: Path) -> None:
    g = tmp_path / ".gemini"
    register(g, {PROJECT: "demo-app"})
    conversation(g, "demo-app", "session-2026-11-30T04-00-5e551011.jsonl", kind="subagent")
    assert found(PROJECT, g) == []


def test_session_for_hook_skips_the_resume_stub(tmp_path: Path) -> None:
    g = tmp_path / ".gemini"
    register(g, {PROJECT: "demo-app"})
    real = conversation(g, "demo-app", "session-2026-11-30T04-00-5e551011.jsonl")
    stub_path = stub(g, "demo-app", "session-2026-11-30T04-07-5e551011.jsonl")
    event = HookEvent(
        agent="gemini",
        kind="session_start",
        source="resume",
        session_id=SID,
        transcript_path=str(stub_path),
        cwd=PROJECT,
    )
    ref = ADAPTER.session_for_hook(event, ADAPTER.accounts(config(gemini=[str(g)])))
    assert ref is not None and ref.path == str(real) and ref.cwd == PROJECT


def test_session_for_hook_without_a_registry_entry(tmp_path: Path) -> None:
    g = tmp_path / ".gemini"
    real = conversation(g, "somewhere", "session-2026-11-30T04-00-5e551011.jsonl")
    event = HookEvent(agent="gemini", kind="stop", session_id=SID, cwd="/not/registered")
    ref = ADAPTER.session_for_hook(event, ADAPTER.accounts(config(gemini=[str(g)])))
    assert ref is not None and ref.path == str(real)
    unknown = HookEvent(agent="gemini", kind="stop", session_id="ffffffff-0000", cwd=PROJECT)
    assert ADAPTER.session_for_hook(unknown, ADAPTER.accounts(config(gemini=[str(g)]))) is None


NAME = "session-2026-11-30T04-00-5e551011.jsonl"


def account(gemini_dir: Path) -> list[Account]:
    return [Account(agent="gemini", name=str(gemini_dir), dir=str(gemini_dir))]


def stop(transcript: Path | str, sid: str = SID) -> HookEvent:
    return HookEvent(
        agent="gemini", kind="stop", session_id=sid, transcript_path=str(transcript), cwd=PROJECT
    )


def test_a_checkpoint_lists_only_the_folder_the_hook_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The common case: `transcript_path` is the session's file in an account's tmp folder.
    Its `chats/` alone is listed and the registry read for its root; no other folder is
    listed, no marker read."""
    g = tmp_path / ".gemini"
    register(g, {PROJECT: "demo-app", "/elsewhere": "other"})
    real = conversation(g, "demo-app", NAME)
    conversation(g, "other", "session-2026-11-30T04-00-aaaaaaaa.jsonl", sid="aaaaaaaa-0000")

    def scanned(*args: object) -> None:
        raise AssertionError(f"scanned {args}")

    for name in ("project_dirs", "_all_folders", "markers"):
        monkeypatch.setattr(discovery, name, scanned)
    ref = ADAPTER.session_for_hook(stop(real), account(g))
    assert ref is not None
    assert (ref.path, ref.cwd, ref.account, ref.session_id) == (str(real), PROJECT, str(g), SID)
    assert ref.size == real.stat().st_size and ref.mtime == real.stat().st_mtime


def test_a_transcript_path_spelt_oddly_names_the_same_folder(tmp_path: Path) -> None:
    """`a//b/./c` names the folder `a/b/c` names; the path handed back is spelt plainly."""
    g = tmp_path / ".gemini"
    register(g, {PROJECT: "demo-app"})
    real = conversation(g, "demo-app", NAME)
    odd = f"{g}//tmp/./demo-app/chats//{NAME}"
    ref = ADAPTER.session_for_hook(stop(odd), ADAPTER.accounts(config(gemini=[str(g)])))
    assert ref is not None and ref.path == str(real) and ref.cwd == PROJECT


def test_a_transcript_path_outside_an_accounts_tmp_folders_is_not_taken(tmp_path: Path) -> None:
    """A file named and headed like the session, where no account keeps chats (a copy in a
    folder shaped like one, `tmp/../chats`, a symlink outside pointing in): the session is
    looked up by id, and the account's own file is the one read."""
    g = tmp_path / ".gemini"
    register(g, {PROJECT: "demo-app"})
    real = conversation(g, "demo-app", NAME)
    os.utime(real, (1_000_000, 1_000_000))  # older than every decoy
    copy = conversation(tmp_path / "backup" / ".gemini", "demo-app", NAME)
    above = write_log(g / "chats" / NAME, [header(), CONTEXT, user("u1", "not here")])
    link = tmp_path / "links" / "tmp" / "demo-app" / "chats" / NAME
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    accounts = ADAPTER.accounts(config(gemini=[str(g)]))
    for transcript in (copy, f"{g}/tmp/../chats/{NAME}", link):
        ref = ADAPTER.session_for_hook(stop(transcript), accounts)
        assert ref is not None and ref.path == str(real) and ref.cwd == PROJECT, transcript
    assert above.is_file()


def test_the_hook_folder_never_moves_the_session_to_another_account(tmp_path: Path) -> None:
    """Accounts are searched in their order, each from its own folders: a hook naming the
    second account's file finds the first account's copy first, as a scan does."""
    first, second = tmp_path / "a" / ".gemini", tmp_path / "b" / ".gemini"
    for g in (first, second):
        register(g, {PROJECT: "demo-app"})
    mine = conversation(first, "demo-app", NAME)
    theirs = conversation(second, "demo-app", NAME)
    ref = ADAPTER.session_for_hook(stop(theirs), account(first) + account(second))
    assert ref is not None and (ref.path, ref.account) == (str(mine), str(first))
    ref = ADAPTER.session_for_hook(stop(theirs), account(second) + account(first))
    assert ref is not None and (ref.path, ref.account) == (str(theirs), str(second))


def test_a_transcript_path_that_is_no_chat_file_of_the_session(tmp_path: Path) -> None:
    """Named after another session, or empty: the id decides; a file no account holds is
    taken only when no account holds the session (account "")."""
    g = tmp_path / ".gemini"
    register(g, {PROJECT: "demo-app"})
    real = conversation(g, "demo-app", NAME)
    other = conversation(g, "demo-app", "session-2026-11-30T05-00-bbbbbbbb.jsonl", sid="bbbbbbbb-1")
    accounts = ADAPTER.accounts(config(gemini=[str(g)]))
    ref = ADAPTER.session_for_hook(stop(other), accounts)
    assert ref is not None and ref.path == str(real)
    lone = write_log(tmp_path / "lone" / "x.jsonl", [header("cccccccc-2"), CONTEXT])
    ref = ADAPTER.session_for_hook(stop(lone, sid="cccccccc-2"), accounts)
    assert ref is not None and (ref.path, ref.account, ref.cwd) == (str(lone), "", PROJECT)


def test_cli_home_and_config_dir_on_str_paths(tmp_path: Path) -> None:
    home = Account(agent="gemini", name="x", dir=f"{tmp_path}/h//.gemini/")
    assert discovery.cli_home(home) == f"{tmp_path}/h"
    assert discovery.cli_home(Account(agent="gemini", name="x", dir=str(tmp_path))) is None
    (tmp_path / "plain" / "tmp").mkdir(parents=True)
    assert discovery.config_dir(f"{tmp_path}/plain/") == f"{tmp_path}/plain"
    assert discovery.config_dir(str(tmp_path / "none")) == str(tmp_path / "none" / ".gemini")


def test_missing_home_finds_nothing(tmp_path: Path) -> None:
    assert found(PROJECT, tmp_path / "no-such" / ".gemini") == []
