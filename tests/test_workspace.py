"""A new adapter is one package folder and no edit elsewhere (issue 29, point 5).

The fake adapter of `tests/helpers/fake_agent.py` becomes a real package folder,
`packages/continuity-fake/`, in a copy of the workspace's configuration; then each list of
packages is read back from the tools themselves (ruff's import sorting, mypy's source list,
a coverage run, `dev.py`, `release.py`, the CI matrix, the suite's isolated variables),
which must name it with no other file changed. The lists are checked, not a full lint.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FAKE = ROOT / "tests" / "helpers" / "fake_agent.py"
PY = sys.executable


def run(*argv: str | Path, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
    )


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The workspace's configuration and package folders, plus `continuity-fake`."""
    root = tmp_path_factory.mktemp("workspace")
    shutil.copy(ROOT / "pyproject.toml", root)
    for folder in ("scripts", ".github", "tests/helpers"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "tests" / "conftest.py", root / "tests")
    for toml in (ROOT / "packages").glob("*/pyproject.toml"):
        (root / "packages" / toml.parent.name).mkdir(parents=True)
        shutil.copy(toml, root / "packages" / toml.parent.name)
    package = root / "packages" / "continuity-fake"
    src = package / "src" / "continuity_fake"
    src.mkdir(parents=True)
    shutil.copy(FAKE, src / "__init__.py")
    (src / "unused.py").write_text('"""No test imports this module."""\n\nVALUE = 1\n')
    (src / "py.typed").write_text("")
    (package / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling>=1.24"]\nbuild-backend = "hatchling.build"\n\n'
        '[project]\nname = "continuity-fake"\nversion = "0.1.0"\n'
        'dependencies = ["continuity-core==0.1.0"]\n\n'
        '[project.entry-points."continuity_core.adapters"]\n'
        'fake = "continuity_fake:FakeAdapter"\n'
    )
    return root


def test_dev_py_setup_and_alone_take_the_new_package(clone: Path) -> None:
    listed = run(PY, "scripts/dev.py", "packages", cwd=clone)
    assert listed.returncode == 0, listed.stderr
    names = listed.stdout.split()
    assert "fake" in names and names[0] == "core" and names[-1] == "cli"
    wrong = run(PY, "scripts/dev.py", "alone", "fak", cwd=clone)  # the check before any venv
    assert wrong.returncode != 0 and "fake" in wrong.stderr


def test_the_ci_matrix_and_the_release_check_take_it(clone: Path) -> None:
    matrix = run(PY, "scripts/workspace.py", "--json", cwd=clone)
    assert "fake" in json.loads(matrix.stdout)
    ci = (clone / ".github" / "workflows" / "ci.yml").read_text()
    assert "package: ${{ fromJSON(needs.packages.outputs.names) }}" in ci
    assert "python3 scripts/workspace.py --json" in ci
    adapters = run(
        PY,
        "-c",
        "import sys; sys.path.insert(0, 'scripts'); import release; "
        "print(release.ADAPTERS, len(release.PACKAGES))",
        cwd=clone,
    )
    assert adapters.returncode == 0, adapters.stderr
    assert "'fake'" in adapters.stdout and "'claude'" in adapters.stdout


def test_ruff_sorts_it_as_first_party(clone: Path) -> None:
    ruff = Path(PY).parent / "ruff"
    if not ruff.exists():
        pytest.skip("ruff (the lint group) is not installed here")
    probe = clone / "tests" / "fake" / "test_order.py"
    probe.parent.mkdir(parents=True)
    # Sorted only when continuity_fake is first-party: as third-party it would go with pytest.
    probe.write_text(
        "import msgspec\nimport pytest\n\n"
        "from continuity_core import fs\nfrom continuity_fake import FakeAdapter\n\n"
        "assert (msgspec, pytest, fs, FakeAdapter)\n"
    )
    result = run(ruff, "check", "--select", "I", "--no-cache", probe, cwd=clone)
    assert result.returncode == 0, result.stdout + result.stderr
    # and the same file with it among the third-party imports is reported: it is first-party
    probe.write_text(
        "import msgspec\nimport pytest\nfrom continuity_fake import FakeAdapter\n\n"
        "from continuity_core import fs\n\nassert (msgspec, pytest, fs, FakeAdapter)\n"
    )
    moved = run(ruff, "check", "--select", "I", "--no-cache", probe, cwd=clone)
    assert moved.returncode != 0 and "I001" in moved.stdout


def test_mypy_checks_it_under_its_import_name(clone: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mypy", reason="mypy (the lint group) is not installed here")
    from mypy.config_parser import parse_config_file
    from mypy.find_sources import create_source_list
    from mypy.fscache import FileSystemCache
    from mypy.options import Options

    monkeypatch.chdir(clone)
    options = Options()
    parse_config_file(options, lambda: None, "pyproject.toml")
    assert options.files is not None
    sources = create_source_list(options.files, options, FileSystemCache())
    fake = {s.module: s.base_dir for s in sources if s.module.startswith("continuity_fake")}
    assert set(fake) == {"continuity_fake", "continuity_fake.unused"}
    assert {Path(d or "") for d in fake.values()} == {
        (clone / "packages" / "continuity-fake" / "src").resolve()
    }


def test_coverage_measures_it(clone: Path, tmp_path: Path) -> None:
    pytest.importorskip("coverage", reason="coverage (the test group) is not installed here")
    probe = tmp_path / "probe.py"
    src = clone / "packages" / "continuity-fake" / "src"
    probe.write_text(f"import sys\nsys.path.insert(0, {str(src)!r})\nimport continuity_fake\n")
    env = {"COVERAGE_RCFILE": str(clone / "pyproject.toml"), "COVERAGE_PROCESS_START": ""}
    data = str(tmp_path / "cov.data")
    ran = run(PY, "-m", "coverage", "run", f"--data-file={data}", probe, cwd=clone, **env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    run(PY, "-m", "coverage", "combine", f"--data-file={data}", cwd=clone, **env)
    out = tmp_path / "cov.json"
    report = run(
        PY,
        "-m",
        "coverage",
        "json",
        f"--data-file={data}",
        "-o",
        out,
        "--fail-under=0",
        cwd=clone,
        **env,
    )
    assert report.returncode == 0, report.stdout + report.stderr
    files = set(json.loads(out.read_text())["files"])
    folder = "packages/continuity-fake/src/continuity_fake/"
    assert {folder + "__init__.py", folder + "unused.py"} <= files, files  # unused: unmeasured
    assert not any("probe" in f for f in files)


def test_the_suite_isolates_its_variables(clone: Path, tmp_path: Path) -> None:
    """`tests/conftest.py` clears what each installed adapter declares, the new one's too."""
    site = tmp_path / "site"
    meta = site / "continuity_fake-0.1.0.dist-info"
    meta.mkdir(parents=True)
    shutil.copytree(
        clone / "packages" / "continuity-fake" / "src" / "continuity_fake", site / "continuity_fake"
    )
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: continuity-fake\nVersion: 0.1.0\n")
    (meta / "entry_points.txt").write_text(
        "[continuity_core.adapters]\nfake = continuity_fake:FakeAdapter\n"
    )
    shown = run(
        PY,
        "-c",
        "from tests.conftest import AGENT_VARS; print(' '.join(AGENT_VARS))",
        cwd=ROOT,
        PYTHONPATH=os.pathsep.join([str(site), str(ROOT)]),
    )
    assert shown.returncode == 0, shown.stderr
    assert "FAKE_AGENT_HOME" in shown.stdout.split()
