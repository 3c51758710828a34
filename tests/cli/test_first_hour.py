"""What a new user trips on in the first hour (issue 31): each test runs the real flow."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_baker
from tests.helpers.config import work_account, write_config


def test_a_misspelled_command_agent_or_account_is_answered_with_the_nearest_name(
    repo: Path, isolated_home: Path
) -> None:
    """`baker handof` gave no suggestion and `handoff --from claud` said to install a
    `continuity-cli[claud]` extra that does not exist."""
    pytest.importorskip("continuity_claude")  # the nearest installed agent
    result = run_baker("handof", cwd=repo)
    assert result.returncode == 2
    assert "No such command 'handof'. Did you mean 'handoff'?" in result.stderr
    assert "Did you mean 'sync'?" in run_baker("global", "synk", cwd=repo).stderr

    for args in (("handoff", "--from", "claud"), ("resume", "claud", "--dry-run")):
        result = run_baker(*args, cwd=repo)
        assert result.returncode == 1, args
        assert "did you mean 'claude'?" in result.stderr and "pip install" not in result.stderr
    # a name close to none: the install hint stays
    assert 'pip install "continuity-cli[kilo]"' in run_baker("handoff", "--from", "kilo").stderr

    write_config(isolated_home, work_account(isolated_home))
    result = run_baker("handoff", "--account", "wrok", cwd=repo)
    assert result.returncode == 1
    assert "no account 'wrok' is known (did you mean 'work'? accounts: work (claude)" in (
        result.stderr
    )
    result = run_baker("resume", "claude", "--account", "wrok", "--dry-run", cwd=repo)
    assert "no claude account named 'wrok' (did you mean 'work'?)" in result.stderr
    usage = run_baker("usage", "--agent", "claud", cwd=repo)
    assert "did you mean 'claude'?" in usage.stdout + usage.stderr

    # `init --agent claud` set up nothing for it without a word; it writes nothing now
    result = run_baker("init", "--agent", "claud", cwd=repo)
    assert result.returncode == 1 and "did you mean 'claude'?" in result.stderr
    assert not (repo / ".baker").exists()


def _counts(repo: Path, home: Path, session: str) -> dict[str, object]:
    """What each command says is uncommitted: `status`, `facts`, `handoff` and the pickup."""
    import json

    from tests.cli.flows import payload

    status = json.loads(run_baker("status", "--json", cwd=repo).stdout)["git"]
    facts = json.loads(run_baker("facts", "--json", cwd=repo).stdout)["git"]
    brief = json.loads(run_baker("handoff", "--json", cwd=repo).stdout)["repo"]
    # a new session each time: the pickup speaks once per session
    event = payload("claude", "SessionStart.startup.json", home, repo, cwd=repo, session_id=session)
    pickup = run_baker("pickup", "--agent", "claude", cwd=repo, input=event).stdout
    context = json.loads(pickup)["hookSpecificOutput"]["additionalContext"]
    return {
        "status": status.get("dirty", []),
        "facts": facts.get("dirty", []),
        "handoff": brief["uncommitted"],
        "pickup": [line.strip(" -`") for line in context.splitlines() if line.startswith("  - `")],
        "pickup_clean": "working tree clean" in context,
    }


def test_every_command_counts_the_users_work_by_one_rule(repo: Path, isolated_home: Path) -> None:
    """After `baker init`, `git status` shows baker's own files; `facts` counted them where the
    brief, `status` and the pickup did not. One rule: the files `init` wrote, while they are
    as it wrote them, are not the user's work; an edit to one is."""
    pytest.importorskip("continuity_claude")  # the pickup is Claude's
    import subprocess

    assert run_baker("init", cwd=repo).returncode == 0
    porcelain = subprocess.run(
        ["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert "?? AGENTS.md" in porcelain and "?? .gitignore" in porcelain
    clean = _counts(repo, isolated_home, "s-1")
    assert clean == {"status": [], "facts": [], "handoff": [], "pickup": [], "pickup_clean": True}

    (repo / "app.py").write_text("print('mine')\n")
    with (repo / "AGENTS.md").open("a") as f:
        f.write("\nOur own rule: run the tests first.\n")
    work = ["?? AGENTS.md", "?? app.py"]
    counted = _counts(repo, isolated_home, "s-2")
    assert counted == {
        "status": work,
        "facts": work,
        "handoff": work,
        "pickup": work,
        "pickup_clean": False,
    }


def _tree(folder: Path) -> list[tuple[str, int]]:
    """Every file under `folder` (but .git's) with its size: what a hook may not change."""
    return sorted(
        (str(p.relative_to(folder)), p.stat().st_size)
        for p in folder.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(folder).parts
    )


def test_outside_a_project_set_up_pickup_gives_the_read_only_facts_and_writes_nothing(
    repo: Path, isolated_home: Path
) -> None:
    """Issue 31, item 1: user-level hooks act only where `baker init` ran. In a repository
    without `.baker/`, the Stop hook writes nothing and pickup printed nothing; now pickup
    gives the live repo state and the previous session's interrupted call, says the
    repository keeps nothing, and writes nothing in it."""
    import json

    from tests.cli.flows import claude_session, payload

    claude_session(
        isolated_home,
        repo,
        rel="-home-dev-src-data-pipeline/42f346a0-12c0-4151-9060-6bcb27b8e815.jsonl",
        project="/home/dev/src/data-pipeline",
    )
    (repo / "app.py").write_text("print('mine')\n")
    before = (_tree(repo), _tree(isolated_home))
    stop = payload("claude", "Stop.json", isolated_home, repo, cwd=repo)
    checkpoint = run_baker("checkpoint", "--agent", "claude", "--quiet", cwd=repo, input=stop)
    assert (checkpoint.returncode, checkpoint.stdout) == (0, "")
    event = payload("claude", "SessionStart.startup.json", isolated_home, repo, cwd=repo)
    result = run_baker("pickup", "--agent", "claude", cwd=repo, input=event)
    assert result.returncode == 0, result.stderr
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "- branch: main" in context and "`?? app.py`" in context
    assert "not set up for Continuity (no .baker/)" in context and "baker init" in context
    assert "sleep 60 && ./scripts/integration.sh" in context  # the interrupted call
    assert "No note yet" not in context  # it does not ask the agent to create the note
    assert _tree(repo) == before[0]
    # in the home, only the markers that run each hook event once and the entry-point index
    # (docs/decisions.md, "How the hooks stay fast")
    made = set(_tree(isolated_home)) - set(before[1])
    assert all(
        path.startswith((".baker/cache/hooks-seen/", ".baker/cache/entry-points-"))
        for path, _ in made
    ), made


def test_doctor_lists_the_repositories_with_sessions_but_no_store(
    repo: Path, isolated_home: Path
) -> None:
    import json
    import os

    from tests.cli.flows import claude_session

    claude_session(isolated_home, repo)

    def finding() -> list[dict[str, str]]:
        out = json.loads(run_baker("doctor", "--json", cwd=isolated_home).stdout)
        return [f for f in out if "no .baker/" in f["message"]]

    [found] = finding()
    assert found["level"] == "info" and os.path.realpath(repo) in found["message"]
    assert "1 repository has agent sessions but no .baker/" in found["message"]
    assert "baker init" in found["fix"]
    assert run_baker("init", cwd=repo).returncode == 0
    assert finding() == []


def test_a_command_trap_given_as_a_path_and_how_each_agent_receives_it(
    repo: Path, isolated_home: Path
) -> None:
    """Issue 31, items 9 and 6: `trap add "pytest -x" …` was stored as a path trap (it never
    matched) without a word; it is a command trap now, and says so. Gemini CLI 0.61's
    BeforeTool has no context channel: its traps reach the user as a system message, while
    Claude's reach the model as additionalContext (docs/note-traps-probes.md)."""
    pytest.importorskip("continuity_claude")
    pytest.importorskip("continuity_gemini")
    import json

    from tests.cli.flows import payload

    assert run_baker("init", cwd=repo).returncode == 0
    (repo / "my notes.md").write_text("a file with a space\n")
    added = run_baker("trap", "add", "python3 -c*", "the one-liner hid the traceback", cwd=repo)
    assert added.returncode == 0
    assert (
        "added for command `python3 -c*`" in added.stdout and "taken as a command" in added.stdout
    )
    kept = run_baker("trap", "add", "my notes.md", "keep it short", cwd=repo).stdout
    assert "added for path `my notes.md`" in kept and "taken as" not in kept
    listed = json.loads(run_baker("trap", "list", "--json", cwd=repo).stdout)
    kinds = {t["pattern"]: t.get("kind", "path") for t in listed}  # path: the default, omitted
    assert kinds == {"python3 -c*": "command", "my notes.md": "path"}

    event = payload(
        "gemini",
        "BeforeTool.run_shell_command.json",
        isolated_home,
        repo,
        cwd=repo,
        session_id="g-1",
    )
    gemini = json.loads(run_baker("pretool", "--agent", "gemini", cwd=repo, input=event).stdout)
    assert list(gemini) == ["systemMessage"]
    assert "the one-liner hid the traceback" in gemini["systemMessage"]

    bash = json.loads(payload("claude", "PreToolUse.Bash.json", isolated_home, repo, cwd=repo))
    bash["tool_input"]["command"] = "python3 -c 'print(1)'"
    claude = json.loads(
        run_baker("pretool", "--agent", "claude", cwd=repo, input=json.dumps(bash)).stdout
    )
    assert "the one-liner hid the traceback" in claude["hookSpecificOutput"]["additionalContext"]


def test_the_smaller_surprises_of_the_exit_codes_and_hand_runs(
    repo: Path, isolated_home: Path, tmp_path: Path
) -> None:
    """Issue 31, item 9: `resume --json` without `--dry-run` launched the agent;
    `resume-check nope` exited 0; `audit` exited 0 on a failed check where `doctor` exits 1;
    `checkpoint` run by hand outside a project printed nothing."""
    import json

    from tests.cli.flows import claude_session

    assert run_baker("init", cwd=repo).returncode == 0
    claude_session(isolated_home, repo)
    launched = run_baker("resume", "claude", "--json", cwd=repo)
    assert launched.returncode == 2 and "add --dry-run" in launched.stderr
    dry = run_baker("resume", "claude", "--json", "--dry-run", cwd=repo)
    assert dry.returncode == 0 and json.loads(dry.stdout)["launch"]["argv"]

    assert run_baker("resume-check", cwd=repo).returncode == 0  # nothing saved yet: fine
    named = run_baker("resume-check", "nope", "--json", cwd=repo)
    assert named.returncode == 1 and json.loads(named.stdout)["status"] == "none"

    assert run_baker("audit", cwd=repo).returncode == 0
    write_config(isolated_home, "[transcript]\n")  # a check that fails: the config is broken
    for check in ("audit", "doctor"):
        result = run_baker(check, cwd=repo)
        assert result.returncode == 1, (check, result.stdout)
        assert run_baker(check, "--json", cwd=repo).returncode == 1, check
    (isolated_home / ".baker" / "config.toml").unlink()

    by_hand = run_baker("checkpoint", cwd=repo)
    assert by_hand.returncode == 0 and by_hand.stdout.startswith("checkpoint ")
    outside = run_baker("checkpoint", cwd=tmp_path)
    assert outside.returncode == 0
    assert outside.stdout == (
        f"no checkpoint written: {tmp_path} is not in a Continuity project (run `baker init` "
        "at the repository root)\n"
    )
    hook = run_baker("checkpoint", "--agent", "claude", "--quiet", cwd=tmp_path, input=b"{}")
    assert (hook.returncode, hook.stdout) == (0, "")  # a hook still prints nothing


def test_an_empty_note_gets_no_heading_in_the_pickup(repo: Path, isolated_home: Path) -> None:
    pytest.importorskip("continuity_claude")
    import json

    from tests.cli.flows import payload

    def context(session: str) -> str:
        event = payload(
            "claude", "SessionStart.startup.json", isolated_home, repo, cwd=repo, session_id=session
        )
        out = run_baker("pickup", "--agent", "claude", cwd=repo, input=event).stdout
        return str(json.loads(out)["hookSpecificOutput"]["additionalContext"])

    assert run_baker("init", cwd=repo).returncode == 0
    empty = context("s-1")
    assert "## The note" not in empty and "## Environment" in empty
    assert run_baker("now", "Run the migration test", cwd=repo).returncode == 0
    written = context("s-2")
    assert "## The note (memory/hot.md, written on purpose)" in written
    assert "Run the migration test" in written


def test_global_sync_uninstall_says_nothing_of_files_that_are_not_there(
    isolated_home: Path,
) -> None:
    """Issue 31, item 9: it reported "unchanged" for settings files that do not exist; and
    for an agent with no home at all, it advised to "run copilot once" to create one."""
    from importlib.metadata import entry_points

    for agent in ("claude", "codex", "gemini"):
        pytest.importorskip(f"continuity_{agent}")
    for folder in (".claude", ".codex"):  # no ~/.gemini
        (isolated_home / folder).mkdir(exist_ok=True)
    result = run_baker("global", "sync", "--uninstall", cwd=isolated_home)
    assert result.returncode == 0, result.stderr
    assert "unchanged" not in result.stdout and "once to create it" not in result.stdout
    installed = len(entry_points(group="continuity_core.adapters"))
    assert result.stdout.count("  nothing to do") == installed  # absent homes included
    assert "run gemini once to create it" in run_baker("global", "sync", cwd=isolated_home).stdout
    assert not (isolated_home / ".claude" / "settings.json").exists()


def test_an_account_named_in_config_is_shown_by_its_name(repo: Path, isolated_home: Path) -> None:
    """Issue 31, item 9: `work` in config.toml was shown as `CLAUDE_CONFIG_DIR` when that
    variable named the same folder, and as the folder when `[transcripts]` listed it."""
    import json

    from tests.cli.flows import claude_session

    work = isolated_home / ".claude-work"
    write_config(
        isolated_home,
        f'[transcripts]\nclaude = ["{work}"]\n\n' + work_account(isolated_home),
    )
    claude_session(isolated_home / ".claude-work-home", repo)  # its projects/ folder, moved:
    (isolated_home / ".claude-work-home" / ".claude" / "projects").rename(work / "projects")
    for env in ({}, {"CLAUDE_CONFIG_DIR": str(work)}):
        listed = run_baker("sessions", "--json", cwd=repo, env=env)
        assert listed.returncode == 0, listed.stderr
        assert [s["account"] for s in json.loads(listed.stdout)["sessions"]] == ["work"], env


def _gemini_interrupted(home: Path, root: Path) -> str:
    """The captured Gemini CLI session killed mid-call (S4) as this project's; its id."""
    import json
    import shutil

    from tests.conftest import FIXTURES

    dst = home / ".gemini" / "tmp" / "data-pipeline"
    shutil.copytree(FIXTURES / "gemini" / ".gemini" / "tmp" / "data-pipeline", dst)
    (dst / ".project_root").write_text(str(root))
    (home / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {str(root): "data-pipeline"}})
    )
    return "da0b45a2-73a8-4367-a126-06926ec2b46d"


def test_facts_measures_the_session_it_is_told_and_sessions_names_an_interrupted_call(
    repo: Path, isolated_home: Path
) -> None:
    """Issue 31, item 9: `facts --agent claude --session ID` measured the newest session of any
    agent (here Gemini's); `sessions` listed a Gemini session killed mid-call as `did work`."""
    import json
    import os

    from tests.cli.flows import claude_session, payload

    assert run_baker("init", cwd=repo).returncode == 0
    claude = claude_session(isolated_home, repo)
    os.utime(claude, (1_700_000_000, 1_700_000_000))  # older than Gemini's
    gemini = _gemini_interrupted(isolated_home, repo)
    # the call Gemini was killed in: only its BeforeTool hook saw it start
    before = payload(
        "gemini",
        "BeforeTool.run_shell_command.json",
        isolated_home,
        repo,
        session_id=gemini,
        timestamp="2026-11-30T03:58:55.000Z",
        tool_input={"command": "sleep 60 && ./scripts/integration.sh"},
    )
    assert run_baker("pretool", "--agent", "gemini", cwd=repo, input=before).returncode == 0
    claude_id = claude.stem
    facts = json.loads(
        run_baker("facts", "--agent", "claude", "--session", claude_id, "--json", cwd=repo).stdout
    )
    assert (facts["usage"]["agent"], facts["usage"]["session_id"]) == ("claude", claude_id)
    rows = json.loads(run_baker("sessions", "--json", cwd=repo).stdout)["sessions"]
    states = {row["id"]: row["state"] for row in rows}
    assert states[gemini] == "interrupted", rows
    # the brief's section on it says where it comes from: the hook, not the transcript
    brief = json.loads(run_baker("handoff", "--json", cwd=repo).stdout)
    [section] = [s for s in brief["sections"] if s["key"] == "interrupted"]
    assert section["source"] == "the pre-tool hook's record in .baker/inflight/"
    assert "sleep 60 && ./scripts/integration.sh" in section["body"]


def test_a_bare_command_name_is_a_command_trap_that_fires(repo: Path, isolated_home: Path) -> None:
    """`trap add make "…"` was filed as a path trap on a file named `make` and never fired
    before `make test`; a bare name (no `.`, `/` or wildcard) naming no file here is a
    command now, `./NAME` keeps it a path, and a file that exists stays one."""
    pytest.importorskip("continuity_claude")
    import json

    from tests.cli.flows import payload

    assert run_baker("init", cwd=repo).returncode == 0
    (repo / "Makefile").write_text("test:\n\ttrue\n")
    added = run_baker("trap", "add", "make", "make test rebuilds the vendored deps", cwd=repo)
    assert "added for command `make`" in added.stdout and "`./make` keeps it a path" in added.stdout
    for name in ("Makefile", "./build", "*.py"):
        assert "added for path" in run_baker("trap", "add", name, "why", cwd=repo).stdout, name

    bash = json.loads(payload("claude", "PreToolUse.Bash.json", isolated_home, repo, cwd=repo))
    bash["tool_input"]["command"] = "make test"
    out = run_baker("pretool", "--agent", "claude", cwd=repo, input=json.dumps(bash)).stdout
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "make test rebuilds the vendored deps" in context


def test_sessions_are_listed_by_their_last_activity_not_their_files_time(
    repo: Path, isolated_home: Path
) -> None:
    """`baker sessions` listed by the transcript file's time: a Gemini session active two
    minutes after Claude's was listed below it because its file was older (copied, synced)."""
    pytest.importorskip("continuity_gemini")
    import json
    import os

    from tests.cli.flows import claude_session

    claude_session(isolated_home, repo)  # last active 2026-11-30 03:56, its file written now
    gemini = _gemini_interrupted(isolated_home, repo)  # last active 03:58
    for f in (isolated_home / ".gemini").rglob("*.json*"):
        os.utime(f, (1_700_000_000, 1_700_000_000))  # its files from 2023
    rows = json.loads(run_baker("sessions", "--json", cwd=repo).stdout)["sessions"]
    assert [(r["agent"], r["last_activity"][:16]) for r in rows] == [
        ("gemini", "2026-11-30T03:58"),
        ("claude", "2026-11-30T03:56"),
    ]
    listed = run_baker("sessions", cwd=repo).stdout
    assert listed.index(gemini) < listed.index("48f0d34d")


def test_with_no_session_the_first_move_claims_no_unfinished_work(
    repo: Path, isolated_home: Path
) -> None:
    """The brief of a project with no agent session said another session left work
    unfinished; it says no earlier session was found, and still says so once there is one."""
    import json

    from tests.cli.flows import claude_session

    def first_move() -> str:
        brief = json.loads(run_baker("handoff", "--json", cwd=repo).stdout)
        return str(next(s["body"] for s in brief["sections"] if s["key"] == "first_move"))

    assert run_baker("init", cwd=repo).returncode == 0
    alone = first_move()
    assert alone.startswith("No earlier agent session of this project was found. Before")
    assert "left unfinished" not in alone
    claude_session(isolated_home, repo)
    assert first_move().startswith("You are picking up work another agent session left")


def test_uninstall_takes_away_the_folders_init_made_and_left_empty(repo: Path) -> None:
    """`baker uninstall` left an empty `.github/` (Copilot's hooks and the skill live there);
    a `.github/` holding the user's own files stays, with them."""
    pytest.importorskip("continuity_copilot")
    assert run_baker("init", cwd=repo).returncode == 0
    assert (repo / ".github" / "hooks").is_dir()
    assert run_baker("uninstall", cwd=repo).returncode == 0
    assert not (repo / ".github").exists()

    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    assert run_baker("init", cwd=repo).returncode == 0
    assert run_baker("uninstall", cwd=repo).returncode == 0
    assert [str(p.relative_to(repo)) for p in sorted((repo / ".github").rglob("*"))] == [
        ".github/workflows",
        ".github/workflows/ci.yml",
    ]


def test_limits_json_says_why_its_list_is_empty(repo: Path, isolated_home: Path) -> None:
    """`baker limits --json` printed `[]` and nothing else: stdout stays the list, and stderr
    says why it is empty; with a rotation each entry is a row, available or not."""
    pytest.importorskip("continuity_claude")
    import json

    empty = run_baker("limits", "--json", cwd=repo)
    assert (empty.returncode, json.loads(empty.stdout)) == (0, [])
    assert empty.stderr == (
        "no [rotation] order in ~/.baker/config.toml (see `baker run --help`)\n"
        "no limit recorded for any account\n"
    )
    write_config(isolated_home, '[rotation]\norder = ["claude"]\n')
    listed = run_baker("limits", "--json", cwd=repo)
    assert [(r["entry"], r["limited"]) for r in json.loads(listed.stdout)] == [("claude", False)]
    assert listed.stderr == ""


def test_status_shows_a_copied_venv_python_without_an_arrow_to_itself(repo: Path) -> None:
    """A venv made with copies (as `python3 -m venv` makes on some systems) was shown as
    `.venv/bin/python -> .venv/bin/python`; a linked one still names its target."""
    import json
    import shutil
    import sys

    for name in ("copied", "linked"):
        (repo / name / "bin").mkdir(parents=True)
        (repo / name / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n")
    python = repo / "copied" / "bin" / "python"
    shutil.copy(Path(sys.executable).resolve(), python)
    (repo / "linked" / "bin" / "python").symlink_to(Path(sys.executable).resolve())
    shown = json.loads(run_baker("status", "--json", cwd=repo).stdout)["interpreters"]
    detail = {r["name"]: r["detail"] for r in shown}
    assert detail["copied"].startswith(f"{python}: present;") and " -> " not in detail["copied"]
    assert f" -> {Path(sys.executable).resolve()}: present" in detail["linked"]


def test_push_keeps_gits_lines_apart(repo: Path) -> None:
    """`baker push` to a remote that is no repository joined git's two `fatal:` lines into
    one; each keeps its line, and what baker adds follows on its own."""
    import subprocess

    assert run_baker("init", cwd=repo).returncode == 0
    subprocess.run(["git", "remote", "add", "origin", str(repo / "gone.git")], cwd=repo, check=True)
    result = run_baker("push", cwd=repo)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[:3] == [
        "Error: `git push` failed:",
        f"  fatal: '{repo / 'gone.git'}' does not appear to be a git repository",
        "  fatal: Could not read from remote repository.",
    ]
    assert lines[3].startswith("The snapshot is kept here on refs/baker/")


def test_the_note_has_no_empty_agent_line(repo: Path) -> None:
    """`baker init` then `baker now …` left `agent: ` with nothing after it in the note's
    front matter; a field with no value is left out, and `--agent` still fills it."""
    assert run_baker("init", cwd=repo).returncode == 0
    assert run_baker("now", "Run the migration test", cwd=repo).returncode == 0
    front = (repo / "memory" / "hot.md").read_text().split("---")[1].splitlines()
    assert [line.split(":")[0] for line in front if line] == ["updated", "branch"]
    assert run_baker("now", "--agent", "codex", "Then the docs", cwd=repo).returncode == 0
    assert "\nagent: codex\n" in (repo / "memory" / "hot.md").read_text()


def test_a_budget_below_the_floor_says_the_brief_is_still_over_it(repo: Path) -> None:
    """`handoff --budget 200` printed ~240 tokens while saying sections were cut "to stay
    within 200 tokens"; it says what is never cut and that the brief is still over."""
    pytest.importorskip("continuity_claude")  # the agents searched are part of the floor
    assert run_baker("init", cwd=repo).returncode == 0
    small = run_baker("handoff", "--budget", "200", cwd=repo).stdout
    assert len(small) > 200 * 4  # over it: the floor is the sections never cut
    assert small.rstrip().endswith(
        "_Still over 200 tokens: the first move, where this comes from and the latest request "
        "are never cut._"
    )
    roomy = run_baker("handoff", "--budget", "400", cwd=repo).stdout
    assert len(roomy) <= 400 * 4 and "Still over" not in roomy
