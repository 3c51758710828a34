"""The agents' own settings files: `init`, `sync`, `uninstall` and `global sync [--uninstall]`
never lose a foreign byte, refuse what they cannot edit safely and say so, and a writer killed
mid-edit leaves the old or the new file, never a torn one.

Files are the user's: foreign hooks in the events baker uses, TOML comments, tabs, CRLF line
ends, non-ASCII text and `\\u` escapes. Every command runs as a real process.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import run_baker, sigkill_midway

CLAUDE = (
    '{\r\n\t"permissions": {"allow": ["Bash(ls:*)"]},\r\n\t"hooks": {\r\n'
    '\t\t"Stop": [{"hooks": [{"type": "command", "command": "python3 ~/bin/notify.py \\u00e9t\u00e9"}]}],\r\n'
    '\t\t"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]\r\n'
    '\t},\r\n\t"theme": "d\u00e4rk \u2713"\r\n}\r\n'
)
GEMINI = (
    '{\r\n\t"ui": {"theme": "Dracula"},\r\n\t"hooks": {\r\n'
    '\t\t"AfterAgent": [{"hooks": [{"type": "command", "command": "my-logger \\u00e9"}]}]\r\n'
    '\t},\r\n\t"model": {"name": "gemini-2.5-pro"}\r\n}\r\n'
)
CODEX = (
    '# my codex config \u2014 hand written\r\nmodel = "gpt-5.5"  # the default\r\n'
    'notify = ["python3", "/home/dev/bin/my_notify.py"]\r\n\r\n'
    '[profiles.fast]\r\n\tmodel = "gpt-5.5-mini"\r\n\r\n'
    '# trusted projects\r\n[projects."/home/dev/src/x"]\r\ntrust_level = "trusted"\r\n\r\n'
    '[[hooks.Stop]]\r\n[[hooks.Stop.hooks]]\r\ntype = "command"\r\ncommand = "my-stop-hook"\r\n'
)
# Not JSON (trailing commas, comments) or not TOML: refused, byte for byte.
JSON5 = '{\n  // my settings\n  "theme": "dark",\n  "hooks": {},\n}\n'
BAD_TOML = 'model = "a"\nmodel = "b"\n[x\n'


def settings_files(tmp_path: Path, project: Path) -> dict[str, dict[str, Path]]:
    home = tmp_path / "agents"
    return {
        "claude": {
            "project": project / ".claude" / "settings.json",
            "user": home / ".claude" / "settings.json",
        },
        "gemini": {
            "project": project / ".gemini" / "settings.json",
            "user": home / ".gemini" / "settings.json",
        },
        "codex": {"user": home / ".codex" / "config.toml"},
    }


def agent_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "agents"
    return {
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "GEMINI_CLI_HOME": str(home),
    }


def write(files: dict[str, Path], text: str) -> dict[Path, bytes]:
    out = {}
    for path in files.values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
        out[path] = text.encode()
    return out


def parsed(path: Path) -> object:
    data = path.read_bytes().decode()
    return tomllib.loads(data) if path.suffix == ".toml" else json.loads(data)


def foreign(value: object) -> object:
    """`value` without baker's own entries: what must be exactly as the user left it."""
    if isinstance(value, dict):
        return {
            k: foreign(v)
            for k, v in value.items()
            if not (k == "notify" and "baker" in json.dumps(v)) and k not in ("state",)
        }  # Codex hooks.state: the trusted hashes baker adds
    if isinstance(value, list):
        kept = [foreign(v) for v in value if "baker" not in json.dumps(v)]
        return [v for v in kept if v not in ({}, [], {"hooks": []})]
    return value


def strip_empty(value: object) -> object:
    if isinstance(value, dict):
        cleaned = {k: strip_empty(v) for k, v in value.items()}
        return {k: v for k, v in cleaned.items() if v not in ({}, [])}
    return value


def run(
    args: list[str],
    project: Path,
    env: dict[str, str],
    *,
    codes: tuple[int, ...] = (0,),
) -> str:
    result = run_baker(*args, cwd=project, env=env)
    assert "Traceback" not in result.stderr, (args, result.stderr)
    assert result.returncode in codes, (args, result.stdout, result.stderr)
    if result.returncode == 1:  # a file refused is a failed change: said once at the end
        assert "change(s) failed: see the lines above" in result.stderr
    return result.stdout + result.stderr


@pytest.mark.parametrize("agent", ["claude", "gemini", "codex"])
def test_install_sync_uninstall_keep_every_foreign_byte(
    agent: str, repo: Path, tmp_path: Path
) -> None:
    env = agent_env(tmp_path)
    files = settings_files(tmp_path, repo)[agent]
    original = write(files, {"claude": CLAUDE, "gemini": GEMINI, "codex": CODEX}[agent])
    before = {path: strip_empty(foreign(parsed(path))) for path in files.values()}

    run(["init", "--agent", agent], repo, env)
    run(["global", "sync", "--user-hooks", "--trust"], repo, env)
    installed = {path: path.read_bytes() for path in files.values()}
    for path in files.values():
        text = path.read_bytes().decode()
        assert "baker" in text, path  # really installed, and still parses
        assert strip_empty(foreign(parsed(path))) == before[path], path
    # Running again changes nothing: no churn, no duplicate hooks.
    run(["sync", "--agent", agent], repo, env)
    run(["global", "sync", "--user-hooks", "--trust"], repo, env)
    assert {path: path.read_bytes() for path in files.values()} == installed

    run(["uninstall"], repo, env)
    run(["global", "sync", "--user-hooks", "--uninstall"], repo, env)
    for path in files.values():
        assert strip_empty(foreign(parsed(path))) == before[path], path
        assert "baker" not in path.read_bytes().decode(), path
    exact = [path for path in files.values() if path.read_bytes() != original[path]]
    assert exact == [], [(p, p.read_bytes()) for p in exact]


def test_files_baker_cannot_edit_safely_are_refused_byte_for_byte(
    repo: Path, tmp_path: Path
) -> None:
    env = agent_env(tmp_path)
    files = settings_files(tmp_path, repo)
    refused = {
        **write(files["claude"], JSON5),
        **write(files["gemini"], JSON5),
        **write(files["codex"], BAD_TOML),
    }
    out = run(["init"], repo, env, codes=(0, 1))
    # What could be done was done: the project's own files are there.
    assert (repo / ".baker").is_dir() and (repo / "AGENTS.md").exists()
    out += run(["sync"], repo, env, codes=(0, 1))
    out += run(["global", "sync", "--user-hooks", "--trust"], repo, env, codes=(0, 1))
    out += run(["uninstall"], repo, env, codes=(0, 1))
    out += run(["global", "sync", "--user-hooks", "--uninstall"], repo, env, codes=(0, 1))
    for path, data in refused.items():
        assert path.read_bytes() == data, path
        # Each refusal names the file and says why, on every command that touched it.
        shown = str(path.relative_to(repo)) if path.is_relative_to(repo) else str(path)
        lines = [line for line in out.splitlines() if line.split()[1:2] == [shown]]
        assert lines and all(("failed" in line or "skipped" in line) for line in lines), (
            path,
            lines,
        )


def test_a_settings_path_baker_cannot_write_is_reported_and_others_proceed(
    repo: Path, tmp_path: Path
) -> None:
    """Root may write any file, so an unwritable place is made with a file where the settings
    folder should be (`.gemini` is a file); as another user a 0555 folder is tried too."""
    env = agent_env(tmp_path)
    (repo / ".gemini").write_text("a file, not a folder\n")
    blocked: dict[Path, bytes] = {repo / ".gemini": (repo / ".gemini").read_bytes()}
    if os.geteuid() != 0:
        folder = repo / ".claude"
        folder.mkdir()
        (folder / "settings.json").write_text(CLAUDE)
        (folder / "settings.json").chmod(0o444)
        folder.chmod(0o555)
        blocked[folder / "settings.json"] = CLAUDE.encode()
    try:
        result = run_baker("init", cwd=repo, env=env)
    finally:
        if (repo / ".claude").exists():
            (repo / ".claude").chmod(0o755)
    text = result.stdout + result.stderr
    assert "Traceback" not in text
    assert result.returncode == 1 and "change(s) failed" in result.stderr, text
    for path, data in blocked.items():
        assert path.read_bytes() == data
    assert any(
        ".gemini" in line and ("failed" in line or "skipped" in line) for line in text.splitlines()
    ), text
    # The agents that could be set up were.
    assert (repo / ".baker").is_dir()
    if os.geteuid() == 0:
        assert "baker pickup --agent claude" in (repo / ".claude" / "settings.json").read_text()


WRITER = r"""
import sys
from pathlib import Path
from continuity_claude import install as claude
from continuity_gemini import install as gemini
from continuity_codex import CodexAdapter
from continuity_core.adapters import Account, UserOptions
claude_path, gemini_path, codex_home = map(Path, sys.argv[1:4])
codex = CodexAdapter()
account = Account(agent="codex", name="test", dir=str(codex_home))
print("ready", flush=True)
n = 0
while True:
    n += 1
    remove = n % 2 == 0
    claude.sync_file(claude_path, None, want=not remove, dry_run=False)
    gemini.apply(gemini_path, None, remove=remove, dry_run=False)
    codex.install_user(account, UserOptions(hooks=True, uninstall=remove,
                                                declared={"trust": True}))
"""


def test_settings_files_are_old_or_new_when_the_writer_is_killed(tmp_path: Path) -> None:
    """The adapters' install path, killed at random points: every settings file is always
    exactly one of its two versions (without and with baker's hooks)."""
    pad = ", ".join(f'"k{i}": "{"v" * 200}"' for i in range(400))  # large: slower writes
    claude = tmp_path / "claude" / "settings.json"
    gemini = tmp_path / "gemini" / "settings.json"
    codex = tmp_path / "codex" / "config.toml"
    for path, text in (
        (claude, "{" + pad + "}\n"),
        (gemini, "{\n  " + pad + "\n}\n"),
        (
            codex,
            CODEX.replace("\r\n", "\n")
            + "".join(f'[p{i}]\nx = "{"v" * 200}"\n' for i in range(200)),
        ),
    ):
        path.parent.mkdir(parents=True)
        path.write_text(text)
    args = [sys.executable, "-c", WRITER, str(claude), str(gemini), str(codex.parent)]
    # The writer's loop done in-process: every version a killed writer may leave behind.
    from continuity_claude import install as claude_install
    from continuity_codex import CodexAdapter
    from continuity_core.adapters import Account, UserOptions
    from continuity_gemini import install as gemini_install

    versions: dict[Path, set[bytes]] = {p: {p.read_bytes()} for p in (claude, gemini, codex)}
    account = Account(agent="codex", name="t", dir=str(codex.parent))
    for n in range(1, 5):
        remove = n % 2 == 0
        claude_install.sync_file(claude, None, want=not remove, dry_run=False)
        gemini_install.apply(gemini, None, remove=remove, dry_run=False)
        CodexAdapter().install_user(
            account, UserOptions(hooks=True, uninstall=remove, declared={"trust": True})
        )
        for path, seen in versions.items():
            seen.add(path.read_bytes())
    assert all(2 <= len(v) <= 3 for v in versions.values())
    rng = random.Random(4321)
    for _ in range(12):
        sigkill_midway(args, rng.uniform(0.0, 0.3))
        for path, allowed in versions.items():
            assert path.read_bytes() in allowed, path
    leftovers = [p.name for p in tmp_path.rglob("*.tmp")]
    assert all(name.startswith(".") for name in leftovers)  # never taken for a settings file
