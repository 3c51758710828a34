"""Ids and paths from users or hook payloads never read or write outside the stores, and the
stores stay private (0700/0600) after every command; loose ones are reported by `doctor`.

Every command runs as a real process. "Nothing outside" is checked by a snapshot of every file
under the test's folders and HOME (path, size, mtime, mode) before and after.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, copy_tree, git, run_baker
from tests.helpers.drafts import make_draft

CLAUDE_S4 = "projects/-home-dev-src-data-pipeline/42f346a0-12c0-4151-9060-6bcb27b8e815.jsonl"
Snapshot = dict[str, tuple[str, int, int, int]]


def snapshot(*roots: Path, skip: tuple[Path, ...] = ()) -> Snapshot:
    """Every entry under `roots` (not following links), minus the `skip` subtrees."""
    out: Snapshot = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            here = Path(dirpath)
            dirnames[:] = [d for d in dirnames if here / d not in skip]
            for name in [*dirnames, *filenames]:
                st = (here / name).lstat()
                kind = "d" if stat.S_ISDIR(st.st_mode) else "f"
                size = 0 if kind == "d" else st.st_size
                mtime = 0 if kind == "d" else st.st_mtime_ns
                out[str(here / name)] = (kind, size, mtime, stat.S_IMODE(st.st_mode))
    return out


def changed(before: Snapshot, after: Snapshot) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


@pytest.fixture
def world(repo: Path, tmp_path: Path) -> dict[str, Path]:
    """A project, a second repository without `.baker/`, a real transcript outside both."""
    assert run_baker("init", "--agent", "claude", cwd=repo).returncode == 0
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    (other / "secret.txt").write_text("not for baker\n")
    claude = copy_tree(FIXTURES / "claude" / ".claude", tmp_path / "claude")
    return {"project": repo, "other": other, "transcript": claude / CLAUDE_S4, "claude": claude}


def hostile_payloads(w: dict[str, Path]) -> list[tuple[str, list[str], bytes]]:
    """(command, argv, payload) with ids and paths aimed outside the project."""
    project, other, transcript = w["project"], w["other"], w["transcript"]
    stop = json.loads((FIXTURES / "claude/hook_payloads/Stop.json").read_text())
    start = json.loads((FIXTURES / "claude/hook_payloads/SessionStart.startup.json").read_text())
    pre = json.loads((FIXTURES / "claude/hook_payloads/PreToolUse.Edit.json").read_text())
    codex_stop = json.loads((FIXTURES / "codex/hook_payloads/Stop.json").read_text())
    gemini_stop = json.loads((FIXTURES / "gemini/hook_payloads/AfterAgent.json").read_text())
    notify = json.loads((FIXTURES / "codex/hook_payloads/notify.json").read_text())
    evil_ids = ["../../../../evil", "/tmp/evil", "a/../../b\x00"]
    cases: list[tuple[str, list[str], bytes]] = []
    for sid in evil_ids:
        for cwd in (str(project), str(other), f"{project}/../other"):
            for path in (
                str(transcript),
                "/etc/passwd",
                str(other / "secret.txt"),
                f"{project}/../claude/{CLAUDE_S4}",
            ):
                fields = {"session_id": sid, "cwd": cwd, "transcript_path": path}
                cases.append(
                    ("checkpoint", ["--agent", "claude"], json.dumps({**stop, **fields}).encode())
                )
        fields = {"session_id": sid, "cwd": str(project), "transcript_path": str(transcript)}
        cases.append(("pickup", ["--agent", "claude"], json.dumps({**start, **fields}).encode()))
        for target in ("../../other/secret.txt", str(other / "secret.txt"), "/etc/passwd"):
            tool = {**pre, **fields, "tool_input": {**pre["tool_input"], "file_path": target}}
            cases.append(("pretool", ["--agent", "claude"], json.dumps(tool).encode()))
        cases.append(
            ("checkpoint", ["--agent", "codex"], json.dumps({**codex_stop, **fields}).encode())
        )
        cases.append(
            ("checkpoint", ["--agent", "gemini"], json.dumps({**gemini_stop, **fields}).encode())
        )
        cases.append(
            (
                "checkpoint",
                ["--agent", "codex", json.dumps({**notify, "thread-id": sid, "cwd": str(other)})],
                b"",
            )
        )
    return cases


def test_hook_payloads_never_write_outside_the_project_they_resolve(
    world: dict[str, Path], isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fifty-odd hostile payloads in-process (the same `run` as `baker`'s entry
    point), a sample of them again as real processes."""
    from tests.helpers.hook_call import call

    project, transcript = world["project"], world["transcript"]
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(world["claude"]))
    # A trap for the outside file, so pretool really matches and records what it showed.
    assert run_baker("trap", "add", "**/secret.txt", "do not touch it", cwd=project).returncode == 0
    store = project / ".baker"
    # ~/.baker/cache: the hooks' own markers (`hookonce`, `trust.tracked`) and the entry-point
    # index, checked below.
    cache = isolated_home / ".baker" / "cache"
    before = snapshot(tmp_path, isolated_home, skip=(store, cache))
    transcript_before = transcript.read_bytes()
    cases = hostile_payloads(world)
    assert len(cases) >= 50
    for command, argv, payload in cases:
        code, out = call([command, *argv], payload)
        assert code == 0, (command, payload)
        if out.strip():
            json.loads(out)
    # The same payloads again would be taken for the other hook level's duplicates.
    shutil.rmtree(cache / "hooks-seen")
    for command, argv, payload in cases[::12]:
        result = run_baker(command, *argv, cwd=project, input=payload, timeout=30)
        assert result.returncode == 0 and "Traceback" not in result.stderr, (command, payload)
    assert changed(before, snapshot(tmp_path, isolated_home, skip=(store, cache))) == []
    found = [p for p in cache.rglob("*") if p.is_file()]
    # The entry-point index (`adapters.registry`): named by sys.path, never by a payload.
    index = [p for p in found if p.parent == cache and p.name.startswith("entry-points-")]
    assert all(re.fullmatch(r"entry-points-[0-9a-f]{17,23}\.json", p.name) for p in index)
    markers = [p for p in found if p not in index]
    assert markers and all(
        re.fullmatch(r"[0-9a-f]{17,23}", p.name) and p.stat().st_size == 0 for p in markers
    )
    assert transcript.read_bytes() == transcript_before
    assert not (world["other"] / ".baker").exists()
    # Inside the store, only its own folders: no file named after an id from a payload.
    names = {p.name for p in store.rglob("*")}
    assert not [n for n in names if "evil" in n or n in ("..", "b")], names
    assert all(p.resolve().is_relative_to(store.resolve()) for p in store.rglob("*"))


def test_ids_from_the_command_line_stay_in_their_store(
    world: dict[str, Path], isolated_home: Path, tmp_path: Path
) -> None:
    project, other = world["project"], world["other"]
    from continuity_core import saved

    real = saved.save(project, make_draft(project))
    outside = tmp_path / "elsewhere.md"
    outside.write_text(real.path.read_text() + "\nOUTSIDE-MARKER\n")
    link = real.path.parent / "20991231T000000Z-linked.md"
    link.symlink_to(outside)
    (tmp_path / "x").write_text("x")
    env = {"CLAUDE_CONFIG_DIR": str(world["claude"])}
    assert run_baker("recall", "--index", cwd=project, env=env).returncode == 0
    before = snapshot(tmp_path, isolated_home, skip=(project / ".baker",))
    sources = archived_sessions(isolated_home)
    assert sources

    for target in (
        "../x",
        "../../x",
        str(tmp_path / "x"),
        str(outside),
        str(link),
        link.stem,
        ".baker/saved/../../README.md",
        "/etc/passwd",
    ):
        result = run_baker("resume-check", target, "--json", cwd=project)
        answer = json.loads(result.stdout)
        assert "OUTSIDE-MARKER" not in result.stdout and "not for baker" not in result.stdout
        # A link in the store makes the whole store untrusted (continuity_core.trust).
        assert result.returncode == 1, (target, result.stdout)
        assert answer["status"] == "invalid" and "refused" in answer.get("reason", ""), answer
    link.unlink()  # the rest runs in a store that passes the trust check
    for args in (
        ["recall", "--forget", "../"],
        ["recall", "--forget", "../../x"],
        ["recall", "--forget", "%"],
        ["recall", "--show", "../"],
        ["trap", "rm", "../../x"],
        ["trap", "rm", "/etc/passwd"],
        ["handoff", "--session", "../../x"],
        ["handoff", "--session", "/etc/passwd"],
        ["validate", str(other / ".baker" / "../../x")],
    ):
        result = run_baker(*args, cwd=project, env=env)
        assert "Traceback" not in result.stderr, args
        assert result.returncode != 0 or args[0] == "handoff", (args, result.stdout)
        assert "not for baker" not in result.stdout + result.stderr
    # A trap may cite a file anywhere (a system config it depends on): only a hash is kept.
    cite = run_baker(
        "trap",
        "add",
        "../other/secret.txt",
        "edits there are reverted",
        "--file",
        str(other / "secret.txt"),
        cwd=project,
    )
    assert cite.returncode == 0, cite.stderr
    assert "not for baker" not in (project / ".baker" / "traps.jsonl").read_text()
    after = snapshot(tmp_path, isolated_home, skip=(project / ".baker",))
    assert [p for p in changed(before, after) if "archive.sqlite" not in p] == []
    assert archived_sessions(isolated_home) == sources
    assert "OUTSIDE-MARKER" in outside.read_text() and (tmp_path / "x").read_text() == "x"


def archived_sessions(home: Path) -> list[str]:
    import sqlite3

    db = sqlite3.connect(home / ".baker" / "archive.sqlite")
    try:
        return sorted(str(r[0]) for r in db.execute("SELECT session_id FROM sources"))
    finally:
        db.close()


def private_problems(*stores: Path) -> list[str]:
    bad = []
    for store in filter(Path.exists, stores):
        for p in [store, *store.rglob("*")]:
            mode = stat.S_IMODE(p.lstat().st_mode)
            if p.is_symlink():
                continue
            want = 0o700 if p.is_dir() else 0o600
            if mode != want:
                bad.append(f"{p} {oct(mode)}")
    return bad


def test_stores_stay_private_after_every_command_and_doctor_reports_loose_ones(
    world: dict[str, Path], isolated_home: Path, tmp_path: Path
) -> None:
    project = world["project"]
    env = {"CLAUDE_CONFIG_DIR": str(world["claude"])}
    stop = json.loads((FIXTURES / "claude/hook_payloads/Stop.json").read_text())
    stop.update(cwd=str(project), transcript_path=str(world["transcript"]), session_id="s-1")
    pre = json.loads((FIXTURES / "claude/hook_payloads/PreToolUse.Edit.json").read_text())
    pre.update(
        cwd=str(project),
        session_id="s-1",
        tool_input={**pre["tool_input"], "file_path": str(project / "README.md")},
    )
    draft = tmp_path / "draft.md"
    draft.write_text(make_draft(project))
    steps: list[tuple[list[str], bytes | None]] = [
        (["checkpoint", "--agent", "claude"], json.dumps(stop).encode()),
        (["trap", "add", "README.md", "the readme is generated"], None),
        (["pretool", "--agent", "claude"], json.dumps(pre).encode()),
        (["now", "write the migration"], None),
        (["save", str(draft)], None),
        (["recall", "--index"], None),
        (["checkpoint", "--quiet"], None),
        (["status", "--json"], None),
        (["doctor"], None),
        (["prune", "--keep", "1"], None),
    ]
    old = os.umask(0o022)  # the usual umask: anything not made private on purpose shows up
    try:
        for args, payload in steps:
            result = run_baker(*args, cwd=project, env=env, input=payload)
            assert "Traceback" not in result.stderr, args
            assert private_problems(project / ".baker", isolated_home / ".baker") == [], args
    finally:
        os.umask(old)
    assert (isolated_home / ".baker" / "archive.sqlite").exists()

    healthy = run_baker("doctor", cwd=project, env=env)
    assert "readable by others" not in healthy.stdout + healthy.stderr
    checkpoint = next((project / ".baker" / "checkpoints").glob("*.json"))
    checkpoint.chmod(0o644)
    loose = run_baker("doctor", cwd=project, env=env)
    text = loose.stdout + loose.stderr
    assert "readable by others" in text and "chmod -R go-rwx" in text, text
    # A `.baker` open to others is not one baker made: refused, and doctor says what to do.
    (project / ".baker").chmod(0o755)
    refused = run_baker("doctor", cwd=project, env=env)
    assert refused.returncode == 1
    assert f"{project / '.baker'} is open to other users (mode 0755)" in refused.stdout
    assert f"chmod 700 {project / '.baker'}" in refused.stdout
    (project / ".baker").chmod(0o700)
    # The next hook write does not widen anything further, and new files are still private.
    run_baker("checkpoint", "--quiet", cwd=project)
    newest = sorted((project / ".baker" / "checkpoints").glob("*.json"))[-1]
    assert stat.S_IMODE(newest.stat().st_mode) == 0o600


def test_uninstall_through_a_linked_github_folder_removes_nothing_outside(
    repo: Path, tmp_path: Path
) -> None:
    """`baker uninstall` takes away the folders its removal leaves empty, up to the project.
    A `.github` a repository committed as a link to a folder outside it, holding baker's own
    hooks file (another project's), is refused: no file or folder out there goes, not even
    the ones left empty if that file went."""
    pytest.importorskip("continuity_copilot")
    assert run_baker("init", cwd=repo).returncode == 0
    outside = tmp_path / "elsewhere" / "gh"
    outside.parent.mkdir()
    shutil.move(repo / ".github", outside)  # baker's own .github/hooks/baker.json, out there
    (repo / ".github").symlink_to(outside)
    before = snapshot(tmp_path / "elsewhere")
    assert (outside / "hooks" / "baker.json").is_file()
    run_baker("uninstall", cwd=repo)
    assert snapshot(tmp_path / "elsewhere") == before
    assert (repo / ".github").is_symlink()
