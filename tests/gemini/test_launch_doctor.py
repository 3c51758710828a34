"""`baker resume gemini` and `baker doctor` for Gemini CLI."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from continuity_core.adapters import Account, LaunchOptions
from continuity_core.adapters.kit import INLINE_PROMPT_MAX
from continuity_core.brief import render
from continuity_core.schemas.session import SessionRef
from continuity_gemini import GeminiAdapter
from tests.helpers.samples import brief_of

ADAPTER = GeminiAdapter()


def test_small_brief_goes_inline(tmp_path: Path) -> None:
    brief = tmp_path / ".baker" / "handoffs" / "brief.md"
    small = brief_of("Continue the refactor.")
    spec = ADAPTER.launch(tmp_path, brief, LaunchOptions(brief=small))
    assert spec.argv == ["gemini", "-i", render(small)]
    assert spec.cwd == str(tmp_path) and spec.env == {}


def test_large_brief_travels_as_a_file_the_cli_may_read(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    brief = tmp_path / "baker-home" / "handoffs" / "brief.md"
    spec = ADAPTER.launch(project, brief, LaunchOptions(brief=brief_of("y" * INLINE_PROMPT_MAX)))
    assert spec.argv[0] == "gemini" and spec.argv[-2] == "-i"
    assert str(brief) in spec.argv[-1] and len(spec.argv[-1]) < INLINE_PROMPT_MAX
    # Outside the workspace, read_file would refuse it without this.
    i = spec.argv.index("--include-directories")
    assert spec.argv[i + 1] == str(brief.parent)
    assert spec.notes == [
        "the brief's essentials are the first prompt; Gemini CLI is told to read the rest "
        f"in {brief}"
    ]


def test_account_and_native_resume(tmp_path: Path) -> None:
    brief = tmp_path / "brief.md"
    account = Account(agent="gemini", name="work", dir=str(tmp_path / "work" / ".gemini"))
    native = SessionRef(agent="gemini", account="work", session_id="abc-123", path="/x", mtime=0)
    go_on = brief_of("go on")
    spec = ADAPTER.launch(
        tmp_path, brief, LaunchOptions(account=account, native=native, brief=go_on)
    )
    assert spec.env == {"GEMINI_CLI_HOME": str(tmp_path / "work")}
    assert spec.argv == ["gemini", "--resume", "abc-123", "-i", render(go_on)]


@pytest.fixture
def home(isolated_home: Path) -> Path:
    gemini = isolated_home / ".gemini"
    gemini.mkdir()
    return gemini


def _doctor(project: Path, home: Path) -> list[str]:
    account = Account(agent="gemini", name="~/.gemini", dir=str(home))
    return [f"{f.level}: {f.message}" for f in ADAPTER.doctor(project, [account])]


def test_doctor_reports_untrusted_folder_retention_and_missing_hooks(
    tmp_path: Path, home: Path
) -> None:
    found = _doctor(tmp_path, home)
    assert any(line.startswith("warn") and "not a trusted folder" in line for line in found)
    assert any(
        line.startswith("warn") and "session retention is on" in line and "older than 30d" in line
        for line in found
    )
    assert any(line.startswith("warn") and "no Continuity hooks" in line for line in found)
    assert not (home / "trustedFolders.json").exists()  # nothing trusted behind the user's back


@pytest.mark.parametrize(
    ("rule", "level", "trusted"),
    [
        ("{p}", "TRUST_FOLDER", True),
        ("{parent}", "TRUST_FOLDER", True),
        ("{p}/child", "TRUST_PARENT", True),
        ("{p}", "DO_NOT_TRUST", False),
        ("{p}-other", "TRUST_FOLDER", False),
    ],
)
def test_doctor_reads_trusted_folders(
    tmp_path: Path, home: Path, rule: str, level: str, trusted: bool
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    key = rule.format(p=project, parent=tmp_path)
    (home / "trustedFolders.json").write_text(json.dumps({key: level}))
    (home / "settings.json").write_text(
        json.dumps({"general": {"sessionRetention": {"enabled": False}}})
    )
    ADAPTER.install(project)
    found = _doctor(project, home)
    assert not any("retention" in line for line in found)
    assert any(line.startswith("ok") and "hooks installed" in line for line in found)
    assert any("trust" in line.lower() for line in found) is not trusted


def test_doctor_flags_a_newer_cli(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "gemini"
    fake.write_text("#!/bin/sh\necho 0.99.1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    assert ADAPTER.cli_version() == "0.99.1"
    assert any(
        line.startswith("warn") and "0.99.1 is newer" in line for line in _doctor(tmp_path, home)
    )
    fake.write_text("#!/bin/sh\necho 0.61.0\n")
    assert any(line == "ok: Gemini CLI 0.61.0" for line in _doctor(tmp_path, home))
    monkeypatch.setenv("PATH", "/nonexistent")
    assert ADAPTER.cli_version() is None


def test_doctor_names_the_configured_retention_age(tmp_path: Path, home: Path) -> None:
    (home / "settings.json").write_text(
        '{"general": {"sessionRetention": {"enabled": true, "maxAge": "7d"}}}'
    )
    found = [
        f
        for f in ADAPTER.doctor(
            tmp_path, [Account(agent="gemini", name="~/.gemini", dir=str(home))]
        )
        if "session retention" in f.message
    ]
    assert len(found) == 1 and "older than 7d" in found[0].message
    assert "baker recall --index" in (found[0].fix or "")
    (home / "settings.json").write_text('{"general": {"sessionRetention": {"enabled": false}}}')
    assert not [
        f
        for f in ADAPTER.doctor(
            tmp_path, [Account(agent="gemini", name="~/.gemini", dir=str(home))]
        )
        if "session retention" in f.message
    ]


def test_doctor_says_which_level_runs_the_hooks(tmp_path: Path, home: Path) -> None:
    from continuity_core.adapters import UserOptions

    account = Account(agent="gemini", name="~/.gemini", dir=str(home))
    ADAPTER.install(tmp_path)
    assert "ok: gemini: hooks installed in .gemini/settings.json" in _doctor(tmp_path, home)
    ADAPTER.install_user(account, UserOptions())
    both = [line for line in _doctor(tmp_path, home) if "hooks installed" in line]
    assert len(both) == 1 and "at user level" in both[0] and "runs once" in both[0]
    ADAPTER.uninstall(tmp_path)
    assert "ok: gemini: hooks installed at user level" in _doctor(tmp_path, home)
