"""The seam's commands and sub-agents: `kit.add_command`, `kit.error_line`, `kit.add_subagent`
fill a Session the same way for every adapter."""

from __future__ import annotations

import msgspec

from continuity_core.adapters import kit
from continuity_core.schemas.session import Session, limits

PYTEST_FAIL = """Exit code 1
============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.4, pluggy-1.5.0
rootdir: /tmp/p
collected 1 item

test_calc.py F                                                           [100%]

=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(2, 2) == 4
E       assert 5 == 4

test_calc.py:4: AssertionError
=========================== short test summary info ============================
FAILED test_calc.py::test_add - assert 5 == 4
============================== 1 failed in 0.02s ===============================
"""

TRACEBACK = """Traceback (most recent call last):
  File "/p/test_calc.py", line 1, in <module>
    from calc import add
ModuleNotFoundError: No module named 'calc'
"""

NODE_FAIL = """
> calc@1.0.0 test
> node --test

✖ adds (1.2ms)
  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
    at TestContext.<anonymous> (/p/test.js:5:10)
"""


def session() -> Session:
    return Session(agent="fake", session_id="s1")


def test_error_line_skips_banners_headers_and_frames() -> None:
    assert kit.error_line(PYTEST_FAIL) == "assert 5 == 4"
    assert kit.error_line(TRACEBACK) == "ModuleNotFoundError: No module named 'calc'"
    assert kit.error_line(NODE_FAIL).startswith("AssertionError [ERR_ASSERTION]")
    assert kit.error_line("\n\nls: cannot access 'x': No such file or directory\n") == (
        "ls: cannot access 'x': No such file or directory"
    )
    assert kit.error_line("Exit code 2\n\n=====\n") == ""


def test_error_line_is_one_short_line() -> None:
    line = kit.error_line("ValueError: " + "x" * 500)
    assert len(line) == kit.ERROR_CHARS
    assert line.endswith("…")


def test_runs_merge_by_outcome_and_failed_twice_two_ways_then_passed_is_three_lines() -> None:
    s = session()
    kit.add_command(s, "pytest -q", exit_code=1, output=PYTEST_FAIL, timestamp="t1")
    kit.add_command(s, "pytest -q", exit_code=1, output=PYTEST_FAIL, timestamp="t2")
    kit.add_command(s, "pytest -q", exit_code=1, output=TRACEBACK, timestamp="t3")
    kit.add_command(s, "pytest -q", exit_code=0, output="1 passed", timestamp="t4")
    assert [(c.count, c.failed, c.error) for c in s.commands] == [
        (2, True, "assert 5 == 4"),
        (1, True, "ModuleNotFoundError: No module named 'calc'"),
        (1, False, ""),
    ]
    assert s.commands[0].timestamp == "t2"
    assert s.commands_total == 4


def test_exit_code_decides_over_the_agents_flag_and_unknown_stays_unknown() -> None:
    s = session()
    assert kit.add_command(s, "make", exit_code=2, failed=False, output="make: *** Error 2").failed
    assert kit.add_command(s, "true", exit_code=0, failed=True).failed is False
    run = kit.add_command(s, "grep x y", output="grep: y: No such file or directory")
    assert (run.exit_code, run.failed, run.error) == (None, None, "")  # never guessed
    flagged = kit.add_command(s, "grep x z", failed=True, output="grep: z: No such file")
    assert (flagged.exit_code, flagged.failed, flagged.error) == (
        None,
        True,
        "grep: z: No such file",
    )


def test_command_and_error_are_redacted() -> None:
    s = session()
    token = "ghp_" + "a1B2c3D4e5" * 4
    run = kit.add_command(
        s,
        f"curl -H 'Authorization: Bearer {token}' https://api.example.com",
        exit_code=1,
        output="psql: error: connection to postgres://admin:Sup3rSecretPw@db:5432/app failed",
    )
    assert token not in run.command and "Sup3rSecretPw" not in run.error
    assert "[REDACTED]" in run.command and run.error.startswith("psql: error")


def test_bounded_keeping_failures_first() -> None:
    s = session()
    kit.add_command(s, "pytest", exit_code=1, output="E   assert False")
    for i in range(limits.COMMANDS + 5):
        kit.add_command(s, f"echo {i}", exit_code=0)
    assert len(s.commands) == limits.COMMANDS
    assert s.commands[0].command == "pytest" and s.commands[0].failed
    assert s.commands[-1].command == f"echo {limits.COMMANDS + 4}"
    assert s.commands_total == limits.COMMANDS + 6


def test_survives_the_cursor_round_trip() -> None:
    s = session()
    kit.add_command(s, "pytest", exit_code=1, output=PYTEST_FAIL)
    kit.add_subagent(s, "Find the config loader", id="a1")
    assert msgspec.convert(msgspec.to_builtins(s), Session) == s


def test_subagent_result_arrives_later_by_id() -> None:
    s = session()
    kit.add_subagent(s, "Find where the limit is parsed", id="call-1", timestamp="t1")
    assert s.subagents[0].result is None
    answer = "The limit is parsed in src/limits.py:40.\n\n" + "\n".join(f"l{i}" for i in range(20))
    kit.add_subagent(s, "", id="call-1", result=answer)
    (sub,) = s.subagents
    assert sub.task == "Find where the limit is parsed" and sub.timestamp == "t1"
    assert sub.result is not None
    assert sub.result.startswith("The limit is parsed in src/limits.py:40.\nl0")
    assert sub.result.endswith("…") and sub.result.count("\n") == kit.SUBAGENT_RESULT_LINES - 1


def test_exit_code_after_reads_a_wrapper_line_only() -> None:
    codex = "Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 2\nOutput:\nboom\n"
    assert kit.exit_code_after(codex, "Process exited with code ") == 2
    assert kit.exit_code_after("Exit code 1\nE   assert False", "Exit code ") == 1
    assert kit.exit_code_after("Output:\nsaid: Exit code 7 here\n", "Exit code ") is None
    assert kit.exit_code_after("Exit code one\n", "Exit code ") is None
    assert kit.exit_code_after("ok\n", "Exit code ") is None
