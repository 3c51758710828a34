"""baker's OpenCode plugin itself, run by Node.js (OpenCode runs it in Bun) with a stand-in
`baker` on PATH that logs what it gets: what the plugin hands baker, and what it does with
the answer. The real OpenCode runs it in tests/e2e/test_e2e_opencode.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

pytest.importorskip("continuity_opencode")

from continuity_opencode import install

DRIVER = """
const mod = await import(process.argv[2]);
const hooks = await mod.BakerContinuity({ directory: process.argv[3], worktree: process.argv[3] });
const out = { keys: Object.keys(hooks) };
if (out.keys.length) {
  const sys = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_a" }, sys);
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_a" }, sys);
  const args = { args: { filePath: "notes.txt" } };
  await hooks["tool.execute.before"]({ tool: "write", sessionID: "ses_a", callID: "c1" }, args);
  const result = { title: "", output: "Wrote file successfully.", metadata: {} };
  await hooks["tool.execute.after"]({ tool: "write", sessionID: "ses_a", callID: "c1" }, result);
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_a" } } });
  // a sub-agent's session gets no pickup of its own: its parent had it
  await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_b", parentID: "ses_a" } } } });
  const child = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_b" }, child);
  out.child = child.system;
  // a retry OpenCode waits out for an hour is a limit; one of two seconds is not
  const retry = (next) => ({ event: { type: "session.status", properties: { sessionID: "ses_a", status: { type: "retry", attempt: 1, message: "Rate limit reached", next } } } });
  await hooks.event(retry(Date.now() + 2000));
  await hooks.event(retry(Date.now() + 3600000));
  // once compacted, the session's system prompt carries the pickup of a compaction instead
  await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_a" } } });
  const after = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_a" }, after);
  out.after = after.system;
  // a compaction whose pickup brings nothing keeps the session's earlier one
  const other = { system: [] };
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_c" }, other);
  await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_c" } } });
  await hooks["experimental.chat.system.transform"]({ sessionID: "ses_c" }, other);
  out.kept = other.system;
  out.system = sys.system;
  out.output = result.output;
}
console.log(JSON.stringify(out));
"""

FAKE_BAKER = """#!/bin/sh
payload=$(cat)
printf '%s %s\\n' "$1" "$payload" >> "$LOG"
case "$1" in
  pickup) case "$payload" in
    *'"session_id":"ses_c"'*'"source":"compact"'*) ;;
    *'"source":"compact"'*) printf '{"context": "before the compaction"}\\n';;
    *) printf '{"context": "the previous session"}\\n';;
  esac;;
  pretool) printf '{"context": "trap: keep notes short"}\\n';;
esac
"""


def _node(tmp_path: Path, path: str) -> dict[str, object]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH")
    plugin = tmp_path / "plugin.js"
    plugin.write_text(install.plugin_source())
    driver = tmp_path / "driver.mjs"
    driver.write_text(DRIVER)
    env = {"PATH": path, "LOG": str(tmp_path / "log"), "HOME": str(tmp_path)}
    proc = subprocess.run(
        [node, str(driver), plugin.as_uri(), str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    return dict(json.loads(proc.stdout.splitlines()[-1]))


def test_without_baker_the_plugin_has_no_hooks(tmp_path: Path) -> None:
    assert _node(tmp_path, "/usr/bin:/bin")["keys"] == []


def test_the_plugin_hands_baker_json_and_uses_its_context(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "baker"
    fake.write_text(FAKE_BAKER)
    fake.chmod(0o755)
    out = _node(tmp_path, f"{bin_dir}{os.pathsep}/usr/bin:/bin")
    # pickup once per session, its context in every system prompt of the session
    assert out["system"] == ["the previous session", "the previous session"]
    assert out["output"] == "Wrote file successfully.\n\ntrap: keep notes short"
    assert out["child"] == []
    assert out["after"] == ["before the compaction"]
    assert out["kept"] == ["the previous session", "the previous session"]
    log = tmp_path / "log"
    deadline = time.monotonic() + 10  # the checkpoint runs detached: OpenCode never waits
    while time.monotonic() < deadline and not (log.is_file() and log.read_text().count("\n") == 9):
        time.sleep(0.1)
    lines = [line.split(" ", 1) for line in log.read_text().splitlines()]
    payloads = [json.loads(p) for _, p in lines]
    assert all(p["agent"] == "opencode" for p in payloads)
    calls = [
        (c, p) for (c, _), p in zip(lines, payloads, strict=True) if p["session_id"] == "ses_a"
    ]
    assert [c for c, _ in calls[:2]] == ["pickup", "pretool"]
    assert calls[1][1]["tool"] == "write" and calls[1][1]["args"] == {"filePath": "notes.txt"}
    # three detached checkpoints and the pickup after the compaction: in any order
    later = {f"{c} {p['hook_event_name']} {p.get('source')}": p for c, p in calls[2:]}
    assert set(later) == {
        "checkpoint session.idle None",
        "checkpoint session.retry None",
        "checkpoint session.compacted None",
        "pickup session.start compact",
    }
    assert later["checkpoint session.retry None"]["retry"]["message"] == "Rate limit reached"
    assert len(calls) == 6 and len(payloads) == 9  # ses_c: pickup, checkpoint, compact pickup
    assert all(p["cwd"] == str(tmp_path) for p in payloads)
