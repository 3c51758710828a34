"""Helpers that write Gemini CLI chat logs record by record, in the CLI's own shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES

GT = json.loads((FIXTURES / "ground_truth.json").read_text())
SESSIONS = {k: v for k, v in GT.items() if k.startswith("gemini/.gemini/") and k.endswith(".jsonl")}
PAYLOADS = FIXTURES / "gemini" / "hook_payloads"
SID = "5e551011-0000-4000-8000-000000000001"


def header(session_id: str = SID, **extra: Any) -> dict[str, Any]:
    return {
        "sessionId": session_id,
        "projectHash": "0" * 64,
        "startTime": "2026-11-30T04:00:00.000Z",
        "lastUpdated": "2026-11-30T04:00:00.000Z",
        "kind": "main",
        **extra,
    }


CONTEXT = {
    "$set": {
        "messages": [
            {
                "id": "d04923d38bb0f6017037e74183378ef4",
                "timestamp": "2026-11-30T04:00:00.000Z",
                "type": "user",
                "content": [{"text": "<session_context>\nx\n</session_context>"}],
            }
        ]
    }
}


def user(msg_id: str, text: str) -> dict[str, Any]:
    return {
        "id": msg_id,
        "timestamp": "2026-11-30T04:00:01.000Z",
        "type": "user",
        "content": [{"text": text}],
    }


def gemini(
    msg_id: str,
    text: str = "",
    *,
    calls: list[dict[str, Any]] | None = None,
    tokens: int | None = 1000,
) -> dict[str, Any]:
    msg: dict[str, Any] = {
        "id": msg_id,
        "timestamp": "2026-11-30T04:00:02.000Z",
        "type": "gemini",
        "content": text,
        "model": "gemini-2.5-pro",
    }
    if tokens is not None:
        msg["tokens"] = {
            "input": tokens,
            "output": 10,
            "cached": 0,
            "thoughts": 0,
            "tool": 0,
            "total": tokens + 10,
        }
    if calls is not None:
        msg["toolCalls"] = calls
    return msg


def call(
    call_id: str,
    name: str,
    args: dict[str, Any],
    output: str | None = "ok",
    status: str = "success",
) -> dict[str, Any]:
    c: dict[str, Any] = {
        "id": call_id,
        "name": name,
        "args": args,
        "status": status,
        "timestamp": "2026-11-30T04:00:03.000Z",
    }
    if output is not None:
        c["result"] = [
            {"functionResponse": {"id": call_id, "name": name, "response": {"output": output}}}
        ]
    return c


def write_log(path: Path, records: list[Any], *, tail: str = "") -> Path:
    """A chat log of `records`, one JSON line each, plus an optional unterminated `tail`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("".join(line + "\n" for line in lines) + tail)
    return path
