"""OpenCode's hooks (baker's plugin and the payloads it sends), set-up, doctor and launch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("continuity_opencode")

from continuity_core.adapters import Account, LaunchOptions, UserOptions
from continuity_core.brief import render
from continuity_core.errors import BakerError
from continuity_opencode import OpenCodeAdapter, install
from tests.helpers.samples import brief_of
from tests.opencode.helpers import MAIN, PAYLOADS, home_copy

ADAPTER = OpenCodeAdapter()
PLUGIN = Path(".opencode") / "plugin" / "baker-continuity.js"


def test_plugin_payloads_parse() -> None:
    start = ADAPTER.parse_hook((PAYLOADS / "session.start.json").read_bytes())
    assert (start.kind, start.native) == ("session_start", "session.start")
    assert start.session_id and start.session_id.startswith("ses_")
    bash = ADAPTER.parse_hook((PAYLOADS / "tool.execute.before.bash.json").read_bytes())
    assert (bash.kind, bash.tool_name, bash.command) == ("pre_tool", "bash", "ls")
    write = ADAPTER.parse_hook((PAYLOADS / "tool.execute.before.write.json").read_bytes())
    assert write.paths == ["/home/dev/work/proj/hello.txt"] and write.command is None
    error = ADAPTER.parse_hook((PAYLOADS / "session.error.json").read_bytes())
    assert (error.kind, error.error) == ("stop", "rate_limit")
    assert error.error_message and error.error_message.startswith("Rate limit reached")
    assert error.reset_at is not None  # retry-after from now
    idle = ADAPTER.parse_hook((PAYLOADS / "session.idle.json").read_bytes())
    assert idle.kind == "stop" and idle.error is None
    # OpenCode waiting out an hour's retry-after: a rate limit until its `next`
    retry = ADAPTER.parse_hook((PAYLOADS / "session.retry.json").read_bytes())
    assert (retry.kind, retry.error) == ("stop", "rate_limit")
    assert retry.reset_at == "2026-12-05T10:05:44Z"
    # another agent's hook payload is not ours
    with pytest.raises(ValueError, match="not a payload of baker's OpenCode plugin"):
        ADAPTER.parse_hook(b'{"hook_event_name": "Stop", "session_id": "x"}')


def test_render_context_is_what_the_plugin_reads() -> None:
    start = ADAPTER.parse_hook((PAYLOADS / "session.start.json").read_bytes())
    assert json.loads(ADAPTER.render_context(start, "facts") or "") == {"context": "facts"}
    idle = ADAPTER.parse_hook((PAYLOADS / "session.idle.json").read_bytes())
    assert ADAPTER.render_context(idle, "facts") is None


def test_plugin_does_nothing_without_baker_and_spawns_no_shell() -> None:
    source = install.plugin_source()
    assert source.startswith(install.MARKER)
    assert "if (!exe) return {};" in source  # no baker on PATH: no hooks at all
    assert "shell: true" not in source and "execSync" not in source
    assert "import " in source and "@opencode-ai" not in source  # no npm package needed


def test_install_uninstall_exactly_the_plugin(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / ".opencode" / "plugin").mkdir(parents=True)
    mine = project / ".opencode" / "plugin" / "theirs.js"
    mine.write_text("export const Theirs = async () => ({})\n")
    (change,) = ADAPTER.install(project)
    assert (change.path, change.action) == (str(PLUGIN), "created")
    assert (project / PLUGIN).read_text() == install.plugin_source()
    assert ADAPTER.install(project)[0].action == "unchanged"
    changes = ADAPTER.uninstall(project)
    assert changes[0].action == "removed"
    assert not (project / PLUGIN).exists() and mine.is_file()  # the user's plugin stays


def test_a_foreign_file_of_that_name_is_left_alone(tmp_path: Path) -> None:
    target = tmp_path / PLUGIN
    target.parent.mkdir(parents=True)
    target.write_text("// someone else's\n")
    assert ADAPTER.install(tmp_path)[0].action == "skipped"
    assert ADAPTER.uninstall(tmp_path)[0].action == "skipped"
    assert target.read_text() == "// someone else's\n"


def test_a_plugin_link_out_of_the_project_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.js"
    outside.write_text("x")
    project = tmp_path / "p"
    (project / ".opencode").mkdir(parents=True)
    (project / ".opencode" / "plugin").symlink_to(tmp_path)
    assert ADAPTER.install(project)[0].action == "failed"
    assert outside.read_text() == "x"


def test_user_plugin_and_mcp_under_the_config_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "xdg-config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    account = Account(agent="opencode", name="default", dir=str(tmp_path / "data"))
    changes = ADAPTER.install_user(account, UserOptions(mcp=True))
    assert [c.action for c in changes] == ["created", "created"]
    folder = config / "opencode"
    assert (folder / "plugin" / install.PLUGIN_NAME).is_file()
    entry = json.loads((folder / "opencode.json").read_text())["mcp"]["baker"]
    assert entry["type"] == "local" and "baker mcp" in " ".join(entry["command"])
    assert all(
        c.action == "unchanged" for c in ADAPTER.install_user(account, UserOptions(mcp=True))
    )
    gone = ADAPTER.install_user(account, UserOptions(uninstall=True))
    assert [c.action for c in gone] == ["removed", "removed"]
    assert not (folder / "plugin").exists() and not (folder / "opencode.json").exists()
    assert folder.is_dir()  # the user's config folder stays


def test_project_mcp_keeps_the_users_servers(tmp_path: Path) -> None:
    config = tmp_path / "opencode.json"
    config.write_text(json.dumps({"model": "x/y", "mcp": {"docs": {"type": "remote", "url": "u"}}}))
    assert ADAPTER.install_mcp(tmp_path)[0].action == "updated"
    data = json.loads(config.read_text())
    assert set(data["mcp"]) == {"docs", "baker"} and data["model"] == "x/y"
    assert ADAPTER.install_mcp(tmp_path, remove=True)[0].action == "updated"
    assert json.loads(config.read_text()) == {
        "model": "x/y",
        "mcp": {"docs": {"type": "remote", "url": "u"}},
    }


def test_doctor_reports_the_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    messages = [f.message for f in ADAPTER.doctor(tmp_path, [])]
    assert "`opencode` is not on PATH" in messages
    assert any("plugin is not installed" in m for m in messages)
    ADAPTER.install(tmp_path)
    found = ADAPTER.doctor(tmp_path, [])
    assert any(f.level == "ok" and str(PLUGIN) in f.message for f in found)
    (tmp_path / PLUGIN).write_text(install.MARKER + "\n// an older one\n")
    assert any(
        f.level == "warn" and "older baker" in f.message for f in ADAPTER.doctor(tmp_path, [])
    )


def test_launch_argv_and_accounts(tmp_path: Path) -> None:
    brief = tmp_path / "brief.md"
    latest = brief_of("the latest request")
    spec = ADAPTER.launch(tmp_path, brief, LaunchOptions(brief=latest))
    assert spec.argv == ["opencode", "--prompt", render(latest)]
    named = Account(agent="opencode", name="work", dir=str(tmp_path / "work" / "opencode"))
    spec = ADAPTER.launch(tmp_path, brief, LaunchOptions(account=named))
    assert spec.env == {"XDG_DATA_HOME": str(tmp_path / "work"), "PWD": str(tmp_path)}
    other = Account(agent="opencode", name="alt", dir=str(tmp_path / "alt"))
    assert ADAPTER.launch(tmp_path, brief, LaunchOptions(account=other)).env == {
        "OPENCODE_DB": str(tmp_path / "alt" / "opencode.db"),
        "PWD": str(tmp_path),  # OpenCode's project folder is PWD's
    }


def test_native_copies_a_session_into_another_account(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    data, work = home_copy(tmp_path)
    brief = tmp_path / "brief.md"
    brief.write_text("# Handoff brief\n")
    ref = next(
        iter(ADAPTER.discover(work / "proj", [Account(agent="opencode", name="d", dir=str(data))]))
    )
    spec = ADAPTER.launch(work / "proj", brief, LaunchOptions(native=ref))
    assert spec.argv[:3] == ["opencode", "-s", MAIN] and spec.argv[3] == "--prompt"
    elsewhere = Account(agent="opencode", name="alt", dir=str(tmp_path / "alt" / "opencode"))
    dry = ADAPTER.launch(
        work / "proj", brief, LaunchOptions(native=ref, account=elsewhere, dry_run=True)
    )
    assert dry.argv[:3] == ["opencode", "-s", MAIN]
    assert any(n.startswith(f"would copy session {MAIN}") for n in dry.notes)
    # the copy needs OpenCode's own export/import: without it, a clear refusal
    with pytest.raises(BakerError, match="`opencode` is not on PATH: it is needed to copy"):
        ADAPTER.launch(work / "proj", brief, LaunchOptions(native=ref, account=elsewhere))
