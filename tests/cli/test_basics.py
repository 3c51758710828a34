from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_cli.app import COMMANDS
from continuity_cli.app import cli as app
from tests.conftest import run_baker
from tests.helpers.invoke import Invoke


def subcommands() -> list[list[str]]:
    import click

    out: list[list[str]] = []
    ctx = click.Context(app)
    for name in COMMANDS:
        cmd = app.get_command(ctx, name)
        out.append([name])
        if isinstance(cmd, click.Group):
            out += [[name, sub] for sub in cmd.list_commands(ctx)]
    return out


@pytest.mark.parametrize("args", subcommands(), ids=" ".join)
def test_every_command_has_help(cli: Invoke, args: list[str]) -> None:
    result = cli(*args, "--help")
    assert result.exit_code == 0
    assert "Usage: " in result.output and len(result.output.splitlines()) > 3
    commands = result.output.partition("\nCommands:\n")[2]
    assert "..." not in commands, commands  # each description whole, never cut by click


def test_version(cli: Invoke) -> None:
    result = cli("--version")
    assert result.exit_code == 0 and "baker, version 0.1.0" in result.output


def test_init_is_idempotent_and_dry_run_writes_nothing(repo: Path) -> None:
    dry = run_baker("init", "--dry-run", cwd=repo)
    assert dry.returncode == 0 and "would be created" in dry.stdout
    assert not (repo / ".baker").exists() and not (repo / "AGENTS.md").exists()
    first = run_baker("init", cwd=repo)
    assert first.returncode == 0, first.stderr
    for path in (".baker", "memory/hot.md", "AGENTS.md", ".gitignore"):
        assert (repo / path).exists(), path
    snapshot = {
        p: p.read_bytes()
        for p in repo.rglob("*")
        if p.is_file() and ".git/" not in str(p) and ".baker" not in p.parts
    }
    second = run_baker("init", cwd=repo)
    assert second.returncode == 0
    assert {p: p.read_bytes() for p in snapshot} == snapshot
    gitignore = (repo / ".gitignore").read_text()
    assert ".baker/" in gitignore and "memory/hot.md" in gitignore
    assert (repo / "AGENTS.md").read_text().count("continuity:begin") == 1


def test_init_keeps_an_existing_agents_md(repo: Path) -> None:
    (repo / "AGENTS.md").write_text("# House rules\nBe nice.\n")
    run_baker("init", cwd=repo)
    text = (repo / "AGENTS.md").read_text()
    assert text.startswith("# House rules\nBe nice.\n")
    assert "memory/hot.md" in text


def test_checkpoint_then_handoff_shows_its_facts(repo: Path) -> None:
    run_baker("init", cwd=repo)
    (repo / "work.py").write_text("print(1)\n")
    cp = run_baker("checkpoint", cwd=repo)
    assert cp.returncode == 0 and cp.stdout.startswith("checkpoint ")
    cp_id = cp.stdout.split()[1]
    brief = run_baker("handoff", cwd=repo)
    assert brief.returncode == 0
    assert cp_id in brief.stdout
    assert "branch: main" in brief.stdout and "work.py" in brief.stdout
    as_json = json.loads(run_baker("handoff", "--json", cwd=repo).stdout)
    assert as_json["project"] == str(repo)
    assert {s["key"] for s in as_json["sections"]} >= {"first_move", "repo", "checkpoint"}


def test_handoff_output_file_and_budget(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "brief.md"
    result = run_baker("handoff", "-o", str(out), "--budget", "200", cwd=repo)
    assert result.returncode == 0 and "Brief saved" in result.stderr
    assert out.read_text().startswith("# Handoff brief")


def test_handoff_works_outside_git(tmp_path: Path) -> None:
    result = run_baker("handoff", cwd=tmp_path)
    assert result.returncode == 0
    assert "Not a git repository" in result.stdout


def test_errors_are_one_line_with_exit_1(tmp_path: Path) -> None:
    result = run_baker("sync", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr.startswith("Error: ") and "baker init" in result.stderr
    assert "Traceback" not in result.stderr


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run_baker("handoff", "--budget", "abc", cwd=tmp_path).returncode == 2
    assert run_baker("no-such-command", cwd=tmp_path).returncode == 2


def test_config_typo_is_reported_by_handoff(repo: Path, isolated_home: Path) -> None:
    (isolated_home / ".baker").mkdir()
    (isolated_home / ".baker" / "config.toml").write_text("[transcript]\nclaude = []\n")
    result = run_baker("handoff", cwd=repo)
    assert result.returncode == 1
    assert (
        "unknown section [transcript]" in result.stderr and "config.toml, line 1" in result.stderr
    )
    assert "did you mean [transcripts]" in result.stderr


@pytest.mark.parametrize("hook", ["checkpoint", "pickup", "pretool"])
@pytest.mark.parametrize("payload", [b"", b"garbage", b"\xff\xfe", b'{"hook_event_name": 3}'])
def test_hooks_never_fail(repo: Path, hook: str, payload: bytes) -> None:
    run_baker("init", cwd=repo)
    for agent in ([], ["--agent", "claude"], ["--agent", "no-such-agent"]):
        result = run_baker(
            hook,
            *agent,
            "--quiet" if hook == "checkpoint" else "--agent=claude",
            cwd=repo,
            input=payload,
        )
        assert result.returncode == 0
        assert "Traceback" not in result.stderr
        if result.stdout.strip() and agent:
            json.loads(result.stdout)


def test_hooks_do_nothing_outside_a_project(tmp_path: Path) -> None:
    result = run_baker("checkpoint", "--agent", "claude", "--quiet", cwd=tmp_path, input=b"{}")
    assert result.returncode == 0 and result.stdout == ""
    assert not (tmp_path / ".baker").exists()


def test_init_and_uninstall_keep_crlf_files_byte_for_byte(repo: Path) -> None:
    original = b"# House rules\r\nBe nice.\r\n"
    (repo / "AGENTS.md").write_bytes(original)
    (repo / ".gitignore").write_bytes(b"node_modules/\r\n")
    run_baker("init", cwd=repo)
    assert (repo / "AGENTS.md").read_bytes().startswith(original)
    assert (repo / ".gitignore").read_bytes().startswith(b"node_modules/\r\n")
    removed = run_baker("uninstall", cwd=repo)
    assert (repo / "AGENTS.md").read_bytes() == original
    # the data stays, and so do the lines that keep it out of commits: said, not silent
    assert (repo / ".baker").is_dir() and b".baker/" in (repo / ".gitignore").read_bytes()
    assert "skipped          .gitignore — .baker/ and memory/hot.md stay" in removed.stdout
