#!/usr/bin/env python3
"""Canary: is Continuity current with each agent CLI's newest release?

    python3 scripts/dev.py canary [--agent NAME ...] [--version AGENT=VER] [--keep DIR]
        [--no-e2e] [--json]

For each agent (claude, codex, copilot, gemini): asks npm for the newest release, installs
them into a scratch folder (never tests/e2e/node_modules), runs the capture scenarios of
`scripts/capture.py` against it (where the agent has some), reads what it wrote with the
adapter and compares with the ground truth the capture derived from its script, and runs the
end-to-end tests of that agent against it. Then prints a short report per agent: the
version (and whether the adapter knows it), record, attachment and hook event types no
fixture holds yet, facts found against the ground truth, and the e2e outcome.

Exit status: 0 when every fact was found and the e2e tests passed (new types only warn),
1 otherwise, 2 when a release could not be installed. Needs npm and the network; run it
through `dev.py canary`, which sets up the virtualenv first.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
FIXTURES = ROOT / "tests" / "fixtures"
PACKAGES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini": "@google/gemini-cli",
    "copilot": "@github/copilot",
}
E2E_TIMEOUT = 1200


def newest(package: str) -> str:
    out = subprocess.run(
        ["npm", "view", package, "version"], capture_output=True, text=True, timeout=120, check=True
    ).stdout.strip()
    return out.splitlines()[-1].strip()


def install(specs: list[str], scratch: Path) -> Path:
    """One `npm install` of the releases into `scratch`; its `.bin` folder."""
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "package.json").write_text('{"private": true}\n')
    subprocess.run(
        ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "--save-exact", *specs],
        cwd=scratch,
        check=True,
        timeout=900,
        capture_output=True,
        text=True,
    )
    return scratch / "node_modules" / ".bin"


def known_types(agent: str) -> dict[str, set[str]]:
    """Record, attachment and hook event types the fixtures already hold (the main set and
    issue 36's `attempts`, Copilot CLI's only captures made by capture.py)."""
    out: dict[str, set[str]] = {"record": set(), "attachment": set(), "hook": set()}
    for base in (FIXTURES, FIXTURES / "attempts"):
        for gt in json.loads((base / "ground_truth.json").read_text()).values():
            if gt.get("agent") == agent:
                out["record"] |= set(gt.get("record_types") or {})
                out["record"] |= set(gt.get("message_types_final_view") or {})
                out["attachment"] |= set(gt.get("attachment_types") or {})
        out["hook"] |= hook_events(base, agent)
    return out


def facts(
    agent: str, fixtures: Path, truth: dict[str, Any]
) -> tuple[int, int, list[str], dict[str, int]]:
    """(found, total, what was missed, unknown record types) for the captured transcripts."""
    from continuity_core import adapters
    from continuity_core.redact import redact
    from continuity_core.schemas.session import SessionRef

    adapter = adapters.load(agent)
    found = total = 0
    missed: list[str] = []
    unknown: dict[str, int] = {}
    for rel, gt in truth.items():
        path = fixtures / rel
        ref = SessionRef(
            agent=agent,
            account="canary",
            session_id=gt["session_id"],
            path=str(path),
            mtime=path.stat().st_mtime,
            size=path.stat().st_size,
            cwd=gt.get("cwd"),
        )  # as discovery tags it
        s = adapter.read(ref).session
        for k, v in s.unknown_records.items():
            unknown[k] = unknown.get(k, 0) + v
        checks: list[tuple[str, bool]] = [
            # what a Session keeps is redacted: the prompt of the secrets scenario too
            ("latest request", s.latest_request == redact(gt.get("latest_user_request") or "")),
            (
                "files edited",
                sorted(f.path for f in s.files_edited) == sorted(gt.get("files_edited") or []),
            ),
        ]
        todos = gt.get("tasks") or gt.get("todos") or gt.get("plan")
        if todos:
            want = [
                (t.get("subject") or t.get("content") or t.get("step"), t["status"]) for t in todos
            ]
            checks.append(("todos", [(t.content, t.status) for t in s.todos] == want))
        for call in gt.get("interrupted_tool_calls") or []:
            if call.get("recorded_in_transcript") is False:
                continue  # only a hook saw it (Gemini writes a call once it has finished)
            if "tool_use_id" in call:
                ok = call["tool_use_id"] in [c.id for c in s.pending_calls]
            else:
                ok = any(call["input"]["command"] in json.dumps(c.input) for c in s.pending_calls)
            checks.append(("interrupted call", ok))
        for err in gt.get("api_errors") or []:
            last = s.last_error
            kind = err.get("kind", "rate_limit")
            ok = last is not None and last.kind == kind
            if "reset_at" in err or gt.get("agent") == "claude":
                ok = ok and last is not None and last.reset_at == err.get("reset_at")
            checks.append(("limit", ok))
        usage = gt.get("last_turn_usage") or {}
        if usage:
            ctx = usage.get("context_tokens(input+cache_creation+cache_read)")
            checks.append(("usage", s.usage is not None and s.usage.context_tokens == ctx))
        if "cost_usd" in gt:
            checks.append(("cost", s.cost_usd == gt["cost_usd"]))
        if gt.get("compaction"):
            checks.append(
                ("compactions", s.compactions_total == gt["compaction"]["compact_boundaries"])
            )
        for label, ok in checks:
            total += 1
            found += ok
            if not ok:
                missed.append(f"{gt['scenario']} {label}")
    return found, total, missed, unknown


def hook_events(fixtures: Path, agent: str) -> set[str]:
    return {
        json.loads(line)["event"]
        for log in (fixtures / agent / "hook_payloads").rglob("all.jsonl")
        for line in log.read_text().splitlines()
    }


def e2e(agent: str, bin_dir: Path) -> tuple[str, bool]:
    """The end-to-end tests that run `agent`, against the scratch install."""
    # without CI, a test that needs a CLI this run did not install is skipped, not failed
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "GITHUB_ACTIONS")}
    env["CONTINUITY_E2E_NODE_BIN"] = str(bin_dir)
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "tests/e2e",
                "-k",
                agent,
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=E2E_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return f"timed out after {E2E_TIMEOUT}s", False
    tail = [ln for ln in proc.stdout.splitlines() if ln.strip()][-1:] or ["no output"]
    return tail[0].strip("= "), proc.returncode == 0


def check(agent: str, version: str, bin_dir: Path, scratch: Path, run_e2e: bool) -> dict[str, Any]:
    from continuity_core import adapters

    package = PACKAGES[agent]
    report: dict[str, Any] = {"agent": agent, "package": package, "version": version}
    known = adapters.load(agent).known_versions
    report["known_versions"] = list(known)
    report["known"] = version in known
    import capture  # scripts/capture.py, beside this file

    have = known_types(agent)
    scenarios = capture.SCENARIOS.get(agent)
    if scenarios is None:
        report["capture"] = "no capture scenarios for this agent yet"
    else:
        out = scratch / agent / "fixtures"
        with contextlib.redirect_stdout(sys.stderr):  # its progress lines
            code = capture.main(["--out", str(out), "--agent", agent, "--node-bin", str(bin_dir)])
        truth = json.loads((out / "ground_truth.json").read_text()) if code == 0 else {}
        seen_records = {
            k
            for gt in truth.values()
            for k in {**(gt.get("record_types") or {}), **(gt.get("message_types") or {})}
        }
        seen_attach = {k for gt in truth.values() for k in gt.get("attachment_types") or {}}
        report["capture"] = f"{len(truth)} transcript(s) from {len(scenarios())} scenario(s)"
        report["new_record_types"] = sorted(seen_records - have["record"])
        report["new_attachment_types"] = sorted(seen_attach - have["attachment"])
        report["new_hook_events"] = sorted(hook_events(out, agent) - have["hook"])
        found, total, missed, unknown = facts(agent, out, truth)
        report["facts"] = {"found": found, "total": total, "missed": missed}
        report["unknown_records"] = unknown
    if run_e2e:
        summary, ok = e2e(agent, bin_dir)
        report["e2e"] = {"summary": summary, "passed": ok}
    return report


def render(r: dict[str, Any]) -> str:
    lines = [f"{r['agent']}: {r['package']} {r.get('version', '?')}"]
    known = ", ".join(r["known_versions"])
    lines[0] += (
        " (known to the adapter)"
        if r["known"]
        else f" (NEW: the adapter knows {known}; capture fixtures with scripts/capture.py "
        "and add the version to the adapter's known versions)"
    )
    lines.append(f"  capture: {r['capture']}")
    for key, label in (
        ("new_record_types", "new record types"),
        ("new_attachment_types", "new attachment types"),
        ("new_hook_events", "new hook events"),
    ):
        if key in r:
            lines.append(f"  {label}: {', '.join(r[key]) or 'none'}")
    if "facts" in r:
        f = r["facts"]
        miss = f"; missed: {', '.join(f['missed'])}" if f["missed"] else ""
        lines.append(f"  facts: {f['found']}/{f['total']} found against the ground truth{miss}")
        if r["unknown_records"]:
            lines.append(f"  records the parser does not know: {r['unknown_records']}")
    if "e2e" in r:
        lines.append(f"  e2e: {'pass' if r['e2e']['passed'] else 'FAIL'} ({r['e2e']['summary']})")
    return "\n".join(lines)


def healthy(r: dict[str, Any]) -> bool:
    facts_ok = "facts" not in r or r["facts"]["found"] == r["facts"]["total"]
    return facts_ok and bool(r.get("e2e", {}).get("passed", True))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="dev.py canary",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 2)[2],
    )
    ap.add_argument(
        "--agent",
        action="append",
        choices=sorted(PACKAGES),
        help=f"check only this agent (repeatable); all of {', '.join(sorted(PACKAGES))} if none",
    )
    ap.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="install and capture into DIR and keep it (default: a temp folder)",
    )
    ap.add_argument(
        "--version",
        action="append",
        default=[],
        metavar="AGENT=VERSION",
        help="check this release instead of the newest, e.g. claude=2.1.197 "
        "(the previous one users still run)",
    )
    ap.add_argument("--no-e2e", action="store_true", help="skip the end-to-end tests")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    if shutil.which("npm") is None:
        print("canary: npm is not on PATH (it needs Node.js 22+ and npm)", file=sys.stderr)
        return 2
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="continuity-canary-"))
    pinned = dict(v.split("=", 1) for v in args.version if "=" in v)
    if set(pinned) - set(PACKAGES) or len(pinned) != len(args.version):
        ap.error(f"--version takes AGENT=VERSION with AGENT one of {', '.join(PACKAGES)}")
    agents = args.agent or sorted(PACKAGES)
    reports: list[dict[str, Any]] = []
    try:
        try:
            versions = {a: pinned.get(a) or newest(PACKAGES[a]) for a in agents}
            bin_dir = install([f"{PACKAGES[a]}@{v}" for a, v in versions.items()], scratch / "cli")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as e:
            detail = getattr(e, "stderr", "") or ""
            print(f"canary: could not install the newest releases: {e}\n{detail}", file=sys.stderr)
            return 2
        for agent in agents:
            start = time.monotonic()
            report = check(agent, versions[agent], bin_dir, scratch, not args.no_e2e)
            report["seconds"] = round(time.monotonic() - start)
            reports.append(report)
            if not args.json:
                print(render(report), flush=True)
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps(reports, indent=1))
    return 0 if all(healthy(r) for r in reports) else 1


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
