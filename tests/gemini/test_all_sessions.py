"""Every Gemini CLI session of every project, for the recall archive."""

from __future__ import annotations

import hashlib
from pathlib import Path

from continuity_core.schemas.config import GlobalConfig
from continuity_gemini import GeminiAdapter
from tests.gemini.chatlog import CONTEXT, SESSIONS, SID, gemini, header, user, write_log

ADAPTER = GeminiAdapter()


def listed() -> dict[str, str | None]:
    return {r.session_id: r.cwd for r in ADAPTER.all_sessions(ADAPTER.accounts(GlobalConfig()))}


def test_every_captured_session_with_its_project_root(gemini_home: Path) -> None:
    assert listed() == {v["session_id"]: v["project_root"] for v in SESSIONS.values()}


def test_resume_stubs_legacy_and_unknown_folders(gemini_home: Path) -> None:
    chats = gemini_home / "tmp" / "weather-cli" / "chats"
    [captured] = list(chats.iterdir())
    # `--resume` of a captured session: a stub that holds only the header and <session_context>
    sid = next(v["session_id"] for v in SESSIONS.values() if v["scenario"] == "S1")
    stub = write_log(chats / "session-2026-12-01T09-00-11b35675.jsonl", [header(sid), CONTEXT])
    # a pre-0.2x folder named by the sha256 of a registered root, and one nobody knows
    legacy = hashlib.sha256(b"/home/dev/src/chat-server").hexdigest()
    write_log(
        gemini_home / "tmp" / legacy / "chats" / "session-2025-06-01T10-00-5e551011.jsonl",
        [header(), CONTEXT, user("u1", "old"), gemini("g1", "ok")],
    )
    write_log(
        gemini_home / "tmp" / ("f" * 64) / "chats" / "session-2025-06-01T10-00-aaaaaaaa.jsonl",
        [header("aaaaaaaa-0000-4000-8000-000000000000"), CONTEXT, user("u1", "?")],
    )
    refs = list(ADAPTER.all_sessions(ADAPTER.accounts(GlobalConfig())))
    paths = {r.path for r in refs}
    assert str(captured) in paths and str(stub) not in paths
    cwd = {r.session_id: r.cwd for r in refs}
    assert cwd[SID] == "/home/dev/src/chat-server"
    assert cwd["aaaaaaaa-0000-4000-8000-000000000000"] is None
    assert len(refs) == len(SESSIONS) + 2
