"""Rollouts into sessions: the ground truth of every captured rollout, both formats, bad input."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import msgspec
import pytest

from continuity_codex import CodexAdapter, parser
from continuity_core.redact import redact
from continuity_core.schemas.session import Session, SessionRef
from continuity_core.transcript import read_incremental
from tests.codex.helpers import CODEX, ROLLOUTS, TRUTH, by_scenario, line
from tests.conftest import FIXTURES

ADAPTER = CodexAdapter()


def read(path: Path | str, cursor: Any = None) -> Any:
    ref = SessionRef(agent="codex", account="test", session_id="?", path=str(path), mtime=0)
    return ADAPTER.read(ref, cursor)


def check_truth(session: Session, truth: dict[str, Any]) -> None:
    assert session.session_id == truth["session_id"]
    assert session.cwd == truth["cwd"]
    assert session.model == truth["model"]
    assert session.git_branch == truth["git"]["branch"]
    assert session.requests == [redact(r) for r in truth["user_requests"]]
    assert session.latest_request == redact(truth["latest_user_request"])
    assert sorted(f.path for f in session.files_edited) == sorted(truth["files_edited"])
    assert [(t.content, t.status) for t in session.todos] == [
        (p["step"], p["status"]) for p in truth.get("plan", [])
    ]
    assert [c.name for c in session.tool_calls] == truth["tool_call_sequence"]
    interrupted = truth.get("interrupted_tool_calls", [])
    assert [c.id for c in session.pending_calls] == [c["call_id"] for c in interrupted]
    assert session.turn_incomplete == (truth["turns_started"] > truth["turns_completed"])
    # Context usage: the newest per-response usage Codex recorded, against its window.
    assert session.usage is not None
    assert session.usage.context_tokens == truth["last_token_usage_record"]["usage"]["total_tokens"]
    assert session.usage.context_window == truth["last_token_count"]["model_context_window"]
    errors = truth.get("turn_errors", [])
    assert [e.message for e in session.errors] == [e["message"] for e in errors]
    if errors:
        assert session.ended_on_limit and session.last_error is not None
        assert session.last_error.kind == "usage_limit"
        assert session.last_error.reset_at  # the full rate-limit window's reset time
    compaction = truth.get("compaction")
    assert len(session.compactions) == (compaction["compacted_records"] if compaction else 0)
    if compaction:
        after = session.requests[-len(compaction["requests_after_compaction"]) :]
        assert after == compaction["requests_after_compaction"]
    assert session.bad_lines == 0
    assert session.unknown_records == {}


@pytest.mark.parametrize("rel", sorted(ROLLOUTS), ids=lambda r: ROLLOUTS[r]["scenario"])
def test_every_captured_rollout_matches_its_ground_truth(rel: str) -> None:
    check_truth(read(FIXTURES / rel).session, ROLLOUTS[rel])


@pytest.mark.parametrize("rel", sorted(ROLLOUTS), ids=lambda r: ROLLOUTS[r]["scenario"])
def test_trimmed_copies_read_the_same(rel: str) -> None:
    trimmed = CODEX / "trimmed" / Path(rel).name.replace(".jsonl", ".trimmed.jsonl")
    check_truth(read(trimmed).session, ROLLOUTS[rel])


def test_secrets_never_reach_the_session() -> None:
    rel, truth = by_scenario("S5")
    encoded = json.dumps(
        [
            read(FIXTURES / rel).session.requests,
            [c.output for c in read(FIXTURES / rel).session.tool_calls],
        ]
    )
    for secret in truth["secrets"].values():
        if len(secret["value"]) >= 8:
            assert secret["value"] not in encoded


def test_incremental_read_only_folds_what_was_appended(tmp_path: Path) -> None:
    rel, truth = by_scenario("S2")
    lines = (FIXTURES / rel).read_bytes().splitlines(keepends=True)
    target = tmp_path / Path(rel).name
    cut = next(i for i, raw in enumerate(lines) if b'"task_started"' in raw and i > 5)
    target.write_bytes(b"".join(lines[:cut]) + lines[cut][:40])  # and half of the next line
    first = read(target)
    assert first.session.requests == truth["user_requests"][:1]
    assert first.offset == sum(len(raw) for raw in lines[:cut])  # the torn line waits
    with target.open("ab") as f:
        f.write(lines[cut][40:] + b"".join(lines[cut + 1 :]))
    records_before = first.session.records
    again = read(target, first)
    assert again.session.records - records_before == len(lines) - cut
    check_truth(again.session, truth)


def test_a_replaced_file_is_read_from_the_start(tmp_path: Path) -> None:
    s1, _ = by_scenario("S1")
    s7, truth7 = by_scenario("S7")
    target = tmp_path / "rollout.jsonl"
    shutil.copy(FIXTURES / s1, target)
    cursor = read(target)
    shutil.copy(FIXTURES / s7, target)
    assert read(target, cursor).session.requests == truth7["user_requests"]


LEGACY = [
    line(
        "session_meta",
        {
            "id": "0198aaaa-0000-7000-8000-000000000001",
            "timestamp": "2025-08-01T10:00:00Z",
            "cwd": "/w/app",
            "originator": "codex_cli_rs",
            "cli_version": "0.20.0",
            "instructions": None,
            "git": {"branch": "dev"},
        },
    ),
    line(
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "<environment_context>\n  <cwd>/w/app</cwd>\n"}
            ],
        },
    ),
    line("event_msg", {"type": "task_started", "model_context_window": 272000}),
    line("turn_context", {"cwd": "/w/app", "model": "gpt-5-codex", "approval_policy": "never"}),
    line(
        "response_item",
        {
            "type": "message",
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Rename util.py to helpers.py and drop old.txt"}
            ],
        },
    ),
    line(
        "event_msg",
        {
            "type": "user_message",
            "message": "Rename util.py to helpers.py and drop old.txt",
            "images": [],
        },
    ),
    line(
        "response_item",
        {
            "type": "function_call",
            "name": "shell",
            "call_id": "c1",
            "arguments": json.dumps({"command": ["bash", "-lc", "ls"]}),
        },
    ),
    line(
        "event_msg",
        {
            "type": "exec_command_end",
            "call_id": "c1",
            "exit_code": 0,
            "aggregated_output": "util.py old.txt",
        },
    ),
    line(
        "response_item",
        {
            "type": "function_call_output",
            "call_id": "c1",
            "output": json.dumps({"output": "util.py old.txt"}),
        },
    ),
    line(
        "event_msg",
        {
            "type": "patch_apply_end",
            "call_id": "c2",
            "success": True,
            "changes": {
                "/w/app/util.py": {
                    "update": {"unified_diff": "", "move_path": "/w/app/helpers.py"}
                },
                "/w/app/old.txt": {"delete": {}},
            },
        },
    ),
    line("event_msg", {"type": "agent_message", "message": "Done."}),
    line(
        "event_msg",
        {
            "type": "token_count",
            "info": {
                "last_token_usage": {
                    "input_tokens": 900,
                    "output_tokens": 100,
                    "total_tokens": 1000,
                },
                "model_context_window": 272000,
            },
        },
    ),
    line("event_msg", {"type": "task_complete", "last_agent_message": "Done."}),
    # What 0.171 appends when it resumes a legacy thread: still legacy-style events.
    line("world_state", {"full": True, "state": {}}),
    line("event_msg", {"type": "thread_settings_applied", "thread_settings": {"model": "gpt-5.5"}}),
    line("event_msg", {"type": "task_started", "model_context_window": 258400}),
    line("turn_context", {"cwd": "/w/app", "model": "gpt-5.5"}),
    line("event_msg", {"type": "user_message", "message": "Now add a test", "images": []}),
    line(
        "token_usage_record",
        {"usage": {"input_tokens": 1500, "output_tokens": 50, "total_tokens": 1550}},
    ),
    line(
        "event_msg",
        {"type": "error", "message": "Rate limit reached for gpt-5.5. Please try again in 20s."},
    ),
]


def test_legacy_rollouts_and_what_0_171_appends_to_them(tmp_path: Path) -> None:
    target = tmp_path / "rollout-legacy.jsonl"
    target.write_text("\n".join(LEGACY) + "\n")
    session = read(target).session
    assert session.requests == ["Rename util.py to helpers.py and drop old.txt", "Now add a test"]
    assert session.model == "gpt-5.5" and session.git_branch == "dev"
    assert [(f.path, f.action, f.moved_to) for f in session.files_edited] == [
        ("util.py", "move", "helpers.py"),
        ("old.txt", "delete", None),
    ]
    assert session.tool_calls[0].input == {"command": ["bash", "-lc", "ls"]}
    assert session.tool_calls[0].output is not None
    assert session.usage is not None and session.usage.context_tokens == 1550
    assert session.usage.context_window == 258400
    assert session.turn_incomplete
    assert session.last_error is not None and session.last_error.kind == "rate_limit"
    assert [m.text for m in session.messages if m.role == "assistant"] == ["Done."]


def test_paginated_file_changes_of_every_kind(tmp_path: Path) -> None:
    def change(call: str, changes: dict[str, Any], status: str = "completed") -> str:
        return line(
            "event_msg",
            {
                "type": "item_completed",
                "item": {"type": "FileChange", "id": call, "changes": changes, "status": status},
            },
        )

    rows = [
        line("session_meta", {"id": "t", "cwd": "/w", "history_mode": "paginated"}, ordinal=0),
        change("a", {"/w/new.py": {"type": "add", "content": "x"}}),
        change("b", {"/w/a.py": {"type": "update", "unified_diff": "", "move_path": "/w/b.py"}}),
        change("c", {"/w/gone.py": {"type": "delete", "content": "x"}}),
        change("d", {"/w/failed.py": {"type": "add", "content": "x"}}, status="failed"),
        change("e", {"/elsewhere/x.py": {"type": "update", "unified_diff": ""}}),
    ]
    target = tmp_path / "r.jsonl"
    target.write_text("\n".join(rows) + "\n")
    edits = read(target).session.files_edited
    assert [(f.path, f.action, f.moved_to) for f in edits] == [
        ("new.py", "write", None),
        ("a.py", "move", "b.py"),
        ("gone.py", "delete", None),
        ("/elsewhere/x.py", "edit", None),
    ]


def test_a_patch_without_a_filechange_event_still_counts_and_a_malformed_one_does_not(
    tmp_path: Path,
) -> None:
    good = "*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** End Patch\n"
    rows = [
        line("session_meta", {"id": "t", "cwd": "/w"}),
        line(
            "response_item",
            {"type": "custom_tool_call", "call_id": "p1", "name": "apply_patch", "input": good},
        ),
        line(
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "p1",
                "output": "Exit code: 0\nOutput:\nSuccess.",
            },
        ),
        line(
            "response_item",
            {
                "type": "custom_tool_call",
                "call_id": "p2",
                "name": "apply_patch",
                "input": "*** Begin Patch\nnonsense\n",
            },
        ),
        line(
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "p2",
                "output": "Exit code: 1\nOutput:\ninvalid patch",
            },
        ),
        line(
            "response_item",
            {
                "type": "custom_tool_call",
                "call_id": "p3",
                "name": "apply_patch",
                "input": "*** Begin Patch\n*** Add File: b.py\n+z\n*** End Patch",
            },
        ),
        line(
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "p3",
                "output": "Exit code: 1\nOutput:\nfile exists",
            },
        ),
    ]
    target = tmp_path / "r.jsonl"
    target.write_text("\n".join(rows) + "\n")
    session = read(target).session
    assert [f.path for f in session.files_edited] == ["src/a.py"]
    assert [c.is_error for c in session.tool_calls] == [False, True, True]
    assert session.bad_lines == 1  # the malformed patch is counted, not fatal


def test_unknown_records_torn_lines_and_garbage_never_stop_the_reader(tmp_path: Path) -> None:
    rel, truth = by_scenario("S1")
    target = tmp_path / "r.jsonl"
    data = (FIXTURES / rel).read_bytes()
    junk = (
        b'{"timestamp":"t","type":"hologram","payload":{}}\n'
        b"not json at all\n"
        b'{"type":"event_msg","payload":{"type":"item_completed","item":"?"}}\n'
        b'{"type":"response_item","payload":[1,2]}\n'
    )
    target.write_bytes(junk + data + b'{"timestamp":"2026-12-01T00:00:00Z","type":"event_msg"')
    session = read(target).session
    assert session.latest_request == truth["latest_user_request"]
    assert session.unknown_records == {"hologram": 1}
    assert session.bad_lines == 1
    assert session.updated_at != "2026-12-01T00:00:00Z"  # the torn last line is not read yet


def test_a_turn_aborted_by_the_user_is_incomplete(tmp_path: Path) -> None:
    target = tmp_path / "r.jsonl"
    target.write_text(
        "\n".join(
            [
                line("session_meta", {"id": "t", "cwd": "/w"}),
                line("event_msg", {"type": "task_started"}),
                line("event_msg", {"type": "user_message", "message": "go"}),
                line("event_msg", {"type": "turn_aborted", "reason": "interrupted"}),
            ]
        )
        + "\n"
    )
    session = read(target).session
    assert session.turn_incomplete
    assert session.messages[-1].kind == "meta"


@pytest.mark.skipif(shutil.which("zstd") is None, reason="needs the zstd binary")
def test_compressed_rollouts_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BAKER_HOME", str(tmp_path / "baker"))
    rel, truth = by_scenario("S4")
    plain = tmp_path / Path(rel).name
    shutil.copy(FIXTURES / rel, plain)
    subprocess.run(["zstd", "-q", "--rm", str(plain)], check=True)
    packed = Path(f"{plain}.zst")
    cursor = read(packed)
    check_truth(cursor.session, truth)
    assert cursor.session.path == str(packed)
    assert read(packed, cursor).session.requests == truth["user_requests"]


def test_ground_truth_has_every_codex_rollout() -> None:
    on_disk = {str(p.relative_to(FIXTURES)) for p in (CODEX / ".codex").rglob("rollout-*.jsonl")}
    assert on_disk == set(ROLLOUTS)
    assert all(TRUTH[k]["agent"] == "codex" for k in ROLLOUTS)


def test_prompts_typed_by_baker_resume_are_not_the_users_request(tmp_path: Path) -> None:
    target = tmp_path / "r.jsonl"
    target.write_text(
        "\n".join(
            [
                line("session_meta", {"id": "t", "cwd": "/w"}),
                line("event_msg", {"type": "user_message", "message": "Fix the login bug"}),
                line(
                    "event_msg",
                    {"type": "user_message", "message": "# Handoff brief\n\n## First move"},
                ),
                line(
                    "event_msg",
                    {
                        "type": "user_message",
                        "message": "Continue this session. A handoff brief with the live repo state is "
                        "in /tmp/b.md: read it first, then do what its 'First move' says.",
                    },
                ),
            ]
        )
        + "\n"
    )
    session = read(target).session
    assert session.requests == ["Fix the login bug"]
    assert [m.kind for m in session.messages] == ["request", "meta", "meta"]


def test_a_local_compaction_keeps_its_summary_redacted(tmp_path: Path) -> None:
    target = tmp_path / "r.jsonl"
    target.write_text(
        "\n".join(
            [
                line("session_meta", {"id": "t", "cwd": "/w"}),
                line("event_msg", {"type": "task_started"}),
                line("event_msg", {"type": "user_message", "message": "long task"}),
                line(
                    "compacted",
                    {
                        "message": "Summary: deploy with AKIAIOSFODNN7EXAMPLE next.",
                        "replacement_history": [],
                    },
                ),
            ]
        )
        + "\n"
    )
    (compaction,) = read(target).session.compactions
    assert compaction.trigger == "auto"  # inside a prompted turn: not `/compact`
    assert compaction.summary and compaction.summary.startswith("Summary: deploy with")
    assert "AKIAIOSFODNN7EXAMPLE" not in compaction.summary


def _eager(session: Session, extra: dict[str, Any], line: bytes) -> None:
    """The fold with every usage record applied at once: what deferring them must equal."""
    parser.fold(session, extra, line)
    parser.flush(session, extra)


@pytest.mark.parametrize("rel", sorted(ROLLOUTS), ids=lambda r: ROLLOUTS[r]["scenario"])
def test_deferred_usage_records_read_as_if_applied_at_once(rel: str) -> None:
    ref = SessionRef(agent="codex", account="t", session_id="s", path=str(FIXTURES / rel), mtime=0)
    deferred = read_incremental(
        ref, None, parser.fold, finish=parser.flush, state=parser.CodexState
    )
    eager = read_incremental(ref, None, _eager)
    assert msgspec.to_builtins(deferred.session) == msgspec.to_builtins(eager.session)
    assert isinstance(deferred.state, parser.CodexState)  # what LATEST held was flushed


def test_a_usage_limit_takes_the_reset_of_the_token_count_before_it(tmp_path: Path) -> None:
    def count(used: float, resets: int, total: int) -> str:
        return compact(
            "event_msg",
            {
                "type": "token_count",
                "info": {"model_context_window": 1000, "last_token_usage": {"total_tokens": total}},
                "rate_limits": {"primary": {"used_percent": used, "resets_at": resets}},
            },
        )

    path = tmp_path / "r.jsonl"
    path.write_text(
        "\n".join(
            [
                compact("session_meta", {"id": "t1", "cwd": "/src/app"}),
                compact("event_msg", {"type": "task_started", "model_context_window": 5000}),
                count(50, 1_800_000_000, 10),
                count(100, 1_900_000_000, 20),
                compact(
                    "event_msg",
                    {
                        "type": "error",
                        "message": "You've hit your usage limit.",
                        "codex_error_info": "usage_limit_exceeded",
                    },
                ),
                count(100, 2_000_000_000, 30),
                compact("token_usage_record", {"usage": {"total_tokens": 40}}),
            ]
        )
        + "\n"
    )
    session = read(path).session
    assert session.errors[-1].kind == "usage_limit"
    assert session.errors[-1].reset_at.startswith("2030-03-17")  # 1_900_000_000
    assert session.usage.context_tokens == 40 and session.usage.context_window == 1000


def test_a_usage_record_of_an_odd_shape_is_a_bad_line_not_a_failed_read(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(
        "\n".join(
            [
                compact("session_meta", {"id": "t1", "cwd": "/src/app"}),
                compact(
                    "event_msg",
                    {
                        "type": "token_count",
                        "rate_limits": {"primary": {"used_percent": "full", "resets_at": 1}},
                    },
                ),
                compact("event_msg", {"type": "user_message", "message": "still read"}),
            ]
        )
        + "\n"
    )
    session = read(path).session
    assert session.bad_lines == 1 and session.requests[-1] == "still read"


def compact(kind: str, payload: dict[str, Any]) -> str:
    """A rollout line as Codex writes it (no spaces), which is what `fold` peeks at."""
    return json.dumps(
        {"timestamp": "2026-11-30T04:00:00.000Z", "type": kind, "payload": payload},
        separators=(",", ":"),
    )


@pytest.mark.parametrize(
    ("record", "bad"),
    [
        ('["timestamp", "type", "payload"]', 1),
        ('"event_msg"', 1),
        ('{"timestamp":"2026-12-01T00:00:00Z","type":null,"payload":{}}', 1),
        ('{"timestamp":"2026-12-01T00:00:00Z","type":["event_msg"],"payload":{}}', 1),
        ('{"timestamp":1764547200,"type":"event_msg","payload":{"type":"agent_message"}}', 1),
        ('{"timestamp":"2026-12-01T00:00:00Z","type":"event_msg","payload":{"type":"x"} x', 1),
        (
            '{"timestamp":"2026-12-01T00:00:00Z","type":"response_item","payload":'
            '{"type":"function_call","name":"f","arguments":{"cmd":"ls"},"call_id":"c"}}',
            1,
        ),
        ('{"timestamp":"2026-12-01T00:00:00Z","type":"event_msg"}', 0),
        ('{"timestamp":null,"type":"event_msg","payload":"text"}', 0),
        (
            '{"timestamp":"2026-12-01T00:00:00Z","type":"response_item","payload":'
            '{"type":"message","role":"user","content":[1,{"text":5}]}}',
            0,
        ),
        # What `_json` reads otherwise than msgspec did: bytes that are not UTF-8 make any
        # line bad, even one whose payload is of no use; a byte-order mark, an escaped lone
        # surrogate and a number too large for a float are read.
        (b'{"type":"response_item","payload":{"type":"message","content":"\xff"}}', 1),
        (b'\xef\xbb\xbf{"type":"event_msg","payload":{"type":"agent_reasoning"}}', 0),
        ('{"type":"event_msg","payload":{"type":"agent_message","message":"\\ud800"}}', 0),
        ('{"type":"event_msg","payload":{"type":"agent_message","message":"x","n":1e999}}', 0),
    ],
)
def test_a_line_of_the_wrong_shape_is_a_bad_line_or_nothing(
    tmp_path: Path, record: str | bytes, bad: int
) -> None:
    """A line that is no object, or whose type or timestamp is no string, is a bad line; one
    whose payload is missing or of no use is read as nothing. The next line is read."""
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        b"\n".join(
            [
                compact("session_meta", {"id": "t1", "cwd": "/src/app"}).encode(),
                record if isinstance(record, bytes) else record.encode(),
                compact("event_msg", {"type": "user_message", "message": "still read"}).encode(),
            ]
        )
        + b"\n"
    )
    session = read(path).session
    assert (session.bad_lines, session.requests, session.tool_calls) == (bad, ["still read"], [])


ODD_COUNT = {"type": "token_count", "rate_limits": {"primary": {"used_percent": "full"}}}


@pytest.mark.parametrize(
    ("between", "applied"),
    [
        (compact("event_msg", {"type": "agent_reasoning", "text": "…"}), False),
        (compact("event_msg", {"type": "agent_message", "message": "…"}), False),
        (compact("event_msg", {"type": "task_started"}), True),
        (compact("event_msg", {"message": "…", "type": "agent_message"}), False),
        (line("event_msg", {"type": "agent_reasoning", "text": "…"}), False),
        (line("event_msg", {"type": "task_complete"}), True),
        (compact("response_item", {"type": "message", "content": []}), False),
    ],
)
def test_a_token_count_is_applied_before_an_event_that_reads_usage(
    tmp_path: Path, between: str, applied: bool
) -> None:
    """Token counts wait (only the newest is applied) past events of a type that reads no
    usage, however Codex spaces the line or orders its keys; before one that reads it (a turn's
    start or end, an error), the one kept is applied: here an odd one, so applying it is a bad
    line."""
    path = tmp_path / "r.jsonl"
    good = {"type": "token_count", "info": {"last_token_usage": {"total_tokens": 10}}}
    path.write_text(
        "\n".join(
            [
                compact("session_meta", {"id": "t1", "cwd": "/src/app"}),
                compact("event_msg", ODD_COUNT),
                between,
                compact("event_msg", good),
            ]
        )
        + "\n"
    )
    session = read(path).session
    assert session.bad_lines == (1 if applied else 0)
    assert session.usage is not None and session.usage.context_tokens == 10
