"""The hook contract under generated input: exit 0, valid hook JSON or nothing, no traceback,
and no failure in the logs. Exit 0 alone proves nothing (`hooks.run` exits 0 whatever
happens, recording the failure as `hook_error`), so each test reads the project's log and
the per-user one afterwards: a hook that failed on an input fails the test.

Payloads are generated in-process (thousands per run) against the same `run` the `baker`
entry point calls; the shapes that once broke it live in `corpus/` and always run.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import BAKER, FIXTURES, run_baker
from tests.helpers.hook_call import call

CORPUS = Path(__file__).parent / "corpus"
AGENTS = ["claude", "codex", "gemini", None]
COMMANDS = ["checkpoint", "pickup", "pretool"]
FIXTURE_CWD = "/home/dev/src/weather-cli"  # the project of the recorded hook payloads


def real_payloads() -> list[dict[str, Any]]:
    out = []
    for path in sorted(FIXTURES.glob("*/hook_payloads/*.json")):
        try:
            value = json.loads(path.read_text())
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


REAL = real_payloads()
json_leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=50)
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A real payload of some agent with some values replaced by wrong types or odd paths."""
    base = dict(draw(st.sampled_from(REAL)))
    for key in draw(st.lists(st.sampled_from(sorted(base)), max_size=4)):
        base[key] = draw(
            st.one_of(
                json_value,
                st.sampled_from(
                    ["/nonexistent/x.jsonl", "/", "/dev/null", "", "../../etc/passwd", "\x00"]
                ),
            )
        )
    return json.dumps(base).encode()


payloads = st.one_of(
    st.binary(max_size=300),
    json_value.map(lambda v: json.dumps(v).encode()),
    mutated(),
    st.integers(1, 5000).map(lambda n: b"[" * n),
    st.sampled_from([b"", b"\xff\xfe\xfd", b"null", b"{}", b'{"cwd": 1}']),
)


@pytest.fixture
def project(repo: Path) -> Path:
    run_baker("init", cwd=repo)
    return repo


def check(out: str) -> None:
    if out.strip():
        json.loads(out)


def hook_errors(project: Path) -> list[str]:
    """Every `hook_error` line in the project's log and in ~/.baker's (where a hook logs when
    the project's cannot be written)."""
    logs = [project / ".baker" / "log", Path.home() / ".baker" / "log"]
    return [
        line
        for folder in logs
        for path in sorted(folder.glob("events*.jsonl"))
        for line in path.read_text(errors="replace").splitlines()
        if json.loads(line).get("event") == "hook_error"
    ]


def no_hook_error(project: Path, payload: bytes | str = b"", before: int = 0) -> None:
    """No `hook_error` beyond the first `before` (those of earlier examples, which hypothesis
    runs in the same project)."""
    errors = hook_errors(project)[before:]
    assert errors == [], (
        bytes(payload[:200], "utf-8") if isinstance(payload, str) else payload[:200],
        errors,
    )


@settings(
    max_examples=int(os.environ.get("BAKER_FUZZ_EXAMPLES", "600")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    payload=payloads, command=st.sampled_from(["pickup", "pretool"]), agent=st.sampled_from(AGENTS)
)
def test_pickup_and_pretool_fuzzed(
    project: Path, payload: bytes, command: str, agent: str | None
) -> None:
    args = [command, *(["--agent", agent] if agent else [])]
    before = len(hook_errors(project))
    code, out = call(args, payload)
    assert code == 0
    if agent:
        check(out)
    no_hook_error(project, payload, before)


@settings(
    max_examples=int(os.environ.get("BAKER_FUZZ_EXAMPLES", "600")) // 3,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(payload=payloads, agent=st.sampled_from(AGENTS))
def test_checkpoint_fuzzed(project: Path, payload: bytes, agent: str | None) -> None:
    before = len(hook_errors(project))
    code, out = call(["checkpoint", "--quiet", *(["--agent", agent] if agent else [])], payload)
    assert code == 0 and out == ""
    no_hook_error(project, payload, before)


def corpus() -> list[Path]:
    return sorted(CORPUS.glob("*.bin"))


@pytest.mark.parametrize("path", corpus(), ids=lambda p: p.name)
@pytest.mark.parametrize("command", COMMANDS)
def test_regression_corpus(project: Path, path: Path, command: str) -> None:
    for agent in AGENTS:
        code, out = call([command, *(["--agent", agent] if agent else [])], path.read_bytes())
        assert code == 0
        if agent and command != "checkpoint":
            check(out)
        no_hook_error(project, path.name)


def test_huge_payload_and_special_paths_as_real_processes(project: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    cases = [
        b"x" * (50 << 20),
        json.dumps(
            {
                "hook_event_name": "Stop",
                "transcript_path": str(fifo),
                "session_id": "s",
                "cwd": str(project),
            }
        ).encode(),
        json.dumps(
            {
                "hook_event_name": "Stop",
                "transcript_path": str(tmp_path),
                "session_id": "s",
                "cwd": str(project),
            }
        ).encode(),
        json.dumps(
            {
                "hook_event_name": "SessionStart",
                "source": "startup",
                "transcript_path": "/no/such/file.jsonl",
                "cwd": str(project),
            }
        ).encode(),
    ]
    for payload in cases:
        for command in COMMANDS:
            result = run_baker(command, "--agent", "claude", cwd=project, input=payload, timeout=30)
            assert result.returncode == 0 and "Traceback" not in result.stderr
            check(result.stdout)
            no_hook_error(project, payload)


@pytest.mark.skipif(os.name == "nt", reason="a POSIX shell closes the descriptor")
@pytest.mark.parametrize("closed", [1, 2], ids=["stdout", "stderr"])
def test_a_hook_started_with_a_stream_closed(project: Path, closed: int) -> None:
    """Started with stdout or stderr closed (Python's `sys.stdout` or `sys.stderr` is None):
    exit 0 and no traceback, for a hook that prints nothing and for pickup's output alike."""
    payloads = FIXTURES / "claude" / "hook_payloads"
    for command, name in (("checkpoint", "Stop"), ("pickup", "SessionStart.startup")):
        text = (payloads / f"{name}.json").read_text().replace(FIXTURE_CWD, str(project))
        assert run_baker(command, "--agent=claude", cwd=project, input=text).returncode == 0
        text = text.replace('"session_id": "', '"session_id": "again-')  # a new event
        result = subprocess.run(
            ["sh", "-c", f'exec "$@" {closed}>&-', "sh", BAKER, command, "--agent=claude"],
            cwd=project,
            input=text.encode(),
            capture_output=True,
            timeout=60,
        )
        assert result.returncode == 0, (command, result.stderr.decode(errors="replace"))
        assert b"Traceback" not in result.stdout + result.stderr
        no_hook_error(project, command)
