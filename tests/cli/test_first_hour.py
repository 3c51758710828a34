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
