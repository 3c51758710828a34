"""`continuity_core.machines`: names, the plumbing-only snapshot, refusals, the opt-in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from continuity_core import git as git_mod
from continuity_core import machines, snapshots
from continuity_core.errors import BakerError
from continuity_core.store import MACHINES_FILE, Store
from tests.conftest import git
from tests.helpers.config import write_config

GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture
def project(repo: Path) -> Path:
    from continuity_core import project as project_mod

    assert all(c.action != "failed" for c in project_mod.init(repo))  # the store, no agents
    return repo


@pytest.mark.parametrize("name", ["laptop", "dev-box.2", "A", "ci_runner-7"])
def test_machine_names_that_are_one_ref_component(name: str) -> None:
    assert snapshots.validate_machine(name) == name
    assert snapshots.ref_for(name) == f"refs/baker/{name}"


@pytest.mark.parametrize(
    "name",
    ["", "a/b", "..", ".hidden", "x.lock", "-x", "a b", "a..b", "end.", "x" * 64, "a:b", "a~1"],
)
def test_machine_names_git_would_refuse_or_misread(name: str) -> None:
    with pytest.raises(BakerError, match="cannot be a git ref name"):
        snapshots.validate_machine(name)


def test_the_default_name_is_the_short_hostname_made_safe(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    monkeypatch.setattr(socket, "gethostname", lambda: "Jo's Laptop.local")
    assert machines.machine_name("") == "Jo-s-Laptop"
    assert machines.machine_name("desk") == "desk"


def test_an_unchanged_state_writes_no_new_snapshot(project: Path) -> None:
    files = machines.collect(project, "A")
    first, changed = machines.write_snapshot(project, "A", files)
    assert changed
    again, changed = machines.write_snapshot(project, "A", machines.collect(project, "A"))
    assert (again, changed) == (first, False)
    (project / "NEW.md").write_text("new\n")  # the repo state changed: a new snapshot
    second, changed = machines.write_snapshot(project, "A", machines.collect(project, "A"))
    assert changed and git(project, "rev-parse", f"{second}^").strip() == first
    assert git(project, "log", "--format=%an", "-1", "refs/baker/A").strip() == "baker (A)"
    snap = json.loads(git(project, "show", "refs/baker/A:snapshot.json"))
    assert snap["machine"] == "A" and "root" not in snap["git"]


def test_a_secret_written_by_hand_in_the_traps_refuses(project: Path) -> None:
    line = {
        "id": "deadbeef",
        "pattern": "deploy.sh",
        "why": f"CI leaked {GITHUB} there",
        "created_at": "2026-11-30T00:00:00Z",
    }
    (project / ".baker" / "traps.jsonl").write_text(json.dumps(line) + "\n")
    with pytest.raises(machines.SecretFound) as e:
        machines.collect(project, "A")
    assert ".baker/traps.jsonl holds github" in str(e.value)
    assert GITHUB not in str(e.value)


def test_a_secret_in_the_checkpoint_as_written_refuses(project: Path) -> None:
    from continuity_core.checkpoint import take

    cp = take(Store(project))
    path = Store(project).path("checkpoints") / f"{cp.id}.json"
    data = json.loads(path.read_text())
    data["git"]["subject"] = f"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/{GITHUB}"
    path.write_text(json.dumps(data))
    with pytest.raises(machines.SecretFound) as e:
        machines.collect(project, "A")
    assert f".baker/checkpoints/{cp.id}.json holds" in str(e.value)
    assert git(project, "for-each-ref", "refs/baker") == ""


def test_only_the_clones_own_git_config_opts_in(project: Path) -> None:
    git(project, "config", "--global", "baker.autoPush", "true")
    assert machines.auto_push_remote(project) is None
    (project / ".baker" / "config.toml").write_text("[push]\nauto = true\n")
    assert machines.auto_push_remote(project) is None
    git(project, "config", "baker.autoPush", "true")
    assert machines.auto_push_remote(project) == "origin"
    git(project, "config", "baker.remote", "backup")
    assert machines.auto_push_remote(project) == "backup"
    assert not machines.spawn_auto_push(project.parent)  # outside any repository: nothing


def test_a_remote_that_looks_like_an_option_is_refused(project: Path) -> None:
    with pytest.raises(BakerError, match="not a remote"):
        machines.push(project, "--upload-pack=touch /tmp/x")


def test_compare_names_what_this_checkout_lacks(project: Path) -> None:
    theirs = machines._snapshot_git(project)
    assert "same commit as A" in snapshots.compare(project, "A", theirs)
    theirs.head = "f" * 40
    theirs.branch = "feature"
    theirs.dirty, theirs.dirty_count = [" M README.md", "?? gone.txt"], 2
    text = snapshots.compare(project, "A", theirs)
    assert "`git switch feature`" in text
    assert "A's commit ffffffffffff is not in this clone" in text
    assert "`README.md` (M): exists here" in text and "`gone.txt` (??): missing here" in text


def test_the_hooks_read_no_machines_file_as_no_machines(project: Path) -> None:
    assert snapshots.from_file(project) is None
    assert snapshots.pickup_text(project) is None
    (project / ".baker" / MACHINES_FILE).write_text("{broken")
    assert snapshots.from_file(project) is None


def test_two_clones_with_one_machine_name_do_not_overwrite(
    project: Path, tmp_path: Path, isolated_home: Path
) -> None:
    write_config(isolated_home, '[machine]\nname = "A"\n')  # both clones, as on one machine
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(project, "remote", "add", "origin", str(bare))
    machines.push(project)
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(bare), str(other))
    (other / "x.txt").write_text("x\n")
    first = git(bare, "rev-parse", "refs/baker/A")
    with pytest.raises(BakerError, match="another clone with the same machine name"):
        machines.push(other)
    assert git(bare, "rev-parse", "refs/baker/A") == first


def test_the_snapshot_names_limited_accounts_but_not_their_folders(
    project: Path, tmp_path: Path
) -> None:
    from continuity_core import limits, stamps

    assert snapshots.LIMITS_JSON not in machines.collect(project, "A")  # none recorded
    folder = str(tmp_path / "work-account")
    limits.record(
        limits.Limit(
            agent="fake",
            dir=folder,
            account="work",
            since=stamps.now_iso(),
            until="2999-01-01T00:00:00Z",
            kind="usage_limit",
            message="try later",
            session_id="s1",
        )
    )
    pushed = json.loads(machines.collect(project, "A")[snapshots.LIMITS_JSON])
    assert pushed == [
        {
            "agent": "fake",
            "account": "work",
            "since": pushed[0]["since"],
            "until": "2999-01-01T00:00:00Z",
            "kind": "usage_limit",
            "source": "hook",
        }
    ]
    assert folder not in json.dumps(pushed)


def test_local_config_asks_git_only_when_the_file_names_baker(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every checkpoint checks the opt-in push: a clone whose config never says "baker" is
    answered from the file, one that does through `git config --local` as before."""
    calls: list[tuple[str, ...]] = []
    real = git_mod.run

    def counted(root: Path, *args: str, **kw: object) -> str:
        calls.append(args)
        return real(root, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(machines, "run", counted)
    assert machines.local_config(repo) == {} and calls == []
    assert machines.auto_push_remote(repo) is None
    git(repo, "config", "--local", "Baker.AutoPush", "true")
    git(repo, "config", "--local", "baker.remote", "backup")
    assert machines.local_config(repo) == {"baker.autopush": "true", "baker.remote": "backup"}
    assert calls and machines.auto_push_remote(repo) == "backup"
