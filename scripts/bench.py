#!/usr/bin/env python3
"""Benchmark `baker`'s hooks and brief on generated transcripts of any size (issues 11, 17).

Every figure is a whole `baker` process run as an agent runs it, in an isolated home built by
scripts/benchgen.py from the real fixtures' record shapes: the median wall time and the peak
RSS over several runs, and the wall time as a multiple of `python -c pass` run just before
each timed run. Each target from the issue is reported as met or MISSED; targets are never loosened.

    python scripts/bench.py                          # 1M,100M,1G; writes docs/benchmarks.md
    python scripts/bench.py --sizes 1M,100M --handoff-sizes 100M --rollouts 2000
    python scripts/bench.py --smoke --out /tmp/b.md  # tiny data, one run each (tests)
    python scripts/bench.py --peers                  # also portable-resume and ccusage
    python scripts/bench.py --only handoff --sizes 1M --handoff-sizes 1M,500M,1G --peers \
        --peer-tools ccusage --title "Never-seen handoff beside ccusage" \
        --out docs/benchmarks-never-seen.md
                                                     # baker beside ccusage on the same files
    python scripts/bench.py --agents claude --sizes 1G --handoff-sizes 500M,1G --append
                                                     # add a large-size table to the page

Generated data lives in bench-data/ (gitignored; --data elsewhere) and is reused until
scripts/benchgen.py changes; transcripts of 1 GiB or more are deleted after the run unless
--keep-large.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchgen  # a sibling script, not an installed module
import workspace  # the one list of packages and adapters, read from packages/*
from benchgen import FINAL_REQUEST, Data, human, parse_size

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = ROOT / ".venv" / ("Scripts" if os.name == "nt" else "bin")
TRAPS = 1000
TRAP_MARK = "BENCH-TRAP"
# Issue 29's never-seen handoff targets, as multiples of ccusage 20's `session --json
# --offline` on the same transcript, measured beside it (--peers): the 1 MB one below
# 500 MB, its 500 MB and 1 GB one from 500 MB up; and its peak RSS at every size.
NEVER_SEEN_X = {0: 1.5, 500 << 20: 0.2}  # from each size up
NEVER_SEEN_MIB = 64
CCUSAGE = ("session", "--json", "--offline")
BRIEF_MAX = 32 << 10
PICKUP_MAX_CHARS = 6000
GROUPS = ("hooks", "checkpoint", "handoff", "discovery", "recall", "run")
SEE_NEVER_SEEN = """
The never-seen handoff beside ccusage's parse of the same transcript, size by size, is on its
own page, [benchmarks-never-seen.md](benchmarks-never-seen.md) (`--peers`, written there with
`--out docs/benchmarks-never-seen.md`, so a run that rewrites this page leaves it alone).
"""
HOOK_DEADLINE_S = 20  # continuity_cli.hooks.DEADLINES_S["checkpoint"]: past it, nothing is saved
# Issue 29's budgets, as multiples of baker's own interpreter's bare start, in a user's set-up.
PRETOOL_X, CHECKPOINT_X, PICKUP_X, HANDOFF_X = 2, 3, 4, 8
# What the README tells people to write: a second Claude account, a rotation, a machine name.
# Written into every generated home's ~/.baker/config.toml (ROTATION is filled per run).
CONFIG = """\
# ~/.baker/config.toml as a user with two Claude accounts writes it (scripts/bench.py)
[transcripts]
claude = ["~/.claude", "~/.claude-work"]

[accounts.work]
agent = "claude"
dir = "~/.claude-work"

[rotation]
order = {rotation}

[machine]
name = "bench-laptop"
"""
# The appended turn's request: a URL, a shell command and a secret (a made-up GitHub token of
# the real shape), the three things that bring the redactor's patterns and URL rules in.
APPENDED = (
    "Appended turn {k}: the build at https://ci.example.com/builds/{k}?tab=logs&attempt=2 "
    "failed; run `python -m pytest -x tests/ && git push origin HEAD` again with "
    "GITHUB_TOKEN=ghp_Xq7Vb2Lm9Rt4Ws8Yk3Np6Dz1Hc5Fg0Ju7Ea2 exported"
)


@dataclass
class Sample:
    walls: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)
    codes: list[int] = field(default_factory=list)
    bare: list[float] = field(default_factory=list)  # `python -c pass`, run just before each
    ir: int = 0  # callgrind's instruction count of one run (--instructions), 0: not counted
    bare_ir: int = 0  # and of one `python -c pass` beside it
    out: bytes = b""
    err: bytes = b""

    @property
    def wall(self) -> float:
        return statistics.median(self.walls) if self.walls else float("nan")

    @property
    def ratio(self) -> float:
        """Median wall over the median bare start measured beside it, under the same load."""
        return self.wall / statistics.median(self.bare) if self.bare else float("nan")

    @property
    def rss_mib(self) -> float:
        return max(self.rss_kib) / 1024 if self.rss_kib else float("nan")


@dataclass
class Row:
    what: str
    agent: str = ""
    size: str = ""
    sample: Sample | None = None
    value: str = ""  # shown instead of a wall time (e.g. a brief size)
    target: str = ""
    met: bool | None = None  # None: no target, or not measured
    note: str = ""


# The timed process is started by a small launcher that forks (never vforks) and waits for
# it: Linux charges a child exec'd from a vfork with its parent's peak RSS, which would put
# this script's own memory into every figure. The launcher's RSS (a few MiB) is the floor.
LAUNCHER = """
import os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - t0
with open(out, "w") as f:
    f.write(f"{wall} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def merge(into: Sample, more: Sample) -> None:
    """`more`'s runs added to `into`'s (runs interleaved with another command's)."""
    into.walls += more.walls
    into.rss_kib += more.rss_kib
    into.codes += more.codes
    into.bare += more.bare
    into.out, into.err = more.out, more.err


def run_once(
    argv: Sequence[str], *, env: dict[str, str], cwd: Path, stdin: bytes, timeout: float
) -> tuple[float, int, int, bytes, bytes]:
    """Wall seconds, peak RSS (KiB), exit code, stdout and stderr of one process."""
    with (
        tempfile.TemporaryFile() as fin,
        tempfile.TemporaryFile() as fout,
        tempfile.TemporaryFile() as ferr,
        tempfile.TemporaryDirectory() as tmp,
    ):
        fin.write(stdin)
        fin.seek(0)
        result = Path(tmp) / "result"
        proc = subprocess.Popen(
            [sys.executable, "-S", "-c", LAUNCHER, str(result), *argv],
            stdin=fin,
            stdout=fout,
            stderr=ferr,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
        fout.seek(0)
        ferr.seek(0)
        out, err = fout.read(), ferr.read()
        if not result.exists():
            return float(timeout), 0, -9, out, err + b"\n(killed: over the time limit)"
        wall, rss, code = result.read_text().split()
        kib = int(rss) // 1024 if sys.platform == "darwin" else int(rss)
        return float(wall), kib, int(code), out, err


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.data = Data(args.data)
        self.baker = str(args.baker)
        self.python = str(args.python)
        self.rows: list[Row] = []
        self.bare_walls: list[float] = []  # every bare start, for the baseline row
        self.briefs: dict[str, list[int]] = {}
        # (agent, size) -> the never-seen handoff and ccusage's parse of the same transcript
        self.never: dict[tuple[str, int], Sample] = {}
        self.ccusage: dict[tuple[str, int], Sample | str] = {}
        self.peer_tools: dict[str, list[str] | str] = {}
        self.ccusage_version = "20"
        self.ccusage_reads: dict[str, bool] = {}
        self.scratch = Path(tempfile.mkdtemp(prefix="baker-bench-"))
        self.adapters = workspace.adapters(ROOT)  # every adapter, discovered from packages/*

    def log(self, msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    # --- processes ---------------------------------------------------------------------------

    def env(self, home: Path) -> dict[str, str]:
        """Only what an agent's hook would see, pointed at the generated home."""
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")}
        env.update(
            HOME=str(home),
            USERPROFILE=str(home),
            TZ="UTC",
            CLAUDE_CONFIG_DIR=str(home / ".claude"),
            CODEX_HOME=str(home / ".codex"),
            GEMINI_CLI_HOME=str(home),
            COPILOT_HOME=str(home / ".copilot"),
            BAKER_HOME=str(home / ".baker"),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_CACHE_HOME=str(home / ".cache"),
            XDG_DATA_HOME=str(home / ".local/share"),
            XDG_STATE_HOME=str(home / ".local/state"),
            GIT_CONFIG_NOSYSTEM="1",
            GIT_CONFIG_GLOBAL=os.devnull,
            BAKER_BENCH_MARK=str(self.scratch),  # finds what a run left running (`settle`)
        )
        self.user_config(home)
        return env

    def settle(self, timeout: float = 60) -> None:
        """Wait until no process started by a timed run is left (a checkpoint's detached
        child finishing its work), so it neither competes with the next run nor leaves it
        work half done. Linux reads /proc; elsewhere a short pause stands in."""
        proc = Path("/proc")
        if not proc.is_dir():
            time.sleep(0.3)
            return
        mark = f"BAKER_BENCH_MARK={self.scratch}".encode()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            busy = False
            for entry in proc.glob("[0-9]*"):
                try:
                    busy = mark in (entry / "environ").read_bytes()
                except OSError:
                    continue
                if busy:
                    break
            if not busy:
                return
            time.sleep(0.01)

    def user_config(self, home: Path) -> None:
        """The realistic ~/.baker/config.toml (CONFIG) and the second Claude account's folder."""
        config = home / ".baker" / "config.toml"
        if config.exists():
            return
        (home / ".claude-work" / "projects").mkdir(parents=True, exist_ok=True)
        agents = [a for a in self.adapters if a != "claude"]
        order = ["claude", "claude:work", *agents]
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(CONFIG.format(rotation=json.dumps(order)))

    def measure(
        self,
        argv: Sequence[str],
        home: Path,
        *,
        stdin: bytes | Callable[[int], bytes] = b"",
        runs: int | None = None,
        before: Callable[[int], None] | None = None,
        timeout: float = 300,
        warmup: bool = True,
        wait_child: bool = False,
        count: bool = False,
    ) -> Sample:
        """Run `argv` `runs` times (after one untimed warm-up that fills the page cache).
        `wait_child`: time a checkpoint until its detached child is done (BAKER_HOOK_WAIT).
        `count`: with --instructions, count one more run's instructions and a bare start's."""
        runs = runs or self.args.runs
        warmup = warmup and self.args.warmup
        env = self.env(home)
        if wait_child:
            env["BAKER_HOOK_WAIT"] = "1"
        sample = Sample()
        for i in range(-1 if warmup else 0, runs):
            if before is not None:
                before(i)
            # Each run is a new hook event, not the duplicate delivery of the previous one
            # (continuity_core.hookonce would answer that from its marker in a fraction).
            shutil.rmtree(home / ".baker" / "cache" / "hooks-seen", ignore_errors=True)
            data = stdin(i) if callable(stdin) else stdin
            if i >= 0 and argv[0] != self.python:
                bare = run_once(
                    [self.python, "-c", "pass"], env=env, cwd=self.data.repo, stdin=b"", timeout=60
                )
                sample.bare.append(bare[0])
                self.bare_walls.append(bare[0])
            wall, rss, code, out, err = run_once(
                argv, env=env, cwd=self.data.repo, stdin=data, timeout=timeout
            )
            if i >= 0:
                sample.walls.append(wall)
                sample.rss_kib.append(rss)
                sample.codes.append(code)
                sample.out, sample.err = out, err
            self.settle()
        if count and self.args.instructions:
            # One plain run first: a cache keyed on a file's age (the traps cache is rebuilt
            # once when traps.jsonl has aged past 3 s) settles before the counted one.
            for i in (runs, runs + 1):
                data = stdin(i) if callable(stdin) else stdin
                if before is not None:
                    before(i)
                shutil.rmtree(home / ".baker" / "cache" / "hooks-seen", ignore_errors=True)
                if i == runs:
                    run_once(argv, env=env, cwd=self.data.repo, stdin=data, timeout=timeout)
                else:
                    sample.ir = self.instructions(argv, env, data)
                self.settle()
            sample.bare_ir = self.instructions([self.python, "-c", "pass"], env, b"")
            self.settle()
        return sample

    def instructions(self, argv: Sequence[str], env: dict[str, str], stdin: bytes) -> int:
        """Instructions the process itself ran (not its git, nor a checkpoint's detached
        child), by `valgrind --tool=callgrind`; 0 where valgrind is missing or fails. Slowed
        some 50 times there, a hook would pass its own wall-clock deadline (pretool's is 3 s):
        SIGALRM is blocked in the counted process, which changes no instruction it runs."""
        valgrind = shutil.which("valgrind")
        if valgrind is None:
            return 0
        errors = self.hook_errors()
        alarm = {signal.SIGALRM} if hasattr(signal, "pthread_sigmask") else set()
        with tempfile.TemporaryDirectory() as tmp:
            if alarm:  # blocked here for the child to inherit, then unblocked
                signal.pthread_sigmask(signal.SIG_BLOCK, alarm)
            proc = subprocess.Popen(
                [
                    valgrind,
                    "--tool=callgrind",
                    "--callgrind-out-file=/dev/null",
                    f"--log-file={tmp}/log.%p",
                    *argv,
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=env,
                cwd=self.data.repo,
            )
            if alarm:
                signal.pthread_sigmask(signal.SIG_UNBLOCK, alarm)
            proc.communicate(stdin, timeout=600)
            self.settle()
            try:
                log = (Path(tmp) / f"log.{proc.pid}").read_text()
            except OSError:
                return 0
        found = re.search(r"Collected : (\d+)", log)
        if found is None or self.hook_errors() > errors:  # what it counted is no hook's work
            return 0
        return int(found.group(1))

    def hook_errors(self) -> int:
        """`hook_error` lines in the scratch project's log so far."""
        log = self.data.repo / ".baker" / "log" / "events.jsonl"
        try:
            return log.read_bytes().count(b"hook_error")
        except OSError:
            return 0

    def baker_cmd(self, *args: str) -> list[str]:
        return [self.baker, *args]

    def fresh_store(self, home: Path, *, init: bool) -> None:
        """The scratch repo with no `.baker/`, or an empty store as `baker init` makes it."""
        store, pristine = self.data.repo / ".baker", self.data.root / "baker-init"
        shutil.rmtree(store, ignore_errors=True)
        if not init:
            return
        if not pristine.is_dir():  # `baker init` once; later stores start from its copy
            s = self.measure(self.baker_cmd("init"), home, runs=1)
            if not store.is_dir():
                raise RuntimeError(f"`baker init` made no .baker/: {s.err.decode()[-500:]}")
            shutil.copytree(store, pristine, symlinks=True)
        else:
            shutil.copytree(pristine, store, symlinks=True)

    # --- rows ------------------------------------------------------------------------------

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        s = row.sample
        shown = row.value or (f"{s.wall:.3f} s, {s.rss_mib:.0f} MiB" if s else "-")
        verdict = {True: "met", False: "MISSED", None: ""}[row.met]
        self.log(f"  {row.what} {row.agent} {row.size}: {shown} {verdict} {row.note}")
        return row

    def check(
        self,
        row: Row,
        *,
        max_ratio: float | None = None,
        max_s: float | None = None,
        max_mib: float | None = None,
        expect: bytes | None = None,
    ) -> Row:
        """Judge `row` against its limits; a failed or wrong run is MISSED, never met."""
        s = row.sample
        if s is None:
            raise RuntimeError(f"{row.what}: judged before it was measured")
        bad = [c for c in s.codes if c != 0]
        if bad:
            row.met = False
            row.note = (
                row.note + f" exit {bad[0]}: " + s.err.decode(errors="replace").strip()[-160:]
            ).strip()
            return self.add(row)
        if expect is not None and expect not in s.out:
            row.met = False
            row.note = (row.note + " wrong output: the expected text is missing").strip()
            return self.add(row)
        limits = []
        if max_ratio is not None:  # by instructions where counted: load does not blur them
            limits.append((s.ir / s.bare_ir if s.ir and s.bare_ir else s.ratio) <= max_ratio)
        if max_s is not None:
            limits.append(s.wall <= max_s)
        if max_mib is not None:
            limits.append(s.rss_mib <= max_mib)
        row.met = all(limits) if limits else None
        return self.add(row)

    def run(self) -> int:
        a = self.args
        self.log(f"baker: {self.baker}")
        benchgen.make_repo(self.data.repo)
        shutil.rmtree(self.data.root / "baker-init", ignore_errors=True)
        base = self.measure([self.python, "-c", "pass"], self.data.root, runs=max(a.runs, 5))
        base.bare = base.walls
        self.add(
            Row(
                "`python -c pass` (bare interpreter)",
                sample=base,
                note="the unit of ×: each row divides by bare starts run beside it",
            )
        )
        sizes = [parse_size(s) for s in a.sizes.split(",") if s]
        handoff_sizes = [parse_size(s) for s in a.handoff_sizes.split(",") if s]
        agents = self.agents()
        has = self.commands()
        only = set(a.only.split(","))
        small = min(sizes)
        if a.peers:
            self.setup_peers()
        for agent in agents:
            self.log(f"{agent}:")
            if agent == benchgen.OPENCODE:  # its hook rows run on the captured database
                self.opencode(only)
            elif agent not in benchgen.AGENTS:  # an adapter benchgen cannot write sessions for
                self.add(
                    Row(
                        "every row",
                        agent,
                        target="measured",
                        met=False,
                        note="not measured: scripts/benchgen.py has no generator for its "
                        "sessions yet",
                    )
                )
                continue
            elif "hooks" in only:  # the other agents' hook rows: the smallest transcript
                gen = self.data.transcript(agent, small, log=self.log)
                home = self.data.home(f"size-{small}")
                self.pretool(agent, home, gen.path)
                self.pickup(agent, home, gen.path)
            for size in sizes if "checkpoint" in only else []:
                self.checkpointed(agent, size)
            for size in handoff_sizes:
                if a.peers:
                    self.peers(agent, size)
                if "handoff" in only:
                    self.never_seen(agent, size)
            self.brief_size(agent)
        if a.rollouts and "discovery" in only:
            self.many_codex(a.rollouts)
        if a.folders and "discovery" in only:
            self.many_claude(a.folders)
        if "recall" in only and "recall" in has:
            self.recall(max(sizes))
        elif "recall" in only:
            self.add(
                Row(
                    "`baker recall`: index 1 GB / query",
                    target="≤ 120 s / ≤ 0.1 s",
                    note="not measured: this baker has no `recall` command",
                )
            )
        if "run" in only and "run" in has and sys.platform != "win32":
            self.echo_latency(200 if not a.smoke else 20)
        shutil.rmtree(self.scratch, ignore_errors=True)
        if not a.keep_large:
            self.data.remove_sizes(1 << 30)
        text = self.table()
        if self.ccusage:
            text += "\n\n" + self.comparison()
        print(text)
        if a.out:
            out = Path(a.out)
            if a.append and out.exists():
                out.write_text(out.read_text() + self.section(text))
            else:
                out.write_text(self.document(text) + self.section(text))
            self.log(f"wrote {a.out}")
        return 0

    def agents(self) -> list[str]:
        """`--agents`, or every adapter the packages register."""
        return [x for x in self.args.agents.split(",") if x] or self.adapters

    def commands(self) -> set[str]:
        s = self.measure(self.baker_cmd("--help"), self.data.root, runs=1)
        words = {
            line.split()[0]
            for line in s.out.decode().splitlines()
            if line.startswith("  ") and line.split()
        }
        return words

    def pretool(self, agent: str, home: Path, transcript: Path) -> None:
        self.fresh_store(home, init=True)
        write_traps(self.data.repo, TRAPS)
        aged = time.time() - 60
        # Nor was the git index just written (the bench made the repository a moment ago):
        # for 2 s after each write a hook asks git whether the store is tracked
        # (`trust.RACY_S`), which a tool call long after the last commit does not.
        os.utime(self.data.repo / ".git" / "index", (aged, aged))
        payload: bytes = benchgen.hook_payload(agent, 2, home, self.data.cwd, transcript)
        # A new session id per run: each delivery marks its traps seen for that session only.
        sid = benchgen.hook_session(payload)

        calls = iter(range(2, 1 << 16))

        def stdin(i: int) -> bytes:
            return payload.replace(sid.encode(), f"{sid[:-4]}{next(calls):04x}".encode())

        s = self.measure(self.baker_cmd("pretool", "--agent", agent), home, stdin=stdin, count=True)
        self.check(
            Row("`baker pretool`, 1,000 traps", agent, sample=s, target=f"≤ {PRETOOL_X}× bare"),
            max_ratio=PRETOOL_X,
            expect=TRAP_MARK.encode(),
        )

    def pickup(self, agent: str, home: Path, transcript: Path) -> None:
        """A new session's start after the previous one's last turn was checkpointed."""
        stop = benchgen.hook_payload(agent, 0, home, self.data.cwd, transcript)
        payload = benchgen.hook_payload(agent, 1, home, self.data.cwd, transcript)
        # A new session: its id, and the transcript it will write, which every agent names by
        # the id (Gemini by its first 8 characters, and reads the session from that name).
        old, new = benchgen.hook_session(payload), "0b0e57a4-5e55-4000-8000-00000000beef"
        payload = payload.replace(old.encode(), new.encode())
        payload = payload.replace(old[:8].encode(), new[:8].encode())
        self.measure(self.baker_cmd("checkpoint", "--agent", agent), home, stdin=stop, runs=1)
        s = self.measure(
            self.baker_cmd("pickup", "--agent", agent), home, stdin=payload, timeout=60, count=True
        )
        row = Row(
            "`baker pickup` (no GPU probes)",
            agent,
            sample=s,
            target=f"≤ {PICKUP_X}× bare, ≤ {PICKUP_MAX_CHARS} chars",
        )
        chars = len(s.out.decode(errors="replace"))
        row.note = f"{chars} chars out"
        self.check(row, max_ratio=PICKUP_X)
        if chars > PICKUP_MAX_CHARS * 1.5:  # the hook JSON wraps the capped text
            row.met = False

    def checkpointed(self, agent: str, size: int) -> None:
        """Handoff of a checkpointed session, then a checkpoint after each appended turn."""
        gen = self.data.sized(agent, size, log=self.log)
        home = self.data.home(f"size-{size}")
        label = human(size)
        self.fresh_store(home, init=True)
        opencode = agent == benchgen.OPENCODE  # a database: its turns are rows
        if opencode:
            stop = benchgen.opencode_payload(0, self.data.cwd)
        else:
            stop = benchgen.hook_payload(agent, 0, home, self.data.cwd, gen.path)
        first = self.measure(
            self.baker_cmd("checkpoint", "--agent", agent),
            home,
            stdin=stop,
            runs=1,
            timeout=600,
            warmup=False,
            wait_child=True,  # the work, which the deadline bounds, is the child's
        )  # a warm-up would be the first
        row = Row(
            "`baker checkpoint`, first (no cursor yet), its child's work included",
            agent,
            label,
            first,
            target=f"< {HOOK_DEADLINE_S} s (hook deadline)",
        )
        self.check(row, max_s=HOOK_DEADLINE_S - 0.5)
        s = self.measure(self.baker_cmd("handoff", "--from", agent), home, count=True)
        note = "" if row.met else "the cursor comes from the untimed warm-up handoff"
        self.check(
            Row(
                "`baker handoff`, already checkpointed",
                agent,
                label,
                s,
                target=f"≤ {HANDOFF_X}× bare",
                note=note,
            ),
            max_ratio=HANDOFF_X,
            expect=FINAL_REQUEST.encode(),
        )
        turn = [gen.turns]
        added = [0]

        def append(i: int) -> None:
            request = APPENDED.format(k=turn[0])
            if opencode:
                added[0] += benchgen.append_opencode_turn(gen.path, turn[0], request)
            else:
                added[0] += benchgen.append_turn(
                    agent, gen.path, self.data.cwd, turn[0], prompt=request
                )
            turn[0] += 1

        try:
            s = self.measure(
                self.baker_cmd("checkpoint", "--agent", agent),
                home,
                stdin=stop,
                before=append,
                count=True,
            )
        finally:
            if opencode:  # the next reuse deletes the appended rows (`Data.sized`)
                self.data.sized(agent, size, log=self.log)
            else:
                os.truncate(gen.path, gen.size)
        row = Row(
            "`baker checkpoint` after one turn",
            agent,
            label,
            s,
            target=f"≤ {CHECKPOINT_X}× bare, ≤ 60 MiB",
            note=f"turn ≈ {human(added[0] / max(1, turn[0] - gen.turns))}, "
            "its request with a URL, a command and a secret",
        )
        self.check(row, max_ratio=CHECKPOINT_X, max_mib=60)

    def opencode(self, only: set[str]) -> None:
        """OpenCode's hooks (its plugin runs `baker pretool`, `pickup` and `checkpoint` with
        the payloads in tests/fixtures/opencode/payloads) on the captured database; its rows
        by size run on databases scripts/benchgen.py grows from it (`Data.sized`)."""
        agent = benchgen.OPENCODE
        home = self.data.home("opencode")
        db = benchgen.write_opencode(home, self.data.cwd)
        label = human(db.stat().st_size)
        if "hooks" in only:
            self.fresh_store(home, init=True)
            write_traps(self.data.repo, TRAPS)
            calls = iter(range(2, 1 << 16))

            def tool(i: int) -> bytes:  # a new session per run: traps are shown once per session
                sid = f"ses_bench{next(calls):04x}"
                return benchgen.opencode_payload(2, self.data.cwd, sid)

            s = self.measure(
                self.baker_cmd("pretool", "--agent", agent), home, stdin=tool, count=True
            )
            row = Row(
                "`baker pretool`, 1,000 traps", agent, label, s, target=f"≤ {PRETOOL_X}× bare"
            )
            self.check(row, max_ratio=PRETOOL_X, expect=TRAP_MARK.encode())

            idle = benchgen.opencode_payload(0, self.data.cwd)
            first = self.measure(
                self.baker_cmd("checkpoint", "--agent", agent),
                home,
                stdin=idle,
                runs=1,
                warmup=False,  # a warm-up would be the first
                wait_child=True,  # the work, which the deadline bounds, is the child's
            )
            row = Row(
                "`baker checkpoint`, first (no cursor yet), its child's work included",
                agent,
                label,
                first,
                target=f"< {HOOK_DEADLINE_S} s (hook deadline)",
            )
            self.check(row, max_s=HOOK_DEADLINE_S - 0.5)
            start = benchgen.opencode_payload(1, self.data.cwd, "ses_bench0b0e57a45e55beef")
            s = self.measure(self.baker_cmd("pickup", "--agent", agent), home, stdin=start)
            chars = len(s.out.decode(errors="replace"))
            row = Row(
                "`baker pickup` (no GPU probes)",
                agent,
                label,
                s,
                target=f"≤ {PICKUP_X}× bare, ≤ {PICKUP_MAX_CHARS} chars",
                note=f"{chars} chars out",
            )
            self.check(row, max_ratio=PICKUP_X)
            if chars > PICKUP_MAX_CHARS * 1.5:  # the hook JSON wraps the capped text
                row.met = False

            turn = [1]

            def append(i: int) -> None:
                benchgen.append_opencode_turn(db, turn[0], APPENDED.format(k=turn[0]))
                turn[0] += 1

            s = self.measure(
                self.baker_cmd("checkpoint", "--agent", agent), home, stdin=idle, before=append
            )
            row = Row(
                "`baker checkpoint` after one turn",
                agent,
                label,
                s,
                target=f"≤ {CHECKPOINT_X}× bare, ≤ 60 MiB",
                note="the captured database; each turn a request and an answer in new rows",
            )
            self.check(row, max_ratio=CHECKPOINT_X, max_mib=60)

    def never_seen(self, agent: str, size: int) -> None:
        """`baker handoff` of the `size` transcript it never read, beside ccusage (`beside`)."""
        self.data.sized(agent, size, log=self.log)
        self.beside(agent, self.data.home(f"size-{size}"), size, expect=FINAL_REQUEST.encode())

    def beside(self, agent: str, home: Path, size: int, *, expect: bytes | None) -> None:
        """`baker handoff` of a session it never read, and with --peers ccusage's `session`
        report of the same data, interleaved run by run (same page cache, same load)."""
        self.fresh_store(home, init=False)  # no store: nothing cached, every run reads anew
        big = size >= 100 << 20  # slow to read: fewer runs, and it is in the page cache already
        runs = min(self.args.runs, 3) if big else self.args.runs
        argv = self.baker_cmd("handoff", "--from", agent)
        peer = self.ccusage_argv(agent, home, size)
        s, c = Sample(), Sample()
        if not big and self.args.warmup:  # untimed: fills the page cache
            self.measure(argv, home, runs=1, warmup=False)
            if peer:
                self.measure(peer, home, runs=1, warmup=False)
        for _ in range(runs):
            if peer:
                merge(c, self.measure(peer, home, runs=1, timeout=600, warmup=False))
            merge(s, self.measure(argv, home, runs=1, timeout=600, warmup=False))
        label = human(size)
        if peer:
            self.peer_row(
                Row(
                    f"peer: ccusage {self.ccusage_version} `{agent} session --json`",
                    agent,
                    label,
                    c,
                )
            )
            self.ccusage[(agent, size)] = c
        self.briefs.setdefault(agent, []).append(len(s.out))
        self.never[(agent, size)] = s
        factor = NEVER_SEEN_X[max(at for at in NEVER_SEEN_X if size >= at)]
        measured = peer is not None and all(code == 0 for code in c.codes)
        target = f"≤ {factor}× ccusage ({factor * c.wall:.2f} s), " if measured else ""
        self.check(
            Row(
                "`baker handoff`, never seen",
                agent,
                label,
                s,
                target=f"{target}≤ {NEVER_SEEN_MIB} MiB",
            ),
            max_s=factor * c.wall if measured else None,
            max_mib=NEVER_SEEN_MIB,
            expect=expect,
        )

    def brief_size(self, agent: str) -> None:
        sizes = self.briefs.get(agent, [])
        if not sizes:
            return
        biggest = max(sizes)
        self.add(
            Row(
                "brief size (default budget)",
                agent,
                value=human(biggest),
                target="≤ 32 KiB",
                met=biggest <= BRIEF_MAX,
            )
        )

    def many_codex(self, count: int) -> None:
        home = self.data.codex_many(count, log=self.log)
        self.fresh_store(home, init=False)
        db = home / ".codex" / "state_5.sqlite"
        off = db.with_name(db.name + ".off")
        for with_db in (True, False):
            if with_db and off.exists():
                off.rename(db)
            elif not with_db and db.exists():
                db.rename(off)
            s = self.measure(self.baker_cmd("handoff", "--from", "codex"), home)
            what = f"newest session among {count:,} Codex rollouts"
            what += ", with state_5.sqlite" if with_db else ", no SQLite index"
            self.check(
                Row(what, "codex", sample=s, target="≤ 0.3 s"),
                max_s=0.3,
                expect=FINAL_REQUEST.encode(),
            )
        heads = home / ".baker" / "cache" / "codex"

        def forget(i: int) -> None:
            for cache in heads.glob("heads-*.json"):
                cache.unlink()

        s = self.measure(self.baker_cmd("handoff", "--from", "codex"), home, before=forget)
        self.check(
            Row(
                f"the same, no SQLite index, first scan (reads {count:,} heads)",
                "codex",
                sample=s,
                note="once: it fills baker's head cache, which the row above reads",
            ),
            expect=FINAL_REQUEST.encode(),
        )
        if off.exists():
            off.rename(db)

    def many_claude(self, count: int) -> None:
        home = self.data.claude_many(count, log=self.log)
        self.fresh_store(home, init=False)
        s = self.measure(self.baker_cmd("handoff", "--from", "claude"), home)
        self.check(
            Row(
                f"newest session among {count:,} Claude project folders",
                "claude",
                sample=s,
                target="≤ 0.3 s",
            ),
            max_s=0.3,
            expect=FINAL_REQUEST.encode(),
        )

    def echo_latency(self, keys: int) -> None:
        """Keystroke echo through `baker run` against the agent alone: an agent that echoes
        each byte in raw mode, in a pseudo-terminal; the time from a key to its echo."""
        bin_dir = self.scratch / "echo-bin"
        bin_dir.mkdir(exist_ok=True)
        agent = bin_dir / "claude"  # `baker run claude` starts the adapter's program by name
        agent.write_text(f"#!{self.python}\n" + ECHO_AGENT)
        agent.chmod(0o755)
        home = self.data.home("run-echo")
        env = {
            **self.env(home),
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "TERM": "xterm",
        }
        direct = echo_times([str(agent)], env, self.data.repo, keys)
        through = echo_times([self.baker, "run", "claude"], env, self.data.repo, keys)
        med_d, med_t = statistics.median(direct), statistics.median(through)
        p99_d = sorted(direct)[int(0.99 * (len(direct) - 1))]
        p99_t = sorted(through)[int(0.99 * (len(through) - 1))]
        added = med_t - med_d
        self.add(
            Row(
                "keystroke echo: `baker run` / the agent alone",
                size=f"{keys} keys",
                value=f"median {med_t:.2f} / {med_d:.2f} ms, p99 {p99_t:.2f} / {p99_d:.2f} ms",
                target="≤ +2 ms median",
                met=added <= 2.0,
                note=f"+{added:.2f} ms added by the supervisor's pty",
            )
        )

    def recall(self, size: int) -> None:
        """Index every agent's `size` transcript into a fresh archive, then query it."""
        home = self.data.home(f"size-{size}")
        total = sum(
            self.data.transcript(a, size, log=self.log).size
            for a in self.agents()
            if a in benchgen.AGENTS
        )
        for db in (home / ".baker").glob("archive.sqlite*"):  # BAKER_HOME: the archive
            db.unlink()
        self.fresh_store(home, init=True)
        # No warm-up: it would index everything and leave the timed run nothing to do.
        first = self.measure(
            self.baker_cmd("recall", "--index"), home, runs=1, timeout=900, warmup=False
        )
        said = first.out.decode(errors="replace").strip().splitlines()  # "Indexed N files (X MB"
        row = self.check(
            Row(
                "`baker recall --index`, from empty",
                "all",
                human(total),
                first,
                target="≤ 120 s per GiB, all of it",
                note=said[0][:100] if said else "",
            ),
            max_s=120 * total / (1 << 30),
        )
        indexed = re.search(r"\(([\d.]+) MB", said[0]) if said else None
        if row.met and (indexed is None or float(indexed[1]) * 1e6 < 0.9 * total):
            row.met = False  # quick because it skipped the transcript: not a pass

        s = self.measure(self.baker_cmd("recall", "--no-index", "deprecated", "alias"), home)
        self.check(
            Row(
                "`baker recall` query (no re-index)",
                "all",
                human(total),
                s,
                target="≤ 0.1 s",
                note=f"{len(s.out)} B out",
            ),
            max_s=0.1,
        )
        s = self.measure(self.baker_cmd("recall", "deprecated", "alias"), home)
        self.check(
            Row(
                "`baker recall` query (checks for new bytes)",
                "all",
                human(total),
                s,
                note=f"{len(s.out)} B out",
            )
        )

    # --- peers -----------------------------------------------------------------------------

    def setup_peers(self) -> None:
        want = [x for x in self.args.peer_tools.split(",") if x]
        if self.args.ccusage is not None:
            if "ccusage" not in want:
                want.append("ccusage")
            self.peer_tools = {"ccusage": [str(self.args.ccusage)]}
            if "portable-resume" in want:
                self.peer_tools.update(
                    install_peers(self.data.root / "peers", self.log, ["portable-resume"])
                )
        else:
            self.peer_tools = install_peers(self.data.root / "peers", self.log, want)
        for name, why in self.peer_tools.items():
            if isinstance(why, str):
                self.add(Row(f"peer {name}", note=f"skipped: {why}"))
        cc = self.peer_tools.get("ccusage")
        if isinstance(cc, list):
            said = subprocess.run(
                [*cc, "--version"],
                capture_output=True,
                text=True,
                check=False,
                env=self.env(self.data.home("peers-version")),
            )
            found = re.search(r"\d+\.\d+\.\d+", said.stdout)
            self.ccusage_version = found[0] if found else "20"

    def peers(self, agent: str, size: int) -> None:
        """portable-resume on `agent`'s `size` transcript, just before `baker handoff` reads
        the same file: same page cache, same load (ccusage runs beside it: `never_seen`)."""
        self.data.sized(agent, size, log=self.log)
        home = self.data.home(f"size-{size}")
        label = human(size)
        runs = min(self.args.runs, 3)
        pr = self.peer_tools.get("portable-resume")
        if isinstance(pr, list):
            s = self.measure(
                [*pr, agent, "show", "latest", "--cwd", self.data.cwd, "--within-min", "0"],
                home,
                runs=runs,
                timeout=600,
                warmup=False,
            )
            self.peer_row(Row("peer: portable-resume 0.4.5 `show latest`", agent, label, s))

    def ccusage_argv(self, agent: str, home: Path, size: int) -> list[str] | None:
        """ccusage's `session` report of `agent`, or None (why is kept for the comparison)."""
        cc = self.peer_tools.get("ccusage")
        if not isinstance(cc, list):
            return None
        # ccusage has one sub-command per agent it reads; one it lacks has no peer figure.
        if agent not in self.ccusage_reads:
            helps = subprocess.run(
                [*cc, agent, "--help"],
                capture_output=True,
                check=False,
                env=self.env(home),
                cwd=self.data.repo,
                timeout=60,
            )
            self.ccusage_reads[agent] = helps.returncode == 0
        if not self.ccusage_reads[agent]:
            self.ccusage[(agent, size)] = f"no peer: ccusage has no `{agent}` command"
            return None
        return [*cc, agent, *CCUSAGE]

    def peer_row(self, row: Row) -> None:
        s = row.sample
        if s is None:
            raise RuntimeError(f"{row.what}: judged before it was measured")
        bad = [c for c in s.codes if c != 0]
        if bad:
            said = (s.err or s.out).decode(errors="replace").strip().splitlines()
            row.note = f"fails: exit {bad[0]} " + (said[0][:80].replace("|", "/") if said else "")
        elif FINAL_REQUEST.encode() in s.out:
            row.note = f"output {human(len(s.out))}, has the final request"
        else:
            tokens = total_tokens(s.out)
            row.note = f"output {human(len(s.out))}" + (
                f", {tokens:,} tokens in its totals" if tokens is not None else ""
            )
        self.add(row)

    # --- output ----------------------------------------------------------------------------

    def table(self) -> str:
        if self.rows and self.rows[0].sample is not None and self.bare_walls:
            base = self.rows[0].sample  # the baseline row: every bare start of the run
            base.walls = base.bare = base.walls + self.bare_walls
            self.bare_walls = []
        head = (
            "| what | agent | size | median wall | × bare | instructions (× bare's) | peak RSS "
            "| target | result | note |"
        )
        lines = [head, "|" + "---|" * 10]
        for r in self.rows:
            s = r.sample
            wall = r.value or (f"{s.wall:.3f} s" if s else "—")
            ratio = f"{s.ratio:.1f}×" if s and not r.value else "—"
            rss = f"{s.rss_mib:.0f} MiB" if s and not r.value else "—"
            ir = (
                f"{s.ir / 1e6:.1f} M ({s.ir / s.bare_ir:.1f}×)" if s and s.ir and s.bare_ir else "—"
            )
            result = {True: "met", False: "**MISSED**", None: "—"}[r.met]
            lines.append(
                f"| {r.what} | {r.agent} | {r.size} | {wall} | {ratio} | {ir} | {rss} | "
                f"{r.target or '—'} | {result} | {r.note} |"
            )
        return "\n".join(lines)

    def comparison(self) -> str:
        """The never-seen handoff beside ccusage on the same transcript, size by size."""
        head = (
            f"| agent | size | `baker handoff`, never seen | peak RSS | ccusage "
            f"{self.ccusage_version} `session --json --offline` | peak RSS | "
            "baker ÷ ccusage | target | result | note |"
        )
        lines = [head, "|" + "---|" * 10]
        rows = {(r.agent, r.size): r for r in self.rows if r.what == "`baker handoff`, never seen"}
        for (agent, size), peer in self.ccusage.items():
            baker = self.never.get((agent, size))
            row = rows.get((agent, human(size)))
            b_wall = f"{baker.wall:.3f} s" if baker else "not measured"
            b_rss = f"{baker.rss_mib:.0f} MiB" if baker else "—"
            notes = []
            if baker and any(c != 0 for c in baker.codes):
                notes.append("baker failed")
            elif row and "wrong output" in row.note:  # `check` found no expected request
                notes.append("baker's brief lacks the final request")
            elif baker and b", not read, are not listed" in baker.out:  # as the brief says so
                notes.append("baker's brief says it read the transcript's last part only")
            if isinstance(peer, str):
                c_wall, c_rss, ratio = "—", "—", "—"
                notes.append(peer)
            elif any(c != 0 for c in peer.codes):
                c_wall, c_rss, ratio = "—", "—", "—"
                said = (peer.err or peer.out).decode(errors="replace").strip().splitlines()
                notes.append(
                    "ccusage fails: "
                    + (said[0][:80].replace("|", "/") if said else f"exit {peer.codes[0]}")
                )
            else:
                c_wall, c_rss = f"{peer.wall:.3f} s", f"{peer.rss_mib:.0f} MiB"
                ok = baker is not None and all(c == 0 for c in baker.codes)
                ratio = f"{baker.wall / peer.wall:.2f}×" if baker and ok else "—"
                tokens = total_tokens(peer.out)
                if tokens is not None:
                    notes.append(f"ccusage counted {tokens:,} tokens")
            result = {True: "met", False: "**MISSED**", None: "—"}[row.met if row else None]
            lines.append(
                f"| {agent} | {human(size)} | {b_wall} | {b_rss} | {c_wall} | {c_rss} "
                f"| {ratio} | {row.target if row else '—'} | {result} | {'; '.join(notes)} |"
            )
        return "\n".join(lines)

    def document(self, table: str) -> str:
        """The page's introduction: what is measured and how."""
        a = self.args
        peers = (
            ""
            if not self.ccusage
            else f"""
The second table puts each never-seen `baker handoff` (no store, nothing cached: it finds the
session and reads the transcript anew) beside ccusage's `<agent> session --json --offline` on
the same generated transcript, in the same isolated home (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME
and COPILOT_HOME point at it, never at the real ones), interleaved run by run: ccusage, then
baker, {min(a.runs, 3)} times at 100 MiB and more (no warm-up: the file was just generated
or read, so it is in the page cache) and {a.runs} times below, after one untimed run of each;
each the median, with the peak RSS of the worst run. Issue 29's targets: baker ≤
{NEVER_SEEN_X[0]}× ccusage below 500 MB (the issue's is at 1 MB), ≤
{NEVER_SEEN_X[500 << 20]}× at 500 MB and more,
in ≤ {NEVER_SEEN_MIB} MiB. ccusage is installed from the npm registry as `ccusage@20` (or the
newest 20.x that has a native binary for this platform); it parses the whole file, so its
token totals grow with the size (Copilot's stay 0: ccusage takes Copilot CLI's usage from
the `session.shutdown` record, which a session still running has not written, but it
reads the whole file to find that out). OpenCode's rows are databases scripts/benchgen.py
grows from the captured one to the size (the size of the database file).
"""
        )
        return f"""# {a.title}

Written by `python scripts/bench.py`; do not edit by hand. Issues 11 and 29 set the targets,
and a missed one is shown as **MISSED**, never loosened.

Each figure is a whole `baker` process started as an agent starts it (hook payload on stdin,
an isolated home with only the generated sessions in it, the scratch repository as its cwd):
the median wall time over {a.runs} runs after one untimed warm-up (so transcripts are in the
page cache, as they are right after the agent wrote them; rows of 100 MiB and more take 3 runs
and no warm-up, being in the page cache already), the peak RSS of the worst run, and
"× bare": that median over the median of `python -c pass` (the same interpreter) run right
before each timed run, so both see the same machine load. With `--instructions`, the hook rows
also show valgrind's callgrind count of one run of the process the agent waits for (not its git,
nor a hook's detached child) beside a bare start's, and a ratio target is judged on that count
where there is one: a loaded machine does not blur it (the counted run, some 50 times slower
under valgrind, runs with SIGALRM blocked: its own deadline does not cut it short; a run that
logs a hook failure is shown as not counted, and judged on its wall ratio).

There is no server or cache process: every row is one plain process that exits when the call is
done; a checkpoint hook answers the agent and finishes its work in a forked child (a pretool its
bookkeeping), and the row times what the agent waits for (docs/decisions.md, "How the hooks stay
fast"). The hook targets come from issue 29 (pretool ≤ {PRETOOL_X}× bare, a checkpoint after one
turn ≤ {CHECKPOINT_X}×, pickup ≤ {PICKUP_X}×, a checkpointed handoff ≤ {HANDOFF_X}×), the rest
from issue 11. They hold where users are: every home has the `~/.baker/config.toml` the README
describes (two Claude accounts, a `[rotation]` order, a `[machine]` name), the appended turn's
request holds a URL, a shell command and a secret, the project has 1,000 traps, and "bare" is
`python -c pass` of baker's own environment (not a base interpreter, whose site-packages would
make it slower and flatter every ratio). Every adapter the packages register is measured; one
scripts/benchgen.py cannot write sessions for is listed as MISSED. OpenCode keeps its sessions
as rows of one database: its hook rows run on the captured database (tests/fixtures/opencode,
moved to the bench's project; a turn is appended as OpenCode writes one), and its rows by size
on that database grown to the size (the captured session's first turn again and again: its
message, part and event rows with ids, times and event seq of their own). Transcripts are
generated by `scripts/benchgen.py` from
the real captured fixtures (the S1 session of each agent: todo tool, shell, file writes and
edits, usage), turn after turn with fresh ids and parent links, ending on a distinctive final
request that each handoff row must print, or the row counts as MISSED. Sizes are binary (1M = 1
MiB).

The never-seen handoff's time target is a multiple of ccusage 20's `session` report of the
same transcript, measured beside it with `--peers`; without it only its peak RSS is judged
(≤ {NEVER_SEEN_MIB} MiB). The checkpoint rows also check the hooks' own 20 s deadline: past
it the hook is stopped and nothing is saved.
{peers or SEE_NEVER_SEEN}"""

    def section(self, table: str) -> str:
        """One run's table with its command line and machine."""
        a = self.args
        when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
        cpus = os.cpu_count()
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        missed = sum(1 for r in self.rows if r.met is False)
        peers = f" --peers --peer-tools {a.peer_tools}" if a.peers else ""
        peers += " --instructions" if a.instructions else ""
        note = f"\n{a.note.strip()}" if a.note.strip() else ""
        agents = ",".join(self.agents())
        return f"""
## Run of {when}

Machine: {platform.platform()}, Python {platform.python_version()}, {cpus} CPUs,
load average {load:.1f} at the end. Targets missed: {missed}.{note}

{table}

Command: `python scripts/bench.py --agents {agents} --only {a.only} --sizes {a.sizes}
--handoff-sizes {a.handoff_sizes} --rollouts {a.rollouts} --folders {a.folders}
--runs {a.runs}{peers}`.
"""


ECHO_AGENT = """
import os, sys, tty
tty.setraw(0)
os.write(1, b"ready\\n")
while True:
    b = os.read(0, 1)
    if not b or b == b"\\x04":
        break
    os.write(1, b)
"""


def echo_times(argv: list[str], env: dict[str, str], cwd: Path, keys: int) -> list[float]:
    """Milliseconds from each key written to the terminal until its echo is read back."""
    import pty
    import select as select_

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
    )
    os.close(slave)
    times: list[float] = []
    try:
        seen = b""
        deadline = time.monotonic() + 30
        while b"ready" not in seen and time.monotonic() < deadline:
            if select_.select([master], [], [], 0.5)[0]:
                seen += os.read(master, 4096)
        if b"ready" not in seen:
            raise RuntimeError(f"{argv[0]} never said ready: {seen[-300:]!r}")
        time.sleep(0.2)
        for i in range(keys):
            key = bytes([ord("a") + i % 26])
            t0 = time.perf_counter()
            os.write(master, key)
            got = b""
            while key not in got:
                if not select_.select([master], [], [], 5)[0]:
                    raise RuntimeError("no echo within 5 s")
                got += os.read(master, 4096)
            times.append((time.perf_counter() - t0) * 1000)
            time.sleep(0.005)
        os.write(master, b"\x04")
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(master)
    return times


def total_tokens(out: bytes) -> int | None:
    """ccusage's `totals.totalTokens` from its --json output, if it printed one."""
    try:
        value = json.loads(out)["totals"]["totalTokens"]
    except (ValueError, KeyError, TypeError):
        return None
    return value if isinstance(value, int) else None


def install_peers(
    where: Path,
    log: Callable[[str], None],
    which: Sequence[str] = ("portable-resume", "ccusage"),
) -> dict[str, list[str] | str]:
    """Install the peers into `where` (reused); each is an argv prefix or why it is missing."""
    where.mkdir(parents=True, exist_ok=True)
    found: dict[str, list[str] | str] = {}
    unknown = set(which) - {"portable-resume", "ccusage"}
    if unknown:
        raise SystemExit(f"unknown peer tool(s): {', '.join(sorted(unknown))}")
    venv = where / "venv"
    exe = venv / ("Scripts" if os.name == "nt" else "bin") / "portable-resume"
    if "portable-resume" in which and not exe.exists():
        log("installing portable-resume 0.4.5 ...")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=False, capture_output=True)
        subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", "portable-resume==0.4.5"],
            check=False,
            capture_output=True,
        )
    if "portable-resume" in which:
        found["portable-resume"] = [str(exe)] if exe.exists() else "pip could not install it"
    if "ccusage" not in which:
        return found
    npm = shutil.which("npm")
    ccusage = where / "node_modules" / ".bin" / "ccusage"
    if npm is None:
        found["ccusage"] = "npm is not on PATH"
        return found

    def works() -> bool:
        return (
            ccusage.exists()
            and subprocess.run(
                [str(ccusage), "--version"], capture_output=True, check=False
            ).returncode
            == 0
        )

    if not works():
        log("installing ccusage 20 ...")
        npm_i = [
            npm,
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            "--prefix",
            str(where),
        ]
        subprocess.run([*npm_i, "ccusage@20"], check=False, capture_output=True)
        if not works():  # its native binary may lag behind: take the newest 20.x that has one
            plat = {"linux": "linux", "darwin": "darwin", "win32": "win32"}[sys.platform]
            arch = "arm64" if platform.machine() in ("arm64", "aarch64") else "x64"
            view = subprocess.run(
                [npm, "view", f"@ccusage/ccusage-{plat}-{arch}", "versions", "--json"],
                capture_output=True,
                text=True,
                check=False,
            )
            try:
                versions = [v for v in json.loads(view.stdout) if v.startswith("20.")]
            except ValueError:
                versions = []
            if versions:
                subprocess.run(
                    [*npm_i, f"ccusage@{versions[-1]}"], check=False, capture_output=True
                )
    found["ccusage"] = [str(ccusage)] if works() else "npm could not install a working ccusage 20"
    return found


def write_traps(repo: Path, count: int) -> None:
    """`count` traps in the project store; a handful match the file the bench's tool writes."""
    path = repo / ".baker" / "traps.jsonl"
    lines = []
    for i in range(count):
        if i % 200 == 0:
            pattern, why = "weather/*.py", f"{TRAP_MARK} {i}: float maths broke the golden files"
        elif i % 3 == 0:
            pattern, why = f"git push --force*{i}", f"command trap {i}"
        else:
            pattern, why = f"src/module_{i}/**/*.py", f"path trap {i}: rejected approach"
        kind = "command" if i % 3 == 0 and i % 200 else "path"
        lines.append(
            json.dumps(
                {
                    "schema_version": 1,
                    "id": f"t{i:04d}",
                    "pattern": pattern,
                    "kind": kind,
                    "why": why,
                    "created_at": "2026-11-29T12:00:00Z",
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")
    # A user's traps were written long before the tool call: settled, as the traps cache
    # expects of a file it keys on (it reads one modified or changed in the last 3 s,
    # `traps.RACY_NS`, again on every call; `os.utime` would set the ctime, which counts too).
    time.sleep(3.1)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 1)[1] if __doc__ else None,
    )
    ap.add_argument(
        "--sizes",
        default="1M,100M,1G",
        help="transcript sizes for the checkpoint and checkpointed-handoff rows "
        "(default 1M,100M,1G)",
    )
    ap.add_argument(
        "--handoff-sizes",
        default="100M,500M,1G",
        help="sizes for the never-seen handoff rows (default 100M,500M,1G)",
    )
    ap.add_argument(
        "--agents",
        default="",
        help="comma-separated adapters to measure (default: every adapter the packages "
        "register, read from packages/*)",
    )
    ap.add_argument(
        "--rollouts",
        type=int,
        default=20_000,
        help="Codex rollouts in the discovery home (0 skips; default 20000)",
    )
    ap.add_argument(
        "--folders",
        type=int,
        default=3_000,
        help="Claude project folders in the discovery home (0 skips; default 3000)",
    )
    ap.add_argument(
        "--only", default=",".join(GROUPS), help=f"row groups to run (default {','.join(GROUPS)})"
    )
    ap.add_argument("--runs", type=int, default=5, help="timed runs per row (default 5)")
    ap.add_argument(
        "--instructions",
        action="store_true",
        help="also count each hook row's instructions and a bare start's with valgrind's "
        "callgrind (one run each; a loaded machine does not blur them)",
    )
    ap.add_argument(
        "--no-warmup",
        dest="warmup",
        action="store_false",
        help="skip the untimed first run of each row",
    )
    ap.add_argument(
        "--data",
        type=Path,
        default=ROOT / "bench-data",
        help="where generated data is kept and reused (default bench-data/)",
    )
    ap.add_argument(
        "--baker",
        type=Path,
        default=None,
        help="the baker executable to measure (default: a venv under --data with "
        "only what users install, built from packages/ and reused; the dev "
        ".venv also holds mypy's typing_extensions, which msgspec then imports)",
    )
    ap.add_argument(
        "--python",
        type=Path,
        default=None,
        help="the interpreter baker runs on, for the bare-start baseline "
        "(default: that of --baker)",
    )
    ap.add_argument(
        "--out",
        default=str(ROOT / "docs" / "benchmarks.md"),
        help="where to write the table ('' for nowhere)",
    )
    ap.add_argument(
        "--append",
        action="store_true",
        help="add this run's table to the --out page instead of replacing it",
    )
    ap.add_argument(
        "--keep-large", action="store_true", help="keep generated transcripts of 1 GiB and more"
    )
    ap.add_argument(
        "--note",
        default="",
        help="a sentence on the run's conditions (load, what else ran), printed "
        "under its machine line",
    )
    ap.add_argument(
        "--peers",
        action="store_true",
        help="install the --peer-tools under --data/peers and run them on the "
        "never-seen handoff's transcripts, ccusage interleaved with baker run by "
        "run; adds a table of baker beside ccusage",
    )
    ap.add_argument(
        "--peer-tools",
        default="portable-resume,ccusage",
        help="which peers --peers runs (default portable-resume,ccusage)",
    )
    ap.add_argument(
        "--ccusage",
        type=Path,
        default=None,
        help="with --peers: this ccusage executable instead of installing "
        "ccusage@20 from the npm registry",
    )
    ap.add_argument(
        "--title",
        default="Benchmarks",
        help="the page's heading when --out writes a new page (default Benchmarks)",
    )
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="tiny data and one run per row: checks that every row runs",
    )
    args = ap.parse_args(argv)
    if args.smoke:
        args.sizes, args.handoff_sizes = "64K", "64K"
        args.rollouts, args.folders, args.runs, args.warmup = 40, 30, 1, False
    return args


def runtime_venv(data: Path) -> Path:
    """A venv with the packages installed as users get them (not editable, no dev tools),
    rebuilt when a package's source is newer than it. Returns its bin folder."""
    venv_dir = data / "venv"
    bin_dir = venv_dir / VENV_BIN.name
    stamp = venv_dir / ".built"
    sources = [
        p for p in (ROOT / "packages").rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ]
    newest = max(p.stat().st_mtime for p in sources)
    if stamp.exists() and stamp.stat().st_mtime >= newest:
        return bin_dir
    print(f"building the runtime venv {venv_dir} …", file=sys.stderr, flush=True)
    import venv

    shutil.rmtree(venv_dir, ignore_errors=True)
    venv.EnvBuilder(with_pip=True).create(venv_dir)
    py = bin_dir / VENV_BIN.joinpath("python").name
    subprocess.run(
        [str(py), "-m", "pip", "install", "--quiet", "--upgrade", "pip>=25.1"], check=True
    )
    specs = [
        str(p.folder) + ("[all]" if p.name == workspace.CLI else "")
        for p in workspace.packages(ROOT)
    ]
    subprocess.run([str(py), "-m", "pip", "install", "--quiet", *specs], check=True)
    stamp.touch()
    # baker writes its entry-point index only once sys.path's folders are 3 s old
    # (`registry.RACY_NS`): a row counted sooner would read the installed metadata instead.
    time.sleep(3.5)
    return bin_dir


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.baker is None:
        bin_dir = runtime_venv(Path(args.data))
        args.baker = bin_dir / "baker"
        args.python = args.python or bin_dir / VENV_BIN.joinpath("python").name
    args.python = args.python or Path(args.baker).parent / VENV_BIN.joinpath("python").name
    if not Path(args.baker).exists():
        sys.exit(f"{args.baker} not found: run `python3 scripts/dev.py setup` first")
    return Bench(args).run()


if __name__ == "__main__":
    sys.exit(main())
