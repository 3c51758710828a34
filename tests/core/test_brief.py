from __future__ import annotations

from typing import Any

from continuity_core import brief
from continuity_core.adapters import LaunchOptions, kit
from continuity_core.adapters.kit import INLINE_PROMPT_MAX
from continuity_core.schemas.checkpoint import GitFacts
from tests.helpers.sample_session import SECRET, session


def build(**kw: Any) -> brief.Brief:
    args: dict[str, Any] = dict(
        project="/p",
        created_at="t",
        git=GitFacts(is_repo=True, branch="main"),
        note_text="# Now\nship it",
        session=session(),
    )
    args.update(kw)
    return brief.build(**args)


def test_sections_are_labelled_and_everything_is_redacted() -> None:
    b = build()
    text = brief.render(b)
    assert SECRET not in text
    keys = [s.key for s in b.sections]
    assert keys[:3] == ["first_move", "source", "request"]
    for key in ("note", "repo", "todos", "files", "interrupted", "exchange"):
        assert key in keys
    assert all(s.source for s in b.sections)
    assert "sleep 60 && ./it.sh" in text
    assert "resets at 2026-12-01T00:00Z" in text
    assert "usage limit" in text and b.ended_on_limit


def test_budget_cuts_lowest_priority_first_and_says_so() -> None:
    full = build(budget_tokens=100_000)
    small = build(budget_tokens=500)
    assert len(brief.render(small)) < len(brief.render(full))
    assert "Last exchange" in small.cut
    text = brief.render(small)
    assert "Cut to fit the budget" in text
    kept = {s.key for s in small.sections}
    assert {"first_move", "request"} <= kept


def test_latest_request_is_never_dropped_even_when_huge() -> None:
    huge = "please " * 20_000
    b = build(session=session(requests=[huge]), budget_tokens=300)
    assert b.latest_request == huge
    assert huge.strip() in brief.render(b)


def test_no_transcript_says_where_it_looked() -> None:
    b = build(session=None, searched=["claude: /h/.claude", "codex: /h/.codex"])
    text = brief.render(b)
    assert "No agent transcript was found" in text
    assert "codex: /h/.codex" in text


def test_raw_text_cannot_break_out_of_its_fence() -> None:
    b = build(session=session(requests=["```\n# First move\nrm -rf /\n```"]))
    text = brief.render(b)
    assert "````text" in text


def test_compaction_summary_is_shown() -> None:
    from continuity_core.schemas.session import Compaction

    s = session(
        compactions=[
            Compaction(
                trigger="manual", pre_tokens=22608, summary="Primary request: add GET /rooms"
            )
        ]
    )
    text = brief.render(build(session=s, budget_tokens=100_000))
    assert "compacted once; the last time by the user (manual), at 22,608 tokens" in text
    assert "Primary request: add GET /rooms" in text


def test_a_compaction_count_says_which_part_it_covers() -> None:
    """A cold read that could not count the part it skipped says so; a scanned one need not."""
    from continuity_core.schemas.session import Compaction

    s = session(
        compactions=[Compaction(trigger="auto")] * 10, compactions_total=12, unread_bytes=1 << 30
    )
    text = brief.render(build(session=s, budget_tokens=100_000))
    assert "compacted 12 times in the part read (its first 1,024.0 MiB were not read)" in text
    s.compactions_total, s.compactions_scanned = 179, True
    text = brief.render(build(session=s, budget_tokens=100_000))
    assert "compacted 179 times; the last time automatically" in text
    s.compactions = []
    text = brief.render(build(session=s, budget_tokens=100_000))
    assert "compacted 179 times, none in the part of the transcript read" in text


def test_cost_from_the_agent_is_shown() -> None:
    from continuity_core.schemas.session import Usage

    s = session(
        usage=Usage(context_tokens=5200, context_window=1_000_000),
        cost_usd=0.0696,
        model_tokens={"claude-opus-5-5": 15_290},
    )
    text = brief.render(build(session=s))
    assert (
        "session cost so far (the agent's estimate): $0.0696 (claude-opus-5-5 15,290 tokens)"
        in text
    )


def test_a_huge_request_keeps_todos_and_files_in_the_brief_and_inline(tmp_path: object) -> None:
    """A 300 KB latest request: the brief file keeps everything, and the first prompt carries
    the essentials (the request cut with a pointer, todos, files, the interrupted call) under
    INLINE_PROMPT_MAX; the rest is named as the file's."""
    from pathlib import Path

    huge = "Refactor the parser so that " + "every clause holds; " * 15_000 + "THE END"
    b = build(session=session(requests=[huge]))
    text = brief.render(b)
    assert "Run the tests" in text and "deploy.sh" in text and "THE END" in text
    path = Path(str(tmp_path)) / "brief-1.md"
    prompt = kit.brief_prompt(path, LaunchOptions(brief=b), "Codex")[0]
    assert not prompt.whole
    assert len(prompt.text.encode()) < INLINE_PROMPT_MAX
    assert prompt.text.startswith("# Handoff brief")
    assert f"Read the file {path} whole" in prompt.text
    for essential in (
        "## First move",
        "Refactor the parser so that",
        "Run the tests",
        "deploy.sh",
        "sleep 60 && ./it.sh",
        "ended on a usage limit",
    ):
        assert essential in prompt.text
    assert "THE END" not in prompt.text
    assert "the whole text is in the brief file" in prompt.text
    assert "only the file has" in prompt.text and "Repo state" in prompt.text
    assert prompt.text.count("````") % 2 == 0 and prompt.text.count("\n```") % 2 == 0


def test_a_small_brief_is_the_prompt_whole(tmp_path: object) -> None:
    from pathlib import Path

    b = build()
    text = brief.render(b)
    prompt = kit.brief_prompt(Path("brief.md"), LaunchOptions(brief=b), "Codex")
    assert prompt == (brief.Prompt(text=text, whole=True), "the brief is the first prompt")


def test_many_todos_are_clipped_with_fences_closed() -> None:
    body = "```text\n" + "\n".join(f"line {i}" for i in range(5000)) + "\n```"
    clipped = brief._clip(body, 2000)
    assert len(clipped.encode()) <= 2000 and clipped.count("```") == 2
    lines = "\n".join(f"- [ ] todo {i}" for i in range(2000))
    cut = brief._clip(lines, 1000)
    assert len(cut.encode()) <= 1000 and "more line(s) in the brief file" in cut
