"""The structured brief of `handoff --json` and the MCP `handoff` tool."""

from __future__ import annotations

from typing import Any

import msgspec

from continuity_core import brief
from continuity_core.handoff import Handoff, structured
from continuity_core.inflight import Inflight
from continuity_core.schemas.checkpoint import GitFacts
from continuity_core.schemas.handoff import HandoffDoc
from continuity_core.schemas.trap import Trap
from tests.helpers.sample_session import SECRET, session

GIT = GitFacts(
    is_repo=True,
    branch="main",
    head="a1b2c3d4e5f6a7b8",
    subject="Ship it",
    dirty=[" M deploy.sh"],
    dirty_count=1,
    upstream="origin/main",
    ahead=2,
)


def handoff(**kw: Any) -> Handoff:
    s = session()
    built = brief.build(
        project="/p", created_at="t", git=GIT, note_text="# Now\nship it", session=s
    )
    args: dict[str, Any] = {
        "brief": built,
        "session": s,
        "adapter": None,
        "git": GIT,
        "note": {"Now": f"ship it with {SECRET}"},
        "traps": [Trap(id="t1", pattern="deploy.sh", why="needs VPN", created_at="t")],
    }
    args.update(kw)
    return Handoff(**args)


def test_typed_fields_from_the_session_repo_and_note() -> None:
    doc = structured(handoff())
    assert doc.latest_request is not None and doc.latest_request.startswith("Fix the deploy")
    assert [(t.content, t.status) for t in doc.todos] == [("Run the tests", "in_progress")]
    assert [(f.path, f.action, f.count) for f in doc.files_edited] == [("deploy.sh", "edit", 2)]
    assert doc.interrupted is not None
    assert [(c.tool, c.what) for c in doc.interrupted.calls] == [("Bash", "sleep 60 && ./it.sh")]
    assert doc.interrupted.error is not None and doc.interrupted.error.kind == "usage_limit"
    assert doc.limit is not None and doc.limit.until == "2026-12-01T00:00Z"
    assert doc.repo is not None and doc.repo.branch == "main" and doc.repo.ahead == 2
    assert doc.repo.last_commit is not None and doc.repo.last_commit.subject == "Ship it"
    assert doc.repo.uncommitted == [" M deploy.sh"] and doc.repo.uncommitted_count == 1
    assert doc.source is not None and (doc.source.agent, doc.source.session) == ("claude", "s-1")
    assert [t.pattern for t in doc.traps] == ["deploy.sh"]
    assert doc.markdown == brief.render(handoff().brief)


def test_free_text_is_redacted_and_the_json_decodes_strictly() -> None:
    data = msgspec.json.encode(structured(handoff()))
    assert SECRET.encode() not in data
    doc = msgspec.json.decode(data, type=HandoffDoc)
    assert "[REDACTED]" in doc.note["Now"]


def test_a_call_only_the_pretool_hook_saw_is_interrupted() -> None:
    quiet = session(tool_calls=[], errors=[])
    built = brief.build(project="/p", created_at="t", git=GIT, note_text=None, session=quiet)
    seen = Inflight(
        agent="claude", session_id="s-1", tool_name="Bash", started_at="t0", command="make deploy"
    )
    doc = structured(Handoff(brief=built, session=quiet, adapter=None, git=GIT, unrecorded=seen))
    assert doc.limit is None and doc.interrupted is not None
    assert doc.interrupted.unrecorded is not None
    assert (doc.interrupted.unrecorded.tool, doc.interrupted.unrecorded.what) == (
        "Bash",
        "make deploy",
    )


def test_without_a_session_every_key_is_still_there() -> None:
    built = brief.build(
        project="/p", created_at="t", git=GitFacts(), note_text=None, searched=["claude: ~/.claude"]
    )
    data = msgspec.to_builtins(structured(Handoff(brief=built, session=None, adapter=None)))
    for key in ("latest_request", "interrupted", "limit", "repo", "source"):
        assert key in data and data[key] is None
    assert data["todos"] == [] and data["files_edited"] == [] and data["note"] == {}
