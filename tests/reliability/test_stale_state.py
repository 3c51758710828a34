"""baker's own state written by one process and read by a later one: the decoded config in
`~/.baker/cache/config.json`, the in-flight record the pre-tool hook's detached child writes.
Neither may outlive what it describes: a cache another baker wrote, or a record written
after a later call's, is not taken as the truth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_core import config, inflight
from continuity_core.errors import ConfigError
from continuity_core.schemas.hook import HookEvent
from continuity_core.store import Store


def test_a_config_cache_another_baker_wrote_is_not_served(isolated_home: Path) -> None:
    """A baker that checked less (before `[transcripts]` folders had to be absolute, say)
    cached what it let through; after the upgrade the same text must meet today's checks,
    not be served from the cache: the text alone is no key across versions."""
    path = Path(config.config_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[accounts.work]\nagent = "claude"\ndir = "~/.claude-work"\n')
    config.load_config()  # writes the private cache, as baker does
    cache = path.parent / "cache" / "config.json"
    old = json.loads(cache.read_bytes())
    relative = '[transcripts]\nclaude = ["projects/claude"]\n'
    old["text"] = relative
    old["config"] = {**old["config"], "transcripts": {"claude": ["projects/claude"]}}
    old["decoder"] = "0.0.1 (an older baker)"
    cache.write_text(json.dumps(old))  # the same private file, another baker's content
    path.write_text(relative)
    config._read_once.cache_clear()  # a new process
    with pytest.raises(ConfigError, match="must be an absolute path"):
        config.load_config()


def _event(tool: str, command: str) -> HookEvent:
    return HookEvent(
        agent="gemini",
        kind="pre_tool",
        session_id="s-1",
        tool_name=tool,
        command=command,
        cwd="/nowhere",
    )


def test_an_in_flight_record_written_late_keeps_the_later_call(repo: Path) -> None:
    """The pre-tool hook answers first and its detached child writes the record: the child
    of an earlier call can write after the child of the call that followed it. The call
    that started last stays the one in flight, whichever write lands last, though both
    started within one second; and a new call replaces it."""
    store = Store(repo)
    first, second = _event("run_shell_command", "make"), _event("run_shell_command", "pytest")
    inflight.record(store, second, "2026-12-05T12:00:01.420Z")
    inflight.record(store, first, "2026-12-05T12:00:01.080Z")  # the slower child, landing last
    written = Path(inflight._path(store, "gemini", "s-1")).read_bytes()
    call = inflight.Inflight.from_json(written)
    assert call.command == "pytest" and call.started_at == "2026-12-05T12:00:01.420Z"
    third = _event("run_shell_command", "make deploy")
    inflight.record(store, third, "2026-12-05T12:00:03.000Z")
    written = Path(inflight._path(store, "gemini", "s-1")).read_bytes()
    assert inflight.Inflight.from_json(written).command == "make deploy"
