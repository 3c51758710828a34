"""Replaying the append-only chat log: upserts, `$set`, `$rewindTo`, compression, bad lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from continuity_core.schemas.session import Session, SessionRef
from continuity_gemini import GeminiAdapter
from continuity_gemini.parser import VIEW_MAX, classify
from tests.gemini.chatlog import CONTEXT, SID, call, gemini, header, user, write_log


def ref_for(path: Path) -> SessionRef:
    return SessionRef(
        agent="gemini",
        account="~/.gemini",
        session_id=SID,
        path=str(path),
        mtime=path.stat().st_mtime,
        cwd="/work/proj",
    )


def read(path: Path) -> Session:
    return GeminiAdapter().read(ref_for(path)).session


def log(tmp_path: Path, records: list[Any], **kw: Any) -> Path:
    return write_log(
        tmp_path / "chats" / "session-2026-11-30T04-00-5e551011.jsonl",
        [header(), CONTEXT, *records],
        **kw,
    )


def test_a_message_appended_again_replaces_the_first_record(tmp_path: Path) -> None:
    edit = call(
        "replace__1",
        "replace",
        {"file_path": "/work/proj/a.py", "old_string": "x", "new_string": "y"},
    )
    session = read(
        log(
            tmp_path,
            [
                user("u1", "Fix a.py"),
                gemini("g1", "Editing a.py.", tokens=100),
                {"$set": {"lastUpdated": "2026-11-30T04:00:02.500Z"}},
                gemini("g1", "Editing a.py.", calls=[edit], tokens=120),
                gemini("g1", "Editing a.py.", calls=[edit], tokens=130),  # tokens arriving late
            ],
        )
    )
    assert [m.text for m in session.messages] == ["Fix a.py", "Editing a.py."]
    assert [c.id for c in session.tool_calls] == ["replace__1"]
    assert [(f.path, f.count) for f in session.files_edited] == [("a.py", 1)]
    assert session.usage is not None and session.usage.context_tokens == 130
    assert session.updated_at == "2026-11-30T04:00:02.500Z"


def test_set_messages_replaces_the_view_but_adds_no_request(tmp_path: Path) -> None:
    session = read(
        log(
            tmp_path,
            [
                user("u1", "first request"),
                gemini("g1", "done one"),
                user("u2", "second request"),
                gemini("g2", "done two", tokens=600_000),
                # Auto compression: summary, ack, and the kept tail under fresh ids.
                {
                    "$set": {
                        "messages": [
                            CONTEXT["$set"]["messages"][0],
                            {
                                "id": "s1",
                                "type": "user",
                                "content": [{"text": "<state_snapshot>goal</state_snapshot>"}],
                            },
                            {
                                "id": "a1",
                                "type": "gemini",
                                "content": [{"text": "Got it. Thanks for the additional context!"}],
                            },
                            {
                                "id": "u2-copy",
                                "type": "user",
                                "content": [{"text": "second request"}],
                            },
                            {"id": "g2-copy", "type": "gemini", "content": [{"text": "done two"}]},
                        ]
                    }
                },
                user("u3", "third request"),
            ],
        )
    )
    assert session.requests == ["first request", "second request", "third request"]
    [compaction] = session.compactions
    assert compaction.summary == "<state_snapshot>goal</state_snapshot>"
    assert compaction.pre_tokens == 600_000
    assert session.turn_incomplete  # the third request has no answer yet


def test_rewind_drops_the_target_and_everything_after(tmp_path: Path) -> None:
    todos1 = call("t1", "write_todos", {"todos": [{"description": "plan A", "status": "pending"}]})
    todos2 = call("t2", "write_todos", {"todos": [{"description": "plan B", "status": "pending"}]})
    session = read(
        log(
            tmp_path,
            [
                user("u1", "keep this"),
                gemini("g1", "ok", calls=[todos1], tokens=100),
                user("u2", "drop this"),
                gemini("g2", "dropped answer", calls=[todos2], tokens=200),
                {"$rewindTo": "u2"},
            ],
        )
    )
    assert session.requests == ["keep this"]
    assert [m.text for m in session.messages] == ["keep this", "ok"]
    assert [c.id for c in session.tool_calls] == ["t1"]
    assert [t.content for t in session.todos] == ["plan A"]
    assert session.usage is not None and session.usage.context_tokens == 100


def test_rewind_then_a_new_request(tmp_path: Path) -> None:
    session = read(
        log(
            tmp_path,
            [
                user("u1", "one"),
                gemini("g1", "a"),
                user("u2", "two"),
                gemini("g2", "b"),
                {"$rewindTo": "u2"},
                user("u3", "two, differently"),
                gemini("g3", "c"),
            ],
        )
    )
    assert session.requests == ["one", "two, differently"]
    assert session.latest_request == "two, differently"


def test_rewind_to_an_unknown_id_changes_nothing(tmp_path: Path) -> None:
    records = [user("u1", "one"), gemini("g1", "a")]
    before = read(log(tmp_path / "a", records))
    after = read(log(tmp_path / "b", [*records, {"$rewindTo": "never-seen"}]))
    assert after.requests == before.requests == ["one"]
    assert after.messages == before.messages
    assert after.unknown_records == {"$rewindTo unknown id": 1}


def test_injected_context_and_tool_results_are_not_requests(tmp_path: Path) -> None:
    shell = call("sh1", "run_shell_command", {"command": "make test"}, output="passed")
    session = read(
        log(
            tmp_path,
            [
                {
                    "id": "u1",
                    "type": "user",
                    "content": [
                        {"text": "<hook_context>from SessionStart</hook_context>\n\nRun the tests"},
                        {"text": "<hook_context>from BeforeAgent</hook_context>"},
                    ],
                },
                gemini("g1", "", calls=[shell]),
                {
                    "id": "r1",
                    "type": "user",
                    "content": [
                        {
                            "functionResponse": {
                                "id": "sh1",
                                "name": "run_shell_command",
                                "response": {"output": "passed"},
                            }
                        }
                    ],
                },
                gemini("g2", "All tests pass."),
            ],
        )
    )
    assert session.requests == ["Run the tests"]
    assert session.tool_calls[0].output == "passed"
    assert not session.turn_incomplete


def test_failed_and_cancelled_calls(tmp_path: Path) -> None:
    failed = call(
        "w1",
        "write_file",
        {"file_path": "/work/proj/x.py", "content": ""},
        output=None,
        status="error",
    )
    cancelled = call(
        "sh1", "run_shell_command", {"command": "sleep 100"}, output=None, status="cancelled"
    )
    session = read(log(tmp_path, [user("u1", "go"), gemini("g1", "", calls=[failed, cancelled])]))
    assert session.files_edited == []  # a failed write edited nothing
    assert [(c.output, c.is_error) for c in session.tool_calls] == [
        ("[error]", True),
        ("[cancelled]", True),
    ]
    assert session.pending_calls == []


def test_a_call_without_any_result_is_pending(tmp_path: Path) -> None:
    running = call(
        "sh1", "run_shell_command", {"command": "./long.sh"}, output=None, status="executing"
    )
    session = read(log(tmp_path, [user("u1", "go"), gemini("g1", "", calls=[running])]))
    assert [c.input["command"] for c in session.pending_calls] == ["./long.sh"]


def test_huge_tool_arguments_are_clipped(tmp_path: Path) -> None:
    write = call("w1", "write_file", {"file_path": "/work/proj/big.txt", "content": "z" * 500_000})
    session = read(log(tmp_path, [user("u1", "go"), gemini("g1", "", calls=[write])]))
    assert session.tool_calls[0].input["file_path"] == "/work/proj/big.txt"
    content = session.tool_calls[0].input["content"]
    assert len(content) < 2100 and content.endswith("chars cut]")


def test_quota_error_message_with_its_reset_time(tmp_path: Path) -> None:
    session = read(
        log(
            tmp_path,
            [
                user("u1", "go"),
                {
                    "id": "e1",
                    "type": "error",
                    "timestamp": "2026-11-30T04:00:00.000Z",
                    "content": "You have exhausted your daily quota on this model (429). "
                    "Please retry in 1h30m.",
                },
            ],
        )
    )
    err = session.last_error
    assert err is not None and err.kind == "usage_limit" and err.status == 429
    assert err.reset_at == "2026-11-30T05:30:00Z"
    assert session.ended_on_limit


def test_torn_last_line_is_read_once_complete(tmp_path: Path) -> None:
    adapter = GeminiAdapter()
    whole = json.dumps(gemini("g1", "the answer"))
    path = log(tmp_path, [user("u1", "question")], tail=whole[:40])
    first = adapter.read(ref_for(path))
    assert [m.text for m in first.session.messages] == ["question"]
    assert first.session.bad_lines == 0
    with path.open("a") as f:
        f.write(whole[40:] + "\n")
    second = adapter.read(ref_for(path), first)
    assert [m.text for m in second.session.messages] == ["question", "the answer"]


def test_incremental_read_matches_a_full_read(tmp_path: Path) -> None:
    adapter = GeminiAdapter()
    path = log(tmp_path, [user("u1", "one"), gemini("g1", "a")])
    cursor = adapter.read(ref_for(path))
    records_before = cursor.session.records
    more = [
        user("u2", "two"),
        gemini("g2", "", tokens=5),
        gemini("g2", "b", calls=[call("w1", "write_file", {"file_path": "/work/proj/b.py"})]),
    ]
    with path.open("a") as f:
        f.writelines(json.dumps(r) + "\n" for r in more)
    cursor = adapter.read(ref_for(path), cursor)
    assert cursor.session.records == records_before + len(more)
    assert cursor.session == adapter.read(ref_for(path)).session


def test_corrupt_line_is_counted_and_skipped(tmp_path: Path) -> None:
    session = read(log(tmp_path, [user("u1", "one"), "{not json", "[1, 2]", gemini("g1", "a")]))
    assert session.bad_lines == 2
    assert session.requests == ["one"]
    assert session.messages[-1].text == "a"


def test_unknown_records_are_counted(tmp_path: Path) -> None:
    session = read(log(tmp_path, [{"$future": 1}, {"id": "x", "type": "hologram"}]))
    assert session.unknown_records == {"record": 1, "message:hologram": 1}


def test_memory_stays_bounded(tmp_path: Path) -> None:
    records: list[Any] = []
    for i in range(VIEW_MAX):
        records += [user(f"u{i}", f"request {i}"), gemini(f"g{i}", f"answer {i}")]
    cursor = GeminiAdapter().read(ref_for(log(tmp_path, records)))
    assert len(cursor.state.view) == VIEW_MAX
    assert len(cursor.session.requests) == 50
    assert cursor.session.latest_request == f"request {VIEW_MAX - 1}"


def test_legacy_single_object_file(tmp_path: Path) -> None:
    path = tmp_path / "chats" / "session-2026-01-01T10-00-5e551011.json"
    path.parent.mkdir(parents=True)
    path.write_text(
        json.dumps(
            {
                **header(),
                "messages": [
                    CONTEXT["$set"]["messages"][0],
                    {"id": "u1", "type": "user", "content": "old-style string prompt"},
                    gemini("g1", "answered"),
                ],
            }
        )
    )
    session = read(path)
    assert session.requests == ["old-style string prompt"]
    assert session.messages[-1].text == "answered"


def test_corrupt_legacy_file_reads_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "chats" / "session-2026-01-01T10-00-5e551011.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"sessionId": "5e55')
    session = read(path)
    assert (session.requests, session.bad_lines) == ([], 1)


def test_a_session_deleted_before_reading(tmp_path: Path) -> None:
    path = log(tmp_path, [user("u1", "one")])
    ref = ref_for(path)
    path.unlink()  # the CLI's retention cleanup runs at every start
    with pytest.raises(FileNotFoundError):
        GeminiAdapter().read(ref)


def test_todos_kept_for_a_rewind_leave_out_their_defaults(tmp_path: Path) -> None:
    plan = {"todos": [{"description": "plan A"}, {"description": "plan B", "status": "done"}]}
    cursor = GeminiAdapter().read(
        ref_for(
            log(
                tmp_path,
                [user("u1", "go"), gemini("g1", "", calls=[call("t1", "write_todos", plan)])],
            )
        )
    )
    assert cursor.state.todos == [
        ["g1", [{"content": "plan A"}, {"content": "plan B", "status": "completed"}]]
    ]


@pytest.mark.parametrize(
    "saved",
    [
        "plan A",
        {"status": "pending"},
        {"content": 5},
        {"content": "plan A", "status": "done"},
        {"content": "plan A", "status": ["pending"]},
        {"content": "plan A", "id": 3},
    ],
)
def test_a_saved_todo_that_is_not_one_fails_only_the_rewind_that_restores_it(
    tmp_path: Path, saved: Any
) -> None:
    """A cursor is read back from disk: a todo there that the schema would refuse makes the
    rewind a bad line, and the read goes on."""
    todos = call("t1", "write_todos", {"todos": [{"description": "plan A"}]})
    path = log(
        tmp_path,
        [user("u1", "one"), gemini("g1", "", calls=[todos]), user("u2", "two"), gemini("g2", "b")],
    )
    adapter = GeminiAdapter()
    cursor = adapter.read(ref_for(path))
    cursor.state.todos[-1][1] = [saved]
    with path.open("a") as f:
        f.write(json.dumps({"$rewindTo": "u2"}) + "\n" + json.dumps(user("u3", "three")) + "\n")
    session = adapter.read(ref_for(path), cursor).session
    assert session.bad_lines == 1
    assert session.requests == ["one", "three"]


def test_a_tool_response_without_text_is_its_compact_json(tmp_path: Path) -> None:
    body = {"content": [{"type": "text", "text": "caf\u00e9 \u2713"}], "isError": False}
    mcp = call("m1", "mcp_tool", {}, output=None)
    mcp["result"] = [{"functionResponse": {"id": "m1", "name": "mcp_tool", "response": body}}]
    session = read(log(tmp_path, [user("u1", "one"), gemini("g1", "", calls=[mcp])]))
    [tool] = session.tool_calls
    assert tool.output == '{"content":[{"type":"text","text":"caf\u00e9 \u2713"}],"isError":false}'


def test_lines_that_are_not_json_are_bad_lines(tmp_path: Path) -> None:
    bad = ['{"id": "x", "type": "user", "content": "a\x01"}', '{"id": 01}', '{"id": 1.}', "NaN"]
    session = read(log(tmp_path, [user("u1", "one"), *bad, gemini("g1", "a")]))
    assert session.bad_lines == len(bad)
    assert session.messages[-1].text == "a"


def test_a_line_with_half_an_emoji_is_read(tmp_path: Path) -> None:
    """JSON.stringify writes an emoji cut in half as a lone `\\ud83d`: the line is read, the
    half replaced by U+FFFD (it was a bad line, and the message lost)."""
    session = read(log(tmp_path, [user("u1", "one"), gemini("g1", "cut \ud83d")]))
    assert session.bad_lines == 0
    assert session.messages[-1].text == "cut \ufffd"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("You exceeded your current quota (429)", "usage_limit"),
        ("429 Too Many Requests", "rate_limit"),
        ("RESOURCE_EXHAUSTED: retry in 30s", "rate_limit"),
        ("503 Service Unavailable", "overloaded"),
        ("API key not valid. Please pass a valid API key.", "auth"),
        ("500 Internal error", "api"),
    ],
)
def test_an_error_text_takes_the_kind_of_its_first_matching_words(text: str, kind: str) -> None:
    assert classify(text) == kind
