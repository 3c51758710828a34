"""`baker resume codex`: the argv, environment and folder Codex starts with."""

from __future__ import annotations

from pathlib import Path

import pytest

from continuity_codex import CodexAdapter
from continuity_core.adapters import Account, LaunchOptions
from continuity_core.adapters.kit import INLINE_PROMPT_MAX
from continuity_core.brief import render
from continuity_core.schemas.session import SessionRef
from tests.codex.helpers import rollout
from tests.conftest import FIXTURES
from tests.helpers.samples import brief_of

ADAPTER = CodexAdapter()


def test_a_brief_that_fits_is_the_first_prompt_verbatim(tmp_path: Path) -> None:
    small = brief_of("`rm -rf build` — “quoted”")
    spec = ADAPTER.launch(tmp_path, tmp_path / "brief.md", LaunchOptions(brief=small))
    assert spec.argv == ["codex", render(small)]
    assert spec.cwd == str(tmp_path) and "CODEX_HOME" not in spec.env


def test_a_brief_too_big_for_argv_is_read_from_its_file(tmp_path: Path) -> None:
    brief = tmp_path / "brief.md"
    big = brief_of("é" * (INLINE_PROMPT_MAX // 2))  # fewer characters than bytes: bytes count
    assert len(render(big)) < INLINE_PROMPT_MAX
    spec = ADAPTER.launch(tmp_path, brief, LaunchOptions(brief=big))
    assert spec.argv[0] == "codex" and len(spec.argv) == 2
    assert str(brief.resolve()) in spec.argv[1]
    assert len(spec.argv[1].encode()) < INLINE_PROMPT_MAX


def test_an_account_runs_under_its_codex_home(tmp_path: Path) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text("brief")
    work = Account(agent="codex", name="work", dir=str(tmp_path / "work-home"))
    spec = ADAPTER.launch(tmp_path, brief, LaunchOptions(account=work))
    assert spec.env == {"CODEX_HOME": str(tmp_path / "work-home")}


def test_native_resume_copies_the_rollout_into_the_target_home(tmp_path: Path) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text("brief")
    tid = "01a22a99-3138-74a2-beeb-885dc8136fd9"
    source = rollout(tmp_path / "personal", tid, "/w", stamp="2026-11-30T03-56-52")
    ref = SessionRef(agent="codex", account="personal", session_id=tid, path=str(source), mtime=0)
    work = Account(agent="codex", name="work", dir=str(tmp_path / "work"))
    spec = ADAPTER.launch(Path("/w"), brief, LaunchOptions(account=work, native=ref))
    assert spec.argv[:3] == ["codex", "resume", tid]
    assert str(brief.resolve()) in spec.argv[3]
    assert spec.env["CODEX_HOME"] == work.dir
    copied = tmp_path / "work" / "sessions" / "2026" / "11" / "30" / source.name
    assert copied.read_bytes() == source.read_bytes()
    again = ADAPTER.launch(Path("/w"), brief, LaunchOptions(account=work, native=ref))
    assert again.argv == spec.argv and not any("copied" in n for n in again.notes)


def test_native_resume_never_loses_turns_found_only_in_the_target(tmp_path: Path) -> None:
    """The captured S2 rollout (three prompts): the target home holds all of it, the source
    only its first turn. Refused with both sides; --force keeps a backup; a dry run says so."""
    from continuity_core.errors import BakerError

    name = "rollout-2026-11-30T03-57-00-01a22a99-520c-7f21-b282-ca967466c8a2.jsonl"
    tid = "01a22a99-520c-7f21-b282-ca967466c8a2"
    full = (FIXTURES / "codex" / ".codex" / "sessions" / "2026" / "11" / "30" / name).read_bytes()
    lines = full.splitlines(keepends=True)
    first_turn = b"".join(
        lines[: next(i for i, line in enumerate(lines) if b'"task_complete"' in line) + 1]
    )
    source = tmp_path / "personal" / "sessions" / "2026" / "11" / "30" / name
    target = tmp_path / "work" / "sessions" / "2026" / "11" / "30" / name
    for path, data in ((source, first_turn), (target, full)):
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
    ref = SessionRef(agent="codex", account="personal", session_id=tid, path=str(source), mtime=0)
    work = Account(agent="codex", name="work", dir=str(tmp_path / "work"))
    brief = tmp_path / "brief.md"
    brief.write_text("brief")
    dry = ADAPTER.launch(Path("/w"), brief, LaunchOptions(account=work, native=ref, dry_run=True))
    assert any(n.startswith("would refuse") for n in dry.notes)
    with pytest.raises(BakerError) as refused:
        ADAPTER.launch(Path("/w"), brief, LaunchOptions(account=work, native=ref))
    assert "source (personal): 1 request(s)" in str(refused.value)
    assert "target (work): 3 request(s)" in str(refused.value) and "--force" in str(refused.value)
    assert target.read_bytes() == full
    forced = ADAPTER.launch(Path("/w"), brief, LaunchOptions(account=work, native=ref, force=True))
    [backup] = [p for p in target.parent.iterdir() if p != target]
    assert backup.read_bytes() == full and target.read_bytes() == first_turn
    assert any(str(backup) in n for n in forced.notes)
