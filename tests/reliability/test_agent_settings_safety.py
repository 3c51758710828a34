"""Agents' settings files are written as their owner set them up (issue 17, section 5).

A user-level file that is a symlink (a dotfile manager's) is written through to its target and
stays a link; a project-level link out of the project is refused like the store; read-only files
and duplicate `"hooks"` keys are refused with the file (and line); uninstall gives an empty
settings file back as it was instead of deleting it. For Claude, Gemini and Codex alike.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from continuity_core.adapters import Account, Change, UserOptions

pytestmark = pytest.mark.skipif(os.name == "nt", reason="symlinks and modes are POSIX here")

AGENTS = ("claude", "gemini")


def user_sync(agent: str) -> Callable[[Path, bool], Change]:
    """Install (or, `remove`, uninstall) user-level hooks in the settings file at a path."""

    def run(path: Path, remove: bool) -> Change:
        if agent == "claude":
            from continuity_claude import install as claude

            return claude.sync_file(path, None, want=not remove, dry_run=False)
        from continuity_gemini import install as gemini

        return gemini.apply(path, None, remove=remove, dry_run=False)

    return run


def project_sync(agent: str, project: Path, remove: bool = False) -> list[Change]:
    from continuity_core.adapters import load

    adapter = load(agent)
    changes: list[Change] = adapter.uninstall(project) if remove else adapter.install(project)
    return changes


@pytest.mark.parametrize("agent", AGENTS)
def test_a_linked_user_settings_file_is_written_through(agent: str, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / f"{agent}.json"
    dotfiles.parent.mkdir()
    dotfiles.write_text('{\n  "theme": "dark"\n}\n')
    link = tmp_path / "home" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)

    change = user_sync(agent)(link, False)
    assert change.action == "updated"
    assert f"written through the link {link} -> {dotfiles}" in change.detail
    assert link.is_symlink() and os.readlink(link) == str(dotfiles)
    assert f"baker pickup --agent {agent}" in dotfiles.read_text()

    change = user_sync(agent)(link, True)
    assert link.is_symlink()
    assert dotfiles.read_text() == '{\n  "theme": "dark"\n}\n'


def test_a_linked_gemini_settings_file_stays_a_link_with_baker_mcp_too(tmp_path: Path) -> None:
    pytest.importorskip("continuity_gemini")
    from continuity_gemini import GeminiAdapter

    real = tmp_path / "dotfiles" / "gemini.json"
    real.parent.mkdir()
    real.write_text('{\n  "theme": "dark"\n}\n')
    home = tmp_path / "gemini-home"
    home.mkdir()
    (home / "settings.json").symlink_to(real)
    account = Account(agent="gemini", name="t", dir=str(home))

    [hooks, mcp] = GeminiAdapter().install_user(account, UserOptions(hooks=True, mcp=True))
    assert "written through the link" in hooks.detail and "written through the link" in mcp.detail
    assert (home / "settings.json").is_symlink() and '"mcpServers"' in real.read_text()
    [removed] = GeminiAdapter().install_user(account, UserOptions(uninstall=True))
    assert removed.action == "updated" and (home / "settings.json").is_symlink()
    assert real.read_text() == '{\n  "theme": "dark"\n}\n'


def test_a_linked_codex_config_is_written_through(tmp_path: Path) -> None:
    from continuity_codex import CodexAdapter

    real = tmp_path / "dotfiles" / "codex.toml"
    real.parent.mkdir()
    real.write_text('model = "o3"\n')
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").symlink_to(real)
    account = Account(agent="codex", name="t", dir=str(home))

    changes = CodexAdapter().install_user(account, UserOptions(hooks=True))
    assert changes[0].action == "updated"
    assert "written through the link" in changes[0].detail
    assert (home / "config.toml").is_symlink()
    assert "baker" in real.read_text() and real.read_text().startswith('model = "o3"\n')


@pytest.mark.parametrize("agent", AGENTS)
def test_a_project_settings_link_out_of_the_project_is_refused(
    agent: str, repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("{}\n")
    folder = repo / f".{agent}"
    folder.mkdir()
    (folder / "settings.json").symlink_to(outside)

    changes = project_sync(agent, repo)
    refused = [c for c in changes if c.path == f".{agent}/settings.json"]
    assert refused and refused[0].action == "failed"
    assert "outside the project, so it is refused" in refused[0].detail
    assert outside.read_text() == "{}\n"
    project_sync(agent, repo, remove=True)
    assert outside.read_text() == "{}\n"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_project_settings_link_inside_the_project_is_followed(agent: str, repo: Path) -> None:
    shared = repo / "config" / "shared.json"
    shared.parent.mkdir()
    shared.write_text("{}\n")
    folder = repo / f".{agent}"
    folder.mkdir()
    (folder / "settings.json").symlink_to(Path("..") / "config" / "shared.json")

    changes = project_sync(agent, repo)
    assert any(
        c.path == f".{agent}/settings.json" and c.action in ("created", "updated") for c in changes
    ), changes
    assert f"--agent {agent}" in shared.read_text()
    assert (folder / "settings.json").is_symlink()


@pytest.mark.parametrize("agent", AGENTS)
def test_a_read_only_settings_file_is_refused(agent: str, tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"model": "x"}\n')
    path.chmod(0o444)

    change = user_sync(agent)(path, False)
    assert change.action == "failed"
    assert f"{path} is read-only (mode 0444)" in change.detail
    assert "chmod u+w" in change.detail
    assert path.read_text() == '{"model": "x"}\n'
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_read_only_codex_config_is_refused(tmp_path: Path) -> None:
    from continuity_codex import CodexAdapter

    (tmp_path / "config.toml").write_text('model = "o3"\n')
    (tmp_path / "config.toml").chmod(0o444)
    account = Account(agent="codex", name="t", dir=str(tmp_path))
    changes = CodexAdapter().install_user(account, UserOptions(hooks=True))
    assert changes[0].action == "failed" and "read-only" in changes[0].detail
    assert (tmp_path / "config.toml").read_text() == 'model = "o3"\n'


@pytest.mark.parametrize("agent", AGENTS)
def test_duplicate_hooks_keys_are_refused_with_the_line(agent: str, tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    text = '{\n  "hooks": {},\n  "model": "x",\n  "hooks": {"Stop": []}\n}\n'
    path.write_text(text)

    change = user_sync(agent)(path, False)
    assert change.action in ("failed", "skipped")
    assert "line 4 repeats the key `hooks`" in change.detail
    assert change.path == str(path)
    assert path.read_text() == text


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("empty", ["", "{}", "{}\n", "{ }\r\n"])
def test_uninstall_gives_an_empty_file_back(agent: str, empty: str, tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_bytes(empty.encode())
    sync = user_sync(agent)
    assert sync(path, False).action in ("created", "updated")
    assert f"--agent {agent}" in path.read_text()
    sync(path, True)
    assert path.exists() and path.read_bytes() == empty.encode()


@pytest.mark.parametrize("agent", AGENTS)
def test_uninstall_removes_only_a_file_baker_created(agent: str, tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "settings.json"
    sync = user_sync(agent)
    assert sync(path, False).action == "created"
    assert sync(path, True).action == "removed"
    assert not path.exists()


def test_a_read_only_file_baker_need_not_change_is_no_failure(repo: Path) -> None:
    """`baker init` removes Claude hooks from the settings file it does not use: a read-only
    `settings.local.json` without them is left alone, and init succeeds."""
    local = repo / ".claude" / "settings.local.json"
    local.parent.mkdir()
    local.write_text('{"permissions": {}}\n')
    local.chmod(0o444)
    changes = project_sync("claude", repo)
    assert not [c for c in changes if c.action == "failed"], changes
    assert local.read_text() == '{"permissions": {}}\n'
