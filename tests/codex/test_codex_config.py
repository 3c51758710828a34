"""`baker global sync` for Codex: notify, hooks and their trust in the user's config.toml."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
import tomlkit

from continuity_codex import CodexAdapter
from continuity_codex import config as cfg
from continuity_core.adapters import Account, Change, UserOptions

ADAPTER = CodexAdapter()

COMMENTED = """\
# My Codex settings.  Hand-written; keep my comments!
model = "gpt-5.5"            # the default model
approval_policy = "on-request"

[model_providers.mock]      # a local provider
name = "mock"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"

# Hooks I wrote myself:
[[hooks.Stop]]
[[hooks.Stop.hooks]]
type = "command"
command = "python3 ~/bin/my_stop.py"

[projects."/home/me/src/app"]
trust_level = "trusted"

[tui]
show_tooltips = false  # trailing comment
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / ".codex"
    folder.mkdir()
    return folder


GUARD = "command -v baker >/dev/null 2>&1 && "


def sync(home: Path, *, chain: bool = False, trust: bool = False, **options: bool) -> list[Change]:
    """`baker global sync` for one account; `chain` and `trust` are Codex's declared options."""
    account = Account(agent="codex", name="~/.codex", dir=str(home))
    return ADAPTER.install_user(
        account, UserOptions(**options, declared={"chain": chain, "trust": trust})
    )


def is_subsequence(small: list[str], big: list[str]) -> bool:
    it = iter(big)
    return all(any(line == other for other in it) for line in small)


def test_a_commented_config_keeps_every_byte_outside_our_keys(home: Path) -> None:
    path = home / "config.toml"
    path.write_text(COMMENTED)
    changes = sync(home)
    after = path.read_text()
    assert changes[0].action == "updated"
    assert is_subsequence(COMMENTED.splitlines(), after.splitlines())
    added = [ln for ln in after.splitlines() if ln not in COMMENTED.splitlines()]
    assert all(
        ln == "" or ln.startswith(("notify", "[[hooks.", "type", "command", "timeout"))
        for ln in added
    ), added
    doc = tomlkit.parse(after)
    assert doc["notify"] == cfg.NOTIFY
    assert doc["hooks"]["Stop"][0]["hooks"][0]["command"] == "python3 ~/bin/my_stop.py"
    assert [g["hooks"][0]["command"] for g in doc["hooks"]["Stop"]] == [
        "python3 ~/bin/my_stop.py",
        GUARD + "baker checkpoint --agent codex --quiet || true",
    ]
    assert doc["hooks"]["SessionStart"][0]["hooks"][0]["command"] == (
        GUARD + "baker pickup --agent codex || true"
    )
    assert doc["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == (
        GUARD + "baker pretool --agent codex || true"
    )
    assert doc["hooks"]["PreCompact"][0]["hooks"][0]["command"].startswith(
        GUARD + "baker checkpoint"
    )
    again = sync(home)
    assert again[0].action == "unchanged"
    assert path.read_text() == after
    removed = sync(home, uninstall=True)
    assert removed[0].action == "updated"  # baker's keys are out; the user's file stays
    assert path.read_text() == COMMENTED


def test_uninstall_removes_the_config_global_sync_created_and_keeps_the_users(
    home: Path,
) -> None:
    path = home / "config.toml"
    assert sync(home)[0].action == "created"
    assert sync(home, uninstall=True, dry_run=True)[0].action == "removed"
    assert path.exists()
    removed = sync(home, uninstall=True)
    assert removed[0].action == "removed" and "notify removed" in removed[0].detail
    assert not path.exists() and home.is_dir()

    path.write_text("")  # the user's empty file: given back as it was, not deleted
    assert sync(home)[0].action == "updated"
    back = sync(home, uninstall=True)
    assert back[0].action == "updated" and "restored" in back[0].detail
    assert path.exists() and path.read_text() == ""

    path.unlink()  # created by baker, but the user added a key since: only baker's keys go
    assert sync(home)[0].action == "created"
    path.write_text('model = "o3"\n' + path.read_text())
    kept = sync(home, uninstall=True)
    assert kept[0].action == "updated" and path.read_text().strip() == 'model = "o3"'


def test_trusted_hooks_with_trust_and_byte_identical_after_uninstall(home: Path) -> None:
    path = home / "config.toml"
    path.write_text(COMMENTED)
    sync(home, trust=True)
    doc = tomlkit.parse(path.read_text())
    state = doc["hooks"]["state"]
    source = str(home / "config.toml")
    # The user's own Stop hook is group 0, so ours is group 1.
    assert set(state) == {
        f"{source}:session_start:0:0",
        f"{source}:pre_tool_use:0:0",
        f"{source}:stop:1:0",
        f"{source}:pre_compact:0:0",
    }
    stop = state[f"{source}:stop:1:0"]["trusted_hash"]
    canonical = json.dumps(
        {
            "event_name": "stop",
            "hooks": [
                {
                    "async": False,
                    "command": GUARD + "baker checkpoint --agent codex --quiet || true",
                    "timeout": 30,
                    "type": "command",
                }
            ],
        },
        separators=(",", ":"),
        sort_keys=True,
    )
    assert stop == "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
    assert all(
        f.level == "ok"
        for f in ADAPTER.doctor(home, [Account(agent="codex", name="~/.codex", dir=str(home))])
        if " hook is " in f.message
    )
    assert sync(home, trust=True)[0].action == "unchanged"
    sync(home, uninstall=True)
    assert path.read_text() == COMMENTED


def test_without_trust_the_user_is_told_exactly_how(home: Path) -> None:
    changes = sync(home)
    assert changes[0].action == "created"
    told = [c for c in changes if c.action == "skipped"]
    assert len(told) == 1 and "baker global sync --trust" in told[0].detail
    assert "hooks.state" in told[0].detail


def test_an_existing_notify_is_kept_unless_chained(home: Path, tmp_path: Path) -> None:
    path = home / "config.toml"
    mine = ["python3", str(tmp_path / "my_notify.py")]
    path.write_text(f"notify = {json.dumps(mine)}  # mine\n")
    changes = sync(home, hooks=False)
    assert tomlkit.parse(path.read_text())["notify"] == mine
    assert any(c.action == "skipped" and "--chain" in c.detail for c in changes)
    sync(home, hooks=False, chain=True)
    chained = list(tomlkit.parse(path.read_text())["notify"])
    assert chained[-2:] == mine
    assert sync(home, hooks=False, chain=True)[0].action == "unchanged"
    sync(home, uninstall=True)
    assert path.read_text() == f"notify = {json.dumps(mine)}  # mine\n"


def test_the_chained_notify_runs_both_programs_with_the_same_argument(
    home: Path, tmp_path: Path
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    for name in ("baker", "theirs"):
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\nprintf "%s\\n" "{name} $*" >> "{log}"\n')
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    (home / "config.toml").write_text('notify = ["theirs", "--flag"]\n')
    sync(home, hooks=False, chain=True)
    argv = list(tomlkit.parse((home / "config.toml").read_text())["notify"])
    payload = '{"type":"agent-turn-complete","thread-id":"t 1"}'
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    subprocess.run([*argv, payload], check=True, env=env, timeout=10)  # as Codex runs it
    assert log.read_text().splitlines() == [
        f"theirs --flag {payload}",
        f"baker checkpoint --agent codex --quiet {payload}",
    ]


def test_an_edited_hook_is_reported_modified_and_an_untrusted_one_untrusted(home: Path) -> None:
    account = Account(agent="codex", name="~/.codex", dir=str(home))
    sync(home, trust=True)
    path = home / "config.toml"
    path.write_text(path.read_text().replace("timeout = 5", "timeout = 9"))
    found = {f.message for f in ADAPTER.doctor(home, [account]) if f.level == "warn"}
    assert any("PreToolUse hook is modified" in m for m in found)
    path.write_text(path.read_text().replace("trusted_hash", "other_key"))
    found = {f.message for f in ADAPTER.doctor(home, [account]) if f.level == "warn"}
    assert any("SessionStart hook is untrusted" in m for m in found)
    sync(home, trust=True)  # re-sync repairs both
    assert not [f for f in ADAPTER.doctor(home, [account]) if " hook is " in f.message]


def test_doctor_reports_a_missing_notify(home: Path) -> None:
    account = Account(agent="codex", name="~/.codex", dir=str(home))
    findings = ADAPTER.doctor(home, [account])
    assert any(
        f.level == "warn" and "no notify" in f.message and f.fix == "baker global sync"
        for f in findings
    )


def test_dry_run_writes_nothing_and_bad_toml_is_not_touched(home: Path) -> None:
    assert sync(home, dry_run=True)[0].action == "created"
    assert not (home / "config.toml").exists()
    (home / "config.toml").write_text("model = [unclosed\n")
    assert sync(home)[0].action == "failed"
    assert (home / "config.toml").read_text() == "model = [unclosed\n"


def test_a_missing_codex_home_is_skipped(tmp_path: Path) -> None:
    changes = sync(tmp_path / "nowhere")
    assert [c.action for c in changes] == ["skipped"]
    assert not (tmp_path / "nowhere").exists()


def project_hooks(project: Path, extra: list[dict[str, object]] | None = None) -> Path:
    """A project hooks.json holding baker's hooks, as an earlier baker wrote it."""
    path = project / ".codex" / "hooks.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    hooks: dict[str, list[dict[str, object]]] = {}
    for hook in cfg.HOOKS:
        hooks.setdefault(hook.event, []).append(
            {"hooks": [{"type": "command", "command": hook.command, "timeout": hook.timeout}]}
        )
    if extra:
        hooks["Stop"] = extra + hooks["Stop"]
    path.write_text(json.dumps({"hooks": hooks}))
    return path


def test_project_install_is_skipped_and_uninstall_keeps_the_users_entries(tmp_path: Path) -> None:
    changes = ADAPTER.install(tmp_path)
    assert [c.action for c in changes] == ["skipped"] and "global sync" in changes[0].detail
    assert changes[0].path == ".codex/hooks.json"  # relative, as `init` prints the others
    assert not (tmp_path / ".codex").exists()
    theirs: list[dict[str, object]] = [{"hooks": [{"type": "command", "command": "make lint"}]}]
    path = project_hooks(tmp_path, theirs)
    ADAPTER.uninstall(tmp_path)
    assert json.loads(path.read_text()) == {"hooks": {"Stop": theirs}}


@pytest.mark.parametrize(
    ("printed", "level"),
    [
        ("codex-cli 0.171.0", "ok"),
        ("codex-cli 0.180.2", "warn"),
        ("codex-cli 0.100.0", "info"),
        (None, "info"),
    ],
)
def test_doctor_compares_the_installed_cli_with_the_known_formats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, printed: str | None, level: str
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if printed is not None:
        fake = bin_dir / "codex"
        fake.write_text(f'#!/bin/sh\necho "{printed}"\n')
        fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert ADAPTER.cli_version() == (printed.split()[-1] if printed else None)
    first = ADAPTER.doctor(tmp_path, [])[0]
    assert first.level == level
    if level == "warn":
        assert "0.171.0" in first.message and first.fix


def test_doctor_says_when_project_and_user_hooks_are_both_trusted(
    home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    project_hooks(project)
    sync(home, trust=True)
    account = Account(agent="codex", name="~/.codex", dir=str(home))
    assert not [f for f in ADAPTER.doctor(project, [account]) if "both" in f.message]
    path = home / "config.toml"
    doc = tomlkit.parse(path.read_text())
    source = str(project / ".codex" / "hooks.json")
    for hook in cfg.HOOKS:  # what approving them in the Codex TUI would write
        entry = tomlkit.table()
        entry["trusted_hash"] = cfg.trust_hash(hook)
        doc["hooks"]["state"][cfg.trust_key(source, hook, 0)] = entry
    path.write_text(tomlkit.dumps(doc))
    both = [f for f in ADAPTER.doctor(project, [account]) if "both" in f.message]
    assert len(both) == 1 and both[0].level == "info" and both[0].fix
    assert "deduplicates" in both[0].message and "once" in both[0].message
