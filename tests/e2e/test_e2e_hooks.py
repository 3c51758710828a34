"""Phase 2: hooks installed by `baker` fire inside the real CLIs.

After a turn a checkpoint is in `.baker/checkpoints/`; on the next run the SessionStart hook's
`baker pickup` context reaches the model, seen in the mock's recorded request. Every hook is
one plain `baker` process, and none of them is left running after the agent exits.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from continuity_cli.hooks import DEADLINES_S
from tests.conftest import lingering
from tests.e2e.flows import install
from tests.e2e.harness import Agent, MakeAgent, baker
from tests.e2e.mock_models import Turn, shell, write

pytestmark = pytest.mark.e2e

MARKER = "Verify the e2e pickup marker 7c1f before editing"


@pytest.mark.parametrize("name", ["claude", "codex", "gemini"])
def test_checkpoint_after_turn_and_pickup_on_next_run(name: str, agent: MakeAgent) -> None:
    a: Agent = agent(
        name,
        [
            Turn(calls=[shell("printf 'hooked-%d\\n' 7")]),
            Turn(calls=[write("notes.txt", "written under hooks\n")]),
            Turn(text="First session done."),
            Turn(text="Second session done."),
        ],
    )
    install(a)
    checkpoints = a.project / ".baker" / "checkpoints"
    assert not list(checkpoints.glob("*.json"))

    a.run("E2E phase 2: first session")
    saved = sorted(checkpoints.glob("*.json"))
    assert saved, f"no checkpoint after the turn; .baker/log: {_log(a)}"
    cp = json.loads(saved[-1].read_text())
    assert "E2E phase 2: first session" in json.dumps(cp)

    proc = baker(a, "now", MARKER)
    assert proc.returncode == 0, proc.stderr
    first_run = len(a.mock.main_requests)
    assert not a.mock.sent(MARKER)

    a.run("E2E phase 2: second session")
    second = a.mock.main_requests[first_run:]
    assert second and hook_context(a.name, second[0].body), (
        f"pickup context missing from the next run's first request; .baker/log: {_log(a)}"
    )
    # Codex runs notify without waiting for it, so a checkpoint may still be at work when the
    # agent has exited; within the hooks' own deadline every one of them must be gone.
    deadline = time.monotonic() + max(DEADLINES_S.values()) + 5
    while (left := lingering(a.project, argv_has="baker")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert left == [], f"a hook outlived its deadline: pids {left}"


def hook_context(name: str, body: dict[str, Any]) -> bool:
    """Whether MARKER arrived the way this CLI delivers SessionStart hook context."""
    if name == "claude":  # a system message (or system-reminder) naming the hook
        return any(
            "SessionStart hook additional context" in t and MARKER in t
            for t in _texts(body["messages"])
        )
    if name == "codex":  # a developer message of its own
        return any(
            item.get("role") == "developer" and MARKER in json.dumps(item) for item in body["input"]
        )
    return any("<hook_context>" in t and MARKER in t for t in _texts(body["contents"]))


def _texts(messages: list[dict[str, Any]]) -> list[str]:
    out = []
    for m in messages:
        content = m.get("content", m.get("parts", []))
        blocks = [{"text": content}] if isinstance(content, str) else content
        out += [b["text"] for b in blocks if isinstance(b, dict) and "text" in b]
    return out


def _log(a: Agent) -> str:
    logs = sorted((a.project / ".baker" / "log").glob("*"))
    return "\n".join(p.read_text()[-1500:] for p in logs) or "(empty)"


def test_codex_compacting_on_its_own_gets_back_the_request_and_the_failed_command(
    agent: MakeAgent,
) -> None:
    """Past `model_auto_compact_token_limit` `codex exec` compacts inside the turn and fires
    SessionStart with source `compact`; the pickup's "Before the compaction" (the request,
    verbatim, and the command that failed) reaches the model's next request."""
    request = "E2E compaction: run the checks and keep going (7d2e)"
    a: Agent = agent(
        "codex",
        [
            Turn(calls=[shell("python3 no_such_check.py")]),
            Turn(calls=[shell("echo checked")], input_tokens=200_000),
            Turn(text="Checks done."),
        ],
    )
    install(a)
    a.cli(*a.argv(request, headless=True, options=["-c", "model_auto_compact_token_limit=100000"]))
    compaction = next(
        i for i, r in enumerate(a.mock.requests) if "CONTEXT CHECKPOINT COMPACTION" in r.text
    )
    after = [r for r in a.mock.requests[compaction + 1 :] if r.main]
    assert after, "no request after the compaction"
    given = [
        json.dumps(item)
        for item in after[0].body["input"]
        if item.get("role") == "developer" and "Before the compaction" in json.dumps(item)
    ]
    assert given, f"no pickup after the compaction; .baker/log: {_log(a)}"
    text = json.loads(given[-1])["content"][0]["text"]
    assert f"```text\n{request}\n```" in text
    assert "`python3 no_such_check.py` — failed, exit 2: python3: can't open file" in text
