"""Continuing on another machine through git: two homes as two machines, a bare repository as
their remote, a captured Claude transcript as machine A's session (`baker push`, `baker pull`,
`--machine`, the opt-in automatic push)."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, git, run_baker

pytest.importorskip("continuity_claude")
pytest.importorskip("continuity_codex")

SLUG = "-home-dev-src-weather-cli"
SESSION = "48f0d34d-61b5-40aa-aac6-73b6722315eb"
REQUEST = "Add a celsius_to_fahrenheit() helper in weather/units.py"
# Planted in A's transcript: the user's request and a tool's output carry them.
GITHUB = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
PASSWORD = "Hunter2-" + "Secret9xyz"
SECRETS = (GITHUB, AWS, PASSWORD)


@dataclass
class Machine:
    name: str
    home: Path
    repo: Path

    @property
    def env(self) -> dict[str, str]:
        return {
            "HOME": str(self.home),
            "BAKER_HOME": str(self.home / ".baker"),
            "CLAUDE_CONFIG_DIR": str(self.home / ".claude"),
            "CODEX_HOME": str(self.home / ".codex"),
            "GEMINI_CLI_HOME": str(self.home),
        }

    def baker(
        self,
        *args: str,
        input: bytes | None = None,
    ) -> subprocess.CompletedProcess[str]:
        return run_baker(*args, cwd=self.repo, env=self.env, input=input)


def make_home(tmp: Path, name: str) -> Path:
    home = tmp / f"home-{name}"
    (home / ".baker").mkdir(parents=True)
    (home / ".baker" / "config.toml").write_text(f'[machine]\nname = "{name}"\n')
    return home


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    return bare


def place_session(machine: Machine) -> Path:
    """A's Claude session: the captured S1 transcript, run in A's repo, with secrets planted."""
    from continuity_claude.discovery import project_slug

    source = FIXTURES / "claude" / ".claude" / "projects" / SLUG / f"{SESSION}.jsonl"
    real = os.path.realpath(machine.repo)
    text = source.read_text().replace("/home/dev/src/weather-cli", real)
    text = text.replace(
        "check that 100 C converts to 212 F.",
        f"check that 100 C converts to 212 F. Deploy key {AWS}, password={PASSWORD}",
    )
    text = text.replace("212.0", f"212.0 {GITHUB}")
    folder = machine.home / ".claude" / "projects" / project_slug(real)
    folder.mkdir(parents=True)
    path = folder / f"{SESSION}.jsonl"
    path.write_text(text)
    return path


def stop_payload(machine: Machine, transcript: Path | None = None) -> bytes:
    """Claude's captured Stop payload, sent from `machine`'s repo; by default for a session
    with no transcript on disk (a checkpoint of git facts only)."""
    transcript = transcript or machine.home / ".claude" / "projects" / "gone" / f"{SESSION}.jsonl"
    data = json.loads((FIXTURES / "claude" / "hook_payloads" / "Stop.json").read_text())
    # Each call is a turn of its own (Claude Code sends a new prompt_id per turn): identical
    # payloads would be one event fired by two hook levels, which baker runs once.
    data.update(cwd=str(machine.repo), transcript_path=str(transcript), prompt_id=str(uuid.uuid4()))
    return json.dumps(data).encode()


@pytest.fixture
def machine_a(tmp_path: Path, remote: Path) -> Machine:
    a = Machine("A", make_home(tmp_path, "A"), tmp_path / "A" / "weather-cli")
    a.repo.mkdir(parents=True)
    git(a.repo, "init", "-q", "-b", "main")
    (a.repo / "README.md").write_text("weather\n")
    git(a.repo, "add", ".")
    git(a.repo, "commit", "-qm", "initial commit")
    git(a.repo, "remote", "add", "origin", str(remote))
    git(a.repo, "push", "-q", "-u", "origin", "main")
    assert a.baker("init").returncode == 0
    return a


def clone(tmp_path: Path, remote: Path, name: str) -> Machine:
    b = Machine(name, make_home(tmp_path, name), tmp_path / name / "weather-cli")
    b.repo.parent.mkdir(parents=True)
    git(tmp_path, "clone", "-q", str(remote), str(b.repo))
    return b


def all_objects(bare: Path) -> bytes:
    return subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"],
        cwd=bare,
        capture_output=True,
        check=True,
    ).stdout


def remote_refs(bare: Path) -> str:
    return git(bare, "for-each-ref", "--format=%(refname) %(objectname)")


def test_a_session_continues_on_another_machine(
    tmp_path: Path, remote: Path, machine_a: Machine
) -> None:
    a = machine_a
    transcript = place_session(a)
    # A's work: one more commit pushed after B cloned, an untracked file and an edit.
    b = clone(tmp_path, remote, "B")
    (a.repo / "CHANGES.md").write_text("celsius\n")
    git(a.repo, "add", "CHANGES.md")
    git(a.repo, "commit", "-qm", "changes")
    git(a.repo, "push", "-q")
    (a.repo / "weather").mkdir()
    (a.repo / "weather" / "units.py").write_text("def celsius_to_fahrenheit(c): ...\n")
    (a.repo / "README.md").write_text("weather, edited\n")
    assert (
        a.baker("trap", "add", "weather/*.py", "integer division lost the decimals").returncode == 0
    )
    status_before = git(a.repo, "status", "--porcelain")

    hook = a.baker("checkpoint", "--agent", "claude", input=stop_payload(a, transcript))
    assert hook.returncode == 0, hook.stderr
    index = a.repo / ".git" / "index"
    index_before = (index.stat().st_mtime_ns, index.read_bytes())
    pushed = a.baker("push", "--json")
    assert pushed.returncode == 0, pushed.stderr
    # Plumbing only: no index, worktree or branch was touched.
    assert (index.stat().st_mtime_ns, index.read_bytes()) == index_before
    result = json.loads(pushed.stdout)
    assert result["ref"] == "refs/baker/A" and result["changed"] and result["pushed"]
    assert git(a.repo, "status", "--porcelain") == status_before
    assert git(a.repo, "for-each-ref", "--format=%(refname)", "refs/heads") == "refs/heads/main\n"
    assert git(remote, "rev-parse", "refs/baker/A").strip() == result["commit"]
    tree = git(remote, "ls-tree", "--name-only", "refs/baker/A").split()
    assert {
        "brief.md",
        "brief.json",
        "snapshot.json",
        "note.md",
        "traps.jsonl",
        "checkpoint.json",
    } <= set(tree)
    assert not any(name.endswith(".jsonl") and name != "traps.jsonl" for name in tree)
    assert git(remote, "log", "-1", "--format=%s", "refs/baker/A").startswith("A · ")
    # The secrets planted in A's transcript are in no object of the remote.
    objects = all_objects(remote)
    for secret in SECRETS:
        assert secret.encode() not in objects, secret
    assert b"celsius_to_fahrenheit() helper" in objects  # the request itself did travel

    # Unchanged state: no new snapshot, the same commit.
    again = json.loads(a.baker("push", "--json").stdout)
    assert (again["changed"], again["commit"]) == (False, result["commit"])
    # A new checkpoint is a new snapshot whose parent is the previous one.
    a.baker("checkpoint", "--agent", "claude", input=stop_payload(a, transcript))
    third = json.loads(a.baker("push", "--json").stdout)
    assert third["changed"]
    parents = git(remote, "log", "--format=%P", "-1", "refs/baker/A").split()
    assert parents == [result["commit"]]

    # B: a plain clone did not fetch refs/baker/*; `baker pull` does, touching no branch.
    assert git(b.repo, "for-each-ref", "refs/baker") == ""
    heads_before = git(b.repo, "for-each-ref", "refs/heads", "refs/remotes")
    assert b.baker("init").returncode == 0
    pulled = b.baker("pull")
    assert pulled.returncode == 0, pulled.stderr
    assert pulled.stdout.startswith("A · ") and "claude" in pulled.stdout
    assert git(b.repo, "for-each-ref", "refs/heads", "refs/remotes") == heads_before

    dry = b.baker("resume", "codex", "--machine", "A", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    launch = json.loads(dry.stdout)
    first_turn = launch["launch"]["argv"][-1]
    assert launch["brief_saved"] is False and not Path(launch["brief"]).exists()  # a dry run
    brief = b.baker("handoff", "--machine", "A").stdout
    if "Handoff brief" not in first_turn:  # a long brief goes by file, the turn names it
        assert launch["brief"] in first_turn
        first_turn = brief
    assert REQUEST in first_turn
    assert "Document the helper in README.md (pending)" in first_turn  # todos
    assert "`weather/units.py`" in first_turn  # files edited
    assert "## Repo state on A, compared with here" in first_turn
    head_a = git(a.repo, "rev-parse", "HEAD").strip()
    assert f"commit {head_a[:12]} is not in this clone" in first_turn
    assert "`weather/` (??): missing here" in first_turn  # untracked, as git lists it
    assert "`README.md` (M): exists here" in first_turn
    for secret in SECRETS:
        assert secret not in first_turn and secret not in brief
    # Once B fetches A's branch, the comparison counts the commits B lacks.
    git(b.repo, "fetch", "-q")
    handoff = b.baker("handoff", "--machine", "A")
    assert "missing here: 1 commit(s) A had" in handoff.stdout

    # A's traps reach B's hooks, marked with their machine, from the file pull wrote.
    edit = json.dumps(
        {
            "session_id": "b-session",
            "cwd": str(b.repo),
            "hook_event_name": "PreToolUse",
            "tool_name": "Edit",
            "tool_input": {"file_path": str(b.repo / "weather" / "units.py")},
        }
    )
    pretool = b.baker("pretool", "--agent", "claude", input=edit.encode())
    context = json.loads(pretool.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "integer division lost the decimals" in context and "from machine A" in context
    pickup = b.baker("pickup")
    assert "## Other machines" in pickup.stdout
    assert "trap from A: `weather/*.py`" in pickup.stdout
    assert "A · " in pickup.stdout


def test_a_secret_in_the_note_refuses_the_push(machine_a: Machine, remote: Path) -> None:
    a = machine_a
    (a.repo / "memory").mkdir(exist_ok=True)
    (a.repo / "memory" / "hot.md").write_text(f"# Now\nDeploy with {GITHUB}\n")
    before = remote_refs(remote)
    objects_before = all_objects(remote)
    result = a.baker("push")
    assert result.returncode == 1
    assert "memory/hot.md holds github" in result.stderr
    assert GITHUB not in result.stderr + result.stdout
    assert git(a.repo, "for-each-ref", "refs/baker") == ""  # no ref moved here
    assert remote_refs(remote) == before and all_objects(remote) == objects_before


def test_text_redaction_already_wrote_does_not_refuse_the_push(
    machine_a: Machine, remote: Path
) -> None:
    """`[REDACTED]` where a password was is no secret: a brief or note holding it pushes."""
    a = machine_a
    (a.repo / "memory").mkdir(exist_ok=True)
    (a.repo / "memory" / "hot.md").write_text(
        "# Now\nRun `mysql -u root -p[REDACTED] db`, clone https://bob:[REDACTED]@host/r.git, "
        "`sshpass -p '[REDACTED]' ssh -p 22 web1`\n"
    )
    result = a.baker("push")
    assert result.returncode == 0, result.stderr
    assert "refs/baker/" in remote_refs(remote)


def test_delete_removes_the_snapshot_ref(machine_a: Machine, remote: Path) -> None:
    a = machine_a
    assert a.baker("push").returncode == 0
    assert "refs/baker/A" in remote_refs(remote)
    deleted = a.baker("push", "--delete")
    assert deleted.returncode == 0, deleted.stderr
    assert "refs/baker/A" not in remote_refs(remote)
    assert git(a.repo, "for-each-ref", "refs/baker") == ""


def test_pull_drops_a_machine_that_deleted_its_snapshot(
    tmp_path: Path, remote: Path, machine_a: Machine
) -> None:
    a = machine_a
    assert (
        a.baker("trap", "add", "src/*.py", "the vendored parser cannot be patched").returncode == 0
    )
    assert a.baker("push").returncode == 0
    b = clone(tmp_path, remote, "B")
    assert b.baker("init").returncode == 0
    assert b.baker("push").returncode == 0  # B's own snapshot is never fetched over its ref
    own = git(b.repo, "rev-parse", "refs/baker/B")
    pulled = json.loads(b.baker("pull", "--json").stdout)
    assert [m["name"] for m in pulled["machines"]] == ["A"] and pulled["traps"] == 1
    assert a.baker("push", "--delete").returncode == 0
    assert b.baker("pull").stdout.startswith("No other machine's snapshot")
    assert git(b.repo, "for-each-ref", "--format=%(refname)", "refs/baker") == "refs/baker/B\n"
    assert git(b.repo, "rev-parse", "refs/baker/B") == own
    machines = json.loads((b.repo / ".baker" / "machines.json").read_text())
    assert machines.get("machines", []) == [] and machines.get("traps", []) == []
    assert "Other machines" not in b.baker("pickup").stdout


def slow_remote(remote: Path, seconds: float) -> None:
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(f"#!/bin/sh\ncat >/dev/null\nsleep {seconds}\n")
    hook.chmod(0o755)


def wait_for(check: Callable[[], bool], timeout: float = 40.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def test_auto_push_runs_after_the_stop_hook_without_delaying_it(
    machine_a: Machine, remote: Path
) -> None:
    a = machine_a
    transcript = place_session(a)
    git(a.repo, "config", "baker.remote", "origin")
    git(a.repo, "config", "baker.autoPush", "true")
    slow_remote(remote, 8)
    start = time.monotonic()
    hook = a.baker("checkpoint", "--agent", "claude", input=stop_payload(a, transcript))
    took = time.monotonic() - start
    assert hook.returncode == 0
    assert "refs/baker/A" not in remote_refs(remote)  # the push is still running
    assert took < 7, took  # the remote takes 8 s and more: the hook did not wait
    assert wait_for(lambda: "refs/baker/A" in remote_refs(remote))
    log = a.repo / ".baker" / "log" / "events.jsonl"
    assert wait_for(lambda: log.exists() and '"event": "pushed"' in log.read_text())
    for secret in SECRETS:
        assert secret.encode() not in all_objects(remote)


def test_a_failed_auto_push_is_logged_for_audit(machine_a: Machine, tmp_path: Path) -> None:
    a = machine_a
    git(a.repo, "config", "baker.remote", str(tmp_path / "no-such-remote.git"))
    git(a.repo, "config", "baker.autoPush", "true")
    payload = stop_payload(a)
    assert a.baker("checkpoint", "--agent", "claude", input=payload).returncode == 0
    log = a.repo / ".baker" / "log" / "events.jsonl"
    assert wait_for(lambda: log.exists() and "push_failed" in log.read_text())
    report = json.loads(a.baker("audit", "--json").stdout)
    assert any(p["check"] == "push" for p in report["problems"]), report


def test_without_the_opt_in_nothing_reaches_the_remote(
    tmp_path: Path, remote: Path, machine_a: Machine
) -> None:
    # The repository itself asks for the push, in a committed `.baker/config.toml`, and the
    # user's global git config says autoPush too: neither is the clone's own config.
    a = machine_a
    (a.repo / ".baker" / "config.toml").write_text(
        '[machine]\nname = "evil"\n[push]\nremote = "origin"\nauto = true\n'
    )
    git(a.repo, "add", "-f", ".baker/config.toml")
    git(a.repo, "commit", "-qm", "ask for pushes")
    git(a.repo, "push", "-q")
    b = clone(tmp_path, remote, "B")
    git(b.repo, "config", "--global", "baker.autoPush", "true")
    git(b.repo, "config", "--global", "baker.remote", "origin")
    refs_before, objects_before = remote_refs(remote), all_objects(remote)
    # A committed `.baker/` is not a store baker made: the hooks leave it alone, as they do
    # in a clone that commits one (tests/reliability/test_untrusted_repo.py) ...
    for _ in range(2):
        assert b.baker("checkpoint", "--agent", "claude", input=stop_payload(b)).returncode == 0
    assert not (b.repo / ".baker" / "checkpoints").exists()
    # ... and once the user makes the store theirs, the committed config still asks nothing.
    git(b.repo, "rm", "-rq", "--cached", ".baker")
    (b.repo / ".baker").chmod(0o700)
    for _ in range(2):
        assert b.baker("checkpoint", "--agent", "claude", input=stop_payload(b)).returncode == 0
    assert len(list((b.repo / ".baker" / "checkpoints").glob("*.json"))) == 2  # hooks ran
    time.sleep(3)  # what a detached push would have needed to land
    assert remote_refs(remote) == refs_before
    assert all_objects(remote) == objects_before
    assert git(b.repo, "for-each-ref", "refs/baker") == ""
    # The same hook in the same clone pushes once the clone's own config opts in.
    git(b.repo, "config", "baker.autoPush", "true")
    assert b.baker("checkpoint", "--agent", "claude", input=stop_payload(b)).returncode == 0
    assert wait_for(lambda: "refs/baker/B " in remote_refs(remote))


def test_machine_names_must_be_one_ref_component(machine_a: Machine) -> None:
    (machine_a.home / ".baker" / "config.toml").write_text('[machine]\nname = "a/../b"\n')
    result = machine_a.baker("push")
    assert result.returncode == 1
    assert "cannot be a git ref name" in result.stderr


def test_push_without_a_remote_says_how_to_fix_and_then_says_it_pushed(
    machine_a: Machine, remote: Path, tmp_path: Path
) -> None:
    a = machine_a
    git(a.repo, "remote", "remove", "origin")
    failed = a.baker("push")
    assert failed.returncode != 0
    assert "git remote add origin" in failed.stderr, failed.stderr
    assert "baker.remote" in failed.stderr and "baker push REMOTE" in failed.stderr
    assert ".." not in failed.stderr.replace("...", "")  # git's sentence ends once (issue 31)
    kept = git(a.repo, "rev-parse", "refs/baker/A").strip()  # written before the push failed

    git(a.repo, "remote", "add", "origin", str(remote))
    pushed = a.baker("push")
    assert pushed.returncode == 0, pushed.stderr
    assert f"No new snapshot (unchanged since refs/baker/A {kept[:12]})" in pushed.stdout
    assert "pushed refs/baker/A to origin" in pushed.stdout
    assert kept in remote_refs(remote)
    assert json.loads(a.baker("push", "--json").stdout)["sent"] is False
    again = a.baker("push")
    assert "origin is up to date" in again.stdout, again.stdout

    # Another clone under the same name: the remote refuses, and the message says why.
    home = make_home(tmp_path / "other", "A")
    b = Machine("A", home, tmp_path / "other" / "weather-cli")
    git(tmp_path, "clone", "-q", str(remote), str(b.repo))
    assert b.baker("init").returncode == 0
    (b.repo / "memory" / "hot.md").write_text("# Hot\n\nsomething else entirely\n")
    refused = b.baker("push")
    assert refused.returncode != 0
    assert "holds snapshots this clone did not write" in refused.stderr, refused.stderr


def test_the_brief_on_another_machine_agrees_with_that_machines_own(
    tmp_path: Path, remote: Path, machine_a: Machine
) -> None:
    """Issue 31, item 3: after push/pull, `handoff --machine A` listed baker's own files as
    A's uncommitted work while A's brief said "working tree clean", pointed at `baker
    resume-check ID` (saved checkpoints are not pushed: it answers `none` there), said "here:
    branch main, commit" with nothing after it on an unborn branch, and `baker sessions` did
    not list A's snapshot."""
    import re

    a = machine_a
    transcript = place_session(a)
    assert "working tree clean" in a.baker("handoff").stdout
    draft = json.loads(a.baker("facts", "--json").stdout)["draft_template"]
    draft = re.sub(r"<!--.*?-->", "None.", draft).replace("agent: \n", "agent: claude\n")
    (tmp_path / "draft.md").write_text(draft)
    saved = a.baker("save", str(tmp_path / "draft.md"), "--json")
    assert saved.returncode == 0, saved.stdout + saved.stderr
    saved_id = json.loads(saved.stdout)["id"]
    assert (
        a.baker("checkpoint", "--agent", "claude", input=stop_payload(a, transcript)).returncode
        == 0
    )
    assert a.baker("push").returncode == 0

    # B: a clone on an unborn branch of its own (a new repository with the remote added).
    b = Machine("B", make_home(tmp_path, "B"), tmp_path / "B" / "weather-cli")
    b.repo.mkdir(parents=True)
    git(b.repo, "init", "-q", "-b", "main")
    git(b.repo, "remote", "add", "origin", str(remote))
    assert b.baker("init").returncode == 0
    pulled = b.baker("pull")
    assert pulled.returncode == 0, pulled.stderr

    brief = b.baker("handoff", "--machine", "A")
    assert brief.returncode == 0, brief.stderr
    text = brief.stdout
    assert "- A's working tree was clean" in text
    assert "uncommitted" not in text and "AGENTS.md" not in text
    assert "- here: branch main, no commit yet" in text
    assert f"- id: {saved_id}" in text
    assert "baker resume-check" not in text.replace(
        "`baker resume-check` answers there, not here", ""
    )
    assert "saved checkpoints stay on the machine that saved them" in text

    listed = b.baker("sessions")
    assert listed.returncode == 0, listed.stderr
    head_a = git(a.repo, "rev-parse", "HEAD").strip()
    assert re.search(
        rf"^  A · \S+ \d\d:\d\d · claude · stop · main @ {head_a[:12]}$", listed.stdout, re.M
    ), listed.stdout
    [row] = json.loads(b.baker("sessions", "--json").stdout)["machines"]
    assert (row["machine"], row["agent"], row["state"]) == ("A", "claude", "stop")
    assert row["latest_request"].startswith("Add a celsius_to_fahrenheit() helper")
