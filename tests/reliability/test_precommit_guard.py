"""The pre-commit guard, through real `git commit`s: a staged secret or a staged private file
stops the commit (and says where, never what); a clean commit goes; an existing hook is
chained and comes back on uninstall; a commit is checked by the baker that installed the hook when baker is not on PATH, and
lets the commit go with a warning when that baker is gone."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

from tests.conftest import BIN, git, run_baker

FAKE_KEY = "ghp_" + "Zq8wX2cV5bN7mL0kJ4hG6fD1sA3pO9iU2yT5"
DB_PASS = "Hn4bV7cX1zLkQ2"


def commit(root: Path, *args: str, path: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": path if path is not None else f"{BIN}{os.pathsep}{os.environ['PATH']}",
    }
    return subprocess.run(
        ["git", "commit", "-m", "test", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").strip()


def test_guard_blocks_secrets_and_the_private_store_and_lets_clean_commits_go(
    repo: Path, isolated_home: Path
) -> None:
    result = run_baker("init", "--pre-commit", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "pre-commit" in result.stdout
    hook = repo / ".git" / "hooks" / "pre-commit"
    assert os.access(hook, os.X_OK)
    git(repo, "add", "-A")
    assert commit(repo).returncode == 0  # what init wrote (AGENTS.md, .gitignore) is fine

    # A fake key on line 3 of a new file, a password on line 2 of another.
    (repo / "deploy.sh").write_text(f"#!/bin/sh\necho deploy\nexport GH={FAKE_KEY}\n")
    (repo / "settings.env").write_text(f"DEBUG=1\nDB_PASS={DB_PASS}\n")
    git(repo, "add", "deploy.sh", "settings.env")
    before = head(repo)
    result = commit(repo)
    assert result.returncode != 0 and head(repo) == before
    out = result.stdout + result.stderr
    assert "deploy.sh:3: a secret (github)" in out, out
    assert "settings.env:2: a secret (assignment)" in out, out
    assert "git commit --no-verify" in out
    assert FAKE_KEY[4:16] not in out and DB_PASS not in out

    # Removing the secret lets the commit go.
    (repo / "deploy.sh").write_text("#!/bin/sh\necho deploy\nexport GH=$GITHUB_TOKEN\n")
    (repo / "settings.env").write_text("DEBUG=1\nDB_PASS=${DB_PASS}\n")
    git(repo, "add", "deploy.sh", "settings.env")
    result = commit(repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert head(repo) != before

    # The private store and the note, even forced past .gitignore.
    (repo / ".baker" / "checkpoints" / "x.json").write_text("{}")
    git(repo, "add", "-f", ".baker/checkpoints/x.json")
    before = head(repo)
    result = commit(repo)
    assert result.returncode != 0 and head(repo) == before
    assert ".baker/checkpoints/x.json: Continuity's private store" in result.stderr
    git(repo, "reset", "-q")
    git(repo, "add", "-f", "memory/hot.md")
    result = commit(repo)
    assert result.returncode != 0 and "memory/hot.md" in result.stderr

    # The machine-readable form, and the escape the message names.
    result = run_baker("precommit", "--json", cwd=repo)
    assert result.returncode == 1
    assert json.loads(result.stdout) == [{"path": "memory/hot.md", "line": 0, "kind": "private"}]
    assert commit(repo, "--no-verify").returncode == 0


def test_guard_chains_an_existing_hook_and_uninstall_puts_it_back(
    repo: Path, isolated_home: Path
) -> None:
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    original = '#!/bin/sh\necho ran >> "$(git rev-parse --git-dir)/chained-ran"\nexit 0\n'
    (hooks / "pre-commit").write_text(original)
    (hooks / "pre-commit").chmod(0o755)
    result = run_baker("init", "--pre-commit", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "runs first" in result.stdout
    assert run_baker("init", "--pre-commit", cwd=repo).returncode == 0  # again: unchanged
    assert (hooks / "pre-commit.baker-chained").read_text() == original

    (repo / "notes.txt").write_text(f"token: {FAKE_KEY}\n")
    git(repo, "add", "notes.txt")
    assert commit(repo).returncode != 0
    assert (repo / ".git" / "chained-ran").read_text() == "ran\n"  # the old hook ran first

    # A failing chained hook blocks on its own.
    (hooks / "pre-commit.baker-chained").write_text("#!/bin/sh\nexit 7\n")
    (repo / "notes.txt").write_text("nothing secret\n")
    git(repo, "add", "notes.txt")
    assert commit(repo).returncode != 0
    (hooks / "pre-commit.baker-chained").write_text(original)

    result = run_baker("uninstall", cwd=repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (hooks / "pre-commit").read_text() == original
    assert not (hooks / "pre-commit.baker-chained").exists()
    assert run_baker("uninstall", cwd=repo).returncode == 0  # nothing left to remove


def _git_only_path() -> str:
    """A PATH with git and the system folders, and no baker."""
    git_dir = os.path.dirname(
        subprocess.run(
            ["sh", "-c", "command -v git"], capture_output=True, text=True, check=True
        ).stdout.strip()
    )
    return os.pathsep.join(dict.fromkeys([git_dir, "/usr/bin", "/bin"]))


def test_off_path_the_hook_runs_the_baker_that_installed_it(
    repo: Path, isolated_home: Path
) -> None:
    path = _git_only_path()
    result = run_baker("init", "--pre-commit", cwd=repo, env={"PATH": path})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "`baker` is not on PATH" in result.stderr and "falls back to" in result.stderr
    hook = (repo / ".git" / "hooks" / "pre-commit").read_text()
    assert f"BAKER={shlex.quote(str(BIN / 'baker'))}" in hook
    (repo / "notes.txt").write_text(f"{FAKE_KEY}\n")
    git(repo, "add", "notes.txt")
    before = head(repo)
    result = commit(repo, path=path)
    assert result.returncode != 0 and head(repo) == before, result.stdout + result.stderr
    assert "notes.txt:1: a secret (github)" in result.stderr


def test_a_hook_whose_baker_is_gone_warns_and_lets_the_commit_go(
    repo: Path, isolated_home: Path, tmp_path: Path
) -> None:
    gone = tmp_path / "it's gone" / "baker"  # a quote in the path: recorded safely
    assert run_baker("init", "--pre-commit", cwd=repo).returncode == 0
    from continuity_core import precommit

    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(precommit.hook_text(str(gone)))
    assert run_baker("init", "--pre-commit", cwd=repo).stdout.count("updated") >= 1
    assert str(gone) not in hook.read_text()  # brought back to the running baker
    hook.write_text(precommit.hook_text(str(gone)))
    (repo / "notes.txt").write_text(f"{FAKE_KEY}\n")
    git(repo, "add", "notes.txt")
    result = commit(repo, path=_git_only_path())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "pre-commit secret guard did NOT run" in result.stderr
    assert str(gone) in result.stderr and "baker init --pre-commit" in result.stderr
    result = run_baker("uninstall", cwd=repo)
    assert result.returncode == 0 and not hook.exists()
