"""baker's hooks in Copilot's settings.json and a repository's .github/hooks, MCP
registration, and what `baker doctor` says about them."""

from __future__ import annotations

import json
from pathlib import Path

from continuity_copilot import CopilotAdapter, install
from continuity_core.adapters import Account, UserOptions

ADAPTER = CopilotAdapter()
THEIRS = {"type": "command", "bash": "./scripts/lint.sh", "timeoutSec": 5}


def account(tmp_path: Path) -> Account:
    home = tmp_path / ".copilot"
    home.mkdir(exist_ok=True)
    return Account(agent="copilot", name="~/.copilot", dir=str(home))


def test_user_hooks_go_in_settings_json_beside_the_users_own(tmp_path: Path) -> None:
    acc = account(tmp_path)
    settings = Path(acc.dir) / "settings.json"
    settings.write_text(json.dumps({"model": "gpt-5", "hooks": {"agentStop": [THEIRS]}}))
    changes = ADAPTER.install_user(acc, UserOptions(hooks=None))
    assert [c.action for c in changes] == ["updated"]
    data = json.loads(settings.read_text())
    assert data["model"] == "gpt-5"
    assert set(data["hooks"]) == {"sessionStart", "preToolUse", "agentStop", "errorOccurred"}
    assert data["hooks"]["agentStop"][0] == THEIRS
    ours = data["hooks"]["agentStop"][1]
    assert ours["bash"].startswith("command -v baker >/dev/null 2>&1 && baker checkpoint")
    assert ours["bash"].endswith("|| true")  # nothing happens, successfully, without baker
    assert "baker pickup --agent copilot" in data["hooks"]["sessionStart"][0]["bash"]
    assert "baker pretool --agent copilot" in data["hooks"]["preToolUse"][0]["bash"]
    again = ADAPTER.install_user(acc, UserOptions(hooks=None))
    assert [c.action for c in again] == ["unchanged"]
    gone = ADAPTER.install_user(acc, UserOptions(uninstall=True))
    assert [c.action for c in gone] == ["updated"]
    assert json.loads(settings.read_text()) == {"model": "gpt-5", "hooks": {"agentStop": [THEIRS]}}


def test_user_hooks_in_a_new_settings_file_leave_nothing_behind(tmp_path: Path) -> None:
    acc = account(tmp_path)
    assert [c.action for c in ADAPTER.install_user(acc, UserOptions())] == ["created"]
    dry = ADAPTER.install_user(acc, UserOptions(uninstall=True, dry_run=True))
    assert [c.action for c in dry] == ["removed"]
    assert (Path(acc.dir) / "settings.json").exists()
    ADAPTER.install_user(acc, UserOptions(uninstall=True))
    assert not (Path(acc.dir) / "settings.json").exists()
    off = ADAPTER.install_user(acc, UserOptions(hooks=False))
    assert [c.action for c in off] == ["skipped"]


def test_a_settings_file_baker_cannot_read_is_left_alone(tmp_path: Path) -> None:
    acc = account(tmp_path)
    settings = Path(acc.dir) / "settings.json"
    settings.write_text('{"hooks": []}')
    change = ADAPTER.install_user(acc, UserOptions())[0]
    assert change.action == "failed" and "not an object" in change.detail
    assert settings.read_text() == '{"hooks": []}'


def test_repository_hooks_are_our_own_file_and_say_they_need_trust(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    change = ADAPTER.install(project)[0]
    assert change.action == "created" and change.path == str(install.PROJECT_HOOKS)
    assert "trusted folder" in change.detail
    data = json.loads((project / install.PROJECT_HOOKS).read_text())
    assert data["version"] == 1 and set(data["hooks"]) == set(install.HOOKS)
    # the user adds one of their own to the same file: uninstall takes out exactly ours
    data["hooks"]["sessionEnd"] = [THEIRS]
    (project / install.PROJECT_HOOKS).write_text(json.dumps(data))
    ADAPTER.uninstall(project)
    assert json.loads((project / install.PROJECT_HOOKS).read_text()) == {
        "version": 1,
        "hooks": {"sessionEnd": [THEIRS]},
    }
    local = ADAPTER.install(project, local=True)[0]
    assert local.action == "skipped"


def test_mcp_registration_in_the_accounts_mcp_config(tmp_path: Path) -> None:
    acc = account(tmp_path)
    config = Path(acc.dir) / "mcp-config.json"
    config.write_text(json.dumps({"mcpServers": {"gh": {"type": "http", "url": "http://x"}}}))
    changes = ADAPTER.install_user(acc, UserOptions(hooks=False, mcp=True))
    assert [c.action for c in changes] == ["updated"]
    servers = json.loads(config.read_text())["mcpServers"]
    assert set(servers) == {"gh", "baker"}
    assert servers["baker"]["type"] == "local" and servers["baker"]["tools"] == ["*"]
    assert "baker mcp" in " ".join(servers["baker"]["args"])
    ADAPTER.install_user(acc, UserOptions(uninstall=True))
    assert set(json.loads(config.read_text())["mcpServers"]) == {"gh"}
    assert ADAPTER.install_mcp(tmp_path)[0].action == "skipped"


def test_doctor_reports_hooks_trust_and_disabled_hooks(tmp_path: Path) -> None:
    acc = account(tmp_path)
    home = Path(acc.dir)
    project = tmp_path / "proj"
    project.mkdir()
    lines = [f.message for f in ADAPTER.doctor(project, [acc])]
    assert any("no baker hooks" in m for m in lines)
    ADAPTER.install(project)
    found = {f.level: f.message for f in ADAPTER.doctor(project, [acc])[1:]}
    assert "warn" in found and "trusted folder" in found["warn"]
    (home / "config.json").write_text(json.dumps({"trustedFolders": [str(tmp_path)]}))
    ok = [f for f in ADAPTER.doctor(project, [acc]) if f.level == "ok"]
    assert any("is trusted" in f.message for f in ok)
    ADAPTER.install_user(acc, UserOptions())
    (home / "settings.json").write_text(
        json.dumps({**json.loads((home / "settings.json").read_text()), "disableAllHooks": True})
    )
    warned = [f.message for f in ADAPTER.doctor(project, [acc]) if f.level == "warn"]
    assert any("disableAllHooks" in m for m in warned)


def test_a_committed_link_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".github" / "hooks").mkdir(parents=True)
    yours = tmp_path / "yours.json"
    yours.write_text('{"keep": true}')
    (project / install.PROJECT_HOOKS).symlink_to(yours)
    for change in (ADAPTER.install(project)[0], ADAPTER.uninstall(project)[0]):
        assert change.action == "failed"
    assert yours.read_text() == '{"keep": true}'
