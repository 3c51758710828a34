"""`--dry-run` of `baker uninstall` and `baker global sync --uninstall` says, file by file, what
the real run then does, and writes nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_baker

AGENTS = ("claude", "codex", "gemini")
FOREIGN_MCP = '{\n  "mcpServers": {\n    "db": {"command": "dbserver"}\n  }\n}\n'


@pytest.fixture(autouse=True)
def _every_adapter() -> None:
    for agent in AGENTS:
        pytest.importorskip(f"continuity_{agent}")


def verbs(stdout: str, *, dry_run: bool) -> dict[str, str]:
    """Path -> action of each change line (`output.changes`), "would be " taken off a dry run's
    verbs; a real run's lines never say "would", a dry run's never say a bare verb."""
    out: dict[str, str] = {}
    for line in stdout.splitlines():
        if not line.startswith("  ") or line == "  nothing to do":  # a heading, an empty account
            continue
        words = line.split()
        if words[:2] == ["would", "be"]:
            assert dry_run, line
            words = words[2:]
        else:
            assert words[0] in ("unchanged", "skipped", "failed") or not dry_run, line
        action, path = words[0], words[1]
        assert path not in out, f"two lines for {path}:\n{stdout}"
        out[path] = action
    return out


def snapshot(*roots: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under `roots`, but git's object store."""
    seen: dict[str, bytes | None] = {}
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if Path(folder, d) != root / ".git" / "objects"]
            seen[folder] = None
            for name in files:
                seen[os.path.join(folder, name)] = Path(folder, name).read_bytes()
    return seen


def dry_then_real(cwd: Path, *args: str) -> tuple[dict[str, str], dict[str, str]]:
    home = Path.home()
    before = snapshot(cwd, home)
    dry = run_baker(*args, "--dry-run", cwd=cwd)
    assert dry.returncode == 0, dry.stdout + dry.stderr
    assert snapshot(cwd, home) == before, "the dry run wrote something"
    real = run_baker(*args, cwd=cwd)
    assert real.returncode == 0, real.stdout + real.stderr
    said, done = verbs(dry.stdout, dry_run=True), verbs(real.stdout, dry_run=False)
    assert said == done, f"dry run:\n{dry.stdout}\nreal run:\n{real.stdout}"
    for path, action in done.items():  # and each verb is what happened to the file
        if action == "removed":
            assert not os.path.lexists(cwd / path), path
        elif action in ("updated", "created"):
            assert (cwd / path).is_file(), path
    return said, done


def legacy_codex_hooks(repo: Path, *, theirs: bool) -> None:
    """A project `.codex/hooks.json` as an earlier baker wrote it (with a hook of the user's)."""
    from continuity_codex import config

    hooks: dict[str, list[object]] = {}
    for hook in config.HOOKS:
        hooks.setdefault(hook.event, []).append(
            {"hooks": [{"type": "command", "command": hook.command, "timeout": hook.timeout}]}
        )
    if theirs:
        hooks["Stop"].insert(0, {"hooks": [{"type": "command", "command": "make lint"}]})
    path = repo / ".codex" / "hooks.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"hooks": hooks}))


@pytest.mark.parametrize(
    ("init", "files", "expected"),
    [
        pytest.param(
            ("init",),
            {},
            {".gemini/settings.json": "removed", ".claude/settings.json": "removed"},
            id="init",
        ),
        pytest.param(  # the hooks and `baker mcp` share .gemini/settings.json
            ("init", "--mcp"),
            {},
            {".gemini/settings.json": "removed", ".mcp.json": "removed", "AGENTS.md": "removed"},
            id="mcp",
        ),
        pytest.param(
            ("init", "--mcp", "--pre-commit"),
            {
                ".gemini/settings.json": '{\n  "ui": {"theme": "x"}\n}\n',
                ".claude/settings.json": '{"model": "opus"}\n',
                ".mcp.json": FOREIGN_MCP,
                "AGENTS.md": "# Rules\n",
                "CLAUDE.md": "# Mine\n",
                "GEMINI.md": "# Mine\n",
            },
            {
                ".gemini/settings.json": "updated",
                ".claude/settings.json": "updated",
                ".mcp.json": "updated",
                "GEMINI.md": "updated",
                ".git/hooks/pre-commit": "removed",
            },
            id="mcp-beside-the-users-own",
        ),
        pytest.param(  # found empty: given back empty
            ("init", "--mcp"),
            {".gemini/settings.json": "{}\n", ".claude/settings.json": "{}\n"},
            {".gemini/settings.json": "updated", ".claude/settings.json": "updated"},
            id="mcp-found-empty",
        ),
        pytest.param(
            ("init", "--local"),
            {},
            {".claude/settings.local.json": "removed"},
            id="local",
        ),
    ],
)
def test_a_dry_run_says_what_uninstall_then_does(
    repo: Path, init: tuple[str, ...], files: dict[str, str], expected: dict[str, str]
) -> None:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    assert run_baker(*init, cwd=repo).returncode == 0
    # what earlier versions left: Codex hooks in the project, the skill in .gemini/skills
    legacy_codex_hooks(repo, theirs=bool(files))
    former = repo / ".gemini" / "skills" / "continuity" / "SKILL.md"
    former.parent.mkdir(parents=True)
    former.write_bytes((repo / ".agents" / "skills" / "continuity" / "SKILL.md").read_bytes())
    _, done = dry_then_real(repo, "uninstall")
    assert done.pop(".codex/hooks.json") == ("updated" if files else "removed")
    assert done.pop(".gemini/skills/continuity/SKILL.md") == "removed"
    assert done.items() >= expected.items(), done
    for rel, text in files.items():
        assert (repo / rel).read_text() == text, rel


def test_a_dry_run_says_what_global_sync_uninstall_then_does(isolated_home: Path) -> None:
    home = isolated_home
    for folder in (".claude", ".codex", ".gemini"):
        (home / folder).mkdir()
    (home / ".gemini" / "projects.json").write_text("{}\n")  # the home outlives our file
    result = run_baker("global", "sync", "--user-hooks", "--mcp", cwd=home)
    assert result.returncode == 0, result.stdout + result.stderr
    _, done = dry_then_real(home, "global", "sync", "--uninstall")
    assert done[str(home / ".gemini" / "settings.json")] == "removed"
    assert not (home / ".gemini" / "settings.json").exists()
