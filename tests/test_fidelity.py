"""Fidelity: every ground-truth fact of every captured transcript reaches the brief of
`baker handoff`, and no planted secret does.

The project carries what it needs: the captured homes in tests/fixtures/ (made with
scripts/capture.py) and their ground_truth.json. The transcripts were captured in
/home/dev/src/<project>; each agent's home is copied and moved to a scratch root (paths in
the text files and Claude's folder names rewritten alike, Codex's SQLite thread index left
out, which baker reads without), so the check runs on any clone, as any user.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BAKER, FIXTURES, git

CAPTURED = "/home/dev/src"
NATIVE = {"claude": ".claude", "codex": ".codex", "gemini": ".gemini"}
TEXT = (".json", ".jsonl", ".project_root")


def slug(path: str) -> str:
    """Claude Code's project folder name for a path."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def facts_for(gt: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, text that must appear in the brief)."""
    out: list[tuple[str, str]] = []
    if gt.get("latest_user_request"):
        out.append(("latest request", gt["latest_user_request"]))
    out += [("file edited", f) for f in gt.get("files_edited") or []]
    out += [("todo", t.get("content") or t.get("description") or "") for t in gt.get("todos") or []]
    out += [("plan step", t.get("step", "")) for t in gt.get("plan") or []]
    out += [("task", t.get("subject", "")) for t in gt.get("tasks") or []]
    for c in gt.get("interrupted_tool_calls") or []:
        if c.get("recorded_in_transcript") is False:
            continue  # only a hook saw it; a transcript-only handoff cannot know
        args = c.get("input") or c.get("args") or {}
        if isinstance(args, dict) and args.get("command"):
            out.append(("interrupted call", args["command"]))
        elif c.get("arguments"):
            try:
                a = json.loads(c["arguments"])
                out.append(("interrupted call", a.get("cmd") or a.get("command") or c["name"]))
            except ValueError:
                out.append(("interrupted call", c["name"]))
    if gt.get("api_errors") or gt.get("turn_errors") or gt.get("error_in_transcript"):
        out.append(("usage/rate limit noted", "429|rate limit|rate-limit|usage limit|quota"))
    return [(k, v) for k, v in out if v]


def secrets_for(gt: dict[str, Any]) -> list[str]:
    s = gt.get("secrets") or {}
    vals = [v["value"] for v in s.values() if isinstance(v, dict) and v.get("value")]
    return [v for v in vals if len(v) >= 8]


def found(label: str, text: str, brief: str, secrets: list[str]) -> bool:
    nb = norm(brief)
    if label.startswith("usage/rate"):
        return re.search(text, nb, re.I) is not None
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if secrets and len(lines) > 1:  # a fact holding secrets: its secret-free ends must be there
        ends = [ln for ln in (lines[0], lines[-1]) if not any(s in ln for s in secrets)]
        return all(norm(e) in nb for e in ends)
    return norm(text) in nb


def relocate(agent: str, home: Path, src: str) -> None:
    """Copy the agent's captured home into `home`, moved from CAPTURED to `src`."""
    dest = home / NATIVE[agent]
    shutil.copytree(FIXTURES / agent / NATIVE[agent], dest, symlinks=True)
    (dest / "state_5.sqlite").unlink(missing_ok=True)  # its rows name the captured paths
    for path in sorted(dest.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_file() and path.name.endswith(TEXT):
            path.write_text(path.read_text(encoding="utf-8").replace(CAPTURED, src), "utf-8")
        if path.name.startswith(slug(CAPTURED)):
            path.rename(path.with_name(slug(src) + path.name[len(slug(CAPTURED)) :]))


def test_every_fact_and_no_leak(tmp_path: Path) -> None:
    if not Path(BAKER).exists():
        pytest.skip("the baker CLI (continuity-cli) is not installed here")
    src = str(tmp_path / "src")
    truth = json.loads((FIXTURES / "ground_truth.json").read_text().replace(CAPTURED, src))
    homes: dict[str, Path] = {}
    report, total, bad = [], 0, 0
    for rel, gt in sorted(truth.items()):
        agent, cwd = gt.get("agent"), gt.get("cwd") or gt.get("project_root")
        if agent not in NATIVE or not rel.endswith((".jsonl", ".json")) or not cwd:
            continue
        if agent not in homes:
            homes[agent] = tmp_path / f"home-{agent}"
            relocate(agent, homes[agent], src)
        project = Path(cwd)
        if not (project / ".git").exists():
            project.mkdir(parents=True, exist_ok=True)
            git(project, "init", "-q", "-b", gt.get("git_branch") or "main")
        home = homes[agent]
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TERM")}
        env.update(HOME=str(home), BAKER_HOME=str(home / ".baker"), LANG="C.UTF-8")
        r = subprocess.run(
            [BAKER, "handoff", "--from", agent],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        brief = r.stdout + "\n" + r.stderr
        secrets = secrets_for(gt)
        facts = facts_for(gt)
        missing = [f"{k}: {v[:60]}" for k, v in facts if not found(k, v, brief, secrets)]
        leaks = [s[:4] + "…" for s in secrets if s in brief]
        total += len(facts)
        if missing or leaks or r.returncode:
            bad += 1
            report.append(f"{rel} (exit {r.returncode}): missing {missing}, leaks {leaks}")
    assert len(homes) == len(NATIVE), "a captured agent's fixtures were not checked"
    assert total > 100, f"only {total} facts: the ground truth was not read"
    assert bad == 0, "\n".join(report)
