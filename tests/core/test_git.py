from __future__ import annotations

import subprocess
from pathlib import Path

from continuity_core.git import git_facts


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def test_clean_repo(repo: Path) -> None:
    facts = git_facts(repo)
    assert facts.is_repo and facts.branch == "main" and not facts.detached
    assert facts.subject == "initial commit"
    assert facts.head and len(facts.head) == 40
    assert facts.dirty == [] and facts.dirty_count == 0
    assert facts.root == str(repo)


def test_dirty_files_and_diff_stats(repo: Path) -> None:
    (repo / "README.md").write_text("scratch\nmore\n")
    (repo / "new file.txt").write_text("x")
    git(repo, "mv", "README.md", "DOCS.md")
    facts = git_facts(repo)
    assert facts.dirty_count == 2
    assert any(d.endswith("DOCS.md") and d.startswith("R") for d in facts.dirty)
    assert "?? new file.txt" in facts.dirty
    assert facts.files_changed >= 1 and facts.insertions >= 1


def test_detached_head_and_worktrees(repo: Path, tmp_path: Path) -> None:
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    git(repo, "checkout", "-q", "--detach")
    facts = git_facts(repo)
    assert facts.detached and facts.branch is None
    assert {w.branch for w in facts.worktrees} == {None, "feature"}


def test_dirty_list_is_capped(repo: Path) -> None:
    for i in range(60):
        (repo / f"f{i}.txt").write_text("x")
    facts = git_facts(repo)
    assert facts.dirty_count == 60 and len(facts.dirty) == 50


def test_not_a_repo_is_an_honest_empty_answer(tmp_path: Path) -> None:
    facts = git_facts(tmp_path)
    assert not facts.is_repo and facts.branch is None


def test_repo_without_commits(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "trunk")
    facts = git_facts(tmp_path)
    assert facts.is_repo and facts.branch == "trunk" and facts.head is None
