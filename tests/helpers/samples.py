"""Sample inputs several test folders share (test modules never import each other)."""

from __future__ import annotations

import json

from continuity_core.brief import NEVER_CUT, Brief
from continuity_core.schemas.handoff import Section

# One real transcript of each agent in tests/fixtures, by agent.
TRANSCRIPTS = {
    "claude": "claude/.claude/projects/-home-dev-src-weather-cli/"
    "48f0d34d-61b5-40aa-aac6-73b6722315eb.jsonl",
    "codex": "codex/.codex/sessions/2026/11/30/"
    "rollout-2026-11-30T03-57-00-01a22a99-520c-7f21-b282-ca967466c8a2.jsonl",
    "gemini": "gemini/.gemini/tmp/weather-cli/chats/session-2026-11-30T03-58-11b35675.jsonl",
}


def statusline(current: dict[str, int] | None, size: int = 200_000, **extra: object) -> bytes:
    """Claude Code's statusline stdin, in the shape 2.1.x sends."""
    return json.dumps(
        {
            "hook_event_name": "Status",
            "session_id": "0f1e2d3c",
            "cwd": "/work/app",
            "transcript_path": "/nonexistent/0f1e2d3c.jsonl",
            "model": {"id": "claude-sonnet-4-5", "display_name": "Sonnet 4.5"},
            "workspace": {"current_dir": "/work/app", "project_dir": "/work/app"},
            "version": "2.1.197",
            "cost": {"total_cost_usd": 0.42},
            "context_window": {
                "total_input_tokens": 250_000,
                "total_output_tokens": 9_000,
                "context_window_size": size,
                "current_usage": current,
                **extra,
            },
        }
    ).encode()


def brief_of(request: str) -> Brief:
    """A brief whose one section is `request`, as the user's latest request."""
    title = "The user's latest request (verbatim)"
    section = Section(key="request", title=title, source="t", body=request, priority=NEVER_CUT)
    return Brief(created_at="2026-12-05T08:00:00Z", project="/w", sections=[section])
