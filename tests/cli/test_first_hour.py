"""What a new user trips on in the first hour (issue 31): each test runs the real flow."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_baker
from tests.helpers.config import work_account, write_config


def test_a_misspelled_command_agent_or_account_is_answered_with_the_nearest_name(
    repo: Path, isolated_home: Path
) -> None:
    """`baker handof` gave no suggestion and `handoff --from claud` said to install a
    `continuity-cli[claud]` extra that does not exist."""
    result = run_baker("handof", cwd=repo)
    assert result.returncode == 2
    assert "No such command 'handof'. Did you mean 'handoff'?" in result.stderr
    assert "Did you mean 'sync'?" in run_baker("global", "synk", cwd=repo).stderr

    for args in (("handoff", "--from", "claud"), ("resume", "claud", "--dry-run")):
        result = run_baker(*args, cwd=repo)
        assert result.returncode == 1, args
        assert "did you mean 'claude'?" in result.stderr and "pip install" not in result.stderr
    # a name close to none: the install hint stays
    assert 'pip install "continuity-cli[kilo]"' in run_baker("handoff", "--from", "kilo").stderr

    write_config(isolated_home, work_account(isolated_home))
    result = run_baker("handoff", "--account", "wrok", cwd=repo)
    assert result.returncode == 1
    assert "no account 'wrok' is known (did you mean 'work'? accounts: work (claude)" in (
        result.stderr
    )


def _counts(repo: Path, home: Path, session: str) -> dict[str, object]:
    """What each command says is uncommitted: `status`, `facts`, `handoff` and the pickup."""
    import json

    from tests.cli.flows import payload

    status = json.loads(run_baker("status", "--json", cwd=repo).stdout)["git"]
    facts = json.loads(run_baker("facts", "--json", cwd=repo).stdout)["git"]
    brief = json.loads(run_baker("handoff", "--json", cwd=repo).stdout)["repo"]
    # a new session each time: the pickup speaks once per session
    event = payload("claude", "SessionStart.startup.json", home, repo, cwd=repo, session_id=session)
    pickup = run_baker("pickup", "--agent", "claude", cwd=repo, input=event).stdout
    context = json.loads(pickup)["hookSpecificOutput"]["additionalContext"]
    return {
        "status": status.get("dirty", []),
        "facts": facts.get("dirty", []),
        "handoff": brief["uncommitted"],
        "pickup": [line.strip(" -`") for line in context.splitlines() if line.startswith("  - `")],
        "pickup_clean": "working tree clean" in context,
    }


def test_every_command_counts_the_users_work_by_one_rule(repo: Path, isolated_home: Path) -> None:
    """After `baker init`, `git status` shows baker's own files; `facts` counted them where the
    brief, `status` and the pickup did not. One rule: the files `init` wrote, while they are
    as it wrote them, are not the user's work; an edit to one is."""
    import subprocess

    assert run_baker("init", cwd=repo).returncode == 0
    porcelain = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert "?? AGENTS.md" in porcelain and "?? .gitignore" in porcelain
    clean = _counts(repo, isolated_home, "s-1")
    assert clean == {"status": [], "facts": [], "handoff": [], "pickup": [], "pickup_clean": True}

    (repo / "app.py").write_text("print('mine')\n")
    with (repo / "AGENTS.md").open("a") as f:
        f.write("\nOur own rule: run the tests first.\n")
    work = ["?? AGENTS.md", "?? app.py"]
    counted = _counts(repo, isolated_home, "s-2")
    assert counted == {
        "status": work,
        "facts": work,
        "handoff": work,
        "pickup": work,
        "pickup_clean": False,
    }
