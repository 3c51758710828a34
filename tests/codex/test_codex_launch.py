"""`baker resume codex`: the argv, environment and folder Codex starts with."""

from __future__ import annotations

from pathlib import Path

from continuity_codex import CodexAdapter
from continuity_core.adapters import INLINE_PROMPT_MAX, Account, LaunchOptions
from continuity_core.schemas.session import SessionRef
from tests.codex.helpers import rollout

ADAPTER = CodexAdapter()


def test_a_brief_that_fits_is_the_first_prompt_verbatim(tmp_path: Path) -> None:
    brief = tmp_path / "brief.md"
    text = "# Handoff brief\n\nThe user's latest request: `rm -rf build` — “quoted”\n"
    brief.write_text(text)
    spec = ADAPTER.launch(tmp_path, brief, LaunchOptions())
    assert spec.argv == ["codex", text]
    assert spec.cwd == str(tmp_path) and "CODEX_HOME" not in spec.env


def test_a_brief_too_big_for_argv_is_read_from_its_file(tmp_path: Path) -> None:
    brief = tmp_path / "brief.md"
    brief.write_text("é" * INLINE_PROMPT_MAX)  # fewer characters than bytes: bytes count
    spec = ADAPTER.launch(tmp_path, brief, LaunchOptions())
    assert spec.argv[0] == "codex" and len(spec.argv) == 2
    assert str(brief.resolve()) in spec.argv[1]
    assert len(spec.argv[1].encode()) < 1000


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
    ref = SessionRef(agent="codex", account="personal", session_id=tid, path=str(source),
                     mtime=0)
    work = Account(agent="codex", name="work", dir=str(tmp_path / "work"))
    spec = ADAPTER.launch(Path("/w"), brief, LaunchOptions(account=work, native=ref))
    assert spec.argv[:3] == ["codex", "resume", tid]
    assert str(brief.resolve()) in spec.argv[3]
    assert spec.env["CODEX_HOME"] == work.dir
    copied = tmp_path / "work" / "sessions" / "2026" / "11" / "30" / source.name
    assert copied.read_bytes() == source.read_bytes()
    again = ADAPTER.launch(Path("/w"), brief, LaunchOptions(account=work, native=ref))
    assert again.argv == spec.argv and not any("copied" in n for n in again.notes)
