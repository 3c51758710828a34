"""A fourth agent plugs in through entry points alone: no change to core or the CLI.

`tests/helpers/fake_agent.py` is installed the way a third-party package would be — a module
and a `*.dist-info/` with `METADATA` and `entry_points.txt` in a folder on `PYTHONPATH` — and
`baker` (a separate process) finds, lists, reads, checkpoints, picks up, guards and checks it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from continuity_core import traps
from tests.conftest import run_baker
from tests.helpers.config import write_config

HELPER = Path(__file__).parent.parent / "helpers" / "fake_agent.py"
SID = "fake-5e55-10n"
REQUEST = "make the parser accept ISO week dates"


@pytest.fixture
def plugin_env(tmp_path: Path, isolated_home: Path) -> dict[str, str]:
    site = tmp_path / "site"
    meta = site / "fake_agent-1.0.dist-info"
    meta.mkdir(parents=True)
    shutil.copy(HELPER, site / "fake_agent.py")
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-agent\nVersion: 1.0\n")
    (meta / "entry_points.txt").write_text(
        "[continuity_core.adapters]\nfake = fake_agent:FakeAdapter\n"
    )
    return {
        "PYTHONPATH": str(site),
        "BAKER_ADAPTERS": "fake",
        "FAKE_AGENT_HOME": str(isolated_home / ".fake-agent"),
    }


def write_session(home: Path, project: Path) -> Path:
    lines = [
        {"type": "meta", "id": SID, "cwd": str(project.resolve())},
        {"type": "user", "text": REQUEST, "ts": "2026-12-01T04:00:00Z"},
        {
            "type": "assistant",
            "text": "Reading weather/dates.py first.",
            "ts": "2026-12-01T04:00:05Z",
        },
        {
            "type": "tool",
            "id": "t1",
            "name": "edit",
            "path": str(project / "dates.py"),
            "ts": "2026-12-01T04:00:09Z",
        },
        {
            "type": "shell",
            "command": "python3 -m unittest test_dates",
            "exit": 1,
            "output": "Traceback (most recent call last):\nValueError: week 53 is out of range",
            "ts": "2026-12-01T04:00:12Z",
        },
    ]
    path = home / "sessions" / f"{SID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def hook(event: str, project: Path, session: str = SID, **more: str) -> str:
    return json.dumps({"event": event, "session_id": session, "cwd": str(project), **more})


def test_a_fourth_adapter_works_through_entry_points(
    repo: Path, plugin_env: dict[str, str]
) -> None:
    def baker(*args: str, input: str | None = None) -> str:
        result = run_baker(*args, cwd=repo, input=input, env=plugin_env)
        assert result.returncode == 0, (args, result.stdout, result.stderr)
        return result.stdout

    write_session(Path(plugin_env["FAKE_AGENT_HOME"]), repo)
    assert "fake" in baker("adapters")
    baker("init")

    rows = json.loads(baker("sessions", "--json"))
    text = json.dumps(rows)
    assert SID in text and "fake" in text

    brief = baker("handoff")
    assert REQUEST in brief and "dates.py" in brief
    assert (
        "- `python3 -m unittest test_dates` — failed, exit 1: ValueError: week 53 is out of range"
        in brief
    )

    baker("checkpoint", "--agent", "fake", input=hook("stop", repo))
    [saved] = (repo / ".baker" / "checkpoints").glob("*.json")
    checkpoint = json.loads(saved.read_text())
    assert checkpoint["session"]["session_id"] == SID
    assert checkpoint["session"]["requests"][-1] == REQUEST

    # a new session starts: it is told what the previous one was doing
    context = json.loads(
        baker("pickup", "--agent", "fake", input=hook("start", repo, session="fake-next"))
    )
    assert REQUEST in context["context"]

    traps.add(repo, "dates.py", "week 53 exists in some years")
    guard = json.loads(
        baker(
            "pretool", "--agent", "fake", input=hook("pre_tool", repo, tool="edit", path="dates.py")
        )
    )
    assert "week 53 exists in some years" in guard["context"]

    doctor = run_baker("doctor", cwd=repo, env=plugin_env).stdout
    assert "fake agent: 1 session(s)" in doctor
    assert f"fake: account {plugin_env['FAKE_AGENT_HOME']}" in doctor


@pytest.mark.parametrize("written", ["~/gem-work", "gem-work/.gemini"])
def test_resume_under_a_named_account_of_another_agent(
    repo: Path, plugin_env: dict[str, str], isolated_home: Path, written: str
) -> None:
    """`[accounts.work] agent = "gemini", dir = "~/gem-work"` (the issue's words; or the
    `.gemini` folder itself): `baker resume gemini --account work` starts Gemini CLI in that
    account, not the default one, with the brief of the fake agent's session."""
    pytest.importorskip("continuity_gemini")
    write_session(Path(plugin_env["FAKE_AGENT_HOME"]), repo)
    work = isolated_home / "gem-work"
    (work / ".gemini").mkdir(parents=True)
    dir_ = written if written.startswith("~") else str(isolated_home / written)
    write_config(isolated_home, f'[accounts.work]\nagent = "gemini"\ndir = "{dir_}"\n')
    env = {**plugin_env, "BAKER_ADAPTERS": "fake,gemini"}
    result = run_baker(
        "resume", "gemini", "--account", "work", "--dry-run", "--json", cwd=repo, env=env
    )
    assert result.returncode == 0, result.stderr
    launch = json.loads(result.stdout)
    assert launch["launch"]["argv"][0] == "gemini"
    assert launch["launch"]["env"]["GEMINI_CLI_HOME"] == str(work)
    assert REQUEST in json.dumps(launch)


def test_resume_under_a_folder_the_adapter_resolves(
    repo: Path, plugin_env: dict[str, str], isolated_home: Path
) -> None:
    """`--account ~/gem-work`, a folder in no config: read as Gemini CLI reads GEMINI_CLI_HOME
    (its files in `.gemini` below), the same folder a named account would resolve to."""
    pytest.importorskip("continuity_gemini")
    write_session(Path(plugin_env["FAKE_AGENT_HOME"]), repo)
    (isolated_home / "gem-work" / ".gemini").mkdir(parents=True)
    env = {**plugin_env, "BAKER_ADAPTERS": "fake,gemini"}
    result = run_baker(
        "resume", "gemini", "--account", "~/gem-work", "--dry-run", "--json", cwd=repo, env=env
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["launch"]["env"]["GEMINI_CLI_HOME"] == str(
        isolated_home / "gem-work"
    )
    missing = run_baker("resume", "gemini", "--account", "nowhere", "--dry-run", cwd=repo, env=env)
    assert missing.returncode == 1 and "no gemini account named 'nowhere'" in missing.stderr


def test_a_fourth_adapters_install_option_shows_and_reaches_it(
    repo: Path, plugin_env: dict[str, str]
) -> None:
    """`install_options` alone make `baker global sync --mark`: shown under the agent's name in
    `--help`, its value handed to that adapter's `install_user` and to no other."""
    home = Path(plugin_env["FAKE_AGENT_HOME"])
    home.mkdir(parents=True)
    shown = run_baker("global", "sync", "--help", cwd=repo, env=plugin_env)
    assert shown.returncode == 0, shown.stderr
    assert "Fake Agent options:" in shown.stdout
    assert "--mark, --fake-mark" in shown.stdout and "marker file" in shown.stdout

    quiet = run_baker("global", "sync", "--json", cwd=repo, env=plugin_env)
    assert quiet.returncode == 0, quiet.stderr
    assert json.loads(quiet.stdout)[0]["changes"][0]["action"] == "skipped"
    assert not (home / "baker-marker").exists()

    for flag in ("--mark", "--fake-mark"):
        marked = run_baker("global", "sync", flag, "--json", cwd=repo, env=plugin_env)
        assert marked.returncode == 0, marked.stderr
        [entry] = json.loads(marked.stdout)
        assert entry["agent"] == "fake" and entry["changes"][0]["detail"] == "marker left"
        assert (home / "baker-marker").is_file()
        (home / "baker-marker").unlink()

    unknown = run_baker("global", "sync", "--chain", cwd=repo, env=plugin_env)
    assert unknown.returncode == 2 and "--chain" in unknown.stderr  # Codex is not loaded here
