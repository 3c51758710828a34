"""Issue 36 over real captures (`tests/fixtures/attempts`, made with scripts/capture.py): what
was run and how it ended, every request across a compaction, what sub-agents found, the
brief's and `handoff --json`'s view of them, and the pickup after a compaction."""

from __future__ import annotations

import atexit
import functools
import gzip
import json
import os
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

import msgspec
import pytest

from continuity_core import brief, pickup
from continuity_core.adapters import LaunchOptions, kit, load
from continuity_core.adapters.kit import INLINE_PROMPT_MAX
from continuity_core.schemas.checkpoint import GitFacts
from continuity_core.schemas.session import Session, SessionRef
from tests.conftest import FIXTURES, run_baker

ATTEMPTS = FIXTURES / "attempts"
TRUTH: dict[str, dict[str, Any]] = json.loads((ATTEMPTS / "ground_truth.json").read_text())
SECRET = "Hunter2-FAKE-pw"
TEST = "python3 test_calc.py"


def read(agent: str, path: Path | str) -> Session:
    pytest.importorskip(f"continuity_{agent}")
    ref = SessionRef(agent=agent, account="~/.x", session_id="s", path=str(path), mtime=0.0)
    return load(agent).read(ref, None).session


@functools.cache
def unpacked() -> Path:
    """Where OpenCode's captured databases are unpacked (removed when the tests end)."""
    folder = Path(tempfile.mkdtemp(prefix="baker-attempts-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def source(rel: str, gt: dict[str, Any], base: Path = ATTEMPTS) -> str:
    """The path an adapter reads for a captured session: its transcript, or for OpenCode its
    database (kept gzipped) unpacked, `#` its session's id."""
    if not rel.endswith(".db.gz"):
        return str(base / rel)
    db = unpacked() / rel.removesuffix(".gz")
    if not db.exists():
        db.parent.mkdir(parents=True, exist_ok=True)
        db.write_bytes(gzip.decompress((base / rel).read_bytes()))
    return f"{db}#{gt['session_id']}"


def case(agent: str, scenario: str) -> tuple[Session, dict[str, Any]]:
    rel, gt = next(
        (rel, gt)
        for rel, gt in TRUTH.items()
        if gt["agent"] == agent and gt["scenario"] == scenario
    )
    return read(agent, source(rel, gt)), gt


def built(session: Session, budget: int = brief.DEFAULT_BUDGET_TOKENS) -> brief.Brief:
    return brief.build(
        project="/home/dev/src/p",
        created_at="2026-12-05T08:00:00Z",
        git=GitFacts(is_repo=True, branch="main"),
        note_text=None,
        session=session,
        budget_tokens=budget,
    )


def render(session: Session, budget: int = brief.DEFAULT_BUDGET_TOKENS) -> str:
    return brief.render(built(session, budget))


AGENTS = ("claude", "codex", "gemini", "copilot", "opencode")
# Where each agent's tool writes an exit status: Claude only around a failure, Codex, Copilot
# CLI (`shellExecution.exitCode`) and OpenCode (the bash part's `metadata.exit`) always,
# Gemini CLI only for a non-zero one.
EXIT_ON_SUCCESS = {"claude": None, "codex": 0, "gemini": None, "copilot": 0, "opencode": 0}
# How each agent compacted S14 after its second request: Claude Code and Copilot CLI on
# `/compact`; OpenCode, Codex and Gemini CLI on their own. Inside a turn nobody typed /compact
# or /compress: Codex's compaction in a prompted turn, Gemini CLI's history rewrite after a
# reply that called tools, are automatic.
COMPACTED = {
    "claude": "manual",
    "copilot": "manual",
    "opencode": "auto",
    "codex": "auto",
    "gemini": "auto",
}
MISSING = "python3 test_calc_all.py"  # Codex's and Gemini CLI's S14 fail it before compacting


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("scenario", ["S12", "S13", "S14"])
def test_every_command_with_its_outcome_as_the_agent_recorded_it(agent: str, scenario: str) -> None:
    session, gt = case(agent, scenario)
    truth = [(c["command"], c["failed"]) for c in gt["commands"]]
    runs = [(c.command, c.failed) for c in session.commands for _ in range(c.count)]
    # in order, but a repeat counts into its command's newest record, which moves to the end
    assert (
        runs == truth
        if all(c.count == 1 for c in session.commands)
        else sorted(runs) == sorted(truth)
    )
    assert session.commands_total == len(gt["commands"])
    for c in session.commands:
        if c.failed:
            assert isinstance(c.exit_code, int) and c.exit_code != 0 and c.error
        else:
            assert c.exit_code == EXIT_ON_SUCCESS[agent] and c.error == ""


@pytest.mark.parametrize("agent", AGENTS)
def test_failed_twice_two_ways_then_passed_is_three_lines_with_their_errors(agent: str) -> None:
    session, _ = case(agent, "S12")
    tests = [c for c in session.commands if c.command == TEST]
    assert [(c.failed, c.exit_code == 1 if c.failed else None, c.error) for c in tests] == [
        (True, True, "AssertionError: add(2, 2) returned 0, expected 4"),
        (True, True, "NameError: name 'c' is not defined"),
        (False, None, ""),
    ]
    text = render(session)
    section = text.split("## What was run")[1].split("\n## ")[0]
    assert section.count(f"`{TEST}`") == 3
    assert "failed, exit 1: AssertionError: add(2, 2) returned 0, expected 4" in section
    assert "failed, exit 1: NameError: name 'c' is not defined" in section


@pytest.mark.parametrize("agent", AGENTS)
def test_a_dead_end_keeps_both_errors_and_never_the_credential(agent: str) -> None:
    session, gt = case(agent, "S13")
    assert gt["secrets"]["db_password"]["value"] == SECRET
    first, second = session.commands
    assert first.exit_code == 1 and first.error.startswith("psql: error: connection to ")
    assert second.exit_code == 2 and "server does not support SSL" in second.error
    if agent == "copilot":  # Copilot CLI masks a URL's credentials in what it records itself
        assert gt["secrets"]["db_password"]["total"] == 0
        assert "connection to ******db.staging.internal" in first.error
    else:
        assert gt["secrets"]["db_password"]["total"] > 0  # the transcript holds it
        assert "postgres://deploy:[REDACTED]@" in first.error
    text = render(session)
    assert SECRET not in text and SECRET not in json.dumps(msgspec.to_builtins(session))
    assert "`./scripts/migrate.sh --ssl` — failed, exit 2" in text
    if agent != "gemini":  # Gemini CLI writes no record of its 429
        assert session.ended_on_limit
        # a spent quota (OpenAI's 429 insufficient_quota for Copilot CLI and OpenCode)
        assert session.errors[-1].kind == "usage_limit"


@pytest.mark.parametrize("agent", AGENTS)
def test_one_command_run_four_times_is_one_line_and_every_request_is_kept(agent: str) -> None:
    session, gt = case(agent, "S14")
    tests = [(c.command, c.count, c.failed) for c in session.commands if c.command == TEST]
    assert tests == [(TEST, 4, False)]
    assert session.requests == gt["user_requests"]
    text = render(session)
    every = text.split("## Every request")[1].split("\n## ")[0]
    assert "1. Run the tests with python3 test_calc.py." in every
    assert "2. Run them twice more to check they are stable." in every
    assert "3. (the latest request, quoted in full above)" in every
    shown = "ok (no exit code recorded)" if EXIT_ON_SUCCESS[agent] is None else "exit 0"
    assert f"- `{TEST}` — {shown}, 4 runs" in text.split("## What was run")[1]


@pytest.mark.parametrize("agent", AGENTS)
def test_compacted_after_two_requests_keeps_all_three(agent: str) -> None:
    session, gt = case(agent, "S14")
    assert gt["compaction"]["trigger"] == COMPACTED[agent]
    assert gt["compaction"]["compact_boundaries"] == 1
    assert session.compactions_total == 1
    assert session.compactions[0].trigger == COMPACTED[agent]
    assert session.requests == gt["user_requests"] and len(session.requests) == 3
    assert session.unknown_records == {}  # the compaction's own records are known
    # two runs of the test before the compaction, then two more
    assert [(c.command, c.count) for c in session.commands if c.command != MISSING] == [(TEST, 4)]


def test_commands_from_before_a_cut_are_counted_and_failed_ones_shown_first() -> None:
    session, _ = case("codex", "S12")
    many = msgspec.structs.replace(session, commands=[*session.commands])
    from continuity_core.adapters import kit

    for i in range(30):
        kit.add_command(many, f"echo {i}", exit_code=0)
    body = brief.commands_body(many)
    lines = body.splitlines()
    assert len(lines) == brief.COMMAND_LINES + 1
    assert lines[0] == "- (23 earlier runs not shown)"
    assert sum("failed, exit 1" in line for line in lines) == 2  # both failures kept
    assert lines[-1].startswith("- `echo 29`")


def test_subagents_background_and_inline() -> None:
    pytest.importorskip("continuity_claude")
    projects = FIXTURES / "claude" / ".claude" / "projects"
    background = read("claude", next((projects / "-home-dev-src-text-utils").glob("*.jsonl")))
    inline = read("claude", next((projects / "-home-dev-src-utils-lib").glob("*.jsonl")))
    (bg,) = background.subagents
    assert bg.task == "Inventory public functions"
    assert bg.result == (
        "utils/text.py:1 slug(s), utils/text.py:4 title(s), utils/num.py:1 clamp(x, lo, hi)."
    )
    assert background.requests == [background.requests[0]]  # the notification is no request
    (sync,) = inline.subagents
    assert sync.result is not None and sync.result.startswith("Public functions:")
    assert "agentId" not in sync.result
    text = render(background)
    found = text.split("## What sub-agents found")[1].split("\n## ")[0]
    assert "- Inventory public functions — returned:\n  > utils/text.py:1 slug(s)" in found


def test_a_background_subagent_without_its_notification_is_read_from_its_sidechain(
    tmp_path: Path,
) -> None:
    pytest.importorskip("continuity_claude")
    src = FIXTURES / "claude" / ".claude" / "projects" / "-home-dev-src-text-utils"
    main = next(src.glob("*.jsonl"))
    shutil.copytree(src, tmp_path / "p")
    copy = tmp_path / "p" / main.name
    kept = [ln for ln in copy.read_bytes().splitlines() if b"<task-notification>" not in ln]
    copy.write_bytes(b"\n".join(kept) + b"\n")
    (sub,) = read("claude", copy).subagents
    assert sub.result is not None and sub.result.startswith("utils/text.py:1 slug(s)")
    shutil.rmtree(copy.with_suffix(""))  # no sidechain either: no answer, said so
    (sub,) = read("claude", copy).subagents
    assert sub.result is None
    assert "no answer recorded" in render(read("claude", copy))


def test_brief_median_and_largest_over_every_captured_fixture() -> None:
    sizes = []
    for base in (FIXTURES, ATTEMPTS):
        for rel, gt in json.loads((base / "ground_truth.json").read_text()).items():
            agent = gt.get("agent")
            if agent not in AGENTS or not rel.endswith((".jsonl", ".db.gz")):
                continue
            if "/subagents/" in rel or not gt.get("session_id") or "trimmed" in rel:
                continue
            sizes.append(len(render(read(agent, source(rel, gt, base))).encode()))
    assert len(sizes) > 45
    assert statistics.median(sizes) < 3500, sorted(sizes)
    assert max(sizes) < 6000, sorted(sizes)


# --- baker handoff --json and the pickup after a compaction, through the CLI ----------------


def place(rel: str, claude_dir: Path, project: Path, *, upto: str | None = None) -> Path:
    """A captured Claude transcript filed under `project`, its cwd rewritten to it; with
    `upto`, only the lines before the first holding that text (the file as it was then)."""
    from continuity_claude.discovery import project_slug

    src = ATTEMPTS / rel
    slug = src.parent.name
    lines = src.read_text().splitlines(keepends=True)
    if upto is not None:
        lines = lines[: next(i for i, ln in enumerate(lines) if upto in ln)]
    text = "".join(lines).replace(
        "/home/dev/src/" + slug.removeprefix("-home-dev-src-"), os.path.realpath(project)
    )
    folder = claude_dir / "projects" / project_slug(os.path.realpath(project))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / src.name
    path.write_text(text)
    return path


def claude_rel(scenario: str) -> str:
    return next(r for r, g in TRUTH.items() if g["agent"] == "claude" and g["scenario"] == scenario)


def test_handoff_json_carries_commands_requests_and_subagents(repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("continuity_claude")
    claude_dir = tmp_path / "claude-config"
    place(claude_rel("S12"), claude_dir, repo)
    result = run_baker("handoff", "--json", cwd=repo, env={"CLAUDE_CONFIG_DIR": str(claude_dir)})
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["user_requests"] == ["Make python3 test_calc.py pass."]
    assert doc["subagents"] == []
    tests = [c for c in doc["commands"] if c["command"] == TEST]
    assert tests == [
        {
            "command": TEST,
            "exit_code": 1,
            "failed": True,
            "error": "AssertionError: add(2, 2) returned 0, expected 4",
            "count": 1,
            "timestamp": tests[0]["timestamp"],
        },
        {
            "command": TEST,
            "exit_code": 1,
            "failed": True,
            "error": "NameError: name 'c' is not defined",
            "count": 1,
            "timestamp": tests[1]["timestamp"],
        },
        {
            "command": TEST,
            "exit_code": None,  # Claude Code writes no exit code for a success
            "failed": False,
            "error": "",
            "count": 1,
            "timestamp": tests[2]["timestamp"],
        },
    ]
    assert doc["commands_total"] == 5
    assert "## What was run" in doc["markdown"]


def test_pickup_after_a_compaction_gives_back_the_request_and_failed_commands(
    repo: Path, tmp_path: Path
) -> None:
    pytest.importorskip("continuity_claude")
    assert run_baker("init", cwd=repo).returncode == 0
    claude_dir = tmp_path / "claude-config"
    rel = claude_rel("S14")
    # The transcript as it stood when SessionStart(compact) fired: before the third request.
    path = place(rel, claude_dir, repo, upto="Run the tests once more after the compaction.")
    payload = json.loads(
        (ATTEMPTS / "claude" / "hook_payloads" / "SessionStart.compact.json").read_text()
    )
    assert payload["source"] == "compact" and payload["session_id"] == TRUTH[rel]["session_id"]
    payload.update(cwd=str(repo), transcript_path=str(path))
    result = run_baker(
        "pickup",
        "--agent",
        "claude",
        cwd=repo,
        input=json.dumps(payload),
        env={"CLAUDE_CONFIG_DIR": str(claude_dir)},
    )
    assert result.returncode == 0, result.stderr
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    before = context.split("## Before the compaction")[1].split("\n## ")[0]
    assert f"session: claude {payload['session_id']} was just compacted" in before
    assert "```text\nRun them twice more to check they are stable.\n```" in before
    assert "no command failed before it (3 run)" in before
    assert "could be verified, other than this session" in context
    assert len(context) <= pickup.CAP_CHARS
    # A start that is no compaction carries no such section.
    payload["source"] = "startup"
    again = run_baker(
        "pickup",
        "--agent",
        "claude",
        cwd=repo,
        input=json.dumps(payload),
        env={"CLAUDE_CONFIG_DIR": str(claude_dir)},
    )
    assert "Before the compaction" not in again.stdout


def test_the_compacted_text_lists_failed_commands_with_their_errors() -> None:
    session, _ = case("claude", "S13")
    text = pickup.compacted(session)
    assert (
        "```text\nRun the staging migration with ./scripts/migrate.sh and get it through.\n```"
        in text
    )
    assert "- commands that failed before it" in text
    assert "`./scripts/migrate.sh` — failed, exit 1: psql: error: connection to postgres" in text
    assert "`./scripts/migrate.sh --ssl` — failed, exit 2: psql: error:" in text
    assert SECRET not in text
    fixed, _ = case("codex", "S12")
    later = pickup.compacted(fixed)
    assert "NameError: name 'c' is not defined (it ran ok later)" in later
    assert later.count("(it ran ok later)") == 2


def test_a_300_kb_request_still_carries_what_was_run_inline(tmp_path: Path) -> None:
    session, _ = case("codex", "S12")
    huge = "Make the calculator right: " + "every case holds; " * 17_000 + "THE END"
    session = msgspec.structs.replace(session, requests=[*session.requests, huge])
    path = tmp_path / "brief-1.md"
    prompt = kit.brief_prompt(path, LaunchOptions(brief=built(session)), "Codex")[0]
    assert not prompt.whole and len(prompt.text.encode()) < INLINE_PROMPT_MAX
    inline = prompt.text.split("## What was run")[1]
    assert "`python3 test_calc.py` — failed, exit 1: AssertionError: add(2, 2) returned 0" in inline
    assert "NameError: name 'c' is not defined" in inline


def codex_rollout(scenario: str) -> Path:
    rel: str = next(
        r
        for r, g in json.loads((FIXTURES / "ground_truth.json").read_text()).items()
        if g.get("agent") == "codex" and g.get("scenario") == scenario and "trimmed" not in r
    )
    return FIXTURES / rel


def test_codex_a_compaction_in_a_prompted_turn_is_automatic(tmp_path: Path) -> None:
    """`/compact` is a turn nobody prompted (its task_started names no trigger): manual. The
    same compaction in a turn whose start names one (exec, user) is the automatic kind."""
    src = codex_rollout("S6")
    assert [c.trigger for c in read("codex", src).compactions] == ["manual"]
    lines = src.read_text().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if '"type":"compacted"' in ln)
    start = max(i for i in range(at) if '"type":"task_started"' in lines[i])
    record = json.loads(lines[start])
    assert "turn_attribution" not in record["payload"]
    record["payload"]["turn_attribution"] = {"turn_trigger": "user"}
    lines[start] = json.dumps(record, separators=(",", ":")) + "\n"
    auto = tmp_path / src.name
    auto.write_text("".join(lines))
    session = read("codex", auto)
    assert [c.trigger for c in session.compactions] == ["auto"]
    assert len(session.requests) == 3  # none lost to it


def test_codex_pickup_after_a_compaction(repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("continuity_codex")
    assert run_baker("init", cwd=repo).returncode == 0
    src = codex_rollout("S6")
    home = tmp_path / "codex-home"
    day = home / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    lines = src.read_text().splitlines(keepends=True)
    # The rollout as it stood when SessionStart(compact) fired: before the next request.
    cut = next(i for i, ln in enumerate(lines) if "Add limit and offset query param" in ln)
    cut = max(i for i in range(cut) if '"type":"task_started"' in lines[i])
    (day / src.name).write_text(
        "".join(lines[:cut]).replace("/home/dev/src/chat-server", os.path.realpath(repo))
    )
    payload = json.loads(
        (FIXTURES / "codex" / "hook_payloads" / "SessionStart.compact.json").read_text()
    )
    payload.update(cwd=str(repo), transcript_path=str(day / src.name))
    result = run_baker(
        "pickup",
        "--agent",
        "codex",
        cwd=repo,
        input=json.dumps(payload),
        env={"CODEX_HOME": str(home)},
    )
    assert result.returncode == 0, result.stderr
    before = result.stdout.split("Before the compaction")[1]
    assert f"session: codex {payload['session_id']} was just compacted" in before
    assert "Which port does the server listen on?" in before


@pytest.mark.parametrize("agent", AGENTS)
def test_no_credential_reaches_the_saved_cursor(agent: str, tmp_path: Path) -> None:
    """The error lines are redacted as they are read; a command still waiting for its result
    (the transcript cut right after the call, its command given a password) is kept redacted
    in the cursor's private state too."""
    from continuity_core.store import encode_document

    pytest.importorskip(f"continuity_{agent}")
    rel = next(r for r, g in TRUTH.items() if g["agent"] == agent and g["scenario"] == "S13")
    path = source(rel, TRUTH[rel])
    ref = SessionRef(agent=agent, account="~/.x", session_id="s", path=path, mtime=0)
    assert SECRET not in encode_document(load(agent).read(ref, None)).decode()
    if agent in ("gemini", "opencode"):
        # Gemini CLI writes a call with its result; OpenCode rewrites its rows in a database
        return
    lines = (ATTEMPTS / rel).read_text().splitlines(keepends=True)
    # the record of the first command's call (Copilot CLI's: when it starts running)
    mark = {
        "claude": '"command":"./scripts/migrate.sh"',
        "codex": '\\"cmd\\": \\"./scripts/migrate.sh\\"',
        "copilot": '"type":"tool.execution_start"',
    }[agent]
    call = next(i for i, ln in enumerate(lines) if mark in ln)
    cut = tmp_path / Path(rel).name
    cut.write_text(
        "".join(lines[:call])
        + lines[call].replace("./scripts/migrate.sh", f"PGPASSWORD={SECRET} ./scripts/migrate.sh")
    )
    cursor = load(agent).read(msgspec.structs.replace(ref, path=str(cut)), None)
    assert cursor.session.pending_calls, "the call waits for its result"
    assert SECRET not in encode_document(cursor).decode()


def test_every_request_says_how_many_earlier_ones_are_not_shown() -> None:
    from continuity_core.schemas.session import limits
    from continuity_core.transcript import add_request, settle

    session, _ = case("gemini", "S14")
    extra: dict[str, Any] = {}
    for i in range(limits.REQUESTS + 10):
        add_request(session, extra, f"request {i}")
    settle(session, extra)
    assert len(session.requests) == limits.REQUESTS
    assert session.requests_total == limits.REQUESTS + 13
    body = brief.requests_body(session)
    assert (
        body.splitlines()[0]
        == f"({limits.REQUESTS + 12 - brief.REQUEST_LINES} earlier requests not shown)"
    )
    assert (
        body.splitlines()[-1]
        == f"{brief.REQUEST_LINES + 1}. (the latest request, quoted in full above)"
    )


def test_handoff_json_carries_a_background_subagents_answer(repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("continuity_claude")
    from continuity_claude.discovery import project_slug

    src = next(
        (FIXTURES / "claude" / ".claude" / "projects" / "-home-dev-src-text-utils").glob("*.jsonl")
    )
    claude_dir = tmp_path / "claude-config"
    folder = claude_dir / "projects" / project_slug(os.path.realpath(repo))
    folder.mkdir(parents=True)
    (folder / src.name).write_text(
        src.read_text().replace("/home/dev/src/text-utils", os.path.realpath(repo))
    )
    result = run_baker("handoff", "--json", cwd=repo, env={"CLAUDE_CONFIG_DIR": str(claude_dir)})
    assert result.returncode == 0, result.stderr
    (sub,) = json.loads(result.stdout)["subagents"]
    assert sub["task"] == "Inventory public functions"
    assert sub["result"].startswith("utils/text.py:1 slug(s)")
    assert sub["id"] and sub["timestamp"]


def test_gemini_invoke_agent_task_and_result() -> None:
    session, gt = case("gemini", "S8")
    assert gt["kind"] == "subagent"
    (sub,) = session.subagents
    assert sub.task == "generalist: List every public function defined under utils/ with file:line."
    assert sub.result == (
        "utils/text.py:1 slug(s), utils/text.py:3 title(s), utils/num.py:1 clamp(x, lo, hi)."
    )
    assert session.commands == []  # the sub-agent's own shell call is not the session's
    found = render(session).split("## What sub-agents found")[1]
    assert "- generalist: List every public function" in found
    assert "  > utils/text.py:1 slug(s)" in found


def home_of(
    agent: str, rel: str, gt: dict[str, Any], project: Path, tmp_path: Path
) -> dict[str, str]:
    """A captured Copilot CLI or OpenCode session filed in a home of its own under `tmp_path`,
    its working folder rewritten to `project`; the environment that points baker at it."""
    real = os.path.realpath(project)
    if agent == "opencode":
        from tests.opencode.helpers import relocate

        data = tmp_path / "share" / "opencode"
        data.mkdir(parents=True)
        db = data / "opencode.db"
        db.write_bytes(gzip.decompress((ATTEMPTS / rel).read_bytes()))
        relocate(db, real, captured=gt["cwd"])
        return {"XDG_DATA_HOME": str(tmp_path / "share")}
    folder = (ATTEMPTS / rel).parent
    dest = tmp_path / "copilot-home" / "session-state" / folder.name
    dest.mkdir(parents=True)
    for f in folder.iterdir():
        (dest / f.name).write_text(f.read_text().replace(gt["cwd"], real))
    return {"COPILOT_HOME": str(tmp_path / "copilot-home")}


@pytest.mark.parametrize("agent", ["copilot", "opencode"])
def test_handoff_json_carries_every_adapters_commands(
    agent: str, repo: Path, tmp_path: Path
) -> None:
    pytest.importorskip(f"continuity_{agent}")
    rel, gt = next(
        (r, g) for r, g in TRUTH.items() if g["agent"] == agent and g["scenario"] == "S12"
    )
    result = run_baker("handoff", "--json", cwd=repo, env=home_of(agent, rel, gt, repo, tmp_path))
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["user_requests"] == ["Make python3 test_calc.py pass."]
    fix, undo = "sed -i 's/a - b/a + b + c/' calc.py", "sed -i 's/a + b + c/a + b/' calc.py"
    assert [
        (c["command"], c["exit_code"], c["failed"], c["error"], c["count"]) for c in doc["commands"]
    ] == [
        (TEST, 1, True, "AssertionError: add(2, 2) returned 0, expected 4", 1),
        (fix, 0, False, "", 1),
        (TEST, 1, True, "NameError: name 'c' is not defined", 1),
        (undo, 0, False, "", 1),
        (TEST, 0, False, "", 1),
    ]
    assert doc["commands_total"] == 5


def test_opencode_pickup_after_its_compaction(repo: Path, tmp_path: Path) -> None:
    """OpenCode says `session.compacted` to baker's plugin, which asks for the pickup of that
    session with source `compact` (the payload it sent in the capture) and puts the answer in
    the system prompt from then on: the same pickup as after Claude Code's compaction."""
    pytest.importorskip("continuity_opencode")
    import sqlite3

    assert run_baker("init", cwd=repo).returncode == 0
    rel, gt = next(
        (r, g) for r, g in TRUTH.items() if g["agent"] == "opencode" and g["scenario"] == "S14"
    )
    env = home_of("opencode", rel, gt, repo, tmp_path)
    # The database as it stood when OpenCode compacted: before the third request.
    conn = sqlite3.connect(tmp_path / "share" / "opencode" / "opencode.db")
    (third,) = conn.execute(
        "SELECT m.time_created FROM part p JOIN message m ON m.id = p.message_id "
        "WHERE p.data LIKE '%Run the tests once more after the compaction.%'"
    ).fetchone()
    conn.execute(
        "DELETE FROM part WHERE message_id IN (SELECT id FROM message WHERE time_created >= ?)",
        (third,),
    )
    conn.execute("DELETE FROM message WHERE time_created >= ?", (third,))
    conn.commit()
    conn.close()
    payloads = ATTEMPTS / "opencode" / "hook_payloads"
    payload = json.loads((payloads / "session.start.compact.json").read_text())
    assert payload["source"] == "compact" and payload["session_id"] == gt["session_id"]
    payload["cwd"] = str(repo)
    result = run_baker(
        "pickup",
        "--agent",
        "opencode",
        cwd=repo,
        input=json.dumps(payload),
        env=env,
    )
    assert result.returncode == 0, result.stderr
    context = json.loads(result.stdout)["context"]
    before = context.split("## Before the compaction")[1].split("\n## ")[0]
    assert f"session: opencode {gt['session_id']} was just compacted" in before
    assert "```text\nRun them twice more to check they are stable.\n```" in before
    assert "no command failed before it (3 run)" in before
    # the plugin's first pickup of a session is no compaction: no such section
    plain = json.loads((payloads / "session.start.json").read_text())
    plain["cwd"] = str(repo)
    again = run_baker(
        "pickup",
        "--agent",
        "opencode",
        cwd=repo,
        input=json.dumps(plain),
        env=env,
    )
    assert again.returncode == 0 and "Before the compaction" not in again.stdout


def test_copilot_says_only_that_it_is_about_to_compact() -> None:
    """Copilot CLI 1.0.102 has no hook after a compaction (its sessionStart sources are new,
    startup and resume): `preCompact` fires before it, carrying `transcriptPath` like
    agentStop, and is told apart from it."""
    pytest.importorskip("continuity_copilot")
    from continuity_copilot.hooks import parse_hook

    payload = (ATTEMPTS / "copilot" / "hook_payloads" / "preCompact.manual.json").read_bytes()
    event = parse_hook(payload)
    assert (event.native, event.kind) == ("preCompact", "pre_compact")
    assert event.transcript_path and event.transcript_path.endswith("/events.jsonl")
    starts = [
        json.loads(line)["payload"]
        for line in (ATTEMPTS / "copilot" / "hook_payloads" / "all.jsonl").read_text().splitlines()
        if json.loads(line)["event"] == "sessionStart"
    ]
    assert [p["source"] for p in starts] == ["new", "resume", "resume"]


@pytest.mark.parametrize("agent", [a for a in AGENTS if a != "opencode"])
def test_commands_are_gathered_from_what_was_appended(agent: str, tmp_path: Path) -> None:
    """A checkpoint reads only what was appended since the last one: the S12 transcript read
    in two halves (the cursor kept between them) says what a read of the whole says."""
    pytest.importorskip(f"continuity_{agent}")
    rel = next(r for r, g in TRUTH.items() if g["agent"] == agent and g["scenario"] == "S12")
    lines = (ATTEMPTS / rel).read_bytes().splitlines(keepends=True)
    path = tmp_path / Path(rel).name
    path.write_bytes(b"".join(lines[: len(lines) // 2]))
    ref = SessionRef(agent=agent, account="~/.x", session_id="s", path=str(path), mtime=0)
    adapter = load(agent)
    half = adapter.read(ref, None)
    with path.open("ab") as f:
        f.write(b"".join(lines[len(lines) // 2 :]))
    both = adapter.read(ref, half).session
    whole = adapter.read(ref, None).session
    assert both.commands == whole.commands and both.commands_total == whole.commands_total == 5
    assert both.requests == whole.requests


def test_opencode_commands_are_gathered_from_the_rows_written_since(tmp_path: Path) -> None:
    """OpenCode's database as it stood halfway through S12, read, then as it ended, read on
    from the cursor's watermark: what a read of the whole says."""
    pytest.importorskip("continuity_opencode")
    import sqlite3

    rel, gt = next(
        (r, g) for r, g in TRUTH.items() if g["agent"] == "opencode" and g["scenario"] == "S12"
    )
    full = gzip.decompress((ATTEMPTS / rel).read_bytes())
    db = tmp_path / "opencode.db"
    db.write_bytes(full)
    conn = sqlite3.connect(db)
    times = sorted(t for (t,) in conn.execute("SELECT time_created FROM part"))
    mid = times[len(times) // 2]
    for table in ("part", "message"):  # rows written by then, as they were updated by then
        conn.execute(f"DELETE FROM {table} WHERE time_created > ?", (mid,))  # noqa: S608
        conn.execute(f"UPDATE {table} SET time_updated = ? WHERE time_updated > ?", (mid, mid))  # noqa: S608
    conn.execute("DELETE FROM event_sequence")  # the log of changes said nothing new yet
    conn.commit()
    conn.close()
    path = f"{db}#{gt['session_id']}"
    ref = SessionRef(agent="opencode", account="~/.x", session_id="s", path=path, mtime=0)
    adapter = load("opencode")
    half = adapter.read(ref, None)
    assert 0 < half.session.commands_total < 5
    db.write_bytes(full)
    both = adapter.read(ref, half).session
    whole = adapter.read(ref, None).session
    assert both.commands == whole.commands and both.commands_total == whole.commands_total == 5
    assert both.requests == whole.requests


# --- Codex and Gemini CLI compacting on their own (S14), Codex's sub-agent (S8) -------------


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_an_automatic_compaction_keeps_every_request_and_the_failed_command(agent: str) -> None:
    session, gt = case(agent, "S14")
    assert gt["compaction"]["requests_before_compaction"] == gt["user_requests"][:2]
    # its count and trigger: test_compacted_after_two_requests_keeps_all_three
    (compaction,) = session.compactions
    assert compaction.summary is not None
    assert gt["compaction"]["summary_excerpt"] in compaction.summary
    assert not compaction.summary.startswith("Another language model")  # Codex's framing
    assert session.requests == gt["user_requests"]  # the two before it survive
    (failed,) = [c for c in session.commands if c.failed]
    assert (failed.command, failed.exit_code) == (MISSING, 2)
    assert failed.error.startswith("python3: can't open file") and "No such file" in failed.error
    text = render(session)
    assert "by the user (manual)" not in text
    assert "the last time automatically, at the context limit" in text
    every = text.split("## Every request")[1].split("\n## ")[0]
    assert "1. Run the tests with python3 test_calc.py." in every
    assert "2. Run them twice more to check they are stable." in every
    ran = text.split("## What was run")[1].split("\n## ")[0]
    assert f"`{MISSING}` — failed, exit 2: python3: can't open file" in ran


def attempts_hooks(agent: str) -> list[dict[str, Any]]:
    lines = (ATTEMPTS / agent / "hook_payloads" / "all.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_codex_pickup_after_its_automatic_compaction(repo: Path, tmp_path: Path) -> None:
    """Codex 0.171 tells hooks about an automatic compaction as about `/compact`: PreCompact
    and PostCompact (trigger auto), then SessionStart with source `compact`. Pickup gives that
    session its request before the compaction, verbatim, and the command that failed."""
    pytest.importorskip("continuity_codex")
    rel = next(r for r, g in TRUTH.items() if g["agent"] == "codex" and g["scenario"] == "S14")
    events = [
        (h["event"], h["payload"].get("trigger") or h["payload"].get("source"))
        for h in attempts_hooks("codex")
    ]
    at = events.index(("PreCompact", "auto"))
    assert events[at : at + 3] == [
        ("PreCompact", "auto"),
        ("PostCompact", "auto"),
        ("SessionStart", "compact"),
    ]
    assert run_baker("init", cwd=repo).returncode == 0
    home = tmp_path / "codex-home"
    src = ATTEMPTS / rel
    day = home / "sessions" / "2026" / "12" / "05"
    day.mkdir(parents=True)
    lines = src.read_text().splitlines(keepends=True)
    # The rollout as it stood when SessionStart(compact) fired: up to its compaction.
    cut = next(i for i, ln in enumerate(lines) if '"type":"compacted"' in ln) + 1
    (day / src.name).write_text(
        "".join(lines[:cut]).replace("/home/dev/src/calc-long", os.path.realpath(repo))
    )
    payload = json.loads(
        (ATTEMPTS / "codex" / "hook_payloads" / "SessionStart.compact.json").read_text()
    )
    assert payload["session_id"] == TRUTH[rel]["session_id"]
    payload.update(cwd=str(repo), transcript_path=str(day / src.name))
    result = run_baker(
        "pickup",
        "--agent",
        "codex",
        cwd=repo,
        input=json.dumps(payload),
        env={"CODEX_HOME": str(home)},
    )
    assert result.returncode == 0, result.stderr
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    before = context.split("## Before the compaction")[1].split("\n## ")[0]
    assert f"session: codex {payload['session_id']} was just compacted" in before
    assert "```text\nRun them twice more to check they are stable.\n```" in before
    assert "- commands that failed before it (do not rerun them blindly):" in before
    assert f"`{MISSING}` — failed, exit 2: python3: can't open file" in before
    assert len(context) <= pickup.CAP_CHARS


def test_gemini_tells_hooks_only_before_a_compression(tmp_path: Path) -> None:
    """Gemini CLI 0.61 has no hook after a compression: SessionStart's sources are startup,
    resume and clear, and PreCompress (trigger auto) fires before every model call. Read
    against the chat file as it stood, only the one before the compression is a pre_compact
    (a checkpoint before the history is rewritten); the others are no-ops."""
    pytest.importorskip("continuity_gemini")
    from continuity_gemini.hooks import parse_hook

    rel = next(r for r, g in TRUTH.items() if g["agent"] == "gemini" and g["scenario"] == "S14")
    hooks = attempts_hooks("gemini")
    assert {h["payload"]["source"] for h in hooks if h["event"] == "SessionStart"} == {
        "startup",
        "resume",
    }
    lines = (ATTEMPTS / rel).read_text().splitlines(keepends=True)
    big = next(i for i, ln in enumerate(lines) if '"input":600000' in ln)
    chat = tmp_path / "chat.jsonl"
    payload = json.loads(
        (ATTEMPTS / "gemini" / "hook_payloads" / "PreCompress.auto.json").read_text()
    )
    payload["transcript_path"] = str(chat)
    kinds = []
    for upto in (big - 1, big + 1):  # before the large prompt was reported, and after it
        chat.write_text("".join(lines[:upto]))
        kinds.append(parse_hook(json.dumps(payload).encode()).kind)
    assert kinds == ["other", "pre_compact"]
    snapshot = next(i for i, ln in enumerate(lines) if "<state_snapshot>" in ln)
    assert snapshot > big  # and the compression followed it


def test_codex_spawn_agent_task_and_result() -> None:
    """multi_agent_v2 (`--enable multi_agent_v2`): the task from `spawn_agent`, the answer from
    the sub-agent's FINAL_ANSWER message; its own rollout beside is no session of the project."""
    session, gt = case("codex", "S8")
    assert gt["kind"] == "subagent"
    assert "--enable multi_agent_v2" in gt["cli_invocations"][0]["argv"]
    (sub,) = session.subagents
    assert sub.task == "inventory: List every public function defined under utils/ with file:line."
    assert sub.result == (
        "utils/text.py:1 slug(s), utils/text.py:3 title(s), utils/num.py:1 clamp(x, lo, hi)."
    )
    assert sub.id == "/root/inventory"
    assert session.commands == []  # the sub-agent's grep ran in its own thread
    assert not session.unknown_records
    found = render(session).split("## What sub-agents found")[1]
    assert "- inventory: List every public function" in found
    assert "  > utils/text.py:1 slug(s)" in found
    children = [
        f
        for f in (ATTEMPTS / "codex" / ".codex" / "sessions").rglob("*.jsonl")
        if '"thread_source":"subagent"' in f.read_text()[:4000]
    ]
    assert len(children) == 1 and str(children[0].relative_to(ATTEMPTS)) not in TRUTH
    # Its hooks carry the parent's session id; SubagentStop says the same answer, and is no
    # turn's end of the session (no checkpoint).
    from continuity_codex.hooks import parse_hook

    stop = json.loads((ATTEMPTS / "codex" / "hook_payloads" / "SubagentStop.json").read_text())
    assert stop["session_id"] == gt["session_id"]
    assert stop["agent_transcript_path"].endswith(children[0].name)
    assert stop["last_assistant_message"] == sub.result
    assert parse_hook(json.dumps(stop).encode()).kind == "other"


def test_a_codex_sub_agents_own_rollout_is_no_session_of_the_project(
    repo: Path, tmp_path: Path
) -> None:
    """Found by a scan (its head) and by Codex's thread index (`thread_source`): the handoff
    describes the parent, whichever rollout was written last."""
    import sqlite3

    pytest.importorskip("continuity_codex")
    rel = next(r for r, g in TRUTH.items() if g["agent"] == "codex" and g["scenario"] == "S8")
    day = tmp_path / "codex-home" / "sessions" / "2026" / "12" / "05"
    day.mkdir(parents=True)
    rows = []
    for src in (ATTEMPTS / rel).parent.glob("*.jsonl"):
        text = src.read_text()
        if "/home/dev/src/text-utils" not in text[:4000]:
            continue
        (day / src.name).write_text(
            text.replace("/home/dev/src/text-utils", os.path.realpath(repo))
        )
        kind = "subagent" if '"thread_source":"subagent"' in text[:4000] else "user"
        rows.append((src.stem[-36:], str(day / src.name), os.path.realpath(repo), kind))
        if kind == "subagent":
            os.utime(day / src.name, (2e9, 2e9))  # the newest file
    assert sorted(r[3] for r in rows) == ["subagent", "user"]
    env = {"CODEX_HOME": str(tmp_path / "codex-home")}
    for indexed in (False, True):
        if indexed:
            with sqlite3.connect(tmp_path / "codex-home" / "state_5.sqlite") as db:
                db.execute(
                    "CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT, cwd TEXT, "
                    "archived INTEGER DEFAULT 0, thread_source TEXT)"
                )
                db.executemany(
                    "INSERT INTO threads (id, rollout_path, cwd, thread_source) VALUES (?,?,?,?)",
                    rows,
                )
        result = run_baker("handoff", "--json", cwd=repo, env=env)
        assert result.returncode == 0, result.stderr
        doc = json.loads(result.stdout)
        assert doc["user_requests"] == TRUTH[rel]["user_requests"]
        assert [s["task"] for s in doc["subagents"]] == [
            "inventory: List every public function defined under utils/ with file:line."
        ]
        listed = json.loads(run_baker("sessions", "--json", cwd=repo, env=env).stdout)
        assert [s["id"] for s in listed["sessions"]] == [TRUTH[rel]["session_id"]]


def test_a_codex_sub_agents_turn_is_a_moment_of_the_session_that_spawned_it(
    tmp_path: Path,
) -> None:
    """Codex runs notify for a sub-agent's turn too (its own thread id), and its hooks name
    its own rollout: a checkpoint then describes the parent session, not the sub-agent."""
    pytest.importorskip("continuity_codex")
    from continuity_codex.hooks import parse_hook, parse_notify
    from continuity_core.adapters.protocol import Account

    rel = next(r for r, g in TRUTH.items() if g["agent"] == "codex" and g["scenario"] == "S8")
    home = tmp_path / ".codex"
    shutil.copytree(ATTEMPTS / "codex" / ".codex", home)
    child = next(
        f for f in home.rglob("*.jsonl") if '"thread_source":"subagent"' in f.read_text()[:4000]
    )
    accounts = [Account(agent="codex", name="~/.codex", dir=str(home))]
    adapter = load("codex")
    notify = parse_notify(
        json.dumps(
            {
                "type": "agent-turn-complete",
                "thread-id": child.stem[-36:],
                "turn-id": "t",
                "cwd": "/home/dev/src/text-utils",
                "input-messages": [],
                "last-assistant-message": "utils/text.py:1 slug(s)",
            }
        )
    )
    ref = adapter.session_for_hook(notify, accounts)
    assert ref is not None and ref.session_id == TRUTH[rel]["session_id"]
    payload = json.loads(
        (ATTEMPTS / "codex" / "hook_payloads" / "PreToolUse.default.json").read_text()
    )
    assert payload["agent_id"] == child.stem[-36:]
    payload["transcript_path"] = str(child)
    ref = adapter.session_for_hook(parse_hook(json.dumps(payload).encode()), accounts)
    assert ref is not None and ref.session_id == TRUTH[rel]["session_id"]
