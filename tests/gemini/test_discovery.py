"""Finding Gemini CLI sessions: accounts, the registry, markers, legacy folders, stubs."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.hook import HookEvent
from continuity_gemini import GeminiAdapter
from tests.gemini.chatlog import CONTEXT, SESSIONS, SID, gemini, header, user, write_log

ADAPTER = GeminiAdapter()
PROJECT = "/work/src/demo app"


def config(**transcripts: list[str]) -> GlobalConfig:

    return GlobalConfig.from_builtins({"transcripts": transcripts})


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
    cfg = GlobalConfig.from_builtins(
        {
            "transcripts": {"gemini": [str(tmp_path / "alt-home"), str(isolated_home / ".gemini")]},
            "accounts": {
                "side": {"agent": "gemini", "dir": str(tmp_path / "side" / ".gemini")},
                "other": {"agent": "claude", "dir": str(tmp_path / "c")},
            },
        }
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


def test_missing_home_finds_nothing(tmp_path: Path) -> None:
    assert found(PROJECT, tmp_path / "no-such" / ".gemini") == []
