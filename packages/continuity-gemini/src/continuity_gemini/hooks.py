"""Gemini CLI hook payloads in, hook output out.

Every payload carries `session_id, transcript_path, cwd, hook_event_name, timestamp`.
`SessionStart`, `SessionEnd` and `Notification` share their names with Claude Code's and
Codex's hooks; only Gemini sends `timestamp`, which tells them apart.
"""

from __future__ import annotations

import json
import os

from continuity_core import jsonl
from continuity_core.schemas.hook import HookEvent

TYPE_CHECKING = False
if TYPE_CHECKING:  # the pre-tool hook imports this module alone: no typing, json or msgspec
    from collections.abc import Sequence
    from typing import Any

    from continuity_core.schemas.hook import EventKind

AGENT = "gemini"


def sid_from_name(name: str) -> str:
    """The start of the session id a chat file is named after: only its first 8 characters
    (`session-2026-11-30T03-58-11b35675.jsonl`); "" for another name."""
    stem = name.split(".", 1)[0]
    return stem.rsplit("-", 1)[-1] if stem.startswith("session-") else ""


KINDS: dict[str, EventKind] = {
    "SessionStart": "session_start",
    "SessionEnd": "session_end",
    "BeforeAgent": "prompt",
    "AfterAgent": "stop",
    "BeforeTool": "pre_tool",
    "AfterTool": "post_tool",
    "PreCompress": "pre_compact",
    "Notification": "notify",
    "BeforeModel": "other",
    "AfterModel": "other",
    "BeforeToolSelection": "other",
}
SHARED = frozenset({"SessionStart", "SessionEnd", "Notification"})
# Where `hookSpecificOutput.additionalContext` reaches the model (formats/gemini.md §5.4).
CONTEXT_EVENTS = frozenset({"SessionStart", "BeforeAgent", "AfterTool"})
PATH_KEYS = ("file_path", "absolute_path", "path", "dir_path", "directory")
# PreCompress fires before every model turn; the CLI compresses only from this share of the
# window (model.compressionThreshold, default 0.5). A little below it, to err on the safe side.
COMPRESS_SHARE = 0.45
TAIL_BYTES = 4 << 20  # how far from the end the last token counts are looked for


def parse_hook(payload: bytes, argv: Sequence[str] = ()) -> HookEvent:
    """The event in a Gemini hook's stdin; ValueError for anything else."""
    try:
        data = jsonl.loads(payload)
    except ValueError as e:  # UnicodeDecodeError among them
        raise ValueError(f"not JSON: {e}") from None
    if not isinstance(data, dict):
        raise ValueError("a hook payload is a JSON object")
    name = data.get("hook_event_name")
    if not isinstance(name, str) or name not in KINDS:
        raise ValueError(f"not a Gemini CLI hook event: {name!r}")
    if name in SHARED and "timestamp" not in data:
        raise ValueError(f"{name} without `timestamp` is another agent's hook")
    kind = KINDS[name]
    raw_input = data.get("tool_input")
    tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
    source = data.get("source") or data.get("trigger") or data.get("reason")
    transcript = _str(data.get("transcript_path"))
    if name == "PreCompress" and source != "manual" and not compression_due(transcript):
        kind = "other"  # the per-turn no-op: nothing will be compressed
    command = tool_input.get("command")
    session_id = _str(data.get("session_id"))
    named = sid_from_name(transcript.replace("\\", "/").rsplit("/", 1)[-1]) if transcript else ""
    if session_id and named and not session_id.startswith(named):
        # after a model fallback the hooks carry a new id; the session is still the file's
        from continuity_gemini.discovery import own_session_id

        session_id = own_session_id(transcript, session_id)
    return HookEvent(
        agent=AGENT,
        kind=kind,
        native=name,
        session_id=session_id,
        transcript_path=transcript,
        cwd=_str(data.get("cwd")),
        source=source if isinstance(source, str) else None,
        tool_name=_str(data.get("tool_name")),
        tool_input=tool_input,
        paths=_paths(tool_input),
        command=command if isinstance(command, str) else None,
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _paths(tool_input: dict[str, Any]) -> list[str]:
    out = [tool_input[k] for k in PATH_KEYS if isinstance(tool_input.get(k), str)]
    many = tool_input.get("file_paths") or tool_input.get("paths")
    if isinstance(many, list):
        out += [p for p in many if isinstance(p, str)]
    return out


def compression_due(transcript: str | None) -> bool:
    """Whether the last prompt's size in `transcript` is near the CLI's compression threshold.

    Reads from the end, so the cost does not grow with the transcript. When the file cannot
    tell (missing, no token counts yet) the answer is False: a first turn never compresses.
    """
    if not transcript:
        return False
    from continuity_core.jsonl import MAX_LINE, scan_backward
    from continuity_gemini.parser import window

    try:
        end = os.path.getsize(transcript)
        found = scan_backward(
            transcript, end, find=(b'"tokens"',), max_line=MAX_LINE, floor=end - TAIL_BYTES
        )
        for _, _, line in found:
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            tokens = rec.get("tokens") if isinstance(rec, dict) else None
            if isinstance(tokens, dict) and isinstance(tokens.get("input"), int):
                return bool(tokens["input"] >= COMPRESS_SHARE * window(rec.get("model")))
    except OSError:
        return False
    return False


def render_context(event: HookEvent, text: str) -> str | None:
    """`{"hookSpecificOutput": {"additionalContext": …}}` where Gemini shows it to the model.

    SessionStart after `/clear` ignores context. BeforeTool has no context channel in 0.61, so
    there the text goes to the user as a system message instead of being dropped.
    """
    if not text:
        return None
    if event.native == "BeforeTool":
        return json.dumps({"systemMessage": text})
    if event.native not in CONTEXT_EVENTS or (
        event.native == "SessionStart" and event.source == "clear"
    ):
        return None
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": event.native, "additionalContext": text}}
    )
