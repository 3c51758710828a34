"""Ground truth over every captured Gemini CLI session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.session import SessionRef
from continuity_core.store import decode_document, encode_document
from continuity_core.transcript import Cursor
from continuity_gemini import GeminiAdapter
from tests.gemini.chatlog import SESSIONS

CASES = sorted(SESSIONS.items(), key=lambda kv: kv[1]["scenario"])
IDS = [v["scenario"] for _, v in CASES]


def _read(gt: dict[str, Any]) -> tuple[SessionRef, Cursor[Any]]:
    adapter = GeminiAdapter()
    refs = list(adapter.discover(Path(gt["project_root"]), adapter.accounts(GlobalConfig())))
    assert len(refs) == 1, refs
    return refs[0], adapter.read(refs[0])


@pytest.mark.parametrize(("rel", "gt"), CASES, ids=IDS)
def test_session_matches_ground_truth(gemini_home: Path, rel: str, gt: dict[str, Any]) -> None:
    ref, cursor = _read(gt)
    session = cursor.session
    assert ref.session_id == session.session_id == gt["session_id"]
    assert ref.path == str(gemini_home.parent / rel.removeprefix("gemini/"))
    assert ref.cwd == gt["project_root"]
    assert session.model == gt["model"]
    if gt.get("secrets"):  # verbatim, but redacted: the ends that carry no secret survive
        first, last = (
            gt["latest_user_request"].split("\n")[0],
            gt["latest_user_request"].split("\n")[-1],
        )
        assert session.latest_request is not None
        assert session.latest_request.startswith(first)
        assert session.latest_request.endswith(last)
        assert len(session.requests) == len(gt["user_requests"])
    else:
        assert session.requests == gt["user_requests"]
        assert session.latest_request == gt["latest_user_request"]
    assert [c.name for c in session.tool_calls] == gt["tool_call_sequence"]
    assert not session.pending_calls
    assert sorted(f.path for f in session.files_edited) == sorted(gt["files_edited"])
    want_todos = [(t["description"], t["status"]) for t in gt.get("todos") or []]
    assert [(t.content, t.status) for t in session.todos] == want_todos
    tokens = gt["last_turn_tokens"]
    assert session.usage is not None
    assert session.usage.context_tokens == tokens["input"]
    assert session.usage.output_tokens == tokens["output"]
    assert session.usage.cache_read_tokens == tokens["cached"]
    assert session.usage.context_window == 1_048_576
    last = gt["last_gemini_message"]
    if last["content"]:
        assert session.messages[-1].role == "assistant"
        assert session.messages[-1].text == last["content"]
    assert session.bad_lines == 0 and session.unknown_records == {}


@pytest.mark.parametrize(("rel", "gt"), CASES, ids=IDS)
def test_no_secret_reaches_the_session(gemini_home: Path, rel: str, gt: dict[str, Any]) -> None:
    _, cursor = _read(gt)
    encoded = encode_document(cursor).decode()
    for secret in (gt.get("secrets") or {}).values():
        assert secret["value"] not in encoded


def test_compression_keeps_what_it_summarised(gemini_home: Path) -> None:
    gt = next(v for v in SESSIONS.values() if v["scenario"] == "S6")
    session = _read(gt)[1].session
    # The CLI's own view after /compress has only the summary; the requests before it stay.
    assert session.requests[0] == gt["user_requests"][0]
    [compaction] = session.compactions
    # The chat file does not say; the project's logs.json has the `/compress` typed before it.
    assert compaction.trigger == "manual"
    assert compaction.summary is not None
    assert compaction.summary.startswith("<state_snapshot>")
    assert compaction.pre_tokens == 13900
    assert any(m.kind == "summary" for m in session.messages)


def test_compression_without_logs_is_unknown_and_before_a_prompt_is_auto(gemini_home: Path) -> None:
    gt = next(v for v in SESSIONS.values() if v["scenario"] == "S6")
    ref = _read(gt)[0]
    logs = Path(ref.path).parent.parent / "logs.json"
    typed = json.loads(logs.read_text())
    logs.unlink()
    assert GeminiAdapter().read(ref).session.compactions[0].trigger == "unknown"
    logs.write_text(json.dumps([e for e in typed if e["message"] != "/compress"]))
    assert GeminiAdapter().read(ref).session.compactions[0].trigger == "auto"


def test_three_runs_in_one_file_across_resume(gemini_home: Path) -> None:
    gt = next(v for v in SESSIONS.values() if v["scenario"] == "S2")
    session = _read(gt)[1].session
    assert gt["header_lines"] == 3
    assert session.started_at == "2026-11-30T03:58:38.022Z"  # the first header's, not a resume's
    assert not session.turn_incomplete


def test_ended_on_a_tool_result_is_an_incomplete_turn(gemini_home: Path) -> None:
    gt = next(v for v in SESSIONS.values() if v["scenario"] == "S3")
    assert _read(gt)[1].session.turn_incomplete


def test_cursor_survives_the_store_round_trip(gemini_home: Path) -> None:
    gt = next(v for v in SESSIONS.values() if v["scenario"] == "S6")
    ref, cursor = _read(gt)
    stored = decode_document(encode_document(cursor), Cursor, Path("cursor"))
    again = GeminiAdapter().read(ref, stored)
    assert again.offset == cursor.offset
    assert again.session == cursor.session
