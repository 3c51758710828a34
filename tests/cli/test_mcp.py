"""`baker mcp`: the MCP server as an agent reaches it, over stdio through the official SDK."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from continuity_core.schemas.checkpoint import Checkpoint
from continuity_core.schemas.handoff import HandoffDoc
from continuity_core.schemas.session import Message, Session, TodoItem
from continuity_core.stamps import new_id
from continuity_core.store import Store
from tests.cli.flows import claude_session
from tests.conftest import BAKER, run_baker

mcp = pytest.importorskip("mcp", reason="the `mcp` extra is not installed")

TOOLS = {"recall", "handoff", "sessions", "traps", "note", "save", "resume_check"}


@pytest.fixture
def project(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("BAKER_ADAPTERS", "")
    assert run_baker("init", cwd=repo).returncode == 0
    store = Store(repo)
    session = Session(
        agent="claude",
        session_id="5e55-10n",
        requests=["Shard the queue workers"],
        todos=[TodoItem(content="split by tenant", status="in_progress")],
        messages=[Message(role="assistant", text="Split workers by tenant hash")],
    )
    store.write_checkpoint(
        Checkpoint(id=new_id(), created_at="2026-11-30T05:00:00Z", session=session)
    )
    return repo


async def _session(cwd: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=BAKER, args=["mcp"], cwd=str(cwd), env=dict(os.environ))
    async with Client(params) as client:
        tools = await client.list_tools()
        results = [await client.call_tool(name, args) for name, args in calls]
    return tools, results


def _json(result: Any) -> Any:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def test_an_agent_lists_the_tools_and_calls_them(project: Path) -> None:
    tools, results = asyncio.run(
        asyncio.wait_for(
            _session(
                project,
                [
                    ("recall", {"query": "tenant hash"}),
                    ("handoff", {}),
                    (
                        "note",
                        {"now": "run the queue benchmark", "blocked": "prod access, from ops"},
                    ),
                    (
                        "traps",
                        {"pattern": "scripts/deploy.sh", "why": "needs a VPN: hangs without it"},
                    ),
                    ("traps", {"check_path": "scripts/deploy.sh"}),
                    ("traps", {"check_path": "README.md"}),
                    ("sessions", {}),
                    ("resume_check", {}),
                    ("save", {"draft": "not a checkpoint"}),
                ],
            ),
            timeout=60,
        )
    )
    by_name = {t.name: t for t in tools.tools}
    assert set(by_name) == TOOLS
    assert all(len(t.description or "") > 80 for t in tools.tools)
    assert "query" in by_name["recall"].input_schema["required"]
    recall, handoff, note, added, hit, miss, sessions, check, save = map(_json, results)
    [found] = recall["hits"]
    assert (found["session_id"], found["kind"]) == ("5e55-10n", "checkpoint")
    doc = msgspec.json.decode(json.dumps(handoff), type=HandoffDoc)
    assert doc.project == str(project) and doc.repo is not None and doc.repo.branch == "main"
    assert doc.latest_request == "Shard the queue workers"
    assert [(t.content, t.status) for t in doc.todos] == [("split by tenant", "in_progress")]
    assert note["sections"]["Now"] == "run the queue benchmark"
    assert "prod access, from ops" in note["sections"]["Blocked"]
    assert added["added"]["pattern"] == "scripts/deploy.sh"
    assert [t["why"] for t in hit["traps"]] == ["needs a VPN: hangs without it"]
    assert miss["traps"] == []
    assert sessions["sessions"] == [] and sessions["warnings"] == []
    assert check["status"] == "none"
    assert save["saved"] is False and save["validation"]["errors"]


def test_a_tool_error_reaches_the_agent_as_an_error(tmp_path: Path) -> None:
    _, [result] = asyncio.run(
        asyncio.wait_for(_session(tmp_path, [("traps", {"pattern": "x", "why": "y"})]), timeout=60)
    )
    assert result.is_error and "baker init" in result.content[0].text


def test_sessions_in_a_plain_folder_names_the_folders_below_it(
    tmp_path: Path, isolated_home: Path
) -> None:
    """As `baker sessions --json`: a folder that is no project keeps only its own sessions and
    names, in `elsewhere`, the folders below it that have some; passed as repo, one lists them."""
    top = tmp_path / "top"
    app = top / "x" / "app"
    app.mkdir(parents=True)
    claude_session(isolated_home, app)
    here = os.path.realpath(app)
    _, results = asyncio.run(
        asyncio.wait_for(_session(top, [("sessions", {}), ("sessions", {"repo": here})]), 60)
    )
    listed, below = map(_json, results)
    assert listed["sessions"] == [] and listed["elsewhere"] == [here]
    command = json.loads(run_baker("sessions", "--json", cwd=top).stdout)
    assert {key: listed[key] for key in command} == command
    assert [row["id"] for row in below["sessions"]] == ["48f0d34d-61b5-40aa-aac6-73b6722315eb"]
    assert below["elsewhere"] == []


def _without_sdk(tmp_path: Path) -> dict[str, str]:
    """An environment whose interpreter cannot import the SDK, as one installed without it."""
    hide = tmp_path / "hide"
    hide.mkdir()
    # None in sys.modules: find_spec answers None and an import raises ModuleNotFoundError.
    (hide / "sitecustomize.py").write_text("import sys\nsys.modules['mcp'] = None\n")
    return {"PYTHONPATH": str(hide)}


def test_without_the_sdk_the_command_says_how_to_install_it(tmp_path: Path) -> None:
    result = run_baker("mcp", cwd=tmp_path, env=_without_sdk(tmp_path))
    assert result.returncode == 1
    assert "continuity-cli[mcp]" in result.stderr and "Traceback" not in result.stderr


def test_doctor_says_whether_baker_mcp_can_run(tmp_path: Path) -> None:
    def finding(env: dict[str, str] | None = None) -> dict[str, str]:
        out: list[dict[str, str]] = json.loads(
            run_baker("doctor", "--json", cwd=tmp_path, env=env).stdout
        )
        [found] = [f for f in out if "MCP SDK" in f["message"]]
        return found

    assert finding()["level"] == "ok"
    missing = finding(_without_sdk(tmp_path))
    assert missing["level"] == "info" and "continuity-cli[mcp]" in missing["fix"]


def test_no_other_command_imports_the_sdk() -> None:
    code = (
        "import sys\nfrom continuity_cli.app import COMMANDS, cli\nimport click\n"
        "ctx = click.Context(cli)\n"
        "[cli.get_command(ctx, n) for n in COMMANDS]\n"
        "print('mcp' in sys.modules or 'continuity_cli.mcp_server' in sys.modules)"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_handoff_json_matches_its_schema(project: Path) -> None:
    result = run_baker("handoff", "--json", cwd=project)
    assert result.returncode == 0, result.stderr
    doc = msgspec.json.decode(result.stdout, type=HandoffDoc)  # unknown keys are refused
    data = json.loads(result.stdout)
    schema = json.loads(
        (Path(__file__).parents[2] / "docs" / "schemas" / "handoff.schema.json").read_text()
    )
    definition = schema["$defs"][schema["$ref"].rsplit("/", 1)[-1]]  # msgspec's shape
    assert definition["title"] == "HandoffDoc" and definition["additionalProperties"] is False
    assert set(definition["required"]) <= set(data) <= set(definition["properties"])
    assert doc.markdown.startswith("# Handoff brief") and "Shard the queue workers" in doc.markdown
    assert doc.latest_request == "Shard the queue workers"
    assert doc.source is not None and doc.source.session == "5e55-10n"
    assert {s.key for s in doc.sections} >= {"first_move", "repo", "request"}


GUARD = ["-c", "command -v baker >/dev/null 2>&1 && exec baker mcp"]


def test_init_mcp_registers_it_beside_foreign_servers_and_uninstall_takes_exactly_it(
    repo: Path,
) -> None:
    foreign_mcp = '{\n    "mcpServers": {\n        "db": {"command": "dbserver"}\n    }\n}\n'
    (repo / ".mcp.json").write_text(foreign_mcp)
    (repo / ".gemini").mkdir()
    foreign_gemini = (
        '{\r\n  "mcpServers": {"db": {"command": "dbserver"}},\r\n  "theme": "x"\r\n}\r\n'
    )
    (repo / ".gemini" / "settings.json").write_bytes(foreign_gemini.encode())
    first = run_baker("init", "--mcp", cwd=repo)
    assert first.returncode == 0, first.stderr
    claude = json.loads((repo / ".mcp.json").read_text())["mcpServers"]
    assert claude["db"] == {"command": "dbserver"}
    assert claude["baker"] == {"command": "sh", "args": GUARD, "alwaysLoad": True}
    gemini_text = (repo / ".gemini" / "settings.json").read_bytes().decode()
    assert "\r\n" in gemini_text and "\n" not in gemini_text.replace("\r\n", "")
    assert json.loads(gemini_text)["mcpServers"]["baker"] == {"command": "sh", "args": GUARD}
    assert "Codex reads MCP servers from the user's config.toml" in first.stdout
    again = run_baker("init", "--mcp", cwd=repo)
    assert ".mcp.json" in again.stdout and "created" not in again.stdout
    assert (repo / ".mcp.json").read_text().count('"baker"') == 1
    assert run_baker("uninstall", cwd=repo).returncode == 0
    assert (repo / ".mcp.json").read_text() == foreign_mcp
    assert (repo / ".gemini" / "settings.json").read_bytes() == foreign_gemini.encode()


def test_uninstall_says_one_line_per_file_and_nothing_of_absent_ones(repo: Path) -> None:
    assert run_baker("init", "--mcp", cwd=repo).returncode == 0
    for args in (("uninstall", "--dry-run"), ("uninstall",)):
        result = run_baker(*args, cwd=repo)
        assert result.returncode == 0, result.stdout + result.stderr
        lines = result.stdout.splitlines()
        # hooks, then the MCP entry, both in .gemini/settings.json: one line
        assert sum(".gemini/settings.json" in line for line in lines) == 1, result.stdout
        assert "settings.local.json" not in result.stdout  # never there: not a line
        assert ".codex/hooks.json" not in result.stdout
        assert "unchanged" not in result.stdout, result.stdout
    assert "removed          .gemini/settings.json" in result.stdout
    assert not (repo / ".gemini" / "settings.json").exists()


def test_global_sync_mcp_for_each_agent_and_its_uninstall(isolated_home: Path) -> None:
    home = isolated_home
    for folder in (".claude", ".codex", ".gemini"):
        (home / folder).mkdir()
    toml = 'model = "o3"  # mine\n\n[mcp_servers.db]\ncommand = "dbserver"\n'
    (home / ".codex" / "config.toml").write_text(toml)
    state = '{"numStartups": 3, "mcpServers": {"db": {"command": "dbserver"}}}'
    (home / ".claude.json").write_text(state)
    result = run_baker("global", "sync", "--mcp", cwd=home)
    assert result.returncode == 0, result.stdout + result.stderr
    import tomllib

    codex = tomllib.loads((home / ".codex" / "config.toml").read_text())["mcp_servers"]
    assert codex["baker"] == {"command": "sh", "args": GUARD} and codex["db"]
    text = (home / ".codex" / "config.toml").read_text()
    assert "# mine" in text and '[mcp_servers.db]\ncommand = "dbserver"\n' in text
    claude = json.loads((home / ".claude.json").read_text())
    assert claude["numStartups"] == 3 and set(claude["mcpServers"]) == {"db", "baker"}
    gemini = json.loads((home / ".gemini" / "settings.json").read_text())
    assert gemini["mcpServers"] == {"baker": {"command": "sh", "args": GUARD}}
    assert run_baker("global", "sync", "--uninstall", cwd=home).returncode == 0
    assert (home / ".codex" / "config.toml").read_text() == toml
    assert (home / ".claude.json").read_text() == state
    assert not (home / ".gemini" / "settings.json").exists()


def test_a_name_taken_by_another_server_is_left_alone(repo: Path) -> None:
    mine = '{"mcpServers": {"baker": {"command": "my-own-baker"}}}\n'
    (repo / ".mcp.json").write_text(mine)
    result = run_baker("init", "--mcp", "--agent", "claude", cwd=repo)
    assert result.returncode == 1 and "runs something else" in result.stdout
    assert (repo / ".mcp.json").read_text() == mine
    run_baker("uninstall", cwd=repo)
    assert (repo / ".mcp.json").read_text() == mine


TOKEN = "ghp_" + "N0t3T0k3nA1b2C3d4E5f6G7h8I9j0K1l2M3n"


def test_the_note_is_redacted_wherever_it_is_printed_or_handed_out(project: Path) -> None:
    """A secret put in the note with `baker now` is stored redacted, with a warning; one the
    agent wrote into the file itself is redacted by `baker note`, `baker now` and MCP `note`."""
    result = run_baker("now", f"rotate {TOKEN} then redeploy", cwd=project)
    assert result.returncode == 0 and "holds a secret (github)" in result.stderr
    assert TOKEN not in (project / "memory" / "hot.md").read_text()
    blocked = run_baker("block", f"waits on {TOKEN}", cwd=project)
    assert "holds a secret" in blocked.stderr
    note = project / "memory" / "hot.md"
    note.write_text(note.read_text().replace("# Gotchas", f"# Gotchas\n- the key was {TOKEN}"))
    shown = run_baker("note", cwd=project).stdout + run_baker("note", "--json", cwd=project).stdout
    assert TOKEN not in shown and "the key was [REDACTED]" in shown
    note.write_text(note.read_text().replace("rotate [REDACTED]", f"rotate {TOKEN}"))
    now = run_baker("now", cwd=project).stdout + run_baker("now", "--json", cwd=project).stdout
    assert TOKEN not in now and "rotate [REDACTED]" in now
    _, results = asyncio.run(
        asyncio.wait_for(
            _session(project, [("note", {}), ("note", {"now": f"use {TOKEN}"})]), timeout=60
        )
    )
    read, wrote = map(_json, results)
    assert TOKEN not in json.dumps(read) and "[REDACTED]" in read["sections"]["Gotchas"]
    assert wrote["sections"]["Now"] == "use [REDACTED]" and wrote["warnings"]
    assert wrote["meta"]["agent"] == "mcp"
    assert "agent: mcp" in note.read_text()


def test_a_tool_argument_out_of_the_commands_bounds_is_a_tool_error(project: Path) -> None:
    _, results = asyncio.run(
        asyncio.wait_for(
            _session(
                project,
                [
                    ("recall", {"query": "tenant", "limit": -1}),
                    ("recall", {"query": "tenant", "limit": 501}),
                    ("handoff", {"budget": 1}),
                    ("sessions", {"limit": 0}),
                    ("handoff", {"budget": 200}),
                ],
            ),
            timeout=60,
        )
    )
    *errors, ok = results
    assert [r.is_error for r in errors] == [True] * 4, [r.content for r in errors]
    messages = [r.content[0].text for r in errors]
    assert "limit must be from 1 to 500, not -1" in messages[0]
    assert "budget must be at least 200, not 1" in messages[2]
    assert _json(ok)["latest_request"] == "Shard the queue workers"


def test_every_tool_answers_what_its_command_prints_with_json(project: Path) -> None:
    """docs/mcp.md: a tool's result is the matching command's `--json` (plus `warnings`). The
    note tool once returned the template's placeholder comments (`"Goal": "<!-- What this
    work is for… -->"`) where `baker note --json` gave `""`."""
    assert run_baker("trap", "add", "scripts/deploy.sh", "needs a VPN", cwd=project).returncode == 0
    _, results = asyncio.run(
        asyncio.wait_for(
            _session(
                project,
                [
                    ("note", {}),
                    ("traps", {}),
                    ("sessions", {}),
                    ("resume_check", {}),
                    ("recall", {"query": "tenant"}),
                    ("handoff", {}),
                ],
            ),
            timeout=60,
        )
    )
    note, traps, sessions, check, recall, handoff = map(_json, results)

    def command(*args: str) -> Any:
        result = run_baker(*args, "--json", cwd=project)
        assert result.stdout, result.stderr
        return json.loads(result.stdout)

    assert note.pop("warnings") == []
    assert note == command("note")
    assert note["sections"]["Goal"] == ""  # no placeholder comment
    assert traps["traps"] == command("trap", "list")
    listed = command("sessions")
    assert {key: sessions[key] for key in listed} == listed
    assert check == command("resume-check")
    assert recall["hits"] == command("recall", "tenant")
    printed = command("handoff")
    assert {k for k in handoff if handoff[k] != printed[k]} <= {"created_at", "markdown"}
    assert handoff["markdown"].split("\n", 3)[3] == printed["markdown"].split("\n", 3)[3]


def test_recall_says_a_rebuilt_archive_once(project: Path) -> None:
    from continuity_core import archive as archive_mod

    assert run_baker("recall", "--index", cwd=project).returncode == 0
    archive_mod.db_path().write_bytes(b"this is not a database" * 500)
    _, [result] = asyncio.run(
        asyncio.wait_for(_session(project, [("recall", {"query": "tenant"})]), timeout=60)
    )
    recall = _json(result)
    assert [w for w in recall["warnings"] if "was unreadable" in w] == [recall["warnings"][0]]
    assert recall["hits"], recall  # rebuilt from what is on disk: the checkpoint again
