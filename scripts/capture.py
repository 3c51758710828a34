#!/usr/bin/env python3
"""Capture fixtures: drive a real agent CLI against the project's loopback mock model.

    .venv/bin/python scripts/capture.py --out DIR [--agent claude] [--scenario S1 ...]
        [--node-bin DIR] [--list]

Each scenario runs the real CLI (from `tests/e2e/node_modules/.bin`, or `--node-bin`) in an
isolated home with every hook event logged, against the same mock the end-to-end tests use
(`tests/e2e/mock_models.py`, set up by `tests/e2e/harness.py`). What the CLI wrote is copied
to DIR in the layout of the shared fixture sets: `<agent>/.<agent>/...` (the home's config
tree, the capture home rewritten to `/home/dev`), `<agent>/hook_payloads/` (`all.jsonl` and
one `<Event>[.<variant>].json` each) and `ground_truth.json` (merged with what DIR holds), whose
facts come from the scenario's script (requests, todos, files, limits) and from what the file
says the mock answered (ids, usage). Nothing leaves the machine: the mock binds 127.0.0.1.

Scenarios (Claude Code): S1 todo + shell + write + edit; S1T the same with Task* tools; S2
three prompts over `--resume`; S3 an API-key 429; S3U a subscription's usage limit (with
its reset time; a mocked claude.ai login); S4 SIGKILL while a shell command runs; S5
fake secrets in the prompt and in shell output; S6 `/compact` then one more prompt; S7 an odd
subfolder; S8 a background subagent (a <task-notification> comes back). Codex and Gemini
CLI: S1, S2, S3 (a usage limit) and S4, from the neutral calls the mock translates; their
hook payloads are logged for S14 and Gemini CLI's S9 (`--hooks-subdir fallback`).
Codex S8: a sub-agent (`spawn_agent` under `--enable multi_agent_v2`), served from a script
of its own. Codex S10: `codex archive` of a finished thread, then `codex exec resume` of it
(refused); S11: `codex exec fork` of a thread with a prompt of its own, then the parent goes
on.
Gemini CLI S8: a sub-agent (`invoke_agent`, the generalist), served from a script of its
own. Every agent, issue 36: S12 a test that fails, fails differently and passes; S13 a dead
end (a credential in a failing command's output) ending on a usage limit; S14 one test command
run again and again over three requests (Claude Code and Copilot CLI: `/compact` after the
second; OpenCode: a step that fills the context after it, which OpenCode compacts by itself;
Codex and Gemini CLI compact on their own inside the second, after a failed command).
Copilot CLI and OpenCode have these three only; their S14 logs the hook payloads (OpenCode's:
what baker's plugin sends, to a logging `baker` on PATH).
Gemini CLI S9: a model fallback mid-turn (a flash-lite model's daily quota, which 0.61 answers
by switching to flash silently and giving the session a new id), then `--resume`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.harness import (  # noqa: E402 - needs the repository root on sys.path
    NODE_BIN,
    Agent,
    make_agent,
    session_id,
    transcript_files,
)
from tests.e2e.mock_models import (  # noqa: E402 - needs the repository root on sys.path
    MOCKS,
    AnthropicMock,
    Call,
    GeminiFallbackMock,
    GeminiMock,
    MockModel,
    Request,
    ResponsesMock,
    Turn,
    _strings,
    raw,
    shell,
    todos,
    write,
)

HOME_AS = "/home/dev"  # the home the fixture sets are written as
# A claude.ai login instead of an API key: only then is a 429 a plan's usage limit.
SUBSCRIPTION = {"ANTHROPIC_API_KEY": "", "CLAUDE_CODE_OAUTH_TOKEN": "sk-ant-oat01-capture-mock"}
CLAUDE_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "Notification",
    "TaskCreated",
    "TaskCompleted",
    "PostToolBatch",
    "MessageDisplay",
)
VARIANT_KEYS = ("source", "reason", "trigger", "tool_name", "agent_type")
HOOK_LOGGER = """\
import json, os, sys
data = sys.stdin.read()
with open(os.path.join(os.path.dirname(__file__), "hooks.jsonl"), "a") as f:
    f.write(json.dumps({"event": sys.argv[1], "payload": data}) + "\\n")
"""
SECRETS = {
    "aws_access_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "github_token": "ghp_FAKEz9y8x7w6v5u4t3s2r1q0p9o8n7m6l5k4",
    "password": "correcthorse-FAKE-42",
}


@dataclass
class Run:
    """One CLI invocation: a prompt and the model turns it consumes."""

    prompt: str
    turns: list[Turn]
    resume: bool = False  # `--resume <the session's id>`
    kill_after_turns: int = 0  # SIGKILL the CLI once this many turns were served
    rc_note: str = ""
    # Codex: "fork" (`codex exec fork <id>`), "archive" (`codex archive <id>`), "parent"
    # (`codex exec resume` of the scenario's first session, after a fork)
    action: str = ""


@dataclass
class Scenario:
    sid: str
    kind: str
    project: str  # path under ~/src
    branch: str
    runs: list[Run]
    files: dict[str, str] = field(default_factory=dict)  # seeded and committed
    env: dict[str, str] = field(default_factory=dict)
    todos: list[tuple[str, str]] = field(default_factory=list)  # final todo state
    edited: list[str] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)
    compaction: bool = False
    # The shell commands the script runs, in order, and whether each fails (issue 36's truth).
    commands: list[tuple[str, bool]] = field(default_factory=list)
    mock: type[MockModel] | None = None  # the agent's own mock unless the scenario needs more
    model: str | None = None  # Gemini CLI's `-m` (the harness's pinned model otherwise)
    # Codex, Gemini CLI, Copilot CLI: log every hook event's payload too; OpenCode: what
    # baker's plugin sends (a logging `baker` on PATH)
    log_hooks: bool = False
    flags: list[str] = field(default_factory=list)  # the CLI's own: Codex's `-c k=v`, `--enable F`


def edit(root: str, path: str, old: str, new: str) -> Call:
    return raw("Edit", file_path=f"{root}/{path}", old_string=old, new_string=new)


P = "{project}"  # replaced by the project's absolute path when the script is built


def claude_scenarios() -> list[Scenario]:
    plan = [
        ("Create recipes/scale.py with scale()", "in_progress"),
        ("Check that doubling 2 eggs gives 4", "pending"),
        ("Document scale() in README.md", "pending"),
    ]
    done = [(plan[0][0], "completed"), (plan[1][0], "completed"), (plan[2][0], "pending")]

    def basic() -> list[Turn]:  # fresh turns for each scenario: paths are filled in
        return [
            Turn(calls=[todos(*plan)], input_tokens=3100, output_tokens=90),
            Turn(calls=[write("recipes/scale.py", "def scale(qty, factor):\n    return qty\n")]),
            Turn(calls=[edit(P, "recipes/scale.py", "return qty\n", "return qty * factor\n")]),
            Turn(calls=[shell("python3 -c 'from recipes.scale import scale; print(scale(2, 2))'")]),
            Turn(calls=[todos(*done)]),
            Turn(
                text="Added scale() in recipes/scale.py; doubling 2 eggs gives 4.",
                input_tokens=5200,
                output_tokens=140,
            ),
        ]

    leak = "\n".join(f"{k.upper()}={v}" for k, v in SECRETS.items())
    return [
        Scenario(
            "S1",
            "basic",
            "recipe-book",
            "main",
            [
                Run(
                    "Add a scale() helper in recipes/scale.py and check that "
                    "doubling 2 eggs gives 4.",
                    basic(),
                )
            ],
            files={"recipes/__init__.py": ""},
            env={"CLAUDE_CODE_ENABLE_TASKS": "0"},
            todos=done,
            edited=["recipes/scale.py"],
        ),
        Scenario(
            "S1T",
            "tasks",
            "recipe-tasks",
            "main",
            [Run("Add a scale() helper in recipes/scale.py. Track the work as tasks.", basic())],
            files={"recipes/__init__.py": ""},
            todos=done,
            edited=["recipes/scale.py"],
        ),
        Scenario(
            "S2",
            "resume",
            "billing-api",
            "feature/retry",
            [
                Run(
                    "Create billing/api.py with a charge(amount) function that returns a receipt.",
                    [
                        Turn(
                            calls=[write("billing/api.py", "def charge(amount):\n    return {}\n")]
                        ),
                        Turn(text="Created billing/api.py."),
                    ],
                ),
                Run(
                    "Which files are in billing/?",
                    [Turn(calls=[shell("ls billing")]), Turn(text="Only api.py.")],
                    resume=True,
                ),
                Run(
                    "Make charge() reject negative amounts.",
                    [
                        Turn(
                            calls=[
                                edit(
                                    P,
                                    "billing/api.py",
                                    "    return {}\n",
                                    "    if amount < 0:\n        raise ValueError(amount)\n"
                                    "    return {}\n",
                                )
                            ]
                        ),
                        Turn(
                            text="charge() now rejects negative amounts.",
                            input_tokens=4400,
                            output_tokens=120,
                        ),
                    ],
                    resume=True,
                ),
            ],
            edited=["billing/api.py"],
        ),
        Scenario(
            "S3",
            "rate_limit",
            "invoice-export",
            "main",
            [
                Run(
                    "Export every invoice as CSV into out/invoices.csv.",
                    [
                        Turn(
                            calls=[
                                todos(
                                    ("Read the invoice model", "in_progress"),
                                    ("Write the CSV exporter", "pending"),
                                )
                            ]
                        ),
                        Turn(error="rate_limit"),
                    ],
                )
            ],
            env={"CLAUDE_CODE_ENABLE_TASKS": "0"},
            todos=[
                ("Read the invoice model", "in_progress"),
                ("Write the CSV exporter", "pending"),
            ],
        ),
        Scenario(
            "S3U",
            "usage_limit",
            "invoice-import",
            "main",
            [
                Run(
                    "Import the invoices in in/invoices.csv into the database.",
                    [Turn(calls=[shell("wc -l README.md")]), Turn(error="usage_limit")],
                )
            ],
            env=SUBSCRIPTION,
        ),
        Scenario(
            "S4",
            "interrupted",
            "etl-jobs",
            "main",
            [
                Run(
                    "Run the nightly job with ./scripts/nightly.sh and fix what fails.",
                    [
                        Turn(
                            calls=[
                                todos(
                                    ("Run ./scripts/nightly.sh", "in_progress"),
                                    ("Fix the failures", "pending"),
                                )
                            ]
                        ),
                        Turn(calls=[shell("./scripts/nightly.sh")]),
                    ],
                    kill_after_turns=2,
                    rc_note="SIGKILL sent while the Bash tool ran",
                )
            ],
            files={"scripts/nightly.sh": "#!/bin/sh\nsleep 60\necho ok\n"},
            env={"CLAUDE_CODE_ENABLE_TASKS": "0"},
            todos=[("Run ./scripts/nightly.sh", "in_progress"), ("Fix the failures", "pending")],
        ),
        Scenario(
            "S5",
            "secrets",
            "release-tools",
            "fix/creds",
            [
                Run(
                    f"The release job fails with 403. The CI log printed:\n\n"
                    f"{leak}\n\nWhat is wrong?",
                    [
                        Turn(calls=[shell("cat ci.log")]),
                        Turn(text="The token in ci.log is rejected; rotate it."),
                    ],
                )
            ],
            files={"ci.log": leak + "\n"},
            secrets=SECRETS,
        ),
        Scenario(
            "S6",
            "compact",
            "chat-relay",
            "main",
            [
                Run(
                    "Add a /health endpoint to relay.py.",
                    [
                        Turn(calls=[write("relay.py", "ROUTES = ['/health']\n")]),
                        Turn(text="Added /health."),
                    ],
                ),
                Run(
                    "/compact",
                    [
                        Turn(
                            text=(
                                "<analysis>short</analysis>\n"
                                "<summary>1. Primary request: add a /health endpoint to relay.py.\n"
                                "2. Done: relay.py lists '/health'.</summary>"
                            )
                        )
                    ],
                    resume=True,
                ),
                Run(
                    "Add a /ready endpoint too.",
                    [
                        Turn(calls=[edit(P, "relay.py", "['/health']", "['/health', '/ready']")]),
                        Turn(text="Added /ready.", input_tokens=2600, output_tokens=60),
                    ],
                    resume=True,
                ),
            ],
            edited=["relay.py"],
            compaction=True,
        ),
        Scenario(
            "S7",
            "oddpath",
            "client work/acme_site.v2.0/docs",
            "hotfix/typo_fix",
            [
                Run(
                    "Fix the typo in index.md in this docs folder.",
                    [
                        Turn(calls=[raw("Read", file_path=f"{P}/index.md")]),
                        Turn(calls=[edit(P, "index.md", "Welcom ", "Welcome ")]),
                        Turn(text="Fixed the typo."),
                    ],
                )
            ],
            files={"index.md": "# Welcom to Acme\n"},
            edited=["index.md"],
        ),
        Scenario(
            "S8",
            "subagent",
            "text-utils",
            "main",
            [
                Run(
                    "Spin up a subagent to inventory the public functions in utils/ "
                    "and tell me what it found.",
                    [
                        Turn(
                            calls=[
                                raw(
                                    "Agent",
                                    description="Inventory public functions",
                                    prompt=SUBAGENT_PROMPT,
                                    subagent_type="general-purpose",
                                )
                            ]
                        ),
                        Turn(text="The inventory agent is running in the background."),
                        Turn(
                            text="It found three public functions: slug, title and clamp.",
                            input_tokens=2100,
                            output_tokens=40,
                        ),
                    ],
                )
            ],
            files={
                "utils/text.py": "def slug(s):\n    return s\ndef title(s):\n    return s\n",
                "utils/num.py": "def clamp(x, lo, hi):\n    return x\n",
            },
            mock=SubagentMock,
        ),
        *attempt_scenarios(SUBSCRIPTION, compact="manual"),
    ]


# Issue 36: what was run. The same three for every agent, from neutral shell calls only (a
# fix is a `sed` run: no agent's read-before-edit rule gets in the way).
CALC_TEST = (
    "from calc import add\n"
    "got = add(2, 2)\n"
    'assert got == 4, f"add(2, 2) returned {got}, expected 4"\n'
    'print("test_calc: ok")\n'
)
STAGING_LOGIN = "Hunter2-FAKE-pw"
MIGRATE_SH = (
    "#!/bin/sh\n"
    'echo "Running migrations against staging"\n'
    'if [ "$1" = "--ssl" ]; then\n'
    '  echo "psql: error: connection to server at db.staging.internal (10.0.0.7), port 5432 '
    'failed: server does not support SSL, but SSL was required" >&2\n'
    "  exit 2\n"
    "fi\n"
    f'echo "psql: error: connection to postgres://deploy:{STAGING_LOGIN}@db.staging.internal:5432/'
    'orders failed: FATAL: password authentication failed for user deploy" >&2\n'
    "exit 1\n"
)


def attempt_scenarios(
    limit_env: dict[str, str], *, compact: str = "", fill: int = 1000, fail_first: bool = False
) -> list[Scenario]:
    """S12: a test that fails, is fixed, fails differently and passes. S13: a dead end — two
    approaches fail, a credential in a failing command's output — ending on a usage limit.
    S14: a long session running the same test again and again, compacted after two requests
    (`compact`: "manual", a `/compact` run; "auto", the CLI compacts on its own once the
    model reports `fill` prompt tokens for the second request's last test run), then one more
    request. With `fail_first` the second request first runs a test file that does not exist
    (a failure before the compaction)."""
    test = "python3 test_calc.py"
    missing = "python3 test_calc_all.py"  # no such file: exit 2
    long_runs = [
        Run(
            "Run the tests with python3 test_calc.py.",
            [Turn(calls=[shell(test)]), Turn(text="test_calc passes.")],
        ),
        Run(
            "Run them twice more to check they are stable.",
            [
                *([Turn(calls=[shell(missing)])] if fail_first else []),
                Turn(calls=[shell(test)]),
                Turn(calls=[shell(test)], input_tokens=fill),
                Turn(text="Stable: test_calc passed both times."),
            ],
            resume=True,
        ),
    ]
    if compact == "manual":
        long_runs.append(
            Run(
                "/compact",
                [
                    Turn(
                        text=(
                            "<analysis>short</analysis>\n"
                            "<summary>1. Primary request: run test_calc.py and check it is "
                            "stable.\n2. Done: it passed three times.</summary>"
                        )
                    )
                ],
                resume=True,
            )
        )
    long_runs.append(
        Run(
            "Run the tests once more after the compaction.",
            [
                Turn(calls=[shell(test)]),
                Turn(text="Still passing.", input_tokens=2600, output_tokens=30),
            ],
            resume=True,
        )
    )
    return [
        Scenario(
            "S12",
            "attempts",
            "calc-fix",
            "main",
            [
                Run(
                    "Make python3 test_calc.py pass.",
                    [
                        Turn(calls=[shell(test)]),
                        Turn(calls=[shell("sed -i 's/a - b/a + b + c/' calc.py")]),
                        Turn(calls=[shell(test)]),
                        Turn(calls=[shell("sed -i 's/a + b + c/a + b/' calc.py")]),
                        Turn(calls=[shell(test)]),
                        Turn(
                            text="test_calc.py passes: add() subtracted, then used an "
                            "undefined name.",
                            input_tokens=3300,
                            output_tokens=50,
                        ),
                    ],
                )
            ],
            files={"calc.py": "def add(a, b):\n    return a - b\n", "test_calc.py": CALC_TEST},
            commands=[
                (test, True),
                ("sed -i 's/a - b/a + b + c/' calc.py", False),
                (test, True),
                ("sed -i 's/a + b + c/a + b/' calc.py", False),
                (test, False),
            ],
        ),
        Scenario(
            "S13",
            "dead_end",
            "orders-db",
            "main",
            [
                Run(
                    "Run the staging migration with ./scripts/migrate.sh and get it through.",
                    [
                        Turn(calls=[shell("./scripts/migrate.sh")]),
                        Turn(calls=[shell("./scripts/migrate.sh --ssl")]),
                        Turn(error="usage_limit"),
                    ],
                )
            ],
            files={"scripts/migrate.sh": MIGRATE_SH},
            env=limit_env,
            secrets={"db_password": STAGING_LOGIN},
            commands=[("./scripts/migrate.sh", True), ("./scripts/migrate.sh --ssl", True)],
        ),
        Scenario(
            "S14",
            "long",
            "calc-long",
            "main",
            long_runs,
            files={"calc.py": "def add(a, b):\n    return a + b\n", "test_calc.py": CALC_TEST},
            compaction=bool(compact),
            commands=[
                (test, False),
                *([(missing, True)] if fail_first else []),
                *[(test, False)] * 3,
            ],
            log_hooks=bool(compact),
        ),
    ]


SUBAGENT_PROMPT = "List every public function defined under utils/ with file:line."


class SubagentMock(AnthropicMock):
    """Serves a subagent's requests (its first user message is the Agent prompt) from a
    script of their own, so a background subagent and the main loop may run concurrently."""

    def __init__(self, script: list[Turn] | None = None, root: Path | None = None) -> None:
        super().__init__(script, root)
        self.sub: list[Turn] = [
            Turn(calls=[shell("grep -n '^def [a-z]' utils/*.py")]),
            Turn(
                text="utils/text.py:1 slug(s), utils/text.py:4 title(s), utils/num.py:1 "
                "clamp(x, lo, hi)."
            ),
        ]

    def _take(self, req: Request) -> Turn:
        messages = (req.body or {}).get("messages") or [{}]
        if SUBAGENT_PROMPT not in _strings(messages[0]):
            return super()._take(req)
        with self._lock:
            self.requests.append(req)
            turn = self.sub.pop(0) if self.sub else Turn(text="Done.")
            self._lock.notify_all()
            return turn


class CodexSubagentMock(ResponsesMock):
    """Serves Codex's sub-agent (its requests name a thread of their own) from a script of its
    own: a shell call, then its answer. `spawn_agent` and `wait_agent` come in the namespace
    multi_agent_v2 offers them in, `collaboration`."""

    def __init__(self, script: list[Turn] | None = None, root: Path | None = None) -> None:
        super().__init__(script, root)
        self.parent: str | None = None
        self.sub: list[Turn] = [
            Turn(calls=[shell("grep -n '^def [a-z]' utils/*.py")]),
            Turn(
                text="utils/text.py:1 slug(s), utils/text.py:3 title(s), utils/num.py:1 "
                "clamp(x, lo, hi)."
            ),
        ]

    def _take(self, req: Request) -> Turn:
        thread = req.headers.get("thread-id")
        self.parent = self.parent or thread
        if thread == self.parent:
            return super()._take(req)
        with self._lock:
            self.requests.append(req)
            turn = self.sub.pop(0) if self.sub else Turn(text="Done.")
            self._lock.notify_all()
            return turn

    def items(self, turn: Turn) -> list[dict[str, Any]]:
        out = super().items(turn)
        for item in out:
            if item.get("name") in ("spawn_agent", "wait_agent"):
                item["namespace"] = "collaboration"
        return out


class GeminiSubagentMock(GeminiMock):
    """Serves Gemini CLI's sub-agent (its requests open with the `invoke_agent` prompt) from a
    script of its own: a shell call, then `complete_task` with the generalist's result."""

    def __init__(self, script: list[Turn] | None = None, root: Path | None = None) -> None:
        super().__init__(script, root)
        self.sub: list[Turn] = [
            Turn(calls=[shell("grep -n '^def [a-z]' utils/*.py")]),
            Turn(
                calls=[
                    raw(
                        "complete_task",
                        result={
                            "response": "utils/text.py:1 slug(s), utils/text.py:3 title(s), "
                            "utils/num.py:1 clamp(x, lo, hi)."
                        },
                    )
                ]
            ),
        ]

    def _take(self, req: Request) -> Turn:
        contents = (req.body or {}).get("contents") or [{}]
        if SUBAGENT_PROMPT not in _strings(contents[0]):
            return super()._take(req)
        with self._lock:
            self.requests.append(req)
            turn = self.sub.pop(0) if self.sub else Turn(text="Done.")
            self._lock.notify_all()
            return turn


# Issue 36, S14: the CLIs compact on their own once the model reports a large prompt.
# Codex: from `model_auto_compact_token_limit` on, inside a turn that goes on after a tool
# call (its compaction request is a `/responses` call of its own). Gemini CLI: from half
# of the model's window (`model.compressionThreshold`, 0.5 of 1,048,576), before the next
# model call; it summarises through two `:generateContent` calls. OpenCode: when a step
# fills its model's window (`m1`: 100,000 tokens, seeded by tests/e2e/harness.py), through
# its summarization agent. The mocks answer every kind of compaction request with their
# `compact_summary`, consuming no turn; every capture sets it to COMPACT_SUMMARY.
CODEX_COMPACT_LIMIT = 100_000
GEMINI_COMPRESS_AT = 600_000
OPENCODE_FULL = 99_000
COMPACT_SUMMARY = (
    "The user asked to run python3 test_calc.py and check it is stable; it passed every time."
)


def neutral_scenarios(fill: int) -> list[Scenario]:
    """Codex and Gemini CLI: the mock turns each neutral call into the agent's own tool; S14
    compacts on its own once the model reports `fill` prompt tokens."""
    plan = [
        ("Create recipes/scale.py with scale()", "in_progress"),
        ("Check that doubling 2 eggs gives 4", "pending"),
    ]
    done = [(plan[0][0], "completed"), (plan[1][0], "completed")]
    return [
        Scenario(
            "S1",
            "basic",
            "recipe-book",
            "main",
            [
                Run(
                    "Add a scale() helper in recipes/scale.py and check that "
                    "doubling 2 eggs gives 4.",
                    [
                        Turn(calls=[todos(*plan)]),
                        Turn(
                            calls=[
                                write(
                                    "recipes/scale.py",
                                    "def scale(qty, factor):\n    return qty * factor\n",
                                )
                            ]
                        ),
                        Turn(
                            calls=[
                                shell(
                                    "python3 -c 'from recipes.scale import scale; "
                                    "print(scale(2, 2))'"
                                )
                            ]
                        ),
                        Turn(calls=[todos(*done)]),
                        Turn(text="Added scale(); doubling 2 eggs gives 4."),
                    ],
                )
            ],
            files={"recipes/__init__.py": ""},
            todos=done,
            edited=["recipes/scale.py"],
        ),
        Scenario(
            "S2",
            "resume",
            "billing-api",
            "feature/retry",
            [
                Run(
                    "Create billing/api.py with a charge(amount) function.",
                    [
                        Turn(
                            calls=[write("billing/api.py", "def charge(amount):\n    return {}\n")]
                        ),
                        Turn(text="Created billing/api.py."),
                    ],
                ),
                Run(
                    "Which files are in billing/?",
                    [Turn(calls=[shell("ls billing")]), Turn(text="Only api.py.")],
                    resume=True,
                ),
            ],
            edited=["billing/api.py"],
        ),
        Scenario(
            "S3",
            "usage_limit",
            "invoice-export",
            "main",
            [
                Run(
                    "Export every invoice as CSV into out/invoices.csv.",
                    [
                        Turn(
                            calls=[
                                todos(
                                    ("Read the invoice model", "in_progress"),
                                    ("Write the CSV exporter", "pending"),
                                )
                            ]
                        ),
                        Turn(error="usage_limit"),
                    ],
                )
            ],
            todos=[
                ("Read the invoice model", "in_progress"),
                ("Write the CSV exporter", "pending"),
            ],
        ),
        Scenario(
            "S4",
            "interrupted",
            "etl-jobs",
            "main",
            [
                Run(
                    "Run the nightly job with ./scripts/nightly.sh and fix what fails.",
                    [
                        Turn(
                            calls=[
                                todos(
                                    ("Run ./scripts/nightly.sh", "in_progress"),
                                    ("Fix the failures", "pending"),
                                )
                            ]
                        ),
                        Turn(calls=[shell("./scripts/nightly.sh")]),
                    ],
                    kill_after_turns=2,
                    rc_note="SIGKILL sent while the shell tool ran",
                )
            ],
            files={"scripts/nightly.sh": "#!/bin/sh\nsleep 60\necho ok\n"},
            todos=[("Run ./scripts/nightly.sh", "in_progress"), ("Fix the failures", "pending")],
        ),
        *attempt_scenarios({}, compact="auto", fill=fill, fail_first=True),
    ]


# The one chain Gemini CLI 0.61 falls back along without asking (every action "silent"), so
# a headless run shows it: flash-lite, then flash, then pro. Only Gemini 2 models get
# write_todos, and they never fall back headless: this session has no todo list.
FALLBACK_FROM = "gemini-3.1-flash-lite"
CODEX_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PermissionRequest",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "Stop",
    "Interrupt",
)
GEMINI_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "BeforeTool",
    "AfterTool",
    "PreCompress",
    "Notification",
)


def gemini_scenarios() -> list[Scenario]:
    return [
        *neutral_scenarios(GEMINI_COMPRESS_AT),
        Scenario(
            "S8",
            "subagent",
            "text-utils",
            "main",
            [
                Run(
                    "Spin up a subagent to inventory the public functions in utils/ "
                    "and tell me what it found.",
                    [
                        Turn(
                            calls=[
                                raw("invoke_agent", agent_name="generalist", prompt=SUBAGENT_PROMPT)
                            ]
                        ),
                        Turn(
                            text="It found three public functions: slug, title and clamp.",
                            input_tokens=2100,
                            output_tokens=40,
                        ),
                    ],
                )
            ],
            files={
                "utils/text.py": "def slug(s):\n    return s\ndef title(s):\n    return s\n",
                "utils/num.py": "def clamp(x, lo, hi):\n    return x\n",
            },
            mock=GeminiSubagentMock,
        ),
        Scenario(
            "S9",
            "fallback",
            "greeter",
            "main",
            [
                Run(
                    "Add a greet() helper in greet.py and run it.",
                    [
                        Turn(calls=[write("greet.py", "def greet():\n    return 'hi'\n")]),
                        # the flash-lite model's quota runs out here: flash serves the rest
                        Turn(calls=[shell("python3 -c 'import greet; print(greet.greet())'")]),
                        Turn(
                            text="Added greet(); it prints hi.", input_tokens=2400, output_tokens=30
                        ),
                    ],
                ),
                Run(
                    "Make greet() take a name.",
                    [
                        Turn(
                            calls=[
                                raw(
                                    "replace",
                                    file_path=f"{P}/greet.py",
                                    instruction="Give greet() a name parameter.",
                                    old_string="def greet():\n    return 'hi'\n",
                                    new_string="def greet(name):\n    return f'hi {name}'\n",
                                )
                            ]
                        ),
                        Turn(text="greet() now takes a name.", input_tokens=2900, output_tokens=25),
                    ],
                    resume=True,
                ),
            ],
            edited=["greet.py"],
            mock=GeminiFallbackMock,
            model=FALLBACK_FROM,
            log_hooks=True,
        ),
    ]


def codex_scenarios() -> list[Scenario]:
    plan = [("Write slug() in text/slug.py", "in_progress"), ("Run it on 'Hello World'", "pending")]
    done = [(plan[0][0], "completed"), (plan[1][0], "completed")]

    def first() -> list[Turn]:  # fresh turns for each scenario
        return [
            Turn(calls=[todos(*plan)]),
            Turn(
                calls=[
                    write("text/slug.py", "def slug(s):\n    return s.lower().replace(' ', '-')\n")
                ]
            ),
            Turn(text="Wrote slug() in text/slug.py."),
        ]

    ask = "Add a slug() helper in text/slug.py."
    neutral = neutral_scenarios(2 * CODEX_COMPACT_LIMIT)
    for sc in neutral:
        if sc.sid == "S14":
            sc.flags = ["-c", f"model_auto_compact_token_limit={CODEX_COMPACT_LIMIT}"]
    return [
        *neutral,
        Scenario(
            "S8",
            "subagent",
            "text-utils",
            "main",
            [
                Run(
                    "Spin up a subagent to inventory the public functions in utils/ "
                    "and tell me what it found.",
                    [
                        Turn(
                            calls=[
                                raw(
                                    "spawn_agent",
                                    task_name="inventory",
                                    message=SUBAGENT_PROMPT,
                                    fork_turns="none",
                                )
                            ]
                        ),
                        Turn(calls=[raw("wait_agent", timeout_ms=30000)]),
                        Turn(
                            text="It found three public functions: slug, title and clamp.",
                            input_tokens=2100,
                            output_tokens=40,
                        ),
                    ],
                )
            ],
            files={
                "utils/text.py": "def slug(s):\n    return s\ndef title(s):\n    return s\n",
                "utils/num.py": "def clamp(x, lo, hi):\n    return x\n",
            },
            mock=CodexSubagentMock,
            flags=["--enable", "multi_agent_v2"],  # spawn_agent is offered only then
            log_hooks=True,
        ),
        Scenario(
            "S10",
            "archived",
            "slugger",
            "main",
            [
                Run(ask, first()),
                Run("", [], action="archive"),
                Run(
                    "Run it on 'Hello World'.",
                    [],
                    resume=True,
                    rc_note="Codex refuses to resume an archived thread",
                ),
            ],
            todos=plan,
            edited=["text/slug.py"],
        ),
        Scenario(
            "S11",
            "fork",
            "slugger-fork",
            "main",
            [
                Run(ask, first()),
                Run(
                    "Now run it on 'Hello World' and finish the plan.",
                    [
                        Turn(
                            calls=[
                                shell(
                                    "python3 -c 'from text.slug import slug; "
                                    'print(slug("Hello World"))\''
                                )
                            ]
                        ),
                        Turn(calls=[todos(*done)]),
                        Turn(
                            text="slug('Hello World') is hello-world.",
                            input_tokens=2200,
                            output_tokens=40,
                        ),
                    ],
                    action="fork",
                ),
                Run(
                    "Which files are in text/?",
                    [Turn(calls=[shell("ls text")]), Turn(text="Only slug.py.")],
                    action="parent",
                ),
            ],
            todos=done,
            edited=["text/slug.py"],
        ),
    ]


SCENARIOS: dict[str, Callable[[], list[Scenario]]] = {
    "claude": claude_scenarios,
    "codex": codex_scenarios,
    "gemini": gemini_scenarios,
    # issue 36's three: Copilot CLI compacts on `/compact` (`-p /compact --resume`), OpenCode
    # only by itself (`run --command compact` is an unknown command in 1.18.33)
    "copilot": lambda: attempt_scenarios({}, compact="manual"),
    "opencode": lambda: attempt_scenarios({}, compact="auto", fill=OPENCODE_FULL),
}
COPILOT_EVENTS = (
    "sessionStart",
    "sessionEnd",
    "userPromptSubmitted",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "errorOccurred",
    "agentStop",
    "preCompact",
)
# OpenCode's hooks are baker's plugin: a `baker` on PATH that logs what it is sent (its stdin,
# as `baker checkpoint|pickup|pretool --agent opencode` get it) and answers nothing.
BAKER_LOGGER = "#!/usr/bin/env python3\n" + HOOK_LOGGER


def _git(project: Path, *argv: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Capture", "-c", "user.email=capture@example.com", *argv],
        cwd=project,
        check=True,
        capture_output=True,
    )


def _setup(agent: str, sc: Scenario, home: Path, node_bin: Path) -> Agent:
    project = home / "src" / sc.project
    project.mkdir(parents=True)
    _git(project, "init", "-q", "-b", sc.branch)
    for rel, text in {"README.md": f"# {sc.project}\n", **sc.files}.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
        if rel.endswith(".sh"):
            (project / rel).chmod(0o755)
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "start")
    bindir = home / "bin"
    bindir.mkdir()
    (bindir / "hook_logger.py").write_text(HOOK_LOGGER)
    script = [t for r in sc.runs for t in r.turns]
    for turn in script:  # the project's absolute path, known only now
        turn.calls = [Call(c.kind, _fill(c.args, str(project))) for c in turn.calls]
    mock = (sc.mock or MOCKS[agent])(script, root=project)
    mock.compact_summary = COMPACT_SUMMARY
    mock.start()
    a = make_agent(agent, home, project, mock, node_bin=node_bin)
    a.env.update({"TZ": "UTC", **sc.env})
    config_dir = a.config_dir
    if agent == "claude":
        settings = json.loads((config_dir / "settings.json").read_text())
        settings["hooks"] = {
            ev: [
                {
                    "matcher": "",
                    "hooks": [
                        {"type": "command", "command": f"python3 {bindir}/hook_logger.py {ev}"}
                    ],
                }
            ]
            for ev in CLAUDE_EVENTS
        }
        (config_dir / "settings.json").write_text(json.dumps(settings, indent=1))
    if agent == "codex" and sc.log_hooks:  # hooks.json: Claude Code's shape (formats/codex.md)
        hooks: dict[str, list[dict[str, Any]]] = {
            ev: [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": f"python3 {bindir}/hook_logger.py {ev}",
                            "timeout": 3 if ev in ("SessionEnd", "Interrupt") else 20,
                        }
                    ]
                }
            ]
            for ev in CODEX_EVENTS
        }
        (config_dir / "hooks.json").write_text(json.dumps({"hooks": hooks}, indent=1))
    if agent == "gemini" and sc.log_hooks:
        path = config_dir / ".gemini" / "settings.json"
        settings = json.loads(path.read_text())
        settings["hooks"] = {
            ev: [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "name": "logger",
                            "timeout": 10_000,
                            "command": f"python3 {bindir}/hook_logger.py {ev}",
                        }
                    ]
                }
            ]
            for ev in GEMINI_EVENTS
        }
        path.write_text(json.dumps(settings, indent=1))
    if agent == "copilot" and sc.log_hooks:  # user-level inline hooks: no trust needed
        hooks = {
            ev: [{"type": "command", "bash": f"python3 {bindir}/hook_logger.py {ev}"}]
            for ev in COPILOT_EVENTS
        }
        (config_dir / "settings.json").write_text(json.dumps({"hooks": hooks}, indent=1))
    if agent == "opencode" and sc.log_hooks:
        from continuity_opencode import install

        plugin = project / ".opencode" / install.PLUGIN_DIR
        plugin.mkdir(parents=True)
        (plugin / install.PLUGIN_NAME).write_text(install.plugin_source())
        (bindir / "baker").write_text(BAKER_LOGGER)
        (bindir / "baker").chmod(0o755)
        a.env["PATH"] = f"{bindir}{os.pathsep}{a.env['PATH']}"
    return a


def _fill(args: dict[str, Any], project: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in args.items():
        out[k] = (
            _fill(v, project)
            if isinstance(v, dict)
            else (v.replace(P, project) if isinstance(v, str) else v)
        )
    return out


def _argv(
    a: Agent, sc: Scenario, run: Run, session: str | None, first: str | None = None
) -> list[str]:
    agent = a.name
    if run.action == "parent":
        run, session = Run(run.prompt, run.turns, resume=True), first
    resume = bool(run.resume and session)
    if agent == "codex" and run.action == "archive":
        return ["codex", "archive", str(session)]
    if agent == "codex" and run.action == "fork":
        return [
            "codex",
            "exec",
            "fork",
            str(session),
            "--skip-git-repo-check",
            "--json",
            "--dangerously-bypass-approvals-and-sandbox",
            run.prompt,
        ]
    # the logging hooks run untrusted: a hook's trust is a hash of its entry
    trust = ["--dangerously-bypass-hook-trust"] if agent == "codex" and sc.log_hooks else []
    return a.argv(
        run.prompt,
        headless=True,
        resume=session if resume else None,
        model=sc.model,
        options=[*trust, *sc.flags],
    )


def run_scenario(
    agent: str, sc: Scenario, node_bin: Path, out: Path, hooks_subdir: str = ""
) -> dict[str, Any]:
    """Play `sc`, copy what the CLI wrote under `out`; the ground truth of its transcript."""
    home = Path(tempfile.mkdtemp(prefix="capture-"))
    try:
        return _play(agent, sc, home, node_bin, out, hooks_subdir)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _play(
    agent: str, sc: Scenario, home: Path, node_bin: Path, out: Path, hooks_subdir: str
) -> dict[str, Any]:
    a = _setup(agent, sc, home, node_bin)
    invocations: list[dict[str, Any]] = []
    session: str | None = None
    first: str | None = None  # the scenario's first session (a fork's parent)
    served = 0
    try:
        for r in sc.runs:
            argv = _argv(a, sc, r, session, first)
            served += len(r.turns)
            proc = subprocess.Popen(
                argv,
                cwd=a.project,
                env=a.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
            if r.kill_after_turns:

                def played(n: int = served) -> bool:
                    return a.mock.played() >= n

                a.mock.wait_for(played, timeout=120)
                time.sleep(3)  # the tool is running now
                os.killpg(proc.pid, signal.SIGKILL)
            try:
                stdout, stderr = proc.communicate(timeout=180)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                stdout, stderr = proc.communicate()
            shown = " ".join(
                "<prompt>"
                if x == r.prompt
                else "<id>"
                if x == session
                else "<first id>"
                if x == first
                else x
                for x in argv
            )
            inv: dict[str, Any] = {"argv": shown, "rc": proc.returncode}
            if r.rc_note:
                inv["note"] = r.rc_note
            said = [
                line.strip()
                for line in (stdout + stderr).splitlines()
                if line.startswith(("Error:", "Archived session"))
            ]
            if said:  # what Codex answered an archive, or a resume it refused
                inv["output"] = _rehome(said[0].encode(), a.home).decode()
            invocations.append(inv)
            if r.action in ("archive", "parent") or (
                agent == "codex" and proc.returncode != 0 and not stdout.strip()
            ):
                continue  # no new session: the same one goes on
            try:
                session = session_id(a, stdout)
                if agent == "gemini":  # after a model fallback the id printed is a new one
                    printed, session = session, _gemini_file_id(a, session)
                    if printed != session:
                        inv["printed_session_id"] = printed
                first = first or session
            except (ValueError, KeyError, TypeError, AssertionError):
                # a killed or failed run prints no id (Gemini exits 173 on its quota error)
                print(
                    f"{agent} {sc.sid}: exit {proc.returncode}, no session id printed; "
                    f"stderr ends: {stderr[-300:].strip()!r}",
                    file=sys.stderr,
                )
        time.sleep(1)  # SessionEnd hooks finish after the CLI exits
    finally:
        a.mock.stop()
    return _collect(agent, sc, a, out, invocations, session, hooks_subdir)


def _gemini_file_id(a: Agent, printed: str) -> str:
    """The id `--resume` takes: the chat file's own. Gemini CLI 0.61 gives a session a new id
    when it falls back to another model, prints that one, and refuses it for `--resume`; the
    file keeps its name and header. The printed id when the newest file holds it."""
    files = sorted(transcript_files(a), key=lambda f: f.stat().st_mtime)
    if not files or printed[:8] in files[-1].name:
        return printed
    head = json.loads(files[-1].read_bytes().split(b"\n", 1)[0])
    return str(head.get("sessionId") or printed)


def _slug(path: str) -> str:
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in path)


def _rehome(data: bytes, home: Path) -> bytes:
    return data.replace(str(home).encode(), HOME_AS.encode()).replace(
        _slug(str(home)).encode(), _slug(HOME_AS).encode()
    )


def _collect(
    agent: str,
    sc: Scenario,
    a: Agent,
    out: Path,
    invocations: list[dict[str, Any]],
    session: str | None,
    hooks_subdir: str,
) -> dict[str, Any]:
    native = out / agent / f".{agent}"
    said = subprocess.run(
        [agent, "--version"], env=a.env, capture_output=True, text=True, check=False
    ).stdout.strip()
    version = (said.splitlines() or [""])[0]  # Copilot CLI adds a line about `copilot update`
    truth: dict[str, Any] = {}
    tree = a.home / ".gemini" if agent == "gemini" else a.config_dir
    mains: list[Path] = []
    if agent == "opencode":  # one SQLite database for every session: kept whole, per scenario
        tree, dest = a.home / ".local" / "share" / "opencode", out / agent / sc.project
        key = _opencode_db(tree / "opencode.db", dest / "opencode.db.gz", a.home)
        truth[key] = _opencode_truth(sc, dest / "opencode.db.gz", version, invocations, session)
        truth[key]["files_edited"] = _really_edited(a.project, sc)
    for src in sorted(_native_files(agent, tree)):
        rel = Path(_rehome(str(src.relative_to(tree)).encode(), a.home).decode())
        dest = native / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        data = _rehome(src.read_bytes(), a.home)
        if src.name == "projects.json" and dest.exists():  # Gemini's registry: merged
            merged = json.loads(dest.read_text())
            merged.setdefault("projects", {}).update(json.loads(data).get("projects", {}))
            data = (json.dumps(merged, indent=2) + "\n").encode()
        dest.write_bytes(data)
        # a killed run printed no id: every main transcript is this one
        if _is_main(agent, src, session):
            mains.append(dest)
    edited = _really_edited(a.project, sc)
    for dest in mains:
        key = str(dest.relative_to(out))
        if agent != "claude":
            truth[key] = _neutral_truth(agent, sc, dest, version, invocations)
            truth[key]["files_edited"] = edited
            continue
        truth[key] = _claude_truth(sc, dest, version, invocations)
        truth[key]["files_edited"] = edited
        subagents = sorted(dest.with_suffix("").glob("subagents/*.jsonl"))
        if subagents:
            truth[key]["subagents"] = [str(f.relative_to(out)) for f in subagents]
    hooks = a.home / "bin" / "hooks.jsonl"
    if hooks.exists():
        _write_hooks(out / agent / "hook_payloads" / hooks_subdir, sc.sid, hooks, a.home)
    return truth


def _really_edited(project: Path, sc: Scenario) -> list[str]:
    """The scenario's files that git sees changed or new: an edit the CLI refused (2.1.197's
    Edit of a file not read first) is no fact."""
    status = subprocess.run(
        ["git", "status", "--porcelain", "-uall"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    changed = {line[3:].strip().strip('"') for line in status.splitlines()}
    kept = [f for f in sc.edited if f in changed]
    if kept != sc.edited:
        print(
            f"{sc.sid}: not edited after all: {sorted(set(sc.edited) - set(kept))}", file=sys.stderr
        )
    return kept


def _native_files(agent: str, tree: Path) -> list[Path]:
    """What the CLI wrote that the fixture sets keep (OpenCode's database: `_opencode_db`)."""
    if agent == "opencode":
        return []
    if agent == "copilot":
        return [
            f
            for folder in (tree / "session-state").glob("*")
            for f in (folder / "events.jsonl", folder / "workspace.yaml", folder / "session.db")
            # its session.db only where the model wrote todos (a compaction makes one without)
            if f.exists() and (f.suffix != ".db" or b"CREATE TABLE todos" in f.read_bytes())
        ]
    if agent == "claude":
        return list((tree / "projects").rglob("*.jsonl"))
    if agent == "codex":
        return [
            *(tree / "sessions").rglob("rollout-*.jsonl"),
            *(tree / "archived_sessions").rglob("rollout-*.jsonl"),
        ]
    files = [tree / "projects.json"] if (tree / "projects.json").exists() else []
    for slug in (tree / "tmp").glob("*"):
        files += [f for f in (slug / ".project_root", slug / "logs.json") if f.exists()]
        files += list((slug / "chats").glob("session-*.jsonl"))
    return files


def _is_main(agent: str, src: Path, session: str | None) -> bool:
    if src.suffix != ".jsonl" or "/subagents/" in str(src):
        return False
    if session is None:
        return True
    if agent == "claude":
        return src.stem == session
    if agent == "copilot":  # session-state/<id>/events.jsonl
        return src.name == "events.jsonl" and src.parent.name == session
    if agent == "codex" and b'"thread_source":"subagent"' in src.read_bytes()[:4000]:
        return False  # a sub-agent's own rollout: kept beside its parent's, no session of its own
    if agent == "codex":  # a fork's parent is a transcript of the scenario too
        return src.stem.endswith(session) or b'"forked_from_id"' not in src.read_bytes()[:400]
    # `--resume` in another minute leaves a stub beside the session: a header, no messages
    return (
        session[:8] in src.stem
        and session in src.read_text(errors="replace")
        and any(
            isinstance(r.get("id"), str) and r["id"] != GEMINI_CONTEXT_ID for r in _records(src)
        )
    )


GEMINI_CONTEXT_ID = "d04923d38bb0f6017037e74183378ef4"  # the CLI's <session_context> message


def _opencode_db(db: Path, dest: Path, home: Path) -> str:
    """OpenCode's database, its write-ahead log folded in and the capture home rewritten to
    HOME_AS in every text column, gzipped to `dest`; the key of its ground truth."""
    import gzip
    import sqlite3

    from tests.opencode.helpers import relocate

    plain = dest.with_suffix("")
    plain.parent.mkdir(parents=True, exist_ok=True)
    plain.unlink(missing_ok=True)
    src = sqlite3.connect(db)
    try:
        copy = sqlite3.connect(plain)
        src.backup(copy)
        copy.close()
    finally:
        src.close()
    relocate(plain, HOME_AS, str(home))
    conn = sqlite3.connect(plain)
    conn.execute("VACUUM")
    conn.close()
    dest.write_bytes(gzip.compress(plain.read_bytes(), mtime=0))
    plain.unlink()
    return str(dest.relative_to(dest.parent.parent.parent))


def _opencode_truth(
    sc: Scenario, db_gz: Path, version: str, invocations: list[dict[str, Any]], session: str | None
) -> dict[str, Any]:
    """OpenCode: what the scenario's script fixes, and what its database says of compaction
    and errors."""
    import gzip
    import sqlite3

    raw_db = gzip.decompress(db_gz.read_bytes())
    with tempfile.TemporaryDirectory() as tmp:
        plain = Path(tmp) / "opencode.db"
        plain.write_bytes(raw_db)
        conn = sqlite3.connect(plain)
        try:
            sid, cwd = conn.execute(
                "SELECT id, directory FROM session WHERE id = ? OR ? IS NULL "
                "ORDER BY time_created LIMIT 1",
                (session, session),
            ).fetchone()
            parts = [
                json.loads(d)
                for (d,) in conn.execute(
                    "SELECT p.data FROM part p JOIN message m ON m.id = p.message_id "
                    "WHERE p.session_id = ? ORDER BY m.time_created, p.id",
                    (sid,),
                )
            ]
            errors = [
                _obj(json.loads(d).get("error"))
                for (d,) in conn.execute(
                    "SELECT data FROM message WHERE session_id = ? ORDER BY time_created", (sid,)
                )
            ]
        finally:
            conn.close()
    requests = [r.prompt for r in sc.runs if not r.prompt.startswith("/")]
    gt: dict[str, Any] = {
        "agent": "opencode",
        "cli_version": version,
        "scenario": sc.sid,
        "kind": sc.kind,
        "session_id": sid,
        "cwd": cwd,
        "user_requests": requests,
        "latest_user_request": requests[-1],
        "cli_invocations": invocations,
        "part_types": dict(Counter(str(p.get("type")) for p in parts)),
    }
    errors = [e for e in errors if e]
    if errors:
        data = _obj(errors[-1].get("data"))
        gt["error_in_transcript"] = True
        kind = next((t.error for r in sc.runs for t in r.turns if t.error), None)
        gt["api_errors"] = [
            {"kind": kind, "name": errors[-1].get("name"), "status": data.get("statusCode")}
        ]
    if sc.compaction:
        compactions = [p for p in parts if p.get("type") == "compaction"]
        gt["compaction"] = {
            "compact_boundaries": len(compactions),
            "trigger": "auto" if compactions and compactions[0].get("auto") else "manual",
            "requests_after_compaction": requests[-1:],
        }
    _attempt_truth(sc, raw_db, gt)
    return gt


def _neutral_truth(
    agent: str, sc: Scenario, path: Path, version: str, invocations: list[dict[str, Any]]
) -> dict[str, Any]:
    """Codex and Gemini: the facts the scenario's script fixes, where the CLI records them."""
    text = path.read_text(errors="replace")
    meta = (_records(path) or [{}])[0].get("payload") or {}
    # what reached this file: a run Codex refused did not; a fork's parent stops at the fork
    ran = [
        r
        for r, inv in zip(sc.runs, invocations, strict=True)
        if r.prompt
        and r.action != "archive"
        # a run that ended on a limit exits non-zero, its prompt recorded all the same
        and (inv["rc"] == 0 or json.dumps(r.prompt)[1:-1] in text)
    ]
    fork = next((i for i, r in enumerate(ran) if r.action == "fork"), None)
    if fork is not None and meta.get("forked_from_id"):  # the fork: not the parent's later runs
        ran = [r for r in ran if r.action != "parent"]
    elif fork is not None:  # the parent: before the fork, and where it went on after it
        ran = [r for i, r in enumerate(ran) if i < fork or r.action == "parent"]
    requests = [r.prompt for r in ran if not r.prompt.startswith("/")]  # `/compact`: none
    gt: dict[str, Any] = {
        "agent": agent,
        "cli_version": version,
        "scenario": sc.sid,
        "kind": sc.kind,
        "session_id": next(
            # Codex: the file's name; Copilot CLI: its folder's
            (m for m in re.findall(r"[0-9a-f]{8}-[0-9a-f-]{27}", f"{path.parent.name}{path.name}")),
            None,
        )
        or _first_id(text),
        "cwd": f"{HOME_AS}/src/{sc.project}",
        "user_requests": requests,
        "latest_user_request": requests[-1],
        "files_edited": sc.edited,
        "cli_invocations": invocations,
    }
    kinds: Counter[str] = Counter()
    for r in _records(path):
        payload = _obj(r.get("payload"))
        if agent == "codex":  # `event_msg/task_started`, as the shared fixture set counts
            sub = payload.get("type") if r.get("type") in ("event_msg", "response_item") else None
            kinds[f"{r.get('type')}/{sub}" if sub else str(r.get("type"))] += 1
        elif "type" in r:  # Gemini: the message types; Copilot CLI: the event types
            kinds[str(r["type"])] += 1
    if agent == "copilot" and sc.compaction:
        done = [
            _obj(r.get("data"))
            for r in _records(path)
            if r.get("type") == "session.compaction_complete"
        ]
        gt["compaction"] = {
            "compact_boundaries": len(done),
            "trigger": next(
                (
                    _obj(r.get("data")).get("trigger")
                    for r in _records(path)
                    if r.get("type") == "session.compaction_start"
                ),
                None,
            ),
            "summary_excerpt": str(done[0].get("summaryContent") or "")[:400] if done else "",
            "requests_after_compaction": requests[-1:],
        }
    elif sc.compaction:  # Codex, Gemini CLI: on their own
        gt["compaction"] = _auto_compaction(agent, path, requests)
    gt["message_types" if agent == "gemini" else "record_types"] = dict(kinds)
    if agent == "gemini":
        gt.update(_gemini_view(path), project_root=gt["cwd"])
    if "archived_sessions" in path.parts:
        gt["archived"] = True  # `codex archive` moved it there; `codex resume` refuses it
    if sc.kind == "fallback":
        models = [
            str(r["model"])
            for r in _records(path)
            if r.get("type") == "gemini" and isinstance(r.get("model"), str)
        ]
        gt["models_in_order"] = [m for i, m in enumerate(models) if m not in models[:i]]
        gt["model_fallback"] = {
            "requested": sc.model,
            "files": 1,
            "printed_session_ids": [
                i["printed_session_id"] for i in invocations if "printed_session_id" in i
            ],
            "note": "the chat file keeps its name and header id; the id printed and the hooks' "
            "session_id after the fallback are new ones, which --resume refuses",
        }
    if agent == "codex" and fork is not None:
        # the last plan this file's history (a fork's: its parent's part first) set
        lists = [
            c.args["items"] for r in ran for t in r.turns for c in t.calls if c.kind == "todos"
        ]
        gt["plan"] = [{"step": t, "status": s} for t, s in lists[-1]] if lists else []
        if meta.get("forked_from_id"):
            gt["forked_from"] = {
                k: meta.get(k) for k in ("forked_from_id", "forked_from_ordinal_exclusive")
            }
            gt["note"] = (
                "the fork's rollout holds only its own records; its history before "
                "the fork is the parent's records with a lower ordinal"
            )
    elif sc.todos and agent == "codex":
        gt["plan"] = [{"step": t, "status": s} for t, s in sc.todos]
    elif sc.todos:
        gt["todos"] = [{"content": t, "status": s} for t, s in sc.todos]
    killed = [r for r in sc.runs if r.kill_after_turns]
    if killed:
        command = next(c.args["command"] for c in killed[-1].turns[-1].calls)
        gt["interrupted_tool_calls"] = [
            {
                "name": "exec_command" if agent == "codex" else "run_shell_command",
                "input": {"command": command},
                # Gemini writes a tool call only once it has finished
                "recorded_in_transcript": agent == "codex" and command in text,
            }
        ]
    if any(t.error for r in sc.runs for t in r.turns):
        # Gemini 0.61 prints a quota error but never writes it to the session file
        recorded = agent != "gemini"
        gt["error_in_transcript"] = recorded
        if recorded:
            gt["api_errors"] = [{"kind": "usage_limit"}]
    _attempt_truth(sc, path.read_bytes(), gt)
    return gt


def _auto_compaction(agent: str, path: Path, requests: list[str]) -> dict[str, Any]:
    """Codex's `compacted` records, or Gemini CLI's `<state_snapshot>` messages (each history
    rewrite after it, a `--resume` too, repeats one with its id): how many, and which requests
    the file recorded before the first one."""
    recs = _records(path)
    if agent == "codex":
        at = [i for i, r in enumerate(recs) if r.get("type") == "compacted"]
    else:
        first: dict[str, int] = {}
        for i, r in enumerate(recs):
            for m in _array(_obj(r.get("$set")).get("messages")):
                if "<state_snapshot>" in json.dumps(_obj(m).get("content")):
                    first.setdefault(str(_obj(m).get("id")), i)
        at = sorted(first.values())
    before = json.dumps(recs[: at[0]]) if at else ""
    return {
        "compact_boundaries": len(at),
        "trigger": "auto",
        "requests_before_compaction": [q for q in requests if json.dumps(q)[1:-1] in before],
        "summary_excerpt": COMPACT_SUMMARY,
        "requests_after_compaction": requests[-1:],
    }


def _gemini_view(path: Path) -> dict[str, Any]:
    """The facts the shared set records for a Gemini CLI chat log, from its messages as the
    CLI sees them at the end (a record replaces the earlier one of its id)."""
    messages: dict[str, dict[str, Any]] = {}
    for r in _records(path):
        if isinstance(r.get("id"), str) and r.get("type") in ("user", "gemini"):
            messages[r["id"]] = r
    replies = [m for m in messages.values() if m["type"] == "gemini"]
    last = replies[-1] if replies else {}
    return {
        "project_root": None,  # filled in by the caller: the cwd
        "model": last.get("model"),
        "tool_call_sequence": [c.get("name") for m in replies for c in m.get("toolCalls") or []],
        "last_turn_tokens": last.get("tokens"),
        "last_gemini_message": {
            "id": last.get("id"),
            "content": last.get("content"),
            "has_toolCalls": bool(last.get("toolCalls")),
        },
    }


def _first_id(text: str) -> str | None:
    m = re.search(r'"(?:sessionId|id)"\s*:\s*"([0-9a-f-]{36})"', text)
    return m.group(1) if m else None


def _obj(value: object) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _array(value: object) -> list[Any]:
    """`value` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def _records(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_bytes().splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def _claude_truth(
    sc: Scenario, path: Path, version: str, invocations: list[dict[str, Any]]
) -> dict[str, Any]:
    recs = _records(path)
    kinds: Counter[str] = Counter()
    attachments: Counter[str] = Counter()
    calls: list[dict[str, Any]] = []
    results: set[str] = set()
    model, usage, cost = "", {}, None
    errors: list[dict[str, Any]] = []
    main = [r for r in recs if not r.get("isSidechain")]
    for r in main:
        t = str(r.get("type"))
        kinds[f"system/{r.get('subtype')}" if t == "system" else t] += 1
        if t == "attachment":
            attachments[str((r.get("attachment") or {}).get("type"))] += 1
        if t == "cost-state":
            cost = r.get("totalCostUSD")
        msg = _obj(r.get("message"))
        content = _array(msg.get("content"))
        if t == "assistant" and r.get("isApiErrorMessage"):
            text = "".join(b.get("text", "") for b in content if isinstance(b, dict))
            err = {
                "error": r.get("error"),
                "apiErrorStatus": r.get("apiErrorStatus"),
                "text": text,
                "uuid": r.get("uuid"),
                "kind": "rate_limit",
            }
            if r.get("apiError") == "usage_limit_reached":
                reset = (r.get("quotaLimits") or {}).get("resetsAt")
                err["kind"] = "usage_limit"
                err["reset_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(reset))
            errors.append(err)
        elif t == "assistant" and msg.get("model") != "<synthetic>":
            model = msg.get("model") or model
            u = msg.get("usage") or {}
            ctx = sum(
                int(u.get(k) or 0)
                for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
            )
            usage = {
                k: u.get(k)
                for k in (
                    "input_tokens",
                    "cache_creation_input_tokens",
                    "cache_read_input_tokens",
                    "output_tokens",
                )
            }
            usage["context_tokens(input+cache_creation+cache_read)"] = ctx
            usage["message_id"] = msg.get("id")
            calls += [b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                results.add(str(b.get("tool_use_id")))
    first = next((r for r in main if r.get("cwd")), {})
    requests = [r.prompt for r in sc.runs if not r.prompt.startswith("/")]
    gt: dict[str, Any] = {
        "agent": "claude",
        "cli_version": version,
        "scenario": sc.sid,
        "kind": sc.kind,
        "session_id": path.stem,
        "cwd": first.get("cwd"),
        "git_branch": next((r["gitBranch"] for r in reversed(main) if r.get("gitBranch")), None),
        "entrypoint": first.get("entrypoint"),
        "model": model,
        "user_requests": requests,
        "latest_user_request": requests[-1],
        # ToolSearch only loads a deferred tool's schema: not a step of the work
        "tool_call_sequence": [c["name"] for c in calls if c["name"] != "ToolSearch"],
        "files_edited": sc.edited,
        "last_turn_usage": usage,
        "record_types": dict(kinds),
        "attachment_types": dict(attachments),
        "cli_invocations": invocations,
    }
    names = {c["name"] for c in calls}
    if sc.todos and "TaskCreate" in names:
        gt["tasks"] = [
            {"id": str(i), "subject": t, "status": s} for i, (t, s) in enumerate(sc.todos, 1)
        ]
    elif sc.todos:
        gt["todos"] = [{"content": t, "status": s} for t, s in sc.todos]
    pending = [c for c in calls if c["id"] not in results and c["name"] != "ToolSearch"]
    if pending:
        gt["interrupted_tool_calls"] = [
            {"tool_use_id": c["id"], "name": c["name"], "input": c["input"]} for c in pending
        ]
    if errors:
        gt["api_errors"] = errors
    if cost is not None:
        gt["cost_usd"] = cost
    if sc.compaction:
        bounds = [r for r in main if r.get("subtype") == "compact_boundary"]
        summary = next((r for r in main if r.get("isCompactSummary")), {})
        body = _obj(summary.get("message")).get("content")
        text = (
            body
            if isinstance(body, str)
            else "".join(b.get("text", "") for b in _array(body) if isinstance(b, dict))
        )
        # the brief shows the summary without 2.1.3xx's list of tools used before it
        text = re.sub(
            r"\s*(?:<system-reminder>\s*)?<tools-used-before-summary>.*?"
            r"</tools-used-before-summary>\s*(?:</system-reminder>\s*)?",
            "\n\n",
            text,
            count=1,
            flags=re.S,
        )
        meta = bounds[0].get("compactMetadata", {}) if bounds else {}
        gt["compaction"] = {
            "compact_boundaries": len(bounds),
            "trigger": meta.get("trigger"),
            "pre_tokens": meta.get("preTokens"),
            "summary_excerpt": text[:400],
            "requests_after_compaction": requests[-1:],
        }
    _attempt_truth(sc, path.read_bytes(), gt)
    return gt


def _attempt_truth(sc: Scenario, raw: bytes, gt: dict[str, Any]) -> None:
    """Every agent: the planted secrets and how often what it wrote (`raw`) holds each; the
    commands run."""
    if sc.secrets:
        gt["secrets"] = {
            k: {"value": v, "total": raw.count(v.encode())} for k, v in sc.secrets.items()
        }
    if sc.commands:
        gt["commands"] = [{"command": c, "failed": f} for c, f in sc.commands]


def _write_hooks(folder: Path, scenario: str, log: Path, home: Path) -> None:
    """Append this scenario's payloads to all.jsonl; keep one file per event and variant."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "all.jsonl").open("a") as all_file:
        for line in log.read_bytes().splitlines():
            entry = json.loads(_rehome(line, home))
            try:
                payload = json.loads(entry["payload"])
            except ValueError:
                continue
            # baker's OpenCode plugin names its event in the payload (argv says the command)
            event = payload.get("hook_event_name") or entry["event"]
            all_file.write(
                json.dumps(
                    {"scenario": scenario, "event": event, "delivery": "stdin", "payload": payload}
                )
                + "\n"
            )
            names = [f"{event}.json"]
            for key in VARIANT_KEYS:
                if isinstance(payload.get(key), str):
                    names.append(f"{event}.{payload[key] or 'empty'}.json")
            for name in names:
                if not (folder / name).exists():
                    (folder / name).write_text(json.dumps(payload, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n\n", 2)[2],
    )
    ap.add_argument("--out", type=Path, help="the fixture set folder to write (merged)")
    ap.add_argument("--agent", choices=sorted(SCENARIOS), default="claude")
    ap.add_argument("--scenario", action="append", help="a scenario id (repeatable); all if none")
    ap.add_argument(
        "--node-bin",
        type=Path,
        default=NODE_BIN,
        help="folder holding the CLI (default: tests/e2e/node_modules/.bin)",
    )
    ap.add_argument(
        "--hooks-subdir",
        default="",
        metavar="NAME",
        help="write hook payloads to <agent>/hook_payloads/NAME (beside older ones)",
    )
    ap.add_argument("--list", action="store_true", help="list the scenarios and exit")
    args = ap.parse_args(argv)
    scenarios = SCENARIOS[args.agent]()
    if args.list:
        for sc in scenarios:
            print(f"{sc.sid:4} {sc.kind:12} {sc.project}")
        return 0
    if args.out is None:
        ap.error("--out is required")
    chosen = [s for s in scenarios if not args.scenario or s.sid in args.scenario]
    if not chosen:
        ap.error(f"no such scenario: {args.scenario}")
    if not (args.node_bin / args.agent).exists():
        ap.error(f"{args.node_bin / args.agent} does not exist: install the CLI first")
    truth_file = args.out / "ground_truth.json"
    truth = json.loads(truth_file.read_text()) if truth_file.exists() else {}
    for sc in chosen:
        start = time.monotonic()
        found = run_scenario(args.agent, sc, args.node_bin, args.out, args.hooks_subdir)
        truth.update(found)
        print(
            f"{args.agent} {sc.sid}: {len(found)} transcript(s) in {time.monotonic() - start:.0f}s",
            flush=True,
        )
    args.out.mkdir(parents=True, exist_ok=True)
    truth_file.write_text(json.dumps(truth, indent=1, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
