"""The GPU probe: a real compute in each interpreter, classified; fakes stand in for each case."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("continuity_gpu_probes")

from continuity_core import probes
from continuity_core.schemas.probe import ProbeContext, ProbeResult
from continuity_gpu_probes import GpuProbe

# A stand-in `torch` per case. The probe script runs unchanged against it, so what is tested
# is the script's own classification, not a copy of it.
FAKE_TORCH = {
    "live": """
__version__ = "2.9.0+fake"
class T:
    def to(self, device): return self
    def __matmul__(self, other): return self
    def sum(self): return self
    def item(self): return 1.0
def randn(*shape): return T()
def device(name): return name
class cuda:
    synchronize = staticmethod(lambda: None)
    device_count = staticmethod(lambda: 1)
    get_device_name = staticmethod(lambda d: "Fake H200")
""",
    "dead": """
__version__ = "2.9.0+fake"
class T:
    def to(self, device):
        raise RuntimeError("CUDA error: an illegal memory access was encountered")
def randn(*shape): return T()
class cuda:
    device_count = staticmethod(lambda: 1)
""",
    "no device": """
__version__ = "2.9.0+fake"
class T:
    def to(self, device):
        raise RuntimeError("Found no NVIDIA driver on your system.")
def randn(*shape): return T()
class cuda:
    device_count = staticmethod(lambda: 0)
""",
    "timed out": """
import time
__version__ = "2.9.0+fake"
class T:
    def to(self, device): return self
    def __matmul__(self, other): return self
    def sum(self): return self
    def item(self): return 1.0
def randn(*shape): return T()
class cuda:
    synchronize = staticmethod(lambda: time.sleep(60))
""",
    "no torch": "raise ImportError('No module named torch (fake)')\n",
}


def fake_interpreter(tmp_path: Path, case: str) -> str:
    """A shell script that behaves like a venv's python whose torch acts as `case`."""
    slug = case.replace(" ", "_")
    site = tmp_path / f"site-{slug}"
    site.mkdir()
    (site / "torch.py").write_text(FAKE_TORCH[case])
    script = tmp_path / f"python-{slug}"
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec "{sys.executable}" "$@"\n')
    script.chmod(0o755)
    return str(script)


def run_probe(root: Path, config: dict[str, object], timeout_s: float = 10.0) -> list[ProbeResult]:
    """The probe for a project beside `root`'s fake interpreters (one inside it is not run)."""
    project = root / "project"
    project.mkdir(exist_ok=True)
    return GpuProbe().run(ProbeContext(root=project, config=config, timeout_s=timeout_s))


@pytest.mark.parametrize(
    ("case", "state"),
    [
        ("live", "ok"),
        ("dead", "fail"),
        ("no device", "fail"),
        ("no torch", "warn"),
    ],
)
def test_each_verdict(tmp_path: Path, case: str, state: str) -> None:
    python = fake_interpreter(tmp_path, case)
    [result] = run_probe(tmp_path, {"interpreters": [python]})
    assert result.verdict == case
    assert result.state == state
    assert result.name == python
    assert result.detail.startswith(case)


def test_live_names_the_device_and_torch(tmp_path: Path) -> None:
    [result] = run_probe(tmp_path, {"interpreters": [fake_interpreter(tmp_path, "live")]})
    assert "Fake H200" in result.detail and "torch 2.9.0+fake" in result.detail


def test_dead_carries_the_error(tmp_path: Path) -> None:
    [result] = run_probe(tmp_path, {"interpreters": [fake_interpreter(tmp_path, "dead")]})
    assert "illegal memory access" in result.detail


def test_a_hung_device_times_out(tmp_path: Path) -> None:
    python = fake_interpreter(tmp_path, "timed out")
    start = time.monotonic()
    [result] = run_probe(tmp_path, {"interpreters": [python], "timeout_s": 1})
    assert time.monotonic() - start < 5
    assert result.state == "timeout" and result.verdict == "timed out"


def test_an_interpreter_that_crashes_or_is_missing_is_dead(tmp_path: Path) -> None:
    crash = tmp_path / "python-crash"
    crash.write_text("#!/bin/sh\necho 'Segmentation fault' >&2\nexit 139\n")
    crash.chmod(0o755)
    results = run_probe(tmp_path, {"interpreters": [str(crash), str(tmp_path / "nope")]})
    assert [r.verdict for r in results] == ["dead", "dead"]
    assert "exited 139: Segmentation fault" in results[0].detail
    assert "does not exist" in results[1].detail


def test_each_interpreter_checked_concurrently_and_bad_entries_isolated(tmp_path: Path) -> None:
    live, dead = fake_interpreter(tmp_path, "live"), fake_interpreter(tmp_path, "dead")
    results = run_probe(tmp_path, {"interpreters": [live, 5, dead]})
    assert [r.state for r in results] == ["error", "ok", "fail"]
    assert results[0].name == "gpu.interpreters[1]"


@pytest.mark.parametrize(
    "config",
    [
        {"device": "cuda; rm -rf /"},
        {"timeout_s": "soon"},
        {"interpreters": "python"},
    ],
)
def test_invalid_config_is_an_error_result(tmp_path: Path, config: dict[str, object]) -> None:
    [result] = run_probe(tmp_path, config)
    assert result.state == "error"


def test_without_interpreters_the_project_venvs_are_probed(tmp_path: Path) -> None:
    python = fake_interpreter(tmp_path, "live")
    (tmp_path / "project").mkdir()
    ctx = ProbeContext(root=tmp_path / "project", config={}, interpreters=[python], timeout_s=10)
    [result] = GpuProbe().run(ctx)
    assert result.verdict == "live"


def test_an_interpreter_inside_the_project_is_not_run(tmp_path: Path) -> None:
    """probes.json is the repository's file: an interpreter it lists inside the project (or
    beside a pyvenv.cfg there) is the folder's own code, and is reported, not run."""
    ran = tmp_path / "ran"
    python = tmp_path / "bin" / "python"
    python.parent.mkdir()
    python.write_text(f"#!/bin/sh\ntouch {ran}\n")
    python.chmod(0o755)
    ctx = ProbeContext(root=tmp_path, config={"interpreters": [str(python)]}, timeout_s=5)
    [result] = GpuProbe().run(ctx)
    assert (result.state, result.verdict) == ("error", "not run")
    assert "lies inside the project" in result.detail and not ran.exists()


def test_registered_and_used_by_status(repo: Path, tmp_path: Path) -> None:
    assert isinstance(probes.plugin("gpu"), GpuProbe)
    (repo / ".baker").mkdir(mode=0o700)
    (repo / ".baker" / "probes.json").write_text(
        json.dumps(
            {
                "gpu": {
                    "interpreters": [
                        fake_interpreter(tmp_path, "live"),
                        fake_interpreter(tmp_path, "dead"),
                    ],
                }
            }
        )
    )
    env = probes.environment(repo, deadline_s=10)
    assert [r.verdict for r in env.gpu] == ["live", "dead"]
    assert "live: Fake H200" in probes.render(env)


def _has_gpu() -> bool:
    if shutil.which("nvidia-smi") is None:
        return False
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout


@pytest.mark.gpu
def test_real_gpu_is_live(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    if not _has_gpu():
        pytest.skip("no GPU here")
    [result] = run_probe(tmp_path, {"interpreters": [sys.executable]}, timeout_s=120)
    assert result.verdict == "live", result.detail
