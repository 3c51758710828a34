"""Context usage from Claude Code's statusline JSON (`baker usage --statusline`)."""

from __future__ import annotations

from continuity_core import jsonl
from continuity_core.adapters import Measurement
from continuity_core.schemas.session import Usage

CACHE = ("cache_creation_input_tokens", "cache_read_input_tokens")


class Statusline:
    """The UsageSource ability of the Claude adapter."""

    label = "claude statusline"

    def measure(self, payload: bytes) -> Measurement:
        """`context_window.current_usage` (input + cache creation + cache read) against
        `context_window.context_window_size`, the same sum the CLI shows as context used.
        Before the first reply `current_usage` is null: the caller may read `transcript_path`.
        """
        try:
            data = jsonl.loads(payload or b"null")
        except ValueError:
            return Measurement(reason="the statusline input is not JSON")
        if not isinstance(data, dict):
            return Measurement(reason="the statusline input is not a JSON object")
        sid = data.get("session_id")
        path = data.get("transcript_path")
        found = Measurement(
            session_id=sid if isinstance(sid, str) else None,
            transcript=path if isinstance(path, str) else None,
        )
        found.usage, found.reason = _usage(data)
        return found


def _usage(data: dict[str, object]) -> tuple[Usage | None, str | None]:
    window_info = data.get("context_window")
    if not isinstance(window_info, dict):
        return None, "the statusline JSON has no context_window"
    size = window_info.get("context_window_size")
    window = size if isinstance(size, int) and size > 0 else None
    current = window_info.get("current_usage")
    if isinstance(current, dict):
        ints = {k: v for k, v in current.items() if isinstance(v, int)}
        context = sum(ints.get(k, 0) for k in ("input_tokens", *CACHE))
        if context > 0:
            return Usage(
                context_tokens=context,
                context_window=window,
                input_tokens=ints.get("input_tokens"),
                output_tokens=ints.get("output_tokens"),
                cache_read_tokens=ints.get("cache_read_input_tokens"),
                cache_creation_tokens=ints.get("cache_creation_input_tokens"),
            ), None
    pct = window_info.get("used_percentage")
    if window and isinstance(pct, (int, float)) and not isinstance(pct, bool) and pct > 0:
        return Usage(context_tokens=round(window * pct / 100), context_window=window), None
    return None, "the statusline JSON carries no usage yet (no reply in this session)"
