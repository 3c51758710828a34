"""`baker status [--json]`: live facts, every probe entry isolated, within its deadline."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import run_baker
from tests.helpers.invoke import Invoke


def setup_probes(repo: Path) -> None:
    (repo / ".baker").mkdir(mode=0o700, exist_ok=True)
    (repo / "model.pt").write_text("weights")
    (repo / ".venv" / "bin").mkdir(parents=True)
    (repo / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (repo / ".venv" / "bin" / "python").symlink_to(sys.executable)
    (repo / "broken-venv" / "bin").mkdir(parents=True)
    (repo / "broken-venv" / "pyvenv.cfg").write_text("home = /gone\n")
    (repo / "broken-venv" / "bin" / "python").symlink_to("/gone/python3.10")
    (repo / ".baker" / "probes.json").write_text(
        json.dumps(
            {
                "jobs": [
                    {"name": "train", "artifact": "model.pt"},
                    {"name": "export", "artifact": "out.onnx"},
                    {"name": None, "artifact": "model.pt"},
                ],
                "probes": [{"name": "db", "command": "echo accepting connections"}],
            }
        )
    )


def test_status_json(repo: Path) -> None:
    setup_probes(repo)
    (repo / "dirty.txt").write_text("x")
    result = run_baker("status", "--json", cwd=repo)
    assert result.returncode == 1, result.stderr  # a probe failed: the JSON says which
    data = json.loads(result.stdout)
    assert data["failed"] == ["broken-venv", "export", "jobs[2]"]
    assert data["initialized"] is True
    assert data["git"]["branch"] == "main" and data["git"]["dirty_count"] >= 1
    venvs = {r["name"]: r for r in data["interpreters"]}
    assert venvs[".venv"]["state"] == "ok"
    assert venvs["broken-venv"]["state"] == "fail"
    assert "/gone/python3.10" in venvs["broken-venv"]["detail"]
    jobs = {r["name"]: r["state"] for r in data["jobs"]}
    assert jobs == {"train": "ok", "export": "fail", "jobs[2]": "error"}
    assert data["probes"][0]["detail"] == "accepting connections"
    assert data["gpu"][0]["kind"] == "gpu"
    assert data["now"] is None


def test_status_text(repo: Path) -> None:
    setup_probes(repo)
    result = run_baker("status", cwd=repo)
    assert result.returncode == 1
    assert result.stderr.strip() == "failed: broken-venv, export, jobs[2]"
    out = result.stdout
    assert "- branch: main" in out
    assert "[FAIL] export: out.onnx: missing" in out
    assert "[ERROR] jobs[2]: malformed name None" in out
    assert "[ok] db: accepting connections" in out
    assert "now: (not set)" in out


def test_status_without_the_gpu_package(
    repo: Path, cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    from continuity_core.adapters import registry

    monkeypatch.setattr(registry, "entry_points", lambda group: iter(()))
    result = cli("status")
    assert "GPU probes are not installed" in result.output


def test_status_outside_an_initialized_project(repo: Path) -> None:
    result = run_baker("status", cwd=repo)
    assert result.returncode == 0
    assert "not initialized" in result.stdout


def test_status_exits_0_when_every_probe_passes(repo: Path) -> None:
    (repo / ".baker").mkdir(mode=0o700)
    (repo / ".baker" / "probes.json").write_text(
        json.dumps({"probes": [{"name": "db", "command": "true"}]})
    )
    result = run_baker("status", "--json", cwd=repo)
    assert result.returncode == 0, result.stdout
    assert json.loads(result.stdout)["failed"] == []


def test_status_keeps_its_deadline_with_a_hung_probe(repo: Path) -> None:
    (repo / ".baker").mkdir(mode=0o700)
    (repo / ".baker" / "probes.json").write_text(
        json.dumps({"probes": [{"name": "hung", "command": "sleep 120", "timeout_s": 300}]})
    )
    start = time.monotonic()
    result = run_baker("status", "--json", "--deadline", "2", cwd=repo)
    assert time.monotonic() - start < 6
    assert json.loads(result.stdout)["probes"][0]["state"] == "timeout"
