"""Copilot's limits: from its hook and its own records into the ledger, `baker limits`, and
`[rotation]` entries `copilot` and `copilot:NAME`."""

from __future__ import annotations

import json
from pathlib import Path

from continuity_copilot import CopilotAdapter
from continuity_core import limits
from continuity_core.adapters import Account
from tests.conftest import run_baker
from tests.copilot.helpers import GREETER, PAYLOADS
from tests.copilot.test_copilot_launch import session_into

CONFIG = """
[accounts.work]
agent = "copilot"
dir = "~/.copilot-work"

[rotation]
order = ["copilot", "copilot:work", "claude"]
"""


def test_a_429_in_copilot_moves_the_rotation_to_the_next_account(
    isolated_home: Path, repo: Path
) -> None:
    (isolated_home / ".baker").mkdir()
    (isolated_home / ".baker" / "config.toml").write_text(CONFIG)
    session_into(isolated_home / ".copilot", GREETER, repo)
    error = json.loads((PAYLOADS / "errorOccurred.json").read_text())
    error.update(sessionId=GREETER, cwd=str(repo))
    hook = run_baker("checkpoint", "--agent", "copilot", input=json.dumps(error), cwd=repo)
    assert hook.returncode == 0 and hook.stdout == ""
    [limit] = limits.read()
    assert (limit.agent, limit.dir, limit.kind) == (
        "copilot",
        str(isolated_home / ".copilot"),
        "rate_limit",
    )
    rows = json.loads(run_baker("limits", "--json", cwd=repo).stdout)
    assert [(r["entry"], r["limited"]) for r in rows] == [
        ("copilot", True),
        ("copilot:work", False),
        ("claude", False),
    ]
    result = run_baker("resume", "--next", "--dry-run", "--json", cwd=repo)
    assert result.returncode == 0, result.stderr
    assert "next in the rotation: copilot:work" in result.stderr
    launch = json.loads(result.stdout)["launch"]
    assert launch["argv"][0] == "copilot"
    assert launch["env"]["COPILOT_HOME"] == str(isolated_home / ".copilot-work")


def test_the_sessions_own_429_record_is_the_limit_baker_run_switches_on(
    isolated_home: Path, repo: Path
) -> None:
    folder = session_into(isolated_home / ".copilot", GREETER, repo)
    account = Account(agent="copilot", name="~/.copilot", dir=str(isolated_home / ".copilot"))
    adapter = CopilotAdapter()
    ref = next(iter(adapter.discover(repo, [account])))
    err = limits.turn_ended_on_limit(adapter.read(ref).session)
    assert err is not None and err.kind == "rate_limit" and err.status == 429
    # a later turn that got an answer clears it
    with open(folder / "events.jsonl", "a") as f:
        for kind, data in (
            ("user.message", {"content": "try again"}),
            ("assistant.message", {"content": "Done.", "model": "gpt-4.1"}),
        ):
            f.write(json.dumps({"type": kind, "data": data, "timestamp": "2026-12-05T09:30:00Z"}))
            f.write("\n")
    assert limits.turn_ended_on_limit(adapter.read(ref).session) is None
