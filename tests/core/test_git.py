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


def _as_git_says(cwd: Path) -> tuple[str, list[tuple[str, str | None, str | None]]]:
    """The top-level folder and worktrees as `git rev-parse` and `git worktree list` say."""
    from continuity_core.git import _parse_worktrees

    trees = _parse_worktrees(_git_out(cwd, "worktree", "list", "--porcelain"))
    return (
        _git_out(cwd, "rev-parse", "--show-toplevel").strip(),
        [(w.path, w.branch, w.head) for w in trees],
    )


def _as_read(cwd: Path) -> tuple[str | None, list[tuple[str, str | None, str | None]]]:
    facts = git_facts(cwd)
    return facts.root, [(w.path, w.branch, w.head) for w in facts.worktrees]


def test_worktrees_and_top_read_from_files_match_git(
    repo: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    """The top-level folder and worktrees come from git's files, not from two more git
    processes: they say what `git rev-parse --show-toplevel` and `git worktree list` say,
    with refs loose or packed, branches or detached heads, from the main or a linked tree
    or a subfolder, through a symlinked path."""
    git(repo, "worktree", "add", "-q", str(tmp_path / "zz"), "-b", "feature")
    git(repo, "worktree", "add", "-q", "--detach", str(tmp_path / "aa"))
    (repo / "sub").mkdir()
    link = tmp_path / "link"
    link.symlink_to(repo)
    places = [repo, repo / "sub", tmp_path / "zz", tmp_path / "aa", link / "sub"]
    for cwd in places:
        assert _as_read(cwd) == _as_git_says(cwd)
    git(repo, "pack-refs", "--all")
    (tmp_path / "zz" / "f.txt").write_text("x")
    git(tmp_path / "zz", "add", "f.txt")
    git(tmp_path / "zz", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "two")
    for cwd in places:
        assert _as_read(cwd) == _as_git_says(cwd)
    assert len(git_facts(repo).worktrees) == 3
    from continuity_core import git as git_mod

    spawned: list[str] = []
    real = git_mod._spawn

    def spawn(cwd: Path, *args: str) -> Any:
        spawned.append(args[0])
        return real(cwd, *args)

    monkeypatch.setattr(git_mod, "_spawn", spawn)
    for cwd in places:
        git_facts(cwd)
    assert set(spawned) == {"status"}  # no log (a loose commit), rev-parse, worktree list, diff


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


def test_local_config_file_is_the_one_git_config_local_reads(repo: Path, tmp_path: Path) -> None:
    from continuity_core.git import local_config_file

    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    git(tmp_path / "wt", "config", "--local", "baker.autopush", "true")
    (repo / "sub").mkdir()
    for cwd in (repo, repo / "sub", tmp_path / "wt"):
        path = local_config_file(cwd)
        assert path is not None and "autopush = true" in Path(path).read_text()


def test_git_runs_without_subprocess_and_with_it(repo: Path, monkeypatch: Any) -> None:
    """git starts through `os.posix_spawnp` (no `subprocess` import on the hook path), through
    `subprocess` where the platform lacks it, with the same facts; a command past its time
    is killed and reaped."""
    import os

    from continuity_core import git as git_mod

    spawned = git_facts(repo)
    slow = git_mod._spawn(repo, "status")
    assert slow is not None and git_mod._out(slow, 0.0) is None
    try:
        os.kill(slow.pid, 0)
        raise AssertionError("the timed-out git process is still there")
    except ProcessLookupError:
        pass
    monkeypatch.delattr(os, "posix_spawnp")
    assert git_facts(repo) == spawned
    assert git_mod._out(git_mod._spawn(repo, "status"), 0.0) is None
    assert not git_facts(repo / "missing").is_repo


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
        "  \n\nleading blank lines",
        "trailing spaces   \t\nnext line  ",
        "crlf subject\r\nsecond\r\n\r\nbody",
        "ünïcödé ✓ subject",
        "",
        "subject only\n\n\n",
        "tabs\tinside  and   spaces",
    ],
)
def test_subject_read_from_a_loose_commit_is_what_git_log_prints(
    repo: Path, message: str, monkeypatch: Any
) -> None:
    from continuity_core import git as git_mod

    _commit(repo, "--cleanup=verbatim", "--allow-empty-message", "-m", message)
    spawned: list[str] = []
    real = git_mod._spawn

    def spawn(cwd: Path, *args: str) -> Any:
        spawned.append(args[0])
        return real(cwd, *args)

    monkeypatch.setattr(git_mod, "_spawn", spawn)
    facts = git_facts(repo)
    assert "log" not in spawned
    assert facts.subject == _git_out(repo, "log", "-1", "--format=%s").rstrip("\n")


def test_subject_of_packed_replaced_or_reencoded_commits_comes_from_git(repo: Path) -> None:
    git(repo, "gc", "-q")  # the commit is packed now
    assert git_facts(repo).subject == "initial commit"
    _commit(repo, "-m", "new subject")
    head = _git_out(repo, "rev-parse", "HEAD").strip()
    _commit(repo, "-m", "stand-in")
    other = _git_out(repo, "rev-parse", "HEAD").strip()
    git(repo, "reset", "-q", "--hard", head)
    git(repo, "replace", head, other)  # git log shows the stand-in for HEAD
    assert git_facts(repo).subject == "stand-in"
    git(repo, "replace", "-d", head)
    git(
        repo,
        "-c",
        "i18n.commitEncoding=ISO-8859-1",
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "caf\u00e9",
    )
    assert git_facts(repo).subject == _git_out(repo, "log", "-1", "--format=%s").strip()


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


def test_a_huge_loose_commit_is_inflated_only_as_far_as_its_subject(repo: Path) -> None:
    """A loose commit of a gigabyte compresses to a megabyte: reading its subject inflates
    its start only, and a first paragraph longer than that is git's to print."""
    import tracemalloc
    import zlib

    from continuity_core import git as git_mod

    _commit(repo, "-m", "small")
    oid = _git_out(repo, "rev-parse", "HEAD").strip()
    obj = repo / ".git" / "objects" / oid[:2] / oid[2:]
    raw = zlib.decompress(obj.read_bytes())
    head = raw.partition(b"\n\n")[0]
    refs = git_mod._Refs(str(repo / ".git"))
    for message, subject in ((b"big\n\n", "big"), (b"", None)):
        deflate = zlib.compressobj(1)
        parts = [deflate.compress(b"commit 0\0" + head.partition(b"\0")[2] + b"\n\n" + message)]
        parts += [deflate.compress(b"a" * (1 << 20)) for _ in range(256)]  # 256 MiB inflated
        parts.append(deflate.flush())
        obj.chmod(0o644)
        obj.write_bytes(b"".join(parts))
        tracemalloc.start()
        try:
            assert refs.subject(oid) == subject
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 16 << 20


def test_many_packed_refs_are_searched_not_parsed(repo: Path) -> None:
    """A repository with 300,000 tags has 30 MB of `packed-refs`: a ref is found in it, and
    a replace ref looked for, without reading it line by line."""
    import time

    from continuity_core import git as git_mod

    git(repo, "pack-refs", "--all")
    packed = repo / ".git" / "packed-refs"
    text = packed.read_text()
    tags = "".join(f"{i:040x} refs/tags/v{i}\n^{i + 1:040x}\n" for i in range(300_000))
    packed.write_text(text + tags)
    assert not (repo / ".git" / "refs" / "heads" / "main").exists()
    expected = _git_out(repo, "rev-parse", "HEAD").strip()
    start = time.process_time()
    refs = git_mod._Refs(str(repo / ".git"))
    assert refs.resolve(str(repo / ".git" / "HEAD")) == ("refs/heads/main", expected)
    assert refs.subject(expected) == "initial commit"
    assert refs.packed_oid("refs/tags/v7") == f"{7:040x}"
    assert time.process_time() - start < 0.1


def test_a_symlinked_head_or_ref_is_left_to_git(repo: Path, tmp_path: Path) -> None:
    """A HEAD that is a symlink (`core.preferSymlinkRefs`) is a symbolic ref to git: the
    branch is not lost to a detached head read through the link."""
    head = repo / ".git" / "HEAD"
    head.unlink()
    head.symlink_to("refs/heads/main")
    assert _as_read(repo) == _as_git_says(repo)
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "feature")
    ref = repo / ".git" / "refs" / "heads" / "feature"
    target = tmp_path / "feature-ref"
    target.write_text(ref.read_text())
    ref.unlink()
    ref.symlink_to(target)
    assert _as_read(repo) == _as_git_says(repo)


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
    from continuity_core.git import Begun

    (repo / "new.txt").write_text("x")
    begun = Begun(repo)
    assert begun.facts() == git_facts(repo)
    begun.close()  # already read: nothing left to wait for
    unread = Begun(repo)
    assert unread.status is not None
    pid, fd = unread.status.pid, unread.status.fd
    unread.close()
    with pytest.raises(ChildProcessError):  # reaped already
        os.waitpid(pid, os.WNOHANG)
    with pytest.raises(OSError):  # the pipe is closed
        os.fstat(fd)


def test_packed_refs_are_read_at_their_ends_and_with_crlf(tmp_path: Path) -> None:
    """A ref on the last line without its newline, one in a file written with CRLF (as a text
    read saw them), and a peeled or commented line, which is never an id."""
    from continuity_core import git as git_mod

    common = tmp_path / ".git"
    common.mkdir()
    oid_a, oid_b = "a" * 40, "b" * 40
    for text in (
        f"# pack-refs with: peeled\n{oid_a} refs/heads/a\n^{oid_b}\n{oid_b} refs/heads/b",
        f"# pack-refs with: peeled\r\n{oid_a} refs/heads/a\r\n^{oid_b}\r\n{oid_b} refs/heads/b\r\n",
    ):
        (common / "packed-refs").write_bytes(text.encode())
        refs = git_mod._Refs(str(common))
        assert refs.packed_oid("refs/heads/a") == oid_a
        assert refs.packed_oid("refs/heads/b") == oid_b
        assert refs.packed_oid("refs/heads/c") is None
        assert refs.packed_oid("peeled") is None  # the comment's words are no ref
