"""Issue 19, case 5: paths are the project's. A hook's paths and commands are read from the
payload's cwd, then made relative to the project root, for traps, files edited and the brief."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.flows import claude_session, payload
from tests.conftest import run_baker

WHY = "integer division lost the decimals"
S7 = "-home-dev-src-client-work-acme-site-v1-2-docs/6a35ca24-e163-428d-9225-ef3d8cc25c7c.jsonl"
S7_CWD = "/home/dev/src/client work/acme_site.v1.2/docs"


@pytest.fixture
def project(repo: Path) -> Path:
    assert run_baker("init", cwd=repo).returncode == 0
    (repo / "weather").mkdir()
    (repo / "weather" / "units.py").write_text("def c(x):\n    return x * 9 // 5 + 32\n")
    assert run_baker("trap", "add", "weather/units.py", WHY, cwd=repo).returncode == 0
    return repo


def context(result_stdout: str) -> str:
    return json.dumps(json.loads(result_stdout)) if result_stdout.strip() else ""


@pytest.mark.parametrize(
    ("agent", "name", "tool_input"),
    [
        (
            "claude",
            "PreToolUse.Edit.json",
            {"file_path": "units.py", "old_string": "//", "new_string": "/"},
        ),
        ("claude", "PreToolUse.Bash.json", {"command": "sed -i 's#//#/#' units.py"}),
        (
            "codex",
            "PreToolUse.apply_patch.json",
            {
                "command": (
                    "*** Begin Patch\n*** Add File: units.py\n+def c(x):\n+    return x * 9 / 5 + 32\n"
                    "*** End Patch\n"
                )
            },
        ),
        ("gemini", "BeforeTool.run_shell_command.json", {"command": "sed -i 's#//#/#' units.py"}),
    ],
)
def test_trap_shows_for_a_call_made_in_a_subfolder(
    project: Path, isolated_home: Path, agent: str, name: str, tool_input: dict[str, str]
) -> None:
    pytest.importorskip(f"continuity_{agent}")
    for where, session in ((project / "weather", "s-sub"), (project, "s-root")):
        data = payload(
            agent,
            name,
            isolated_home,
            project,
            cwd=where,
            session_id=session,
            tool_input=tool_input,
        )
        out = run_baker("pretool", "--agent", agent, cwd=where, input=data)
        assert out.returncode == 0, out.stderr
        shown = WHY in context(out.stdout)
        # From weather/, `units.py` is weather/units.py; from the root it is another file.
        assert shown is (where != project), (agent, where)


def test_a_session_started_in_a_subfolder_lists_project_paths(
    repo: Path, isolated_home: Path
) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "index.md").write_text("# Docs\n")
    assert run_baker("init", cwd=repo).returncode == 0
    assert (
        run_baker(
            "trap", "add", "docs/index.md", "the build rejects front matter", cwd=repo
        ).returncode
        == 0
    )
    claude_session(isolated_home, repo, repo / "docs", rel=S7, project=S7_CWD)
    brief = run_baker("handoff", "--json", cwd=repo)
    assert brief.returncode == 0, brief.stderr
    sections = {s["key"]: s["body"] for s in json.loads(brief.stdout)["sections"]}
    assert "`docs/index.md` (edit" in sections["files"]
    assert "`index.md`" not in sections["files"]
    assert "the build rejects front matter" in sections["traps"]  # the trap on docs/index.md

    start = payload(
        "claude", "SessionStart.json", isolated_home, repo, session_id="next", transcript_path=None
    )
    pickup = json.loads(run_baker("pickup", "--agent", "claude", cwd=repo, input=start).stdout)
    text = pickup["hookSpecificOutput"]["additionalContext"]
    assert "6a35ca24" in text
