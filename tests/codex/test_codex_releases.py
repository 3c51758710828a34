"""`codex archive` and `codex exec fork`, as codex-cli 0.171.0 really does them.

Captured by `scripts/capture.py --agent codex --scenario S10 --scenario S11` into
`tests/fixtures/releases/`: S10 archives a finished thread (Codex moves its rollout to the flat
`archived_sessions/`, and a later `codex exec resume` of it fails, telling to unarchive it
first); S11 forks a thread with a prompt of its own (the fork's rollout holds only its own
records, from `ordinal` N on; its session_meta names the parent and N), and then the parent
goes on (its own records from N on, which are not the fork's).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from continuity_codex import CodexAdapter
from continuity_core.adapters import LaunchOptions
from continuity_core.errors import BakerError
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.session import Session, SessionRef
from continuity_core.store import encode_document
from tests.codex.helpers import line, rollout
from tests.conftest import FIXTURES, copy_tree, run_baker

ADAPTER = CodexAdapter()
SET = FIXTURES / "releases"
TRUTH: dict[str, Any] = json.loads((SET / "ground_truth.json").read_text())
ARCHIVED = next(k for k, v in TRUTH.items() if v["kind"] == "archived")
FORK = next(k for k, v in TRUTH.items() if v["kind"] == "fork" and "forked_from" in v)
PARENT = next(k for k, v in TRUTH.items() if v["kind"] == "fork" and "forked_from" not in v)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The captured Codex home, as CODEX_HOME; the fork newer than its parent, as written."""
    codex = copy_tree(SET / "codex" / ".codex", tmp_path / ".codex")
    for rel, when in ((PARENT, 1_796_000_000), (FORK, 1_796_000_060)):
        os.utime(tmp_path / rel.removeprefix("codex/"), (when, when))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    return codex


def _read(home: Path, rel: str) -> Session:
    path = home.parent / rel.removeprefix("codex/")
    ref = SessionRef(
        agent="codex",
        account="CODEX_HOME",
        session_id=TRUTH[rel]["session_id"],
        path=str(path),
        mtime=path.stat().st_mtime,
    )
    return ADAPTER.read(ref).session


def _check(session: Session, truth: dict[str, Any]) -> None:
    assert session.session_id == truth["session_id"]
    assert session.requests == truth["user_requests"]
    assert session.latest_request == truth["latest_user_request"]
    assert [(t.content, t.status) for t in session.todos] == [
        (p["step"], p["status"]) for p in truth["plan"]
    ]
    assert sorted(f.path for f in session.files_edited) == sorted(truth["files_edited"])
    assert session.bad_lines == 0 and session.unknown_records == {}


def test_the_captures_show_what_codex_does() -> None:
    """Pinned from the real CLI: what the adapter relies on."""
    archived = TRUTH[ARCHIVED]
    assert archived["archived"] and "/archived_sessions/" in ARCHIVED
    refused = archived["cli_invocations"][-1]
    assert refused["rc"] == 1 and "is archived" in refused["output"]
    assert f"codex unarchive {archived['session_id']}" in refused["output"]
    fork = TRUTH[FORK]
    assert fork["forked_from"]["forked_from_id"] == TRUTH[PARENT]["session_id"]
    first = json.loads((SET / FORK).read_bytes().split(b"\n", 1)[0])
    assert first["ordinal"] == fork["forked_from"]["forked_from_ordinal_exclusive"]
    own = (SET / FORK).read_text()
    assert TRUTH[PARENT]["user_requests"][0] not in own  # the parent's part is not copied
    later = [json.loads(raw) for raw in (SET / PARENT).read_bytes().splitlines()]
    assert later[-1]["ordinal"] >= first["ordinal"]  # the parent went on after the fork


def test_an_archived_thread_is_still_read_and_says_so(home: Path) -> None:
    session = _read(home, ARCHIVED)
    _check(session, TRUTH[ARCHIVED])
    assert session.archived and session.forked_from is None


def test_a_fork_holds_its_parents_history_and_names_it(home: Path) -> None:
    session = _read(home, FORK)
    _check(session, TRUTH[FORK])  # the parent's request and edit, then the fork's own
    assert session.forked_from == TRUTH[PARENT]["session_id"]
    assert not session.archived
    parent = _read(home, PARENT)
    _check(parent, TRUTH[PARENT])
    assert parent.forked_from is None


def test_the_parents_work_after_the_fork_is_not_the_forks(home: Path) -> None:
    after = TRUTH[PARENT]["latest_user_request"]
    assert after not in TRUTH[FORK]["user_requests"]
    assert after not in _read(home, FORK).requests
    assert _read(home, PARENT).latest_request == after


def test_a_fork_whose_parent_is_gone_is_read_alone(home: Path) -> None:
    (home.parent / PARENT.removeprefix("codex/")).unlink()
    session = _read(home, FORK)
    assert session.forked_from == TRUTH[PARENT]["session_id"]
    assert session.requests == TRUTH[FORK]["user_requests"][-1:]


def test_a_fork_of_a_fork_takes_each_part_below_its_cut(tmp_path: Path) -> None:
    """Records numbered from the cut on are the parent's later work, not the fork's past."""

    def req(n: int, text: str) -> str:
        return line("event_msg", {"type": "user_message", "message": text}, ordinal=n)

    a, b, c = ("01a20000-0000-7000-8000-00000000000" + x for x in "abc")
    rollout(
        tmp_path,
        a,
        "/w",
        stamp="2026-11-30T04-00-00",
        body=[req(1, "one"), req(2, "two"), req(3, "after the fork")],
    )
    rollout(tmp_path, b, "/w", stamp="2026-11-30T04-01-00", body=[req(3, "b's own")])
    meta_b = tmp_path / "sessions/2026/11/30" / f"rollout-2026-11-30T04-01-00-{b}.jsonl"
    meta_b.write_text(
        meta_b.read_text().replace(
            '"cwd"', f'"forked_from_id": "{a}", "forked_from_ordinal_exclusive": 3, "cwd"', 1
        )
    )
    path = rollout(tmp_path, c, "/w", stamp="2026-11-30T04-02-00", body=[req(4, "c's own")])
    path.write_text(
        path.read_text().replace(
            '"cwd"', f'"forked_from_id": "{b}", "forked_from_ordinal_exclusive": 4, "cwd"', 1
        )
    )
    ref = SessionRef(agent="codex", account="", session_id=c, path=str(path), mtime=0)
    session = ADAPTER.read(ref).session
    assert session.requests == ["one", "two", "b's own", "c's own"]
    assert session.forked_from == b


def _forked(path: Path, parent: str, cut: int) -> Path:
    path.write_text(
        path.read_text().replace(
            '"cwd"',
            f'"forked_from_id": {json.dumps(parent)}, "forked_from_ordinal_exclusive": '
            f'{cut}, "cwd"',
            1,
        )
    )
    return path


def _req(n: int, text: str) -> str:
    return line("event_msg", {"type": "user_message", "message": text}, ordinal=n)


def _fork_read(path: Path, sid: str) -> Session:
    return ADAPTER.read(
        SessionRef(agent="codex", account="", session_id=sid, path=str(path), mtime=0)
    ).session


def test_a_fork_chain_that_loops_is_read_once(tmp_path: Path) -> None:
    """A forked from B forked from A (rollouts edited, or a bug): each part once, no more."""
    a, b, c, d = ("01a20000-0000-7000-8000-00000000000" + x for x in "abcd")
    _forked(rollout(tmp_path, a, "/w", stamp="2026-11-30T04-00-00", body=[_req(1, "a's")]), b, 9)
    _forked(rollout(tmp_path, b, "/w", stamp="2026-11-30T04-01-00", body=[_req(1, "b's")]), a, 9)
    fork = _forked(
        rollout(tmp_path, c, "/w", stamp="2026-11-30T04-02-00", body=[_req(9, "c's own")]), a, 9
    )
    assert _fork_read(fork, c).requests == ["b's", "a's", "c's own"]
    itself = _forked(
        rollout(tmp_path, d, "/w", stamp="2026-11-30T04-03-00", body=[_req(1, "d's own")]), d, 9
    )
    assert _fork_read(itself, d).requests == ["d's own"]


def test_a_secret_in_the_parents_part_is_redacted_like_the_forks_own(tmp_path: Path) -> None:
    a, b = ("01a20000-0000-7000-8000-00000000001" + x for x in "ab")
    key = "sk-ant-api03-" + "x" * 90
    rollout(tmp_path, a, "/w", stamp="2026-11-30T04-00-00", body=[_req(1, f"use {key}")])
    fork = _forked(
        rollout(tmp_path, b, "/w", stamp="2026-11-30T04-01-00", body=[_req(2, "b's own")]), a, 2
    )
    session = _fork_read(fork, b)
    assert session.requests == ["use [REDACTED]", "b's own"]
    assert key not in encode_document(session).decode()


def test_a_parent_id_with_path_characters_is_no_parent(tmp_path: Path) -> None:
    e = "01a20000-0000-7000-8000-00000000000e"
    path = _forked(
        rollout(tmp_path, e, "/w", stamp="2026-11-30T04-04-00", body=[_req(1, "e's own")]),
        "../../../../etc/passwd",
        9,
    )
    session = _fork_read(path, e)
    assert session.forked_from is None and session.requests == ["e's own"]


def test_the_brief_says_when_the_parents_history_is_missing_or_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parents share one first read's budget: a big parent is read from its end."""
    from continuity_core import brief, transcript

    a, b, c = ("01a20000-0000-7000-8000-00000000000" + x for x in "abc")
    rollout(
        tmp_path,
        a,
        "/w",
        stamp="2026-11-30T04-00-00",
        body=[_req(n, f"a{n} " + "x" * 4000) for n in range(1, 40)],
    )
    fork = _forked(
        rollout(tmp_path, b, "/w", stamp="2026-11-30T04-01-00", body=[_req(40, "b's own")]), a, 40
    )
    assert _fork_read(fork, b).fork_history == "all"
    monkeypatch.setattr(transcript, "COLD_MAX", fork.stat().st_size + 20_000)
    session = _fork_read(fork, b)
    assert session.fork_history == "part" and session.requests[-1] == "b's own"
    assert 1 < len(session.requests) < 10 and session.requests[-2].startswith("a39 ")
    assert "only the newest part of its history" in brief._lineage(session)
    gone = _forked(
        rollout(tmp_path, c, "/w", stamp="2026-11-30T04-02-00", body=[_req(3, "c's own")]),
        "01a20000-0000-7000-8000-0000000000ff",
        3,
    )
    session = _fork_read(gone, c)
    assert session.fork_history == "none" and session.requests == ["c's own"]
    assert "could not be read" in brief._lineage(session)


def test_archived_is_the_folder_the_rollout_lies_in_not_any_above() -> None:
    from continuity_codex.discovery import is_archived

    name = "rollout-2026-12-01T06-35-03-01a23050-607b-7353-94f6-cfb64748faf6.jsonl"
    assert is_archived(f"/h/.codex/archived_sessions/{name}")
    assert not is_archived(f"/h/.codex/sessions/2026/12/01/{name}")
    assert not is_archived(f"/backup/archived_sessions/.codex/sessions/2026/12/01/{name}")


def test_a_linked_archive_folder_is_read_and_a_fifo_in_it_is_not_waited_on(
    home: Path, tmp_path: Path
) -> None:
    """`archived_sessions/` moved to another disk and linked back is still the archive; a
    FIFO named like a rollout in it must not hang a scan (discovery reads each head)."""
    import threading

    elsewhere = tmp_path / "elsewhere"
    (home / "archived_sessions").rename(elsewhere)
    (home / "archived_sessions").symlink_to(elsewhere)
    (elsewhere / "loop").symlink_to(elsewhere)
    os.mkfifo(elsewhere / "rollout-2026-12-01T06-35-09-01a23050-607b-7353-94f6-cfb64748fff0.jsonl")
    found: list[list[str]] = []
    thread = threading.Thread(
        daemon=True,
        target=lambda: found.append(
            [
                r.session_id
                for r in ADAPTER.discover(
                    Path(TRUTH[ARCHIVED]["cwd"]), ADAPTER.accounts(GlobalConfig())
                )
            ]
        ),
    )
    thread.start()
    thread.join(20)
    assert found == [[TRUTH[ARCHIVED]["session_id"]]]


def test_discovery_lists_the_archived_thread(home: Path) -> None:
    refs = list(ADAPTER.discover(Path(TRUTH[ARCHIVED]["cwd"]), ADAPTER.accounts(GlobalConfig())))
    assert [r.session_id for r in refs] == [TRUTH[ARCHIVED]["session_id"]]
    assert "/archived_sessions/" in refs[0].path


def test_native_resume_of_an_archived_thread_is_refused_with_what_to_do(
    home: Path, tmp_path: Path
) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text("brief")
    [ref] = ADAPTER.discover(Path(TRUTH[ARCHIVED]["cwd"]), ADAPTER.accounts(GlobalConfig()))
    sid = TRUTH[ARCHIVED]["session_id"]
    with pytest.raises(BakerError, match=f"codex unarchive {sid}") as refused:
        ADAPTER.launch(Path("/w"), brief, LaunchOptions(native=ref))
    assert "is archived" in str(refused.value) and "--native" in str(refused.value)
    dry = ADAPTER.launch(Path("/w"), brief, LaunchOptions(native=ref, dry_run=True))
    assert any(n.startswith("would refuse: ") for n in dry.notes)
    # from the brief, without --native, Codex starts fine
    assert ADAPTER.launch(Path("/w"), brief, LaunchOptions()).argv[0] == "codex"
    # and an unarchived thread (moved back by `codex unarchive`) resumes again
    back = home / "sessions/2026/12/01" / Path(ref.path).name
    back.parent.mkdir(parents=True, exist_ok=True)
    Path(ref.path).rename(back)
    spec = ADAPTER.launch(
        Path("/w"), brief, LaunchOptions(native=msgspec.structs.replace(ref, path=str(back)))
    )
    assert spec.argv[:3] == ["codex", "resume", sid]


def test_native_resume_of_a_fork_in_another_account_takes_its_parents_along(
    home: Path, tmp_path: Path
) -> None:
    """Codex resumes a fork only with its parent's rollout (codex-cli 0.171.0: "invalid
    paginated history lineage …: missing source rollout"): the parent is copied beside it,
    an archived one under its date folders; a parent that is gone refuses, saying what to do."""
    from continuity_core.adapters import Account

    brief = tmp_path / "brief.md"
    brief.write_text("brief")
    fork, parent = (home.parent / k.removeprefix("codex/") for k in (FORK, PARENT))
    ref = SessionRef(
        agent="codex",
        account="CODEX_HOME",
        session_id=TRUTH[FORK]["session_id"],
        path=str(fork),
        mtime=0,
    )
    other = tmp_path / "other-codex"
    other.mkdir()
    to_other = LaunchOptions(native=ref, account=Account(agent="codex", name="o", dir=str(other)))
    dry = ADAPTER.launch(Path("/w"), brief, msgspec.structs.replace(to_other, dry_run=True))
    assert any(n.startswith("would copy the fork's parent: ") for n in dry.notes)
    assert not (other / "sessions").exists()
    # the parent archived in the source account: still its lineage, copied under sessions/
    archived = home / "archived_sessions" / parent.name
    parent.rename(archived)
    spec = ADAPTER.launch(Path("/w"), brief, to_other)
    assert spec.argv[:3] == ["codex", "resume", TRUTH[FORK]["session_id"]]
    assert (other / "sessions/2026/12/01" / fork.name).read_bytes() == fork.read_bytes()
    assert (other / "sessions/2026/12/01" / parent.name).read_bytes() == archived.read_bytes()
    archived.unlink()
    with pytest.raises(BakerError, match="Codex cannot resume the fork without it") as refused:
        ADAPTER.launch(Path("/w"), brief, LaunchOptions(native=ref))
    assert TRUTH[PARENT]["session_id"] in str(refused.value)


# --- through `baker`, in a repository ------------------------------------------------------


def _as_repo(home: Path, repo: Path, rel: str) -> None:
    """The captured rollout (and its parent) as sessions of `repo`."""
    cwd = TRUTH[rel]["cwd"]
    for other in {rel, PARENT} if rel == FORK else {rel}:
        path = home.parent / other.removeprefix("codex/")
        text = path.read_text().replace(f'"{cwd}"', json.dumps(str(repo)))
        text = text.replace(f"<cwd>{cwd}</cwd>", f"<cwd>{repo}</cwd>")
        stat = path.stat()
        path.write_text(text)
        os.utime(path, (stat.st_atime, stat.st_mtime))


@pytest.fixture
def cli_home(home: Path, isolated_home: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pytest.importorskip("continuity_cli", reason="the baker command comes with continuity-cli")
    assert run_baker("init", "--agent", "codex", cwd=repo).returncode == 0
    return home


def test_sessions_and_the_brief_mark_an_archived_thread(cli_home: Path, repo: Path) -> None:
    _as_repo(cli_home, repo, ARCHIVED)
    listed = json.loads(run_baker("sessions", "--json", cwd=repo).stdout)["sessions"]
    assert [(s["id"], s["archived"]) for s in listed] == [(TRUTH[ARCHIVED]["session_id"], True)]
    assert "archived" in run_baker("sessions", cwd=repo).stdout
    brief = run_baker("handoff", "--from", "codex", cwd=repo).stdout
    assert TRUTH[ARCHIVED]["latest_user_request"] in brief and "text/slug.py" in brief
    assert "archived by the agent" in brief
    refused = run_baker("resume", "codex", "--native", cwd=repo)
    assert refused.returncode == 1
    assert f"codex unarchive {TRUTH[ARCHIVED]['session_id']}" in refused.stderr


def test_the_newer_fork_is_the_session_and_names_its_parent(cli_home: Path, repo: Path) -> None:
    _as_repo(cli_home, repo, FORK)
    listed = json.loads(run_baker("sessions", "--json", cwd=repo).stdout)["sessions"]
    fork, parent = TRUTH[FORK]["session_id"], TRUTH[PARENT]["session_id"]
    # listed by last activity: the parent wrote on after the fork began (06:35:06.588 against
    # 06:35:06.239); the brief takes the fork, the newer file
    assert [(s["id"], s["forked_from"], s["chosen"]) for s in listed] == [
        (parent, None, False),
        (fork, parent, True),
    ]
    brief = run_baker("handoff", "--from", "codex", cwd=repo).stdout
    assert f"forked from session {parent}" in brief
    assert TRUTH[FORK]["latest_user_request"] in brief and "text/slug.py" in brief
    for step in TRUTH[FORK]["plan"]:
        assert step["step"] in brief


def test_a_parent_that_went_on_after_the_fork_is_the_newer_session(
    cli_home: Path, repo: Path
) -> None:
    _as_repo(cli_home, repo, FORK)
    for rel, when in ((FORK, 1_796_000_060), (PARENT, 1_796_000_120)):  # as captured
        os.utime(cli_home.parent / rel.removeprefix("codex/"), (when, when))
    listed = json.loads(run_baker("sessions", "--json", cwd=repo).stdout)["sessions"]
    fork, parent = TRUTH[FORK]["session_id"], TRUTH[PARENT]["session_id"]
    assert [(s["id"], s["forked_from"], s["chosen"]) for s in listed] == [
        (parent, None, True),
        (fork, parent, False),
    ]
    brief = run_baker("handoff", "--from", "codex", cwd=repo).stdout
    assert TRUTH[PARENT]["latest_user_request"] in brief and "forked from" not in brief
