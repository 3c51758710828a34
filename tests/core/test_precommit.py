"""The pre-commit check on staged diffs: line numbers in modified files, content that looks
like a diff header, escaped JSON, deletions; and install/uninstall without the CLI."""

from __future__ import annotations

from pathlib import Path

from continuity_core import precommit
from tests.conftest import git

TOKEN = "ghp_" + "Zq8wX2cV5bN7mL0kJ4hG6fD1sA3pO9iU2yT5"


def test_check_reports_kind_file_and_line_of_added_lines_only(repo: Path) -> None:
    (repo / "app.py").write_text("".join(f"line {i}\n" for i in range(1, 41)))
    (repo / "old.env").write_text(f"GH={TOKEN}\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "base")
    lines = (repo / "app.py").read_text().splitlines()
    lines[29] = f"++ {TOKEN}"  # an added line that starts like a diff header
    lines.insert(5, "added = 1")
    (repo / "app.py").write_text("\n".join(lines) + "\n")
    (repo / "data.json").write_text('{"log": "ok\\n' + TOKEN + '"}\n')
    (repo / "old.env").unlink()  # deleting a secret is no problem
    git(repo, "add", "-A")
    problems = precommit.check(repo)
    assert {(p.path, p.line, p.kind) for p in problems} == {
        ("app.py", 31, "github"),
        ("data.json", 1, "github"),
    }
    assert TOKEN not in precommit.report(problems)
    assert "git commit --no-verify" in precommit.report(problems)


def test_clean_stage_and_private_paths(repo: Path) -> None:
    assert precommit.check(repo) == []
    (repo / "memory").mkdir()
    (repo / "memory" / "hot.md").write_text("# note\n")
    (repo / "memory" / "other.md").write_text("fine\n")
    git(repo, "add", "memory")
    assert [(p.path, p.kind) for p in precommit.check(repo)] == [("memory/hot.md", "private")]


def test_install_dry_run_writes_nothing_and_uninstall_without_hook_does_nothing(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-commit"
    [change] = precommit.install(repo, dry_run=True)
    assert change.action == "created" and not hook.exists()
    assert precommit.uninstall(repo) == []
    [change] = precommit.install(repo)
    assert change.action == "created" and precommit.MARKER in hook.read_text()
    assert precommit.install(repo)[0].action == "unchanged"
    assert precommit.uninstall(repo)[0].action == "removed" and not hook.exists()


def test_a_staged_note_is_not_called_a_secret() -> None:
    note = precommit.report([precommit.Problem(path="memory/hot.md", line=0, kind="private")])
    assert "memory/hot.md: the project's note" in note and "secret" not in note
    assert "git restore --staged PATH" in note and "--no-verify" in note
    store = precommit.report([precommit.Problem(path=".baker/x.json", line=0, kind="private")])
    assert "Continuity's private store" in store
    both = precommit.report(
        [
            precommit.Problem(path="memory/hot.md", line=0, kind="private"),
            precommit.Problem(path="app.py", line=3, kind="github"),
        ]
    )
    assert "app.py:3: a secret (github)" in both and "remove the secret" in both
