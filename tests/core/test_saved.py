"""Saved (authored) checkpoints: the format, the private store and every resume-check status."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from continuity_core import saved
from continuity_core.git import git_facts
from tests.conftest import git
from tests.helpers.drafts import SECRETS, make_draft


def save_draft(root: Path, *, sections: dict[str, str | None] | None = None) -> saved.Saved:
    return saved.save(root, make_draft(root, sections=sections))


# --- the format ------------------------------------------------------------------------------


def test_a_complete_draft_is_valid_and_lists_artifacts_and_claims(repo: Path) -> None:
    result = saved.validate_text(make_draft(repo))
    assert result.status == "valid", result.errors
    assert result.artifacts == ["README.md", ".git/HEAD"]
    assert [(c.claim, c.source) for c in result.unverified] == [
        ("CI passes on main (from the user's message)", "the user's message")
    ]
    assert result.front_matter["schema_version"] == 1


def test_the_template_from_facts_is_the_format(repo: Path) -> None:
    template = saved.template(saved.front_matter(repo, git_facts(repo), agent="codex"))
    result = saved.validate_text(template)
    # Only the empty sections are wrong: the skeleton itself is in order and complete.
    assert result.status == "invalid"
    assert all("is empty" in e for e in result.errors), result.errors
    assert len(result.errors) == len(saved.SECTIONS)


@pytest.mark.parametrize(
    ("sections", "front", "message"),
    [
        ({"External state": None}, {}, "missing sections: `## External state`"),
        (
            {"History": None, "Owner decisions": '- "x" — A, 2026-01-01\n\n## History\n- late'},
            {},
            "out of order",
        ),
        ({"Failed attempts": ""}, {}, "`## Failed attempts` is empty"),
        ({"Unverified claims": "- the deploy works"}, {}, "without its source"),
        ({"Owner decisions": "- ship it"}, {}, "author and date"),
        ({}, {"schema_version": "one"}, "schema_version must be an integer"),
        ({}, {"time": "yesterday"}, "ISO 8601"),
        ({}, {"head": "not-a-sha"}, "must be a commit id"),
        ({}, {"worktree": "relative/path"}, "absolute path"),
        ({}, {"session": None}, "front matter lacks session"),
    ],
)
def test_bad_drafts_are_invalid_with_the_reason(
    repo: Path, sections: dict[str, str | None], front: dict[str, object], message: str
) -> None:
    result = saved.validate_text(make_draft(repo, front=front, sections=sections))
    assert result.status == "invalid"
    assert any(message in e for e in result.errors), result.errors


def test_no_front_matter_is_invalid(repo: Path) -> None:
    text = make_draft(repo).split("---\n", 2)[2]
    result = saved.validate_text(text)
    assert result.status == "invalid" and "missing front matter" in result.errors[0]


def test_a_future_schema_is_blocked_with_update_baker(repo: Path) -> None:
    result = saved.validate_text(make_draft(repo, front={"schema_version": 2}))
    assert result.status == "blocked"
    assert "update baker" in result.errors[0]


def test_headings_inside_code_fences_are_not_sections(repo: Path) -> None:
    fenced = "```\n## History\n```\n- ran the shell"
    result = saved.validate_text(make_draft(repo, sections={"Commands and errors": fenced}))
    assert result.status == "valid", result.errors


@pytest.mark.parametrize("secret", SECRETS, ids=lambda s: s[:8])
def test_a_draft_with_a_secret_is_refused_without_echoing_it(repo: Path, secret: str) -> None:
    text = make_draft(repo, sections={"Commands and errors": f"```\n{secret}\n```"})
    with pytest.raises(saved.SaveRefused) as info:
        saved.save(repo, text)
    shown = str(info.value) + " ".join(info.value.validation.errors)
    assert "secret" in shown
    core = secret.split("\n")[1] if "\n" in secret else secret[-12:]
    assert core not in shown
    assert saved.list_saved(repo) == []


# --- the store -------------------------------------------------------------------------------


def test_save_writes_a_private_store_and_changes_no_project_file(repo: Path) -> None:
    before = git(repo, "status", "--porcelain")
    head = git(repo, "rev-parse", "HEAD")
    text = make_draft(repo)
    result = saved.save(repo, text)
    assert result.path == repo / ".baker" / "saved" / f"{result.id}.md"
    assert result.path.read_text() == text
    assert stat.S_IMODE(result.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(result.path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE((repo / ".baker").stat().st_mode) == 0o700
    assert (result.path.parent / "LATEST").read_text().strip() == result.id
    assert git(repo, "status", "--porcelain") == before
    assert git(repo, "rev-parse", "HEAD") == head


def test_an_oversized_checkpoint_warns_and_is_kept_whole(repo: Path) -> None:
    history = "\n".join(f"- step {i}: " + "x" * 80 for i in range(500))
    result = save_draft(repo, sections={"History": history})
    assert any("budget" in w for w in result.warnings)
    assert history in result.path.read_text()


def test_a_draft_saved_on_a_detached_head_says_there_is_no_live_branch(repo: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    result = saved.save(repo, make_draft(repo, front={"branch": "main"}))
    assert "front matter branch main is not the live branch (none: HEAD is detached)" in (
        result.warnings
    )


def test_loose_store_permissions_are_tightened_on_save_and_reported(repo: Path) -> None:
    first = save_draft(repo)
    first.path.parent.chmod(0o755)
    check = saved.resume_check(repo)
    assert any("open to other users" in w for w in check.warnings)
    second = save_draft(repo)
    assert any("set to 0700" in w for w in second.warnings)
    assert stat.S_IMODE(second.path.parent.stat().st_mode) == 0o700


def test_list_and_prune_only_when_asked(repo: Path) -> None:
    ids = [save_draft(repo).id for _ in range(3)]
    listed = saved.list_saved(repo)
    assert [c.id for c in listed] == sorted(ids, reverse=True)
    assert [c.latest for c in listed] == [True, False, False]
    removed = saved.prune(repo, 1)
    assert len(removed) == 4  # two checkpoints, each with its sidecar
    assert [c.id for c in saved.list_saved(repo)] == [max(ids)]
    assert saved.resume_check(repo).status == "fresh"


# --- resume-check ----------------------------------------------------------------------------


def test_fresh_right_after_save(repo: Path) -> None:
    result = save_draft(repo)
    check = saved.resume_check(repo)
    assert check.status == "fresh", check
    assert check.id == result.id and check.drift == []
    assert [c.source for c in check.unverified] == ["the user's message"]


def test_drifted_names_every_drift(repo: Path) -> None:
    old_head = git(repo, "rev-parse", "HEAD").strip()
    save_draft(repo, sections={"Artifacts": "- `README.md` — readme\n- `gone.txt` — deleted"})
    git(repo, "checkout", "-qb", "feature")
    (repo / "new.py").write_text("x = 1\n")
    git(repo, "add", "new.py")
    git(repo, "commit", "-qm", "more")
    (repo / "README.md").write_text("changed\n")
    check = saved.resume_check(repo)
    assert check.status == "drifted"
    kinds = {d.kind: d for d in check.drift}
    assert set(kinds) == {"head", "branch", "dirty", "missing_artifact"}
    assert kinds["head"].saved == old_head
    assert kinds["branch"].saved == "main" and kinds["branch"].now == "feature"
    assert kinds["dirty"].files == [" M README.md"]
    assert kinds["missing_artifact"].files == ["gone.txt"]


def test_files_already_dirty_at_save_are_not_drift(repo: Path) -> None:
    (repo / "README.md").write_text("work in progress\n")
    save_draft(repo)
    assert saved.resume_check(repo).status == "fresh"


def test_none_without_checkpoints(repo: Path) -> None:
    check = saved.resume_check(repo)
    assert check.status == "none" and check.reason


def test_choose_when_there_is_no_latest_pointer(repo: Path) -> None:
    a, b = save_draft(repo), save_draft(repo)
    (repo / ".baker" / "saved" / "LATEST").unlink()
    check = saved.resume_check(repo)
    assert check.status == "choose"
    assert {c.id for c in check.candidates} == {a.id, b.id}


def test_latest_pointer_to_a_deleted_file(repo: Path) -> None:
    a, b = save_draft(repo), save_draft(repo)
    b.path.unlink()
    check = saved.resume_check(repo)
    assert check.status == "choose"
    assert "no longer exists" in (check.reason or "")
    assert [c.id for c in check.candidates] == [a.id]
    a.path.unlink()
    check = saved.resume_check(repo)
    assert check.status == "none" and "no longer exists" in (check.reason or "")


def test_blocked_when_the_saved_schema_is_newer(repo: Path) -> None:
    result = save_draft(repo)
    text = result.path.read_text().replace("schema_version: 1", "schema_version: 7")
    result.path.write_text(text)
    check = saved.resume_check(repo)
    assert check.status == "blocked" and "update baker" in (check.reason or "")


def test_invalid_when_the_saved_file_was_damaged(repo: Path) -> None:
    result = save_draft(repo)
    result.path.write_text(result.path.read_text().replace("## History", "## Story"))
    check = saved.resume_check(repo)
    assert check.status == "invalid" and "`## History`" in (check.reason or "")


def test_by_id_prefix_and_by_path(repo: Path) -> None:
    a, b = save_draft(repo), save_draft(repo)
    assert saved.resume_check(repo, a.id).id == a.id
    assert saved.resume_check(repo, str(b.path)).id == b.id
    os.chdir(repo / ".baker")
    assert saved.resume_check(repo, f"saved/{a.id}.md").id == a.id
    assert saved.resume_check(repo, "20").status == "choose"
    assert saved.resume_check(repo, "19990101T000000000Z-abcdef").status == "none"


@pytest.mark.parametrize(
    "target", ["../../etc/passwd", "../README.md", "/etc/passwd", ".baker/saved/../../README.md"]
)
def test_paths_outside_the_store_are_refused(repo: Path, target: str) -> None:
    save_draft(repo)
    check = saved.resume_check(repo, target)
    assert check.status == "invalid" and "refused" in (check.reason or "")


def test_a_symlink_out_of_the_store_is_refused(repo: Path, tmp_path: Path) -> None:
    real = save_draft(repo)
    outside = tmp_path / "outside.md"
    outside.write_text(real.path.read_text())
    link = real.path.parent / "20990101T000000000Z-aaaaaa.md"
    link.symlink_to(outside)
    assert saved.resume_check(repo, "20990101T000000000Z-aaaaaa").status == "invalid"
    assert saved.resume_check(repo, str(link)).status == "invalid"
    (real.path.parent / "LATEST").write_text("20990101T000000000Z-aaaaaa\n")
    assert saved.resume_check(repo).status == "invalid"


def test_a_checkpoint_from_another_worktree_of_the_same_repository(
    repo: Path, tmp_path: Path
) -> None:
    other = tmp_path / "wt-feature"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(other))
    result = save_draft(other)
    assert saved.resume_check(repo).status == "choose"  # never guessed: it is not ours
    check = saved.resume_check(repo, result.id)
    assert check.status == "drifted"
    assert check.worktree == str(other)
    kinds = {d.kind for d in check.drift}
    assert {"worktree", "branch"} <= kinds
    assert saved.resume_check(repo, str(result.path)).id == result.id
    assert [c.id for c in saved.list_saved(repo, all_worktrees=True)] == [result.id]
    # A second repository's store is not reachable by id or by path.
    lone = tmp_path / "lone"
    lone.mkdir()
    subprocess.run(["git", "init", "-q", str(lone)], check=True)
    assert saved.resume_check(lone, result.id).status == "none"
    assert saved.resume_check(lone, str(result.path)).status == "invalid"


def test_brief_section_shows_the_latest_with_its_drift(repo: Path) -> None:
    assert saved.brief_section(repo) is None
    result = save_draft(repo)
    (repo / "README.md").write_text("edited\n")
    text = saved.brief_section(repo) or ""
    assert f"{result.id} (drifted)" in text
    assert "drift dirty:  M README.md" in text
    assert "unverified claims: 1" in text


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "https://ci-bot:" + "hunter2token@github.com/acme/app.git",
            "https://github.com/acme/app.git",
        ),
        ("https://ghp_" + "abc123@github.com/acme/app.git", "https://github.com/acme/app.git"),
        ("git@github.com:acme/app.git", "git@github.com:acme/app.git"),
    ],
)
def test_remote_credentials_are_stripped_from_the_repo(repo: Path, url: str, shown: str) -> None:
    git(repo, "remote", "add", "origin", url)
    facts = git_facts(repo)
    assert saved.repo_id(repo, facts) == shown
    assert saved.front_matter(repo, facts)["repo"] == shown


def test_without_a_remote_the_repo_is_the_main_worktree(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "wt2"
    git(repo, "worktree", "add", "-q", "-b", "two", str(other))
    assert saved.repo_id(other, git_facts(other)) == str(repo)


def test_a_secret_planted_in_a_stored_checkpoint_is_never_shown(repo: Path) -> None:
    result = save_draft(repo)
    secret = "ghp_" + "FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6"
    text = result.path.read_text().replace(
        "(from the user's message)", f"token {secret} (from the user's message)"
    )
    result.path.write_text(text)
    check = saved.resume_check(repo)
    assert check.status == "invalid" and "looks like a secret" in (check.reason or "")
    import msgspec

    assert secret not in msgspec.json.encode(check).decode()
