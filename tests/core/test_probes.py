"""Environment facts: jobs by their effect, shell probes, venv interpreters, isolation, deadlines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from continuity_core import probes
from continuity_core.adapters import registry
from continuity_core.schemas.probe import ProbeResult
from tests.conftest import git, lingering


def write_probes(root: Path, value: object) -> None:
    (root / ".baker").mkdir(mode=0o700, exist_ok=True)
    text = value if isinstance(value, str) else json.dumps(value)
    (root / ".baker" / "probes.json").write_text(text)


def by_name(results: list[ProbeResult]) -> dict[str, ProbeResult]:
    return {r.name: r for r in results}


def test_jobs_are_checked_by_their_artifact(repo: Path) -> None:
    (repo / "out").mkdir()
    (repo / "out" / "fresh.csv").write_text("a,b\n")
    old = repo / "out" / "old.csv"
    old.write_text("a,b\n")
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    (repo / "out" / "empty.log").write_text("")
    write_probes(
        repo,
        {
            "jobs": [
                {"name": "train", "artifact": "out/fresh.csv", "max_age_s": 600},
                {"name": "eval", "artifact": "out/old.csv", "max_age_s": 600},
                {"name": "export", "artifact": "out/missing.bin"},
                {"name": "log", "artifact": "out/empty.log"},
                {"name": "nested", "artifact": "out/fresh.csv/inside"},
            ]
        },
    )
    jobs = by_name(probes.environment(repo, deadline_s=10).jobs)
    assert jobs["train"].state == "ok" and jobs["train"].verdict == "fresh"
    assert jobs["eval"].state == "warn" and "stale" in jobs["eval"].detail
    assert jobs["export"].state == "fail" and "missing" in jobs["export"].detail
    assert jobs["log"].state == "warn" and "empty" in jobs["log"].detail
    assert jobs["nested"].state == "fail"


def test_a_bad_entry_never_hides_the_others(repo: Path) -> None:
    (repo / "ok.txt").write_text("done\n")
    write_probes(
        repo,
        {
            "jobs": [
                "not an object",
                {"name": 42, "artifact": "ok.txt"},
                {"name": "bad\nname", "artifact": "ok.txt"},
                {"name": "no-artifact"},
                {"name": "empty-artifact", "artifact": "  "},
                {"name": "nul", "artifact": "a\u0000b"},
                {"name": "negative-age", "artifact": "ok.txt", "max_age_s": -1},
                {"name": "missing", "artifact": "nope.txt"},
                {"name": "good", "artifact": "ok.txt"},
            ],
            "probes": [{"command": "true"}, {"name": "works", "command": "echo fine"}],
        },
    )
    env = probes.environment(repo, deadline_s=10)
    jobs = by_name(env.jobs)
    assert len(env.jobs) == 9
    assert jobs["jobs[0]"].state == "error" and "object" in jobs["jobs[0]"].detail
    assert jobs["jobs[1]"].state == "error" and "malformed name" in jobs["jobs[1]"].detail
    assert jobs["jobs[2]"].state == "error"
    assert jobs["no-artifact"].detail == "missing or invalid artifact path"
    assert jobs["empty-artifact"].state == jobs["nul"].state == "error"
    assert jobs["negative-age"].state == "error"
    assert jobs["missing"].state == "fail"
    assert jobs["good"].state == "ok"
    shell = by_name(env.probes)
    assert shell["probes[0]"].state == "error"
    assert shell["works"].state == "ok" and shell["works"].detail == "fine"


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '"jobs"'])
def test_unusable_probes_file_is_one_error_and_git_still_reported(repo: Path, text: str) -> None:
    write_probes(repo, text)
    env = probes.environment(repo, deadline_s=10)
    assert env.git.branch == "main"
    assert [r.name for r in env.probes] == ["probes.json"]
    assert env.probes[0].state == "error"


def test_a_broken_probes_file_says_where_it_broke(repo: Path) -> None:
    """A broken probes.json is reported in msgspec's
    words, which name the fault and its byte, as before."""
    write_probes(repo, '{"jobs": [{"name": "train", "artifact": "out"},]}')
    [problem] = probes.environment(repo, deadline_s=10).probes
    assert (problem.name, problem.state) == ("probes.json", "error")
    assert (
        problem.detail
        == "unreadable or not JSON: JSON is malformed: trailing comma in array (byte 47)"
    )


def test_wrong_type_under_one_key_spares_the_rest(repo: Path) -> None:
    write_probes(
        repo,
        {"jobs": {"name": "x"}, "gpu": [1], "probes": [{"name": "alive", "command": "echo up"}]},
    )
    env = probes.environment(repo, deadline_s=10)
    names = {r.name: r.state for r in env.probes}
    assert names["probes.json: jobs"] == "error"
    assert names["probes.json: gpu"] == "error"
    assert names["alive"] == "ok"


def test_shell_probes_report_exit_and_output(repo: Path) -> None:
    write_probes(
        repo,
        {
            "probes": [
                {"name": "disk", "command": "echo checking; echo 42% used"},
                {"name": "server", "command": "echo 'connection refused' >&2; exit 7"},
            ]
        },
    )
    shell = by_name(probes.environment(repo, deadline_s=10).probes)
    assert shell["disk"].state == "ok" and shell["disk"].detail == "42% used"
    assert shell["server"].state == "fail"
    assert shell["server"].detail == "exit 7: connection refused"


def test_a_hung_probe_times_out_and_its_children_die(repo: Path) -> None:
    marker = repo / "survived"
    write_probes(
        repo,
        {
            "probes": [
                {"name": "hang", "command": f"sleep 30; touch {marker}", "timeout_s": 0.5},
                {"name": "quick", "command": "echo ok"},
            ]
        },
    )
    start = time.monotonic()
    shell = by_name(probes.environment(repo, deadline_s=10).probes)
    assert time.monotonic() - start < 5
    assert shell["hang"].state == "timeout" and "0.5s" in shell["hang"].detail
    assert shell["quick"].state == "ok"
    time.sleep(0.2)
    assert not marker.exists()


def test_probes_run_concurrently_within_the_total_deadline(repo: Path) -> None:
    write_probes(
        repo,
        {
            "probes": [{"name": f"p{i}", "command": "sleep 1; echo done"} for i in range(4)]
            + [{"name": "forever", "command": "sleep 60", "timeout_s": 120}]
        },
    )
    start = time.monotonic()
    env = probes.environment(repo, deadline_s=2.5)
    elapsed = time.monotonic() - start
    assert elapsed < 4, elapsed  # four 1 s probes in parallel, the hung one cut at the deadline
    shell = by_name(env.probes)
    assert all(shell[f"p{i}"].state == "ok" for i in range(4))
    assert shell["forever"].state == "timeout"


def test_probe_output_is_redacted(repo: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    write_probes(repo, {"probes": [{"name": "leaky", "command": f"echo token {token}"}]})
    env = probes.environment(repo, deadline_s=10)
    assert token not in env.probes[0].detail
    assert token not in probes.render(env)


def make_venv(root: Path, name: str, python: str | None) -> Path:
    venv = root / name
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    if python is not None:
        (venv / "bin" / "python").symlink_to(python)
    return venv


def test_venv_interpreters_are_resolved_and_broken_ones_reported(
    repo: Path, tmp_path: Path
) -> None:
    make_venv(repo, ".venv", sys.executable)
    make_venv(repo, "old-env", str(tmp_path / "gone" / "python3.9"))
    make_venv(repo, "empty-env", None)
    elsewhere = make_venv(tmp_path, "shared-venv", sys.executable)
    write_probes(repo, {"venvs": [str(elsewhere), 7, "does-not-exist"]})
    found = by_name(probes.environment(repo, deadline_s=10).interpreters)
    assert (found[".venv"].state, found[".venv"].verdict) == ("ok", "present")
    assert "pyvenv.cfg lies inside the project, so not run" in found[".venv"].detail
    assert found["old-env"].state == "fail" and "links to missing" in found["old-env"].detail
    assert found["empty-env"].verdict == "broken"
    assert found[str(elsewhere)].verdict == "outside"  # not run: outside the project
    assert found["does-not-exist"].verdict == "missing"


def test_gpu_not_installed_is_said(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "entry_points", lambda group: iter(()))
    env = probes.environment(repo, deadline_s=5)
    assert env.gpu[0].detail.startswith("GPU probes are not installed")
    write_probes(repo, {"gpu": {}})
    env = probes.environment(repo, deadline_s=5)
    assert env.gpu[0].detail.startswith("GPU probes are not installed")


def test_gpu_unconfigured_runs_nothing_and_pickup_hides_it(repo: Path) -> None:
    pytest.importorskip("continuity_gpu_probes")
    env = probes.environment(repo, deadline_s=5)
    assert env.gpu[0].verdict == "not configured"
    assert "gpu" in probes.render(env)
    assert "gpu" not in probes.render(env, quiet=True)


def test_run_all_returns_none_for_unfinished_and_the_error_for_failures() -> None:
    def boom() -> int:
        raise RuntimeError("bad probe")

    start = time.monotonic()
    results = probes.run_all([lambda: 1, boom, lambda: time.sleep(5)], 0.3)
    assert time.monotonic() - start < 2
    assert results[0] == 1
    assert isinstance(results[1], RuntimeError)
    assert results[2] is None


def test_a_command_cut_off_by_the_deadline_does_not_outlive_the_process(tmp_path: Path) -> None:
    """Workers past the deadline are abandoned, but their commands (own process groups) are
    killed when baker exits, so nothing it started runs on."""
    mark = f"probe-{os.getpid()}-{time.monotonic_ns()}"
    code = (
        "from pathlib import Path\nfrom continuity_core import probes\n"
        "probes.run_all([lambda: probes.run_command('sleep 30', cwd=Path('.'), "
        "timeout_s=30, shell=True)], 0.5)\n"
    )
    subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        timeout=60,
        check=True,
        env={**os.environ, "BAKER_TEST_MARK": mark},
    )
    time.sleep(0.2)
    assert lingering(mark) == []


def test_tracked_by_git_is_one_literal_query_from_any_folder(repo: Path, tmp_path: Path) -> None:
    sub = repo / "sub"
    for name in ("kept", "v*", "mine"):
        make_venv(sub, name, sys.executable)
    git(repo, "add", "sub/kept/pyvenv.cfg", "sub/v*/pyvenv.cfg")
    folders = [sub / "kept", sub / "v*", sub / "mine", sub / "absent"]
    # `v*` is a literal name: it does not match `mine`, and an untracked folder stays out.
    assert probes.tracked_by_git(sub, folders) == {sub / "kept", sub / "v*"}
    plain = tmp_path / "plain"  # not in a git work tree: nothing is known to be tracked
    make_venv(plain, "x", sys.executable)
    assert probes.tracked_by_git(plain, [plain / "x"]) == set()
    found = by_name(probes.environment(sub, deadline_s=10).interpreters)
    assert found["kept"].verdict == "tracked" and found["v*"].verdict == "tracked"
    assert found["mine"].state == "ok" and found["mine"].verdict == "present"
