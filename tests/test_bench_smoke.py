"""scripts/benchgen.py makes valid transcripts; scripts/bench.py --smoke prints every row."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import lingering

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
sys.path.insert(0, str(SCRIPTS))

import benchgen  # noqa: E402 - a script beside the package sources, not an installed module


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> benchgen.Data:
    return benchgen.Data(tmp_path_factory.mktemp("bench"))


def test_claude_transcript_keeps_ids_chains_and_tool_pairs(data: benchgen.Data) -> None:
    gen = data.transcript("claude", 200_000, log=lambda _: None)
    assert gen.size >= 200_000
    assert gen.path.parent.name == benchgen.claude_slug(data.cwd)
    recs = records(gen.path)
    uuids = [r["uuid"] for r in recs if "uuid" in r]
    assert len(uuids) == len(set(uuids))
    assert sum(1 for r in recs if r.get("parentUuid", "") is None) == 1  # one root, one chain
    assert all(r["parentUuid"] in set(uuids) for r in recs if r.get("parentUuid"))
    uses = [
        b["id"]
        for r in recs
        if r["type"] == "assistant"
        for b in r["message"]["content"]
        if b["type"] == "tool_use"
    ]
    results = [
        b["tool_use_id"]
        for r in recs
        if r["type"] == "user" and isinstance(r["message"]["content"], list)
        for b in r["message"]["content"]
        if b["type"] == "tool_result"
    ]
    assert len(uses) == len(set(uses)) > 10 and set(results) == set(uses)
    assert {r["sessionId"] for r in recs} == {"48f0d34d-61b5-40aa-aac6-73b6722315eb"}
    assert {r["cwd"] for r in recs if "cwd" in r} == {data.cwd}
    prompts = [
        r["message"]["content"]
        for r in recs
        if r["type"] == "user" and isinstance(r["message"]["content"], str)
    ]
    assert prompts[-1] == benchgen.FINAL_REQUEST and benchgen.FINAL_REQUEST not in prompts[:-1]


def test_codex_and_gemini_transcripts_continue_after_an_appended_turn(data: benchgen.Data) -> None:
    codex = data.transcript("codex", 150_000, log=lambda _: None)
    recs = records(codex.path)
    assert [r["ordinal"] for r in recs] == list(range(len(recs)))
    assert recs[0]["type"] == "session_meta" and recs[0]["payload"]["cwd"] == data.cwd
    calls = [
        r["payload"]["call_id"]
        for r in recs
        if r["type"] == "response_item"
        and r["payload"]["type"] in ("function_call", "custom_tool_call")
    ]
    assert len(calls) == len(set(calls))
    benchgen.append_turn("codex", codex.path, data.cwd, codex.turns)
    more = records(codex.path)
    assert [r["ordinal"] for r in more] == list(range(len(more)))
    again = data.transcript("codex", 150_000, log=lambda _: None)  # reused, trimmed back
    assert again.path.stat().st_size == codex.size

    gemini = data.transcript("gemini", 100_000, log=lambda _: None)
    recs = records(gemini.path)
    tool_ids = [t["id"] for r in recs for t in r.get("toolCalls", [])]
    assert len(tool_ids) == len(set(tool_ids)) > 10
    registry = json.loads((gemini.path.parents[3] / "projects.json").read_text())
    assert registry["projects"][data.cwd] == gemini.path.parents[1].name


def test_copilot_session_is_the_captured_one_turn_after_turn(data: benchgen.Data) -> None:
    gen = data.transcript("copilot", 120_000, log=lambda _: None)
    folder = gen.path.parent
    assert folder.parent.name == "session-state" and folder.name == benchgen.COPILOT_SESSION
    assert f"cwd: {data.cwd}\n" in (folder / "workspace.yaml").read_text()
    assert (folder / "session.db").is_file()  # the todo list
    recs = records(gen.path)
    ids = [r["id"] for r in recs]
    assert len(ids) == len(set(ids))
    assert [r["type"] for r in recs].count("session.start") == 1
    calls = [r["data"]["toolCallId"] for r in recs if r["type"] == "tool.execution_start"]
    assert len(calls) == len(set(calls)) > 10
    prompts = [r["data"]["content"] for r in recs if r["type"] == "user.message"]
    assert prompts[-1] == benchgen.FINAL_REQUEST and benchgen.FINAL_REQUEST not in prompts[:-1]
    assert recs[0]["data"]["context"]["cwd"] == data.cwd
    # the hooks' payloads name this session and project, as Copilot's do
    stop = json.loads(benchgen.hook_payload("copilot", 0, gen.path, data.cwd, gen.path))
    assert stop["transcriptPath"] == str(gen.path) and stop["cwd"] == data.cwd
    pre = benchgen.hook_payload("copilot", 2, gen.path, data.cwd, gen.path)
    assert benchgen.hook_session(pre) == benchgen.COPILOT_SESSION
    assert json.loads(pre)["toolArgs"]["path"] == f"{data.cwd}/weather/units.py"


def test_discovery_homes_hold_one_session_of_the_project(data: benchgen.Data) -> None:
    import sqlite3

    home = data.codex_many(60, log=lambda _: None)
    rollouts = sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
    assert len(rollouts) == 60
    ours = [p for p in rollouts if f'"cwd":"{data.cwd}"' in p.read_text()]
    assert len(ours) == 1
    db = sqlite3.connect(home / ".codex" / "state_5.sqlite")
    try:
        rows = db.execute("SELECT rollout_path FROM threads WHERE cwd = ?", (data.cwd,)).fetchall()
        assert rows == [(str(ours[0]),)]
        assert db.execute("SELECT count(*) FROM threads").fetchone() == (60,)
    finally:
        db.close()
    claude = data.claude_many(40, log=lambda _: None)
    folders = list((claude / ".claude" / "projects").iterdir())
    assert len(folders) == 40
    assert (claude / ".claude" / "projects" / benchgen.claude_slug(data.cwd)).is_dir()


@pytest.mark.slow
def test_smoke_bench_prints_every_row(tmp_path: Path) -> None:
    out = tmp_path / "benchmarks.md"
    bin_dir = Path(sys.executable).parent
    data = Path(tempfile.mkdtemp(prefix="bs-"))
    try:
        proc = subprocess.run(
            [
                sys.executable,
                str(SCRIPTS / "bench.py"),
                "--smoke",
                "--data",
                str(data),
                "--out",
                str(out),
                "--baker",
                str(bin_dir / "baker"),
                "--python",
                sys.executable,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        time.sleep(0.5)
        left = lingering(data)
    finally:
        shutil.rmtree(data, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert left == [], "a baker process outlived its command"
    table = [line for line in proc.stdout.splitlines() if line.startswith("| ")]
    for agent in benchgen.AGENTS:
        for what in (
            "`baker pretool`, 1,000 traps",
            "`baker pickup`",
            "`baker handoff`, already checkpointed",
            "`baker checkpoint` after one turn",
            "`baker handoff`, never seen",
            "brief size",
        ):
            assert any(what in row and f"| {agent} |" in row for row in table), (what, agent)
    assert any("Codex rollouts, with state_5.sqlite" in row for row in table)
    assert any("Codex rollouts, no SQLite index" in row for row in table)
    assert any("Claude project folders" in row for row in table)
    # every measured row has a ratio to the bare interpreter and a verdict where it has a target
    measured = [row for row in table[1:] if " s | " in row]
    assert measured and all("× |" in row for row in measured)
    assert all(("met" in row or "MISSED" in row) for row in measured if "≤" in row)
    assert not [row for row in table if "wrong output" in row or "exit " in row]
    assert out.read_text().count("\n| ") == len(table)


# A stand-in for ccusage with its command line and --json shape: it refuses to read outside the
# generated home (HOME must hold the agent's transcript), reads every byte of it as ccusage
# does, and has no `gemini` command, so that row must say it has no peer.
FAKE_CCUSAGE = r"""
import json, os, pathlib, sys
args = sys.argv[1:]
if args == ["--version"]:
    print("20.0.99"); sys.exit(0)
agent = args[0]
if agent not in ("claude", "codex"):
    print(f"unknown command {agent}", file=sys.stderr); sys.exit(1)
if args[1:] == ["--help"]:
    sys.exit(0)
assert args[1:] == ["session", "--json", "--offline"], args
home = pathlib.Path(os.environ["HOME"])
root = home / (".claude" if agent == "claude" else ".codex")
if "baker-bench" not in str(home) and "bs-" not in str(home):
    print(f"not the generated home: {home}", file=sys.stderr); sys.exit(2)
files = list(root.rglob("*.jsonl"))
if not files:
    print(f"no transcript under {root}", file=sys.stderr); sys.exit(3)
tokens = sum(f.read_bytes().count(b"tokens") for f in files)
print(json.dumps({"sessions": [], "totals": {"totalTokens": tokens}}))
"""


def test_peers_put_ccusage_beside_the_never_seen_handoff(tmp_path: Path) -> None:
    fake = tmp_path / "ccusage"
    fake.write_text(f"#!{sys.executable}\n{FAKE_CCUSAGE}")
    fake.chmod(0o755)
    out = tmp_path / "never-seen.md"
    bin_dir = Path(sys.executable).parent
    data = Path(tempfile.mkdtemp(prefix="bs-"))
    try:
        proc = subprocess.run(
            [
                sys.executable,
                str(SCRIPTS / "bench.py"),
                "--smoke",
                "--only",
                "handoff",
                "--peers",
                "--peer-tools",
                "ccusage",
                "--ccusage",
                str(fake),
                "--data",
                str(data),
                "--out",
                str(out),
                "--title",
                "Never-seen handoff beside ccusage",
                "--baker",
                str(bin_dir / "baker"),
                "--python",
                sys.executable,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        shutil.rmtree(data, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = out.read_text()
    assert page.startswith("# Never-seen handoff beside ccusage\n")
    assert "| baker ÷ ccusage | target | result |" in page and "ccusage 20.0.99" in page
    rows = {
        line.split(" | ")[0][2:]: line.split(" | ")
        for line in page.splitlines()
        if line.startswith(("| claude | 64 KiB", "| codex | 64 KiB", "| gemini | 64 KiB"))
    }
    assert set(rows) == {"claude", "codex", "gemini"}
    assert not [r for r in rows.values() if "baker failed" in r[9] or "lacks" in r[9]]
    for agent in ("claude", "codex"):
        cells = rows[agent]
        assert cells[2].endswith(" s") and cells[4].endswith(" s"), cells  # both measured
        assert cells[6].endswith("×") and "tokens" in cells[9], cells
        # judged against ccusage's time measured beside it, and the memory bound
        assert cells[7].startswith("≤ 1.5× ccusage (") and cells[7].endswith("≤ 64 MiB"), cells
        assert cells[8] in ("met", "**MISSED**"), cells
    gemini = rows["gemini"]
    assert gemini[2].endswith(" s") and gemini[4] == "—" and gemini[7] == "≤ 64 MiB"
    assert "no peer: ccusage has no `gemini` command" in gemini[9]
    assert "peer: ccusage 20.0.99 `claude session --json`" in page
    # OpenCode's never-seen handoff runs on its captured database, beside ccusage where it can
    (opencode,) = [
        line.split(" | ") for line in page.splitlines() if line.startswith("| opencode |")
    ]
    assert (
        opencode[2].endswith(" s") and "no peer: ccusage has no `opencode` command" in opencode[9]
    )
