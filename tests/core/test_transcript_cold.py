"""A cold read of a long transcript whose last part holds no request still gives the latest
request: found by one backward scan of the part skipped, for each agent benchgen writes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from continuity_core import brief, jsonl, transcript
from continuity_core.schemas.checkpoint import GitFacts
from continuity_core.schemas.session import Session, SessionRef
from continuity_core.transcript import Cursor

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

import benchgen

CWD = "/home/dev/src/cold-read"
COLD = 64 << 10  # the part a first read takes, shrunk from 32 MiB so the files stay small


def reader(agent: str) -> Callable[[SessionRef], Cursor[Any]]:
    pytest.importorskip(f"continuity_{agent}")  # the agent's parser reads its records
    from continuity_core.adapters import load

    return load(agent).read


def cold_read(agent: str, path: Path) -> Session:
    ref = SessionRef(agent=agent, account="test", session_id="s", path=str(path), mtime=0.0)
    return reader(agent)(ref).session


def brief_of(session: Session) -> tuple[brief.Brief, str]:
    made = brief.build(
        project="/p",
        created_at="2026-12-01T00:00:00Z",
        git=GitFacts(),
        note_text=None,
        session=session,
        budget_tokens=100_000,
    )
    return made, brief.render(made)


@pytest.fixture(autouse=True)
def small_cold_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transcript, "COLD_MAX", COLD)


def transcript_with(tmp_path: Path, agent: str, final: str, traffic: int) -> Path:
    gen = benchgen.write_transcript(agent, tmp_path, CWD, 20_000, final=final)
    benchgen.append_traffic(agent, gen.path, CWD, gen.turns, traffic)
    return Path(gen.path)


@pytest.mark.parametrize("agent", benchgen.AGENTS)
def test_the_request_before_the_part_read_is_found(tmp_path: Path, agent: str) -> None:
    path = transcript_with(tmp_path, agent, benchgen.FINAL_REQUEST, 3 * COLD)
    session = cold_read(agent, path)
    assert session.unread_bytes > 2 * COLD  # the request lies in the part skipped
    assert session.requests == [benchgen.FINAL_REQUEST] and session.request_sought == "found"
    made, text = brief_of(session)
    assert made.latest_request == benchgen.FINAL_REQUEST
    assert "## The user's latest request (verbatim)" in text
    assert benchgen.FINAL_REQUEST in text


@pytest.mark.parametrize("agent", benchgen.AGENTS)
def test_a_request_line_over_the_bound_is_read_from_its_start(
    tmp_path: Path, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(transcript, "HEAD_LINE", 16 << 10)
    huge = benchgen.FINAL_REQUEST + " é" * (200 << 10)  # 600 KiB, two-byte characters in it
    path = transcript_with(tmp_path, agent, huge, 3 * COLD)
    session = cold_read(agent, path)
    assert session.request_sought == "found"
    (request,) = session.requests
    kept, note = request.split("\n\n[… cut: ", 1)
    assert huge.startswith(kept) and 15_000 < len(kept.encode()) < 16 << 10
    size = int(note.split(" bytes")[0].rsplit(" ", 1)[1].replace(",", ""))
    assert size > len(huge.encode()) and f"only its first {16 << 10:,} were read" in note
    assert benchgen.FINAL_REQUEST in brief_of(session)[1]


@pytest.mark.parametrize("agent", benchgen.AGENTS)
def test_no_request_anywhere_is_said(tmp_path: Path, agent: str) -> None:
    gen = benchgen.write_transcript(agent, tmp_path, CWD, 1, final="NO-SUCH-REQUEST")
    path = gen.path
    # the header and the generated turns without their request lines, then traffic only
    lines = path.read_text().splitlines(keepends=True)
    path.write_text(
        "".join(
            line
            for line in lines
            if "NO-SUCH-REQUEST" not in line and "tidy up the weather helpers" not in line
        )
    )
    benchgen.append_traffic(agent, path, CWD, gen.turns, 3 * COLD)
    session = cold_read(agent, path)
    assert session.requests == [] and session.request_sought == "none"
    made, text = brief_of(session)
    assert made.latest_request is None
    assert "No request typed by the user is in this transcript" in text


def test_an_adapter_that_cannot_find_requests_says_the_request_is_not_in_the_part_read(
    tmp_path: Path,
) -> None:
    parser = pytest.importorskip("continuity_claude.parser")

    path = transcript_with(tmp_path, "claude", benchgen.FINAL_REQUEST, 3 * COLD)
    ref = SessionRef(agent="claude", account="test", session_id="s", path=str(path), mtime=0.0)
    session = transcript.read_incremental(
        ref, None, parser.fold, compaction_marker=parser.COMPACTION_MARKER
    ).session
    assert session.requests == [] and session.request_sought == "unsearched"
    text = brief_of(session)[1]
    assert "## The user's latest request\n" in text
    assert "The latest request is not in the part read" in text


def test_a_request_in_the_part_read_needs_no_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = transcript_with(tmp_path, "codex", benchgen.FINAL_REQUEST, COLD // 4)
    benchgen.append_turn("codex", path, CWD, 10_000)  # a request in the last part
    seen: list[Any] = []
    from continuity_core.jsonl import scan_backward as real

    def spy(*args: Any, **kw: Any) -> Any:
        seen.append(kw.get("find"))
        return real(*args, **kw)

    monkeypatch.setattr(transcript, "scan_backward", spy)
    session = cold_read("codex", path)
    assert session.latest_request == "Appended turn 10000: re-run the unit tests"
    assert session.request_sought == "" and seen == []  # compactions: a byte search, no scan


def test_compactions_are_counted_by_a_byte_search(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    marker = b'"type":"compacted"'
    lines = [b'{"type":"x"}\n', b'{"type":"compacted","n":1}\n'] * 500 + [b'{"tail":1}\n']
    path.write_bytes(b"".join(lines))
    whole = path.read_bytes()
    assert transcript.count_bytes(str(path), len(whole), marker) == 500
    cut = whole.index(marker, len(whole) // 2)  # only what lies before `end` counts
    assert transcript.count_bytes(str(path), cut, marker) == whole[:cut].count(marker)
    assert transcript.count_bytes(str(path), len(whole), b"no such bytes") == 0
    (tmp_path / "empty").write_bytes(b"")
    assert transcript.count_bytes(str(tmp_path / "empty"), 10, marker) == 0


def test_the_byte_search_finds_a_marker_split_between_two_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonl, "CHUNK", 64)  # reads of 64 bytes: markers cross them
    marker = b'"type":"compacted"'
    whole = b"".join(b"x" * n + marker + b"\n" for n in range(150))
    (tmp_path / "t.jsonl").write_bytes(whole)
    for end in (len(whole), len(whole) - 7, 64 * 9 + 5, len(marker) - 1):
        assert transcript.count_bytes(str(tmp_path / "t.jsonl"), end, marker) == whole[:end].count(
            marker
        ), end


# A compaction record each CLI wrote (tests/fixtures), by the type that marks it.
COMPACTED = {
    "codex": (
        "codex/.codex/sessions/2026/11/30/"
        "rollout-2026-11-30T03-57-56-01a22a9a-2b8e-7102-a749-eb0dce3fcc26.jsonl",
        '"type":"compacted"',
    ),
    "copilot": (
        "attempts/copilot/.copilot/session-state/c3e517bb-d1aa-4392-84a9-4fc9e07fdb67/events.jsonl",
        '"type":"session.compaction_complete"',
    ),
}


@pytest.mark.parametrize("agent", sorted(COMPACTED))
def test_a_cold_read_counts_every_captured_compaction(
    tmp_path: Path, agent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The marker an adapter's byte search counts in the part a cold read skips is the head
    of the record its CLI writes: captured compactions before that part are all counted, as
    a whole read counts them."""
    source, kind = COMPACTED[agent]
    lines = (benchgen.FIXTURES / source).read_text().splitlines(keepends=True)
    (compaction,) = [line for line in lines if kind in line]
    gen = benchgen.write_transcript(agent, tmp_path, CWD, 20_000)
    with gen.path.open("a") as f:
        f.write(compaction * 7)
    benchgen.append_traffic(agent, gen.path, CWD, gen.turns, 3 * COLD)
    session = cold_read(agent, gen.path)
    assert session.unread_bytes > 2 * COLD and session.compactions_scanned
    assert session.compactions_total == 7
    monkeypatch.setattr(transcript, "COLD_MAX", 1 << 30)
    assert cold_read(agent, gen.path).compactions_total == 7  # a whole read


def test_an_older_request_is_redacted_like_any_other(tmp_path: Path) -> None:
    secret = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    path = transcript_with(tmp_path, "gemini", f"deploy with {secret}", 3 * COLD)
    session = cold_read("gemini", path)
    (request,) = session.requests
    assert request.startswith("deploy with") and "wJalrXUtnFEMI" not in request


def test_a_long_line_that_cannot_be_read_from_its_start_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A candidate line cut outside a string (here inside a huge key) cannot be closed: the
    brief says the request may lie there instead of claiming there is none."""
    monkeypatch.setattr(transcript, "HEAD_LINE", 4 << 10)
    path = tmp_path / "t.jsonl"
    key = "k" * (64 << 10)
    odd = f'{{"type":"user","content":[{{"text":"x"}}],"{key}":1}}'
    path.write_text(odd + "\n" + '{"id":"a","type":"gemini","content":"ok"}\n' * 8000)
    session = cold_read("gemini", path)
    assert session.requests == [] and session.request_sought == "unreadable"
    assert "a long line there could not be read from its start" in brief_of(session)[1]
