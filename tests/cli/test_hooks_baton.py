"""Self-check of the hook commands, as the seed's: on garbage, empty, huge and real stdin every
hook exits 0 with valid JSON or nothing, within its deadline, and pickup stays under its cap."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from continuity_cli.hooks import DEADLINES_S, MAX_STDIN
from continuity_core import traps
from continuity_core.pickup import CAP_CHARS
from tests.conftest import lingering, run_baker

HOOKS = ("checkpoint", "pickup", "pretool")
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def real_payload(fixtures: Path, agent: str, name: str, root: Path) -> bytes:
    """A captured payload with its project folder moved to `root`."""
    text = (fixtures / agent / "hook_payloads" / name).read_text()
    cwd = json.loads(text)["cwd"]
    return text.replace(cwd, str(root)).encode()


def has_adapter(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(f"continuity_{name}") is not None


def require_adapter(name: str) -> None:
    """Skip when the adapter's package is absent; an installed one that fails to load fails."""
    from continuity_core.adapters import load

    pytest.importorskip(f"continuity_{name}")
    load(name)


@pytest.fixture
def project(repo: Path) -> Path:
    assert run_baker("init", cwd=repo).returncode == 0
    return repo


def stdins(fixtures: Path, root: Path) -> dict[str, bytes]:
    return {
        "empty": b"",
        "garbage": b"\x00\xff{not json at all" * 10,
        "wrong-shape": b'[{"session_id": 5, "tool_input": "rm -rf /"}]',
        "huge": b"{" + b"x" * (MAX_STDIN + 10),
        "SessionStart": real_payload(fixtures, "claude", "SessionStart.json", root),
        "PreToolUse.Write": real_payload(fixtures, "claude", "PreToolUse.Write.json", root),
        "Stop": real_payload(fixtures, "claude", "Stop.json", root),
    }


@pytest.mark.parametrize("agent", [None, "claude"])
@pytest.mark.parametrize("hook", HOOKS)
def test_every_hook_exits_0_with_json_or_nothing(
    project: Path, fixtures: Path, hook: str, agent: str | None
) -> None:
    traps.add(project, "weather/*.py", "float rounding broke the conversion tests")
    args = [hook, *(["--agent", agent] if agent else [])]
    for label, data in stdins(fixtures, project).items():
        start = time.monotonic()
        result = run_baker(*args, cwd=project, input=data)
        assert time.monotonic() - start < DEADLINES_S[hook] + 3, (hook, label)
        assert result.returncode == 0, (hook, label, result.stderr)
        assert "Traceback" not in result.stderr, (hook, label)
        out = result.stdout.strip()
        if agent and out:
            json.loads(out)  # an agent gets valid hook JSON or nothing
        if agent and label in ("garbage", "wrong-shape", "huge") and hook != "checkpoint":
            assert out == "", (hook, label, out)


def test_hooks_outside_a_project_print_nothing_but_pickups_facts(
    repo: Path, fixtures: Path
) -> None:
    """Outside a project set up with `baker init` a hook writes nothing; only pickup, on a
    session start, speaks: the read-only facts, saying the repository is not set up."""
    pytest.importorskip("continuity_claude")  # the hooks parse Claude's payloads
    payloads = stdins(fixtures, repo)
    for hook in HOOKS:
        for label in ("empty", "garbage", "SessionStart", "PreToolUse.Write"):
            data = payloads[label]
            result = run_baker(hook, "--agent", "claude", cwd=repo, input=data)
            assert result.returncode == 0, hook
            if (hook, label) == ("pickup", "SessionStart"):
                context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
                assert "not set up for Continuity (no .baker/)" in context
            else:
                assert result.stdout == "", (hook, label)
    assert not (repo / ".baker").exists() and not (repo / "memory").exists()


def test_pretool_with_real_payloads(project: Path, fixtures: Path) -> None:
    traps.add(project, "weather/units.py", "integer division lost the decimals")
    write = real_payload(fixtures, "claude", "PreToolUse.Write.json", project)
    first = run_baker("pretool", cwd=project, input=write)
    assert "integer division lost the decimals" in first.stdout
    assert run_baker("pretool", cwd=project, input=write).stdout == ""  # seen by this session
    if has_adapter("claude"):  # installed: it must work, a broken one fails the test
        other = write.replace(b"48f0d34d", b"58f0d34d")
        out = json.loads(run_baker("pretool", "--agent", "claude", cwd=project, input=other).stdout)
        assert "integer division lost the decimals" in json.dumps(out)
        assert "deny" not in json.dumps(out)  # never blocks the tool call


def test_pretool_bash_payload_matches_command_traps(project: Path, fixtures: Path) -> None:
    traps.add(project, "python3 -c*", "inline scripts hide the failing import", command=True)
    bash = real_payload(fixtures, "claude", "PreToolUse.Bash.json", project)
    assert (
        "inline scripts hide the failing import"
        in run_baker("pretool", cwd=project, input=bash).stdout
    )


def test_pickup_stays_under_its_cap_and_deadline(project: Path, fixtures: Path) -> None:
    note = project / "memory" / "hot.md"
    lines = note.read_text().splitlines()
    filler = [f"- {i}: {'very long line about a finished step ' * 6} {TOKEN}" for i in range(80)]
    note.write_text("\n".join(lines[:8] + filler + lines[8:]) + "\n")
    for i in range(300):
        (project / f"untracked-{i:03}.txt").write_text("x")
    (project / ".baker" / "probes.json").write_text(
        json.dumps(
            {
                "probes": [{"name": "hung", "command": "sleep 60", "timeout_s": 60}]
                + [{"name": f"p{i}", "command": f"echo {TOKEN} probe {i}"} for i in range(30)],
                "jobs": [{"name": f"j{i}", "artifact": f"out/{i}.bin"} for i in range(30)],
            }
        )
    )
    payload = real_payload(fixtures, "claude", "SessionStart.json", project)
    start = time.monotonic()
    result = run_baker("pickup", cwd=project, input=payload)
    elapsed = time.monotonic() - start
    assert result.returncode == 0
    assert elapsed < DEADLINES_S["pickup"], elapsed
    out = result.stdout
    assert 0 < len(out.rstrip("\n")) <= CAP_CHARS
    assert TOKEN not in out
    assert "Execution was not checked" in out
    if has_adapter("claude"):  # installed: it must work, a broken one fails the test
        agent_out = run_baker("pickup", "--agent", "claude", cwd=project, input=payload).stdout
        context = json.dumps(json.loads(agent_out))
        assert TOKEN not in context and "Continuity pickup" in context


def test_hook_failures_are_logged_not_shown(project: Path) -> None:
    # An unreadable traps file is a failure inside the hook: logged, never printed.
    (project / ".baker" / "traps.jsonl").mkdir()
    payload = json.dumps(
        {"session_id": "s", "cwd": str(project), "tool_input": {"file_path": "a.py"}}
    )
    result = run_baker(
        "pretool",
        cwd=project,
        input=payload,
        env={"BAKER_DEBUG": ""} if os.environ.get("BAKER_DEBUG") else None,
    )
    assert (result.returncode, result.stdout) == (0, "")


def place_claude_session(
    fixtures: Path,
    claude_dir: Path,
    project: Path,
    slug_src: str,
    session_file: str,
    *,
    rewrite: bool = True,
    mtime: float | None = None,
) -> Path:
    """A captured Claude transcript filed under `project` (its cwd rewritten to it)."""
    from continuity_claude.discovery import project_slug

    text = (fixtures / "claude" / ".claude" / "projects" / slug_src / session_file).read_text()
    if rewrite:
        text = text.replace(
            "/home/dev/src/" + slug_src.removeprefix("-home-dev-src-"), os.path.realpath(project)
        )
    folder = claude_dir / "projects" / project_slug(os.path.realpath(project))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / session_file
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def test_pickup_summarizes_a_real_interrupted_claude_session(
    project: Path, fixtures: Path, tmp_path: Path
) -> None:
    require_adapter("claude")
    claude_dir = tmp_path / "claude-config"
    now = time.time()
    place_claude_session(
        fixtures,
        claude_dir,
        project,
        "-home-dev-src-data-pipeline",
        "42f346a0-12c0-4151-9060-6bcb27b8e815.jsonl",
        mtime=now - 60,
    )
    # Newer, filed under this project's folder, but its own records say it ran elsewhere.
    place_claude_session(
        fixtures,
        claude_dir,
        project,
        "-home-dev-src-weather-cli",
        "48f0d34d-61b5-40aa-aac6-73b6722315eb.jsonl",
        rewrite=False,
        mtime=now - 10,
    )
    payload = json.dumps(
        {
            "session_id": "11111111-2222-3333-4444-555555555555",
            "cwd": str(project),
            "transcript_path": str(claude_dir / "projects" / "x" / "1111.jsonl"),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
    ).encode()
    result = run_baker(
        "pickup",
        "--agent",
        "claude",
        cwd=project,
        input=payload,
        env={"CLAUDE_CONFIG_DIR": str(claude_dir)},
    )
    assert result.returncode == 0, result.stderr
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "session: claude 42f346a0-12c0-4151-9060-6bcb27b8e815" in context
    assert "tool call with no result: Bash `sleep 60 && ./scripts/integration.sh`" in context
    assert "todo in progress: Run ./scripts/integration.sh" in context
    assert "was working on (the user's last request): Run the integration suite" in context
    assert "48f0d34d" not in context  # another project's session never counts
    assert len(context) <= CAP_CHARS


def test_pickup_reports_the_rate_limit_that_ended_a_real_session(
    project: Path, fixtures: Path, tmp_path: Path
) -> None:
    require_adapter("claude")
    claude_dir = tmp_path / "claude-config"
    place_claude_session(
        fixtures,
        claude_dir,
        project,
        "-home-dev-src-invoice-parser",
        "edca8fb0-fe15-4e8b-a3b4-ae472cc4581f.jsonl",
    )
    result = run_baker("pickup", cwd=project, env={"CLAUDE_CONFIG_DIR": str(claude_dir)})
    assert "ended with error: rate_limit 429" in result.stdout
    assert "todo in progress: Read invoice.py and test_invoice.py" in result.stdout


@pytest.mark.parametrize(
    ("agent", "path_payload", "shell_payload"),
    [
        ("claude", "PreToolUse.Edit.json", "PreToolUse.Bash.json"),
        ("codex", "PreToolUse.apply_patch.json", "PreToolUse.Bash.json"),
        ("gemini", "BeforeTool.write_file.json", "BeforeTool.run_shell_command.json"),
    ],
)
def test_pretool_traps_reach_every_agent(
    project: Path, fixtures: Path, agent: str, path_payload: str, shell_payload: str
) -> None:
    require_adapter(agent)
    traps.add(project, "weather/units.py", "integer division lost the decimals")
    traps.add(project, "python3 -c*", "inline scripts hide the failing import", command=True)
    for name, expected in ((path_payload, "integer division"), (shell_payload, "inline scripts")):
        data = real_payload(fixtures, agent, name, project)
        result = run_baker("pretool", "--agent", agent, cwd=project, input=data)
        assert result.returncode == 0
        assert expected in json.dumps(json.loads(result.stdout)), (agent, name)
        again = run_baker("pretool", "--agent", agent, cwd=project, input=data)
        assert again.stdout == ""  # delivered once per session


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_no_baker_process_outlives_its_command(project: Path, fixtures: Path) -> None:
    """No daemon, no detached helper: once a hook (or handoff) returns, nothing it started
    runs on (docs/decisions.md, "No daemon")."""
    mark = f"baker-test-{os.getpid()}-{time.monotonic_ns()}"
    payloads = stdins(fixtures, project)
    calls = [
        (["pretool", "--agent", "claude"], payloads["PreToolUse.Write"]),
        (["checkpoint", "--agent", "claude"], payloads["Stop"]),
        (["pickup", "--agent", "claude"], payloads["SessionStart"]),
        (["pretool"], payloads["PreToolUse.Write"]),
        (["handoff"], b""),
    ]
    for args, data in calls:
        result = run_baker(*args, cwd=project, input=data, env={"BAKER_TEST_MARK": mark})
        assert result.returncode == 0, (args, result.stderr)
        assert lingering(mark) == [], f"`baker {' '.join(args)}` left a process running"
