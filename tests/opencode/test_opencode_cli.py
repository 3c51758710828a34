"""`baker` with OpenCode: hooks from the plugin's payloads, handoff, resume, limits, usage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("continuity_opencode")

from tests.conftest import git, run_baker
from tests.helpers.config import write_config
from tests.opencode.helpers import LIMITED, MAIN, PAYLOADS, home_copy


@pytest.fixture
def setup(tmp_path: Path, isolated_home: Path) -> tuple[Path, dict[str, str]]:
    """The captured home as this user's OpenCode data, its `proj` a git repo with baker."""
    data, work = home_copy(tmp_path)
    project = work / "proj"
    git(project, "init", "-q", "-b", "main")
    (project / "hello.txt").write_text("hello mock\n")
    git(project, "add", ".")
    git(project, "commit", "-qm", "hello")
    config = tmp_path / "config" / "opencode"
    config.mkdir(parents=True)
    (config / "opencode.json").write_text(
        '{"provider": {"mock": {"models": {"m1": {"limit": {"context": 1500}}}}}}'
    )
    env = {
        "XDG_DATA_HOME": str(data.parent),
        "XDG_CONFIG_HOME": str(config.parent),
        "PATH": f"{tmp_path / 'no-opencode'}:/usr/bin:/bin",
    }
    assert run_baker("init", cwd=project, env=env).returncode == 0
    return project, env


def _payload(name: str, project: Path, session: str) -> bytes:
    data = json.loads((PAYLOADS / name).read_text())
    data["session_id"], data["cwd"] = session, str(project)
    return json.dumps(data).encode()


def test_idle_checkpoint_and_pickup(setup: tuple[Path, dict[str, str]]) -> None:
    project, env = setup
    assert (project / ".opencode" / "plugin" / "baker-continuity.js").is_file()  # init put it
    idle = _payload("session.idle.json", project, MAIN)
    result = run_baker("checkpoint", "--agent", "opencode", cwd=project, input=idle, env=env)
    assert result.returncode == 0 and result.stdout == ""
    (saved,) = (project / ".baker" / "checkpoints").glob("*.json")
    session = json.loads(saved.read_text())["session"]
    assert session["agent"] == "opencode" and session["session_id"] == MAIN
    assert session["requests"][-1] == "Run the slow build"
    start = _payload("session.start.json", project, "ses_anewsessionstartingnow1")
    out = run_baker("pickup", "--agent", "opencode", cwd=project, input=start, env=env)
    assert out.returncode == 0
    context = json.loads(out.stdout)["context"]
    assert "Run the slow build" in context


def test_handoff_carries_every_fact(setup: tuple[Path, dict[str, str]]) -> None:
    project, env = setup
    result = run_baker("handoff", "--from", "opencode", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    brief = result.stdout  # (commands and sub-agents: Session-level, test_opencode_sessions)
    for fact in (
        "Run the slow build",  # the latest request, verbatim
        "Check the long job",  # a todo in progress
        "Old idea",
        "hello.txt",
        "docs/notes.md",
        "sleep 100",  # the interrupted call
        "Cannot connect to API",  # the last error
        "Summary: hello.txt was created",
        f"#{MAIN}",
    ):
        assert fact in brief, fact


def test_resume_opencode_dry_run_without_the_cli(setup: tuple[Path, dict[str, str]]) -> None:
    project, env = setup
    result = run_baker("resume", "opencode", "--dry-run", "--json", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    assert "`opencode` is not on PATH" in result.stderr
    launch = json.loads(result.stdout)["launch"]
    assert launch["argv"][:2] == ["opencode", "--prompt"]
    assert "Run the slow build" in launch["argv"][2]


def test_a_429_from_the_plugin_is_a_limit_and_rotation_names_opencode(
    setup: tuple[Path, dict[str, str]], isolated_home: Path
) -> None:
    project, env = setup
    write_config(
        isolated_home,
        '[rotation]\norder = ["opencode", "opencode:work"]\n\n'
        f'[accounts.work]\nagent = "opencode"\ndir = "{isolated_home / "work" / "opencode"}"\n',
    )
    raw = json.loads(_payload("session.error.json", project, LIMITED))
    raw["error"]["data"]["responseHeaders"]["retry-after"] = "600"  # the capture's said 1 s
    error = json.dumps(raw).encode()
    assert (
        run_baker("checkpoint", "--agent", "opencode", cwd=project, input=error, env=env).returncode
        == 0
    )
    rows = json.loads(run_baker("limits", "--json", cwd=project, env=env).stdout)
    assert [(r["entry"], r["limited"]) for r in rows] == [
        ("opencode", True),
        ("opencode:work", False),
    ]
    assert rows[0]["until"] > rows[0]["since"]  # retry-after from the error
    nxt = run_baker("resume", "--next", "--dry-run", "--json", cwd=project, env=env)
    assert nxt.returncode == 0, nxt.stderr
    launch = json.loads(nxt.stdout)["launch"]
    assert launch["argv"][0] == "opencode"
    assert launch["env"]["XDG_DATA_HOME"] == str(isolated_home / "work")


def test_usage_level_from_token_counts(setup: tuple[Path, dict[str, str]]) -> None:
    project, env = setup
    result = run_baker("usage", "--json", "--agent", "opencode", cwd=project, env=env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["context_tokens"] == 1200 and report["context_window"] == 1500
    assert report["level"] in ("prepare", "refresh", "rotate")


def test_a_long_retry_opencode_waits_out_is_a_limit(setup: tuple[Path, dict[str, str]]) -> None:
    """OpenCode waits out an hour's retry-after instead of failing: the plugin's
    session.retry makes it a limit `baker run` and `limits` see, until OpenCode's `next`."""
    import time

    project, env = setup
    raw = json.loads(_payload("session.retry.json", project, LIMITED))
    raw["retry"]["next"] = int((time.time() + 3600) * 1000)
    result = run_baker(
        "checkpoint", "--agent", "opencode", cwd=project, input=json.dumps(raw), env=env
    )
    assert result.returncode == 0
    rows = json.loads(run_baker("limits", "--json", cwd=project, env=env).stdout)
    (row,) = [r for r in rows if r["entry"] == "opencode"]
    assert row["limited"] and row["until"] > row["since"]


def test_sessions_shows_no_byte_size_for_database_rows(setup: tuple[Path, dict[str, str]]) -> None:
    """A session kept as database rows has no file size: "—" and `null`, never "0 B"."""
    project, env = setup
    shown = run_baker("sessions", cwd=project, env=env)
    assert shown.returncode == 0, shown.stderr
    line = next(ln for ln in shown.stdout.splitlines() if MAIN in ln)
    assert " — " in line and " 0 B" not in line
    rows = json.loads(run_baker("sessions", "--json", cwd=project, env=env).stdout)["sessions"]
    assert {r["id"]: r["size"] for r in rows}[MAIN] is None
