"""`baker mcp` inside the real CLIs: registered the way users register it, each CLI offers the
server's tools to the model, and a scripted `recall` call returns an archived hit in the next
request.

Claude Code and Gemini CLI list the tools in their first request. Codex (0.171) defers every
MCP server's tools behind its own `tool_search` tool: they are never in the first request, a
search returns them in the namespace `mcp__baker`, and the model then calls them by name in it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from continuity_core.schemas.checkpoint import Checkpoint
from continuity_core.schemas.session import Message, Session
from continuity_core.stamps import new_id
from continuity_core.store import Store
from tests.e2e.harness import Agent, MakeAgent, baker
from tests.e2e.mock_models import Turn, raw, shell, tool_search

pytestmark = pytest.mark.e2e

TOOLS = ("recall", "handoff", "sessions", "traps", "note", "save", "resume_check")
# What each CLI calls an MCP server's tool (seen in their recorded requests).
NAMES = {"claude": "mcp__baker__{}", "codex": "mcp__baker__{}", "gemini": "mcp_baker_{}"}
NEEDLE = "quokka-sharding"  # a word only the archived checkpoint holds


def register(a: Agent) -> None:
    """Project-level for Claude Code and Gemini CLI (`init --mcp`), user-level for Codex."""
    args = ["global", "sync", "--mcp"] if a.name == "codex" else ["init", "--mcp"]
    proc = baker(a, *args)
    assert proc.returncode == 0, f"baker {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    if a.name == "claude":  # Claude Code starts a project's server once the user approved it
        path = a.config_dir / "settings.json"
        settings = json.loads(path.read_text())
        settings["enabledMcpjsonServers"] = ["baker"]
        path.write_text(json.dumps(settings))


def archive_a_session(a: Agent) -> None:
    store = Store(a.project)
    session = Session(
        agent="claude",
        session_id="0ld-5e55",
        requests=["shard the queue"],
        messages=[Message(role="assistant", text=f"Chose {NEEDLE} by tenant")],
    )
    store.write_checkpoint(
        Checkpoint(id=new_id(), created_at="2026-11-30T05:00:00Z", session=session)
    )


def offered(body: dict[str, Any]) -> set[str]:
    """Tool names in a request: Anthropic `tools[].name`, Gemini `functionDeclarations`."""
    text = json.dumps(body.get("tools", []))
    return set(re.findall(r'"name": "(mcp_{1,2}baker_{1,2}[a-z_]+)"', text))


@pytest.mark.parametrize("name", ["claude", "gemini"])
def test_the_first_request_offers_baker_s_tools_and_recall_returns_a_hit(
    name: str, agent: MakeAgent
) -> None:
    tool = NAMES[name]
    a: Agent = agent(
        name, [Turn(calls=[raw(tool.format("recall"), query=NEEDLE)]), Turn(text="Recalled.")]
    )
    register(a)
    archive_a_session(a)
    proc = a.run("E2E: recall how the queue was sharded", check=False)
    reqs = a.mock.main_requests
    assert len(reqs) == 2, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert offered(reqs[0].body) == {tool.format(t) for t in TOOLS}, proc.stderr[-2000:]
    assert NEEDLE not in reqs[0].text
    assert NEEDLE in reqs[1].text and "0ld-5e55" in reqs[1].text, reqs[1].text[-3000:]


def test_codex_finds_baker_s_tools_by_search_and_recall_returns_a_hit(agent: MakeAgent) -> None:
    a: Agent = agent(
        "codex",
        [
            # Codex starts stdio servers in the background: a first step gives `baker mcp` (about
            # a second to import the SDK) time to answer before the search, as any real turn does.
            Turn(calls=[shell("sleep 3")]),
            Turn(calls=[tool_search("baker recall archived sessions")]),
            Turn(calls=[raw("mcp__baker__recall", query=NEEDLE)]),
            Turn(text="Recalled."),
        ],
    )
    register(a)
    archive_a_session(a)
    proc = a.run("E2E: recall how the queue was sharded", check=False)
    reqs = a.mock.main_requests
    assert len(reqs) == 4, (proc.stdout[-2000:], proc.stderr[-2000:])
    assert "mcp__baker" not in json.dumps(reqs[0].body.get("tools"))
    [found] = [item for item in reqs[2].body["input"] if item.get("type") == "tool_search_output"]
    [space] = [t for t in found["tools"] if t.get("name") == "mcp__baker"]
    assert {t["name"] for t in space["tools"]} == set(TOOLS), found
    assert NEEDLE not in reqs[2].text
    assert NEEDLE in reqs[3].text and "0ld-5e55" in reqs[3].text, reqs[3].text[-3000:]
