"""`baker facts / save / resume-check / usage / list / validate / prune` as an agent runs them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from continuity_cli.app import COMMANDS
from continuity_core import skill
from tests.conftest import git, run_baker
from tests.helpers.drafts import FILLED, SECRETS, make_draft
from tests.helpers.invoke import Invoke
from tests.helpers.samples import TRANSCRIPTS, statusline


def fill(template: str) -> str:
    """What an agent does with `draft_template`: replace each hint with content."""
    out: list[str] = []
    for line in template.splitlines():
        if line.startswith("<!--"):
            continue
        out.append(line)
        if line.startswith("## "):
            out.append(FILLED[line[3:]])
    return "\n".join(out) + "\n"


def saved_id(repo: Path, text: str | None = None) -> str:
    """Save in-process (fast); the command itself is tested on its own above."""
    from continuity_core import saved

    return saved.save(repo, text or make_draft(repo)).id


def test_facts_then_save_then_resume_check(repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("continuity_claude")
    facts = run_baker("facts", "--json", "--agent", "claude", "--session", "s-9", cwd=repo)
    assert facts.returncode == 0, facts.stderr
    data = json.loads(facts.stdout)
    head = git(repo, "rev-parse", "HEAD").strip()
    assert data["front_matter"]["head"] == head and data["front_matter"]["branch"] == "main"
    assert data["usage"]["level"] in ("unknown", "ok")
    assert data["latest_saved"] is None
    assert data["delegated"]["captured"] is False and "not captured" in data["delegated"]["reason"]
    draft = tmp_path / "draft.md"
    draft.write_text(fill(data["draft_template"]))
    before = git(repo, "status", "--porcelain")
    saved = run_baker("save", str(draft), cwd=repo)
    assert saved.returncode == 0, saved.stderr
    said = re.search(r"saved checkpoint (\S+)", saved.stdout)
    assert said is not None, saved.stdout
    cid = said.group(1)
    assert f"/continuity resume {cid}" in saved.stdout
    assert f"$continuity resume {cid}" in saved.stdout
    assert f".baker/saved/{cid}.md" in saved.stdout
    assert git(repo, "status", "--porcelain") == before
    assert git(repo, "log", "--oneline").count("\n") == 1
    check = run_baker("resume-check", "--json", cwd=repo)
    assert check.returncode == 0
    answer = json.loads(check.stdout)
    assert answer["status"] == "fresh" and answer["id"] == cid
    assert answer["unverified"][0]["source"] == "the user's message"
    again = json.loads(run_baker("facts", "--json", cwd=repo).stdout)
    assert again["latest_saved"]["id"] == cid


def test_host_context_is_recorded_redacted_and_must_be_an_object(repo: Path) -> None:
    host = {
        "host": "fleet",
        "delegated": [{"agent": "codex", "id": "t-1"}],
        "token": "ghp_" + "FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6",
    }
    result = run_baker("facts", "--json", "--host-context", json.dumps(host), cwd=repo)
    data = json.loads(result.stdout)
    assert data["host_context"]["host"] == "fleet"
    assert "ghp_" not in result.stdout
    assert data["delegated"]["reported_by_host"] == [{"agent": "codex", "id": "t-1"}]
    bad = run_baker("facts", "--json", "--host-context", "[1]", cwd=repo)
    assert bad.returncode == 2 and "JSON object" in bad.stderr


@pytest.mark.parametrize("secret", SECRETS[:6], ids=lambda s: s[:8])
def test_save_refuses_a_secret_without_echoing_it(repo: Path, tmp_path: Path, secret: str) -> None:
    draft = tmp_path / "draft.md"
    draft.write_text(make_draft(repo, sections={"History": f"- the CI log said {secret}"}))
    for args in (["save", str(draft)], ["save", str(draft), "--json"]):
        result = run_baker(*args, cwd=repo)
        assert result.returncode == 1
        assert "secret" in result.stdout + result.stderr
        assert secret[-12:] not in result.stdout + result.stderr
    assert not (repo / ".baker" / "saved").exists() or not list(
        (repo / ".baker" / "saved").glob("*.md")
    )


def test_save_reads_stdin_and_reports_an_invalid_draft(repo: Path) -> None:
    ok = run_baker("save", "-", "--json", cwd=repo, input=make_draft(repo))
    assert ok.returncode == 0 and json.loads(ok.stdout)["saved"] is True
    bad = run_baker(
        "save", "-", "--json", cwd=repo, input=make_draft(repo, sections={"Artifacts": None})
    )
    assert bad.returncode == 1
    assert "`## Artifacts`" in json.loads(bad.stdout)["validation"]["errors"][0]


def test_resume_check_exit_codes(repo: Path) -> None:
    assert json.loads(run_baker("resume-check", "--json", cwd=repo).stdout)["status"] == "none"
    cid = saved_id(repo)
    refused = run_baker("resume-check", "../../etc/passwd", "--json", cwd=repo)
    assert refused.returncode == 1 and json.loads(refused.stdout)["status"] == "invalid"
    path = repo / ".baker" / "saved" / f"{cid}.md"
    path.write_text(path.read_text().replace("schema_version: 1", "schema_version: 3"))
    blocked = run_baker("resume-check", cid, cwd=repo)
    assert blocked.returncode == 1
    assert blocked.stdout.startswith("blocked") and "update baker" in blocked.stdout


def test_resume_check_across_worktrees(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "side", str(other))
    cid = saved_id(other)
    answer = json.loads(run_baker("resume-check", "--json", cwd=repo).stdout)
    assert answer["status"] == "choose" and answer["candidates"][0]["id"] == cid
    picked = json.loads(run_baker("resume-check", cid, "--json", cwd=repo).stdout)
    assert picked["status"] == "drifted" and picked["worktree"] == str(other)
    listed = json.loads(run_baker("list", "--all", "--json", cwd=repo).stdout)
    assert [c["id"] for c in listed] == [cid]


def test_list_validate_prune(repo: Path, tmp_path: Path) -> None:
    ids = [saved_id(repo) for _ in range(3)]
    listed = run_baker("list", cwd=repo)
    assert listed.stdout.splitlines()[0].startswith(f"* {max(ids)}")
    good = run_baker("validate", str(repo / ".baker" / "saved" / f"{ids[0]}.md"))
    assert good.returncode == 0 and good.stdout.startswith("valid")
    draft = tmp_path / "bad.md"
    draft.write_text(make_draft(repo, sections={"Owner decisions": "- ship it"}))
    bad = run_baker("validate", str(draft), "--json")
    assert bad.returncode == 1 and "author and date" in json.loads(bad.stdout)["errors"][0]
    assert run_baker("prune", cwd=repo).returncode == 2  # --keep is required: never implicit
    dry = json.loads(run_baker("prune", "--keep", "1", "--dry-run", "--json", cwd=repo).stdout)
    assert dry["dry_run"] is True and len(dry["would_remove"]) == 4
    assert all(Path(p).exists() for p in dry["would_remove"])
    assert run_baker("prune", "--keep", "1", "--dry-run", cwd=repo).stdout.startswith(
        "would remove 4 files"
    )
    pruned = json.loads(run_baker("prune", "--keep", "1", "--json", cwd=repo).stdout)
    assert sorted(pruned["removed"]) == sorted(dry["would_remove"])
    assert [c["id"] for c in json.loads(run_baker("list", "--json", cwd=repo).stdout)] == [max(ids)]


def test_usage_from_the_statusline(repo: Path) -> None:
    pytest.importorskip("continuity_claude")
    current = {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_creation_input_tokens": 990,
        "cache_read_input_tokens": 129_000,
    }
    result = run_baker("usage", "--statusline", "--json", cwd=repo, input=statusline(current))
    report = json.loads(result.stdout)
    assert result.returncode == 0
    assert report["level"] == "refresh" and report["context_tokens"] == 130_000
    assert report["percent"] == 65.0 and report["session_id"] == "0f1e2d3c"
    flagged = run_baker(
        "usage", "--statusline", "--json", "--rotate", "60%", cwd=repo, input=statusline(current)
    )
    assert json.loads(flagged.stdout)["level"] == "rotate"
    text = run_baker("usage", "--statusline", cwd=repo, input=statusline(current))
    assert text.stdout.startswith("refresh — 130000 tokens of 200000 (65.0%)")


def test_usage_thresholds_from_config_and_bad_flags(repo: Path, isolated_home: Path) -> None:
    pytest.importorskip("continuity_claude")
    current = {"input_tokens": 40_000}
    (isolated_home / ".baker").mkdir()
    (isolated_home / ".baker" / "config.toml").write_text('[usage]\nprepare = "30k"\n')
    result = run_baker("usage", "--statusline", "--json", cwd=repo, input=statusline(current))
    assert json.loads(result.stdout)["level"] == "prepare"
    bad = run_baker("usage", "--statusline", "--prepare", "lots", cwd=repo, input=b"{}")
    assert bad.returncode == 2 and "neither a percentage" in bad.stderr


def test_usage_unknown_never_prints_a_number(repo: Path) -> None:
    result = run_baker("usage", "--json", cwd=repo)
    report = json.loads(result.stdout)
    assert result.returncode == 0 and report["level"] == "unknown" and report["reason"]
    assert "context_tokens" not in report and "percent" not in report
    line = run_baker("usage", "--statusline", cwd=repo, input=statusline(None))
    assert line.stdout.startswith("unknown — ") and not re.search(r"\d+ tokens", line.stdout)


@pytest.mark.parametrize(
    ("flag", "agent"),
    [("--transcript", "claude"), ("--rollout", "codex"), ("--transcript", "gemini")],
)
def test_usage_of_a_named_transcript(repo: Path, fixtures: Path, flag: str, agent: str) -> None:
    from continuity_core.adapters import load

    pytest.importorskip(f"continuity_{agent}")  # absent: skip; installed: it must load
    load(agent)
    path = fixtures / TRANSCRIPTS[agent]
    result = run_baker(
        "usage", flag, str(path), "--agent", agent, "--json", "--prepare", "1000", cwd=repo
    )
    report = json.loads(result.stdout)
    reached = [
        lvl
        for lvl in ("prepare", "refresh", "rotate")
        if report["context_tokens"] >= report["thresholds"][lvl]
    ]
    assert report["thresholds"]["prepare"] == 1000 and reached
    assert report["level"] == reached[-1]
    assert report["agent"] == agent and report["context_tokens"] > 1000
    ok = json.loads(
        run_baker("usage", flag, str(path), "--agent", agent, "--json", cwd=repo).stdout
    )
    assert ok["level"] == "ok"


def test_the_handoff_brief_shows_the_latest_saved_checkpoint(repo: Path) -> None:
    cid = saved_id(repo)
    (repo / "README.md").write_text("edited after the save\n")
    brief = run_baker("handoff", cwd=repo)
    assert brief.returncode == 0, brief.stderr
    assert "Latest saved checkpoint" in brief.stdout
    assert f"{cid} (drifted)" in brief.stdout


def test_every_command_the_skill_names_exists() -> None:
    named = set(re.findall(r"`baker ([a-z\-]+)", skill.text()))
    assert {"facts", "save", "resume-check", "usage", "list", "validate", "prune"} <= named
    assert named <= set(COMMANDS)


@pytest.mark.parametrize("name", ["facts", "save", "resume-check", "usage", "validate"])
def test_help_documents_exit_codes(cli: Invoke, name: str) -> None:
    result = cli(name, "--help")
    assert result.exit_code == 0 and "Exit codes" in result.output


def test_usage_and_facts_read_the_live_session(
    repo: Path, fixtures: Path, isolated_home: Path
) -> None:
    """A real Claude transcript, moved under this repository, is the live session."""
    discovery = pytest.importorskip("continuity_claude.discovery")
    source = fixtures / TRANSCRIPTS["claude"]
    folder = isolated_home / ".claude" / "projects" / discovery.project_slug(str(repo))
    folder.mkdir(parents=True)
    text = source.read_text().replace('"cwd":"/home/dev/src/weather-cli"', f'"cwd":"{repo}"')
    (folder / source.name).write_text(text)
    env = {"CLAUDE_CONFIG_DIR": str(isolated_home / ".claude")}
    report = json.loads(run_baker("usage", "--json", "--prepare", "20k", cwd=repo, env=env).stdout)
    assert report["agent"] == "claude" and report["session_id"] == source.stem
    assert report["context_tokens"] == 22_446 and report["level"] == "prepare"
    facts = json.loads(run_baker("facts", "--json", cwd=repo, env=env).stdout)
    assert facts["usage"]["level"] == "ok"
    assert facts["front_matter"]["agent"] == "claude"
    assert facts["front_matter"]["session"] == source.stem
