"""Issue 19, case 4: a broken ~/.baker/config.toml never silences the hooks. They fall back to
the default accounts and keep checkpointing, pickup says the config is broken and where,
`audit` still runs, and `doctor` checks agent names and account folders."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.cli.flows import claude_session, payload
from tests.conftest import run_baker
from tests.helpers.config import rotation, work_account, write_config

TYPO = "[transcript]\nclaude = []\n"  # meant: [transcripts]


@pytest.fixture
def project(repo: Path, isolated_home: Path) -> Path:
    # The CLI installed alone has no adapter: then the project is set up for none.
    agents = ["--agent", "claude"] if importlib.util.find_spec("continuity_claude") else []
    assert run_baker("init", *agents, cwd=repo).returncode == 0
    write_config(isolated_home, TYPO)
    return repo


def test_hooks_keep_checkpointing_and_pickup_says_why(project: Path, isolated_home: Path) -> None:
    transcript = claude_session(isolated_home, project)
    stop = payload("claude", "Stop.json", isolated_home, project, transcript_path=str(transcript))
    result = run_baker("checkpoint", "--agent", "claude", cwd=project, input=stop)
    assert (result.returncode, result.stderr) == (0, "")
    [cp] = (project / ".baker" / "checkpoints").glob("*.json")
    assert json.loads(cp.read_text())["session"]["session_id"].startswith("48f0d34d")

    start = payload(
        "claude",
        "SessionStart.json",
        isolated_home,
        project,
        session_id="a-new-session",
        transcript_path=None,
    )
    out = run_baker("pickup", "--agent", "claude", cwd=project, input=start)
    context = json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]
    [line] = [ln for ln in context.splitlines() if "config is broken" in ln]
    assert "config.toml, line 1: unknown section [transcript]" in line
    assert "did you mean [transcripts]" in line and "default accounts" in line
    assert "48f0d34d" in context  # the previous session was still found, on the default account

    audit = run_baker("audit", "--json", cwd=project)
    assert audit.returncode == 1, audit.stderr  # a check failed: exit 1, as doctor
    problems = json.loads(audit.stdout)["problems"]
    [config] = [p for p in problems if p["check"] == "config"]
    assert config["level"] == "error" and "line 1" in config["message"]
    assert "msgspec" not in audit.stdout and "Object contains" not in audit.stdout


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            '[brief]\nbudget-tokens = "lots"\n',
            "line 2: `budget-tokens` in [brief] must be a whole number, not a quoted string",
        ),
        (
            '[usage]\nprepare = "50%"\nrotate_at = "75%"\n',
            "line 3: unknown key `rotate_at` in [usage]",
        ),
        ('[accounts.work]\nagent = "claude"\n', "line 1: [accounts.work] needs `dir`"),
    ],
)
def test_messages_name_file_line_and_key(
    project: Path, isolated_home: Path, text: str, words: str
) -> None:
    (isolated_home / ".baker" / "config.toml").write_text(text)
    result = run_baker("handoff", cwd=project)
    assert result.returncode == 1
    assert words in result.stderr and "config.toml" in result.stderr
    assert "Object" not in result.stderr and "$." not in result.stderr


def test_doctor_checks_agent_names_and_account_folders(project: Path, isolated_home: Path) -> None:
    pytest.importorskip("continuity_claude")
    work = work_account(isolated_home)
    write_config(
        isolated_home,
        work.replace('"claude"', '"claud"') + "\n"
        f'[accounts.gone]\nagent = "claude"\ndir = "{isolated_home / "nowhere"}"\n\n'
        '[transcripts]\nclaud = ["~/.claude"]\n',
    )
    result = run_baker("doctor", cwd=project)
    assert result.returncode == 1
    assert "[transcripts] claud: not an installed agent" in result.stdout
    assert "write claude = [...]" in result.stdout
    assert "[accounts.work]: agent = 'claud' is not an installed agent" in result.stdout
    assert 'write agent = "claude"' in result.stdout
    assert "[accounts.gone]: dir = " in result.stdout and "no such folder" in result.stdout
    write_config(isolated_home, work)
    assert "[accounts." not in run_baker("doctor", cwd=project).stdout


def test_doctor_checks_the_rotation(project: Path, isolated_home: Path) -> None:
    for agent in ("claude", "codex"):  # the entries name them
        pytest.importorskip(f"continuity_{agent}")
    write_config(
        isolated_home,
        work_account(isolated_home)
        + "\n"
        + rotation(["claude", "codexx", "claude:nope", "claude:work"]),
    )
    result = run_baker("doctor", cwd=project)
    assert result.returncode == 1
    assert "[rotation] order: 'codexx' names no installed agent" in result.stdout
    assert "write 'codex'" in result.stdout
    assert "[rotation] order: 'claude:nope': " in result.stdout
    assert "'claude:work'" not in result.stdout and "order: 'claude' " not in result.stdout


def test_doctor_names_each_account_once_and_the_real_files(repo: Path, isolated_home: Path) -> None:
    for agent in ("claude", "codex", "gemini"):  # absent where the CLI is installed alone
        pytest.importorskip(f"continuity_{agent}")
    claude, codex, gemini = (isolated_home / n for n in ("c-home", "x-home", "g-home"))
    (gemini / ".gemini").mkdir(parents=True)
    write_config(isolated_home, f'[transcripts]\nclaude = ["{isolated_home / "listed"}"]\n')
    env = {
        "CLAUDE_CONFIG_DIR": str(claude),
        "CODEX_HOME": str(codex),
        "GEMINI_CLI_HOME": str(gemini),
    }
    out = run_baker("doctor", cwd=repo, env=env).stdout
    # the environment's folder is named by its variable, for Claude as for Codex
    assert f"claude: account CLAUDE_CONFIG_DIR ({claude}): not present" in out
    assert f"codex: account CODEX_HOME ({codex}): not present" in out
    assert f"gemini: account GEMINI_CLI_HOME ({gemini / '.gemini'}): " in out
    listed = isolated_home / "listed"
    assert f"claude: account {listed}: not present" in out  # a path is not said twice
    assert f"set cleanupPeriodDays in {claude / 'settings.json'}" in out
    assert "~/.claude/settings.json" not in out
    if "is not a trusted folder" in out:
        assert f"to {gemini / '.gemini' / 'trustedFolders.json'} yourself" in out
