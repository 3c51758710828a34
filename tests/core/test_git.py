from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

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


def _git_out(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def _as_git_says(cwd: Path) -> tuple[str, list[tuple[str | None, str | None, str | None]]]:
    """The top-level folder and worktrees as `git rev-parse` and `git worktree list` say."""
    from continuity_core.git import _parse_worktrees

    trees = _parse_worktrees(_git_out(cwd, "worktree", "list", "--porcelain"))
    return (
        _git_out(cwd, "rev-parse", "--show-toplevel").strip(),
        [(w["path"], w.get("branch"), w.get("head")) for w in trees],
    )


def _as_read(cwd: Path) -> tuple[str | None, list[tuple[str, str | None, str | None]]]:
    facts = git_facts(cwd)
    return facts.root, [(w.path, w.branch, w.head) for w in facts.worktrees]


def test_worktrees_and_top_are_what_git_says(repo: Path, tmp_path: Path) -> None:
    """The top-level folder and worktrees say what `git rev-parse --show-toplevel` and `git
    worktree list` say, from the main or a linked tree or a subfolder, through a symlinked
    path, with branches or detached heads."""
    git(repo, "worktree", "add", "-q", str(tmp_path / "zz"), "-b", "feature")
    git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "aa"))
    (repo / "sub").mkdir()
    link = tmp_path / "link"
    link.symlink_to(repo)
    for cwd in [repo, repo / "sub", tmp_path / "zz", tmp_path / "aa", link / "sub"]:
        assert _as_read(cwd) == _as_git_says(cwd)
    assert len(git_facts(repo).worktrees) == 3


def test_unusual_layouts_ask_git(repo: Path, tmp_path: Path, monkeypatch: Any) -> None:
    """An unborn branch in a worktree and git's discovery variables fall back to git itself,
    with the same answer."""
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    git(tmp_path / "wt", "checkout", "-q", "--orphan", "empty")
    assert _as_read(repo) == _as_git_says(repo)
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo))
    assert _as_read(tmp_path) == _as_git_says(tmp_path)


def test_diff_stats_only_when_a_tracked_file_changed(repo: Path) -> None:
    (repo / "new.txt").write_text("x\n")
    facts = git_facts(repo)
    assert facts.dirty_count == 1 and facts.files_changed == facts.insertions == 0
    git(repo, "add", "new.txt")
    facts = git_facts(repo)
    assert facts.files_changed == 1 and facts.insertions == 1


def test_the_config_file_read_is_the_one_git_config_local_reads(repo: Path, tmp_path: Path) -> None:
    from continuity_core.git import local_config_may_name

    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    (repo / "sub").mkdir()
    for cwd in (repo, repo / "sub", tmp_path / "wt"):
        assert not local_config_may_name(cwd, b"autopush")
    git(tmp_path / "wt", "config", "--local", "baker.autopush", "true")
    for cwd in (repo, repo / "sub", tmp_path / "wt"):
        assert local_config_may_name(cwd, b"autopush")


def test_a_folder_git_would_not_take_is_left_to_git(repo: Path) -> None:
    """An empty `.git` folder inside the work tree is no repository to git, which looks
    further up: so does the top-level folder here."""
    (repo / "sub" / ".git").mkdir(parents=True)
    assert _as_read(repo / "sub") == _as_git_says(repo / "sub")
    assert git_facts(repo / "sub").root == str(repo)


def _commit(repo: Path, *args: str) -> None:
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", *args)


@pytest.mark.parametrize(
    "message",
    [
        "plain subject",
        "two lines\nof subject\n\nbody here",
        "ünïcödé ✓ subject",
        "",
    ],
)
def test_subject_is_what_git_log_prints(repo: Path, message: str) -> None:
    _commit(repo, "--cleanup=verbatim", "--allow-empty-message", "-m", message)
    facts = git_facts(repo)
    assert facts.subject == _git_out(repo, "log", "-1", "--format=%s").rstrip("\n")


def test_a_ref_outside_the_repository_is_left_to_git(repo: Path, tmp_path: Path) -> None:
    """`ref: ../../file` in a worktree's HEAD names no ref git would read: the file's text
    never becomes a head or a branch."""
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    (tmp_path / "outside").write_text("SECRET-CONTENT\n")
    head = repo / ".git" / "worktrees" / "wt" / "HEAD"
    rel = os.path.relpath(tmp_path / "outside", repo / ".git")
    for text in (f"ref: {rel}\n", "ref: refs/heads/../../../outside\n", "not an object id\n"):
        head.write_text(text)
        assert _as_read(repo) == _as_git_says(repo)
        assert "SECRET" not in repr(git_facts(repo))


def test_a_submodule_and_a_linked_git_folder_match_git(repo: Path, tmp_path: Path) -> None:
    """A `.git` file naming a git dir elsewhere (a submodule's, under the parent's
    `.git/modules`), and a `.git` that is a symlink to the repository's folder."""
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    _commit(sub, "-m", "sub subject")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sm")
    assert (repo / "sm" / ".git").is_file()
    assert _as_read(repo / "sm") == _as_git_says(repo / "sm")
    assert git_facts(repo / "sm").subject == "sub subject"
    moved = tmp_path / "store.git"
    (sub / ".git").rename(moved)
    (sub / ".git").symlink_to(moved)
    assert _as_read(sub) == _as_git_says(sub)
    assert git_facts(sub).subject == "sub subject"


def test_facts_begun_early_are_the_facts_and_a_read_never_wanted_is_reaped(repo: Path) -> None:
    """`baker handoff` begins git's facts first and reads them once the session is read;
    when it fails before that, `close` waits for git and reaps it (no zombie, no open pipe)."""
    from continuity_core.git import Begun, struct

    (repo / "new.txt").write_text("x")
    begun = Begun(repo)
    assert struct(begun.values()) == git_facts(repo)
    begun.close()  # already read: nothing left to wait for
    unread = Begun(repo)
    procs = [p for p in unread.procs if p is not None]
    assert procs
    unread.close()
    assert unread.procs == []
    for proc in procs:  # reaped, its pipe closed
        assert proc.returncode is not None and proc.stdout is not None and proc.stdout.closed
    slow = Begun(repo)
    started = [p for p in slow.procs if p is not None]
    slow.close(0)  # not waited for: killed or read, and reaped either way
    assert all(p.returncode is not None for p in started)


def test_the_repo_section_reads_the_same_from_plain_values_and_from_git_facts(
    repo: Path, tmp_path: Path
) -> None:
    """A pickup renders git's plain values (`Begun.values`), the brief a kept `GitFacts`
    (`msgspec.to_builtins`, defaults left out): one section, line for line."""
    import msgspec

    from continuity_core.git import Begun, struct
    from continuity_core.project import git_section

    def both(cwd: Path) -> str:
        values = Begun(cwd).values()
        text = git_section(values)
        assert git_section(msgspec.to_builtins(struct(values))) == text
        return text

    (tmp_path / "nowhere").mkdir()
    assert both(tmp_path / "nowhere") == "Not a git repository."
    assert both(repo).endswith("- working tree clean")
    git(repo, "clone", "-q", str(repo), str(tmp_path / "clone"))
    clone = tmp_path / "clone"
    git(clone, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    (clone / "README.md").write_text("changed\n")
    git(clone, "-c", "user.name=T", "-c", "user.email=t@e.invalid", "commit", "-qam", "ahead")
    for i in range(55):
        (clone / f"f{i}.txt").write_text("x")
    (clone / "README.md").write_text("changed again\nand more\n")
    git(clone, "checkout", "-q", "--detach")
    text = both(clone)
    assert "- branch: detached HEAD" in text
    assert "- uncommitted: 56 files, +2 −1 in 1 tracked file" in text
    assert "  - … and 6 more" in text and f"- worktrees: {clone} (detached), " in text
    git(clone, "checkout", "-q", "main")
    assert "- upstream: origin/main (ahead 1, behind 0)" in both(clone)
