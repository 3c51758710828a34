"""Every captured Claude Code transcript read into a Session that matches its ground truth."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from continuity_claude import ClaudeAdapter, parser
from continuity_core import transcript
from continuity_core.redact import redact
from continuity_core.schemas.session import Session, SessionRef
from continuity_core.store import decode_document, encode_document
from continuity_core.transcript import Cursor
from tests.claude.helpers import TRANSCRIPTS
from tests.conftest import FIXTURES


def ref_for(path: Path, session_id: str = "s1") -> SessionRef:
    st = path.stat()
    return SessionRef(
        agent="claude",
        account="~/.claude",
        session_id=session_id,
        path=str(path),
        mtime=st.st_mtime,
        size=st.st_size,
    )


def read(path: Path) -> Session:
    return ClaudeAdapter().read(ref_for(path)).session


def _case_id(rel: str) -> str:
    """`S4-2.1.197`: the scenario and the Claude Code version that wrote the file."""
    return f"{TRANSCRIPTS[rel]['scenario']}-{TRANSCRIPTS[rel]['cli_version'].split()[0]}"


@pytest.fixture(params=sorted(TRANSCRIPTS), ids=_case_id)
def case(request: pytest.FixtureRequest) -> tuple[Session, dict[str, Any]]:
    gt = TRANSCRIPTS[request.param]
    return read(FIXTURES / request.param), gt


def test_identity(case: tuple[Session, dict[str, Any]]) -> None:
    session, gt = case
    assert session.cwd == gt["cwd"]
    assert session.git_branch == gt["git_branch"]
    assert session.model == gt["model"]
    assert session.unknown_records == {}
    assert session.bad_lines == 0


def test_requests_in_order_and_latest_verbatim(case: tuple[Session, dict[str, Any]]) -> None:
    session, gt = case
    assert session.requests == [redact(r) for r in gt["user_requests"]]
    assert session.latest_request == redact(gt["latest_user_request"])
    assert session.messages[-1].role == "assistant" or session.errors or session.pending_calls


def test_tool_calls_in_order(case: tuple[Session, dict[str, Any]]) -> None:
    session, gt = case
    assert [c.name for c in session.tool_calls] == gt["tool_call_sequence"]


def test_files_edited(case: tuple[Session, dict[str, Any]]) -> None:
    session, gt = case
    assert sorted(f.path for f in session.files_edited) == sorted(gt["files_edited"])


def test_todos_and_tasks(case: tuple[Session, dict[str, Any]]) -> None:
    session, gt = case
    if "tasks" in gt:
        expected = [(t["id"], t["subject"], t["status"]) for t in gt["tasks"]]
        assert [(t.id, t.content, t.status) for t in session.todos] == expected
    else:
        expected = [(None, t["content"], t["status"]) for t in gt.get("todos", [])]
        assert [(t.id, t.content, t.status) for t in session.todos] == expected


def test_interrupted_call(case: tuple[Session, dict[str, Any]]) -> None:
    session, gt = case
    expected = [
        (c["tool_use_id"], c["name"], c["input"]) for c in gt.get("interrupted_tool_calls", [])
    ]
    assert [(c.id, c.name, c.input) for c in session.pending_calls] == expected
    assert session.turn_incomplete == bool(expected or gt.get("api_errors"))


def test_api_error(case: tuple[Session, dict[str, Any]]) -> None:
    session, gt = case
    errors = gt.get("api_errors", [])
    assert [(e.status, e.message) for e in session.errors] == [
        (e["apiErrorStatus"], e["text"]) for e in errors
    ]
    if errors:
        assert session.ended_on_limit
        assert session.last_error is not None
        assert session.last_error.kind == errors[-1].get("kind", "rate_limit")
        assert session.last_error.reset_at == errors[-1].get("reset_at")


def test_cost_and_model_usage(case: tuple[Session, dict[str, Any]]) -> None:
    """2.1.3xx writes `cost-state`: the session's cost and tokens by model; 2.1.197 does not."""
    session, gt = case
    assert session.cost_usd == gt.get("cost_usd")
    if "cost_usd" in gt:
        assert set(session.model_tokens) == {gt["model"]}
        assert session.model_tokens[gt["model"]] > 0
    else:
        assert session.model_tokens == {}


def test_usage_of_last_turn(case: tuple[Session, dict[str, Any]]) -> None:
    session, gt = case
    last = gt["last_turn_usage"]
    usage = session.usage
    assert usage is not None
    assert usage.context_tokens == last["context_tokens(input+cache_creation+cache_read)"]
    assert (
        usage.input_tokens,
        usage.cache_creation_tokens,
        usage.cache_read_tokens,
        usage.output_tokens,
    ) == (
        last["input_tokens"],
        last["cache_creation_input_tokens"],
        last["cache_read_input_tokens"],
        last["output_tokens"],
    )
    assert usage.context_window == 1_000_000  # claude-opus-4-8 is natively 1M


def test_compaction(case: tuple[Session, dict[str, Any]]) -> None:
    session, gt = case
    comp = gt.get("compaction")
    if comp is None:
        assert session.compactions == []
        return
    assert len(session.compactions) == comp["compact_boundaries"]
    assert session.compactions_total == comp["compact_boundaries"]
    assert session.compactions[0].trigger == comp["trigger"]
    assert session.compactions[0].pre_tokens == comp["pre_tokens"]
    summary = session.compactions[0].summary or ""
    # What the summary says about the work, without Claude Code's framing for the model.
    work = parser.work_summary(comp["summary_excerpt"].split("Summary:\n", 1)[-1])
    assert summary.startswith(work[:200])
    assert "This session is being continued" not in summary
    assert "without asking the user" not in summary and "Summary:" not in summary
    assert comp["requests_after_compaction"][-1] == session.latest_request


def test_secrets_never_reach_the_saved_cursor() -> None:
    rel = next(r for r, gt in TRANSCRIPTS.items() if gt.get("secrets"))
    gt = TRANSCRIPTS[rel]
    path = FIXTURES / rel
    text = encode_document(ClaudeAdapter().read(ref_for(path))).decode()  # what is saved
    leaked = [k for k, v in gt["secrets"].items() if len(v["value"]) >= 8 and v["value"] in text]
    assert leaked == []
    assert "deploy.sh" in text


# --- incremental reading -------------------------------------------------------------------

S2 = next(r for r, gt in TRANSCRIPTS.items() if gt["scenario"] == "S2")


def counting(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    seen: list[bytes] = []
    real = parser.fold

    def fold(session: Session, extra: dict[str, Any], line: bytes) -> None:
        seen.append(line)
        real(session, extra, line)

    monkeypatch.setattr(parser, "fold", fold)
    return seen


def test_appended_lines_alone_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = (FIXTURES / S2).read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines[:half]))
    seen = counting(monkeypatch)
    adapter = ClaudeAdapter()
    cursor = adapter.read(ref_for(path))
    assert len(seen) == half
    with path.open("ab") as f:
        f.write(b"".join(lines[half:]))
    seen.clear()
    cursor = adapter.read(ref_for(path), cursor)
    assert len(seen) == len(lines) - half
    assert cursor.offset == path.stat().st_size
    whole = read(FIXTURES / S2)
    assert cursor.session.requests == whole.requests
    assert cursor.session.files_edited == whole.files_edited
    assert cursor.session.usage == whole.usage
    assert [c.name for c in cursor.session.tool_calls] == [c.name for c in whole.tool_calls]


def test_pending_results_survive_a_saved_cursor(tmp_path: Path) -> None:
    """An Edit whose result lands in the next read still counts: the cursor round-trips."""
    lines = (FIXTURES / S2).read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b'"name":"Edit"' in line) + 1
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines[:cut]))
    adapter = ClaudeAdapter()
    saved = encode_document(adapter.read(ref_for(path)))
    with path.open("ab") as f:
        f.write(b"".join(lines[cut:]))
    cursor = adapter.read(ref_for(path), decode_document(saved, Cursor, Path("cursor")))
    assert sorted(e.path for e in cursor.session.files_edited) == sorted(
        TRANSCRIPTS[S2]["files_edited"]
    )


def test_shrunk_or_replaced_file_starts_over(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copy(FIXTURES / S2, path)
    adapter = ClaudeAdapter()
    cursor = adapter.read(ref_for(path))
    assert len(cursor.session.requests) == 3
    other = next(r for r, gt in TRANSCRIPTS.items() if gt["scenario"] == "S7")
    shutil.copy(FIXTURES / other, tmp_path / "new.jsonl")
    os.replace(tmp_path / "new.jsonl", path)
    cursor = adapter.read(ref_for(path), cursor)
    assert cursor.session.requests == TRANSCRIPTS[other]["user_requests"]
    path.write_bytes(path.read_bytes()[:100])  # shrunk below the saved offset
    cursor = adapter.read(ref_for(path), cursor)
    assert cursor.session.requests == []
    assert cursor.offset == 0


def test_torn_last_line_waits_until_complete(tmp_path: Path) -> None:
    lines = (FIXTURES / S2).read_bytes().splitlines(keepends=True)
    last_request = max(
        i
        for i, line in enumerate(lines)
        if b'"promptSource"' in line and b'"tool_result"' not in line
    )
    path = tmp_path / "s.jsonl"
    torn = lines[last_request][:40]
    path.write_bytes(b"".join(lines[:last_request]) + torn)
    adapter = ClaudeAdapter()
    cursor = adapter.read(ref_for(path))
    assert len(cursor.session.requests) == 2
    assert cursor.session.bad_lines == 0
    with path.open("ab") as f:
        f.write(lines[last_request][40:])
    cursor = adapter.read(ref_for(path), cursor)
    assert cursor.session.latest_request == TRANSCRIPTS[S2]["latest_user_request"]


# --- synthetic records for what the captures do not show -------------------------------------


def rec(**fields: Any) -> str:
    return json.dumps(
        {"sessionId": "s1", "cwd": "/w/p", "timestamp": "2026-11-30T00:00:00Z", **fields}
    )


def user(text: Any, **extra: Any) -> str:
    return rec(type="user", message={"role": "user", "content": text}, **extra)


def assistant(
    blocks: list[dict[str, Any]],
    *,
    mid: str = "m1",
    model: str = "claude-opus-4-8",
    usage: dict[str, int] | None = None,
    stop: str = "end_turn",
    **extra: Any,
) -> str:
    return rec(
        type="assistant",
        message={
            "id": mid,
            "model": model,
            "role": "assistant",
            "content": blocks,
            "stop_reason": stop,
            "usage": usage
            or {
                "input_tokens": 1,
                "cache_creation_input_tokens": 2,
                "cache_read_input_tokens": 3,
                "output_tokens": 4,
            },
        },
        **extra,
    )


def write(tmp_path: Path, *lines: str | bytes) -> Path:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join((x if isinstance(x, bytes) else x.encode()) + b"\n" for x in lines))
    return path


def test_bad_lines_are_counted_never_fatal(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        b"not json",
        b"\xff\xfe",
        "[]",
        "null",
        '{"type": 5}',
        rec(type="assistant", message="a string"),
        rec(type="user", message={"content": 7}),
        rec(type="brand-new-record"),
        user("the real request"),
        assistant([{"type": "tool_use", "id": 5, "name": None}]),
    )
    session = read(path)
    assert session.latest_request == "the real request"
    assert session.unknown_records == {"brand-new-record": 1}
    assert session.bad_lines == 6
    assert session.tool_calls == []


def test_a_wrong_type_in_a_field_the_parser_reads_makes_the_line_bad(tmp_path: Path) -> None:
    wrong = [
        user("a", isMeta="yes"),
        user("b", isSidechain=None),
        user("c", timestamp=5),
        user("d", promptSource=1),
        user("e", origin=[]),
        rec(type="user", message={"role": "user", "content": "f", "id": 1}),
        rec(type="user", message=["g"]),
        assistant([{"type": "text", "text": "h"}], isApiErrorMessage=1),
        rec(type="assistant", message={"role": "assistant", "content": "i", "usage": []}),
        assistant([{"type": "text", "text": "j"}], apiErrorStatus=429.0),
        rec(type="cost-state", totalCostUSD=True),
        rec(type="system", subtype="compact_boundary", compactMetadata="auto"),
        rec(type=None),
    ]
    session = read(write(tmp_path, *wrong, user("the real request", someNewField=[1, {}])))
    assert session.bad_lines == len(wrong)
    assert session.latest_request == "the real request"
    assert [m.text for m in session.messages] == ["the real request"]
    assert session.compactions == [] and session.cost_usd is None and session.errors == []


def test_half_an_emoji_is_read_and_bytes_not_utf8_make_the_line_bad(tmp_path: Path) -> None:
    """JSON.stringify writes a string cut inside an emoji with a lone surrogate escape."""
    cut = user("fix the test").replace("fix the test", "fix the test \\ud83d")
    garbled = user("never read", someNewField="x").replace('"x"', '"\xff"').encode("latin-1")
    session = read(write(tmp_path, cut, garbled))
    assert session.latest_request == "fix the test \ufffd"
    assert session.bad_lines == 1


def test_records_that_are_not_typed_requests(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        user("fix the parser"),
        user(
            "<local-command-caveat>Caveat: generated by local commands</local-command-caveat>",
            isMeta=True,
        ),
        user("<command-name>/model</command-name>"),
        user("<local-command-stdout>Set model</local-command-stdout>"),
        user("Continue from where you left off.", isMeta=True),
        user([{"type": "text", "text": "[Request interrupted by user for tool use]"}]),
        user("Summary: earlier work", isCompactSummary=True, isVisibleInTranscriptOnly=True),
        user([{"type": "text", "text": "and here is a screenshot"}, {"type": "image"}]),
        user("a subagent's prompt", isSidechain=True),
    )
    session = read(path)
    assert session.requests == ["fix the parser", "and here is a screenshot\n[image]"]


def test_2_1_3xx_metadata_notifications_and_tool_loading(tmp_path: Path) -> None:
    """Request bookkeeping is not conversation, a background subagent's notification is not a
    request, and loading a deferred tool schema is not a step of the work."""
    path = write(
        tmp_path,
        user("plan the release", promptSource="typed", origin={"kind": "human"}),
        '{"type":"atis-latch","atis":true,"sessionId":"s"}',
        '{"type":"api-request","id":"r1","params":{"messages":[{"role":"user",'
        '"content":"an old prompt"}]},"sessionId":"s"}',
        '{"type":"api-request-shape","shape":{"system":"You are Claude"},"sessionId":"s"}',
        '{"type":"api-request-blob","hash":"h","message":{"role":"user","content":"x"}}',
        '{"type":"tools-used","tools":["Write"],"sessionId":"s"}',
        rec(type="attachment", attachment={"type": "prompt_snapshot", "prompt": "old"}),
        assistant(
            [
                {
                    "type": "tool_use",
                    "id": "ts",
                    "name": "ToolSearch",
                    "input": {"query": "select:TodoWrite"},
                }
            ],
            stop="tool_use",
        ),
        user(
            [
                {
                    "type": "tool_result",
                    "tool_use_id": "ts",
                    "content": [{"type": "tool_reference", "tool_name": "TodoWrite"}],
                }
            ]
        ),
        assistant(
            [
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "TodoWrite",
                    "input": {
                        "todos": [
                            {"content": "Tag v2", "status": "in_progress", "activeForm": "Tagging"}
                        ]
                    },
                }
            ],
            stop="tool_use",
        ),
        user([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
        user(
            'Agent "inventory" finished: 3 functions found.',
            promptSource="system",
            origin={"kind": "task-notification"},
        ),
        '{"type":"cost-state","totalCostUSD":0.25,"modelUsage":{"claude-opus-5-5":'
        '{"inputTokens":100,"outputTokens":20,"cacheReadInputTokens":5,'
        '"cacheCreationInputTokens":0,"costUSD":0.25}},"sessionId":"s"}',
    )
    session = read(path)
    assert session.requests == ["plan the release"]
    assert session.unknown_records == {}
    assert [c.name for c in session.tool_calls] == ["TodoWrite"]
    assert [(t.content, t.status) for t in session.todos] == [("Tag v2", "in_progress")]
    assert "an old prompt" not in str(session.messages)
    assert session.cost_usd == 0.25
    assert session.model_tokens == {"claude-opus-5-5": 125}


def test_subscription_usage_limit_of_2_1_3xx(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        user("keep going"),
        rec(
            type="assistant",
            isApiErrorMessage=True,
            error="rate_limit",
            apiErrorStatus=429,
            apiError="usage_limit_reached",
            apiErrorType="rate_limit_error",
            quotaLimits={
                "status": "rejected",
                "resetsAt": 1796098712,
                "rateLimitType": "five_hour",
            },
            message={
                "id": "f2681313-2370-4301-b731-f124aa3647f9",
                "model": "<synthetic>",
                "role": "assistant",
                "content": [{"type": "text", "text": "You've hit your 5-hour limit"}],
            },
        ),
    )
    err = read(path).last_error
    assert err is not None and err.kind == "usage_limit"
    assert err.reset_at == "2026-12-01T04:18:32Z"


def test_one_message_split_over_records_counts_once(tmp_path: Path) -> None:
    big = {
        "input_tokens": 10,
        "cache_creation_input_tokens": 20,
        "cache_read_input_tokens": 30,
        "output_tokens": 5,
    }
    path = write(
        tmp_path,
        user("go"),
        assistant([{"type": "thinking", "thinking": "hm"}], usage=big, stop="tool_use"),
        assistant([{"type": "text", "text": "running"}], usage=big, stop="tool_use"),
        assistant(
            [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}],
            usage=big,
            stop="tool_use",
        ),
    )
    session = read(path)
    assert session.usage is not None and session.usage.context_tokens == 60
    assert [c.id for c in session.pending_calls] == ["t1"]
    assert session.turn_incomplete


@pytest.mark.parametrize(
    ("model", "window"),
    [
        ("claude-opus-4-8", 1_000_000),
        ("claude-sonnet-4-5", 200_000),
        ("claude-sonnet-4-5[1m]", 1_000_000),
        ("claude-haiku-4-5-20251001", 200_000),
        ("claude-fable-5", 1_000_000),
        ("claude-opus-5-5", 1_000_000),
        (None, 200_000),
    ],
)
def test_context_window(model: str | None, window: int) -> None:
    assert parser.context_window(model) == window


def test_usage_limit_with_reset_time(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        user("keep going"),
        rec(
            type="assistant",
            isApiErrorMessage=True,
            error="rate_limit",
            apiErrorStatus=429,
            message={
                "id": "x",
                "model": "<synthetic>",
                "role": "assistant",
                "content": [{"type": "text", "text": "Claude AI usage limit reached|1764525600"}],
            },
        ),
    )
    session = read(path)
    err = session.last_error
    assert err is not None and err.kind == "usage_limit"
    assert err.reset_at == "2025-11-30T18:00:00Z"
    assert session.ended_on_limit
    assert session.usage is None  # a synthetic record carries no real usage


def test_edits_count_only_when_they_succeed(tmp_path: Path) -> None:
    def use(cid: str, name: str, **args: Any) -> str:
        return assistant(
            [{"type": "tool_use", "id": cid, "name": name, "input": args}], mid=cid, stop="tool_use"
        )

    def result(cid: str, error: bool = False) -> str:
        return user(
            [{"type": "tool_result", "tool_use_id": cid, "content": "ok", "is_error": error}]
        )

    path = write(
        tmp_path,
        user("edit things"),
        use("a", "Write", file_path="/w/p/new.py", content="x"),
        result("a"),
        use("b", "Edit", file_path="/w/p/old.py", old_string="a", new_string="b"),
        result("b", error=True),
        use("c", "MultiEdit", file_path="/w/p/multi.py", edits=[]),
        result("c"),
        use("d", "NotebookEdit", notebook_path="/w/p/nb.ipynb", new_source=""),
        result("d"),
        use("e", "Edit", file_path="/elsewhere/x.py", old_string="a", new_string="b"),
        result("e"),
        use("f", "Edit", file_path="/w/p/new.py", old_string="x", new_string="y"),
        result("f"),
    )
    session = read(path)
    edits = {e.path: (e.action, e.tool, e.count) for e in session.files_edited}
    assert edits == {
        "multi.py": ("edit", "MultiEdit", 1),
        "nb.ipynb": ("edit", "NotebookEdit", 1),
        "/elsewhere/x.py": ("edit", "Edit", 1),
        "new.py": ("write", "Edit", 2),
    }


def test_a_huge_transcript_is_read_cold_from_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.jsonl"
    shutil.copy(FIXTURES / S2, path)
    data = path.read_bytes()
    last = data.rfind(b'"promptSource"')
    keep = len(data) - data.rfind(b"\n", 0, last) + 10  # the last request's line, cut by 10
    monkeypatch.setattr(transcript, "COLD_MAX", keep + 200)
    seen = counting(monkeypatch)
    cursor = ClaudeAdapter().read(ref_for(path))
    assert sum(map(len, seen)) + len(seen) <= keep + 200
    assert cursor.session.latest_request == TRANSCRIPTS[S2]["latest_user_request"]
    assert cursor.session.usage == read(FIXTURES / S2).usage
    assert cursor.session.bad_lines == 0 and cursor.offset == len(data)
    assert 0 < cursor.session.unread_bytes <= len(data) - keep  # the brief says so
    from continuity_core.brief import session_sections

    files = next(s for s in session_sections(cursor.session) if s.key == "files")
    assert f"first {cursor.session.unread_bytes:,} bytes, not read, are not listed" in files.body
    with path.open("ab") as f:
        f.write(data.splitlines(keepends=True)[-1])
    seen.clear()
    assert ClaudeAdapter().read(ref_for(path), cursor).offset == path.stat().st_size
    assert len(seen) == 1


def test_a_cold_read_counts_every_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """25 compactions, most of them before the part a cold read takes: the count is whole
    (a byte scan of the skipped part), not the 10 the Session keeps nor the tail's few."""
    boundary = rec(
        type="system",
        subtype="compact_boundary",
        compactMetadata={"trigger": "auto", "preTokens": 150_000},
    )
    lines = []
    for n in range(25):
        lines += [
            user(f"request {n}"),
            boundary.replace(" ", ""),
            user("This session is being continued. Summary: " + "x" * 2000, isCompactSummary=True),
        ]
    lines.append(user('the user typed \\"subtype\\":\\"compact_boundary\\" here'))
    path = write(tmp_path, *lines)
    monkeypatch.setattr(transcript, "COLD_MAX", 12_000)
    session = ClaudeAdapter().read(ref_for(path)).session
    assert session.unread_bytes > 0 and session.compactions_scanned
    assert 0 < len(session.compactions) < 25
    assert session.compactions_total == 25
    from continuity_core.brief import session_sections

    body = next(s for s in session_sections(session) if s.key == "compaction").body
    assert body.startswith("- compacted 25 times; the last time automatically")
    assert read(path).compactions_total == 25  # and so says a whole read
