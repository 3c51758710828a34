from __future__ import annotations

from pathlib import Path

import pytest

from continuity_core import note


def test_template_round_trips_with_every_section() -> None:
    text = note.template(agent="claude", branch="main", updated="2026-11-30T00:00:00Z")
    parsed = note.parse(text)
    assert parsed.meta == {"updated": "2026-11-30T00:00:00Z", "agent": "claude", "branch": "main"}
    assert not any(parsed.get(t) for t in note.SECTIONS)
    assert [line for line in text.splitlines() if line.startswith("# ")] == [
        f"# {t}" for t in note.SECTIONS
    ]


def test_unknown_sections_are_kept_verbatim(tmp_path: Path) -> None:
    text = "---\nagent: x\n---\n# Goal\nShip it\n# Now\nRun tests\n# Scratch\nmine\n"
    parsed = note.parse(text)
    assert parsed.get("Goal") == "Ship it" and parsed.get("Now") == "Run tests"
    note.write(tmp_path, parsed)
    again = note.read(tmp_path)
    assert again is not None and "# Scratch\nmine" in again.extra[0]


def test_cap_is_refused_not_truncated(tmp_path: Path) -> None:
    parsed = note.parse(note.template())
    parsed.sections["Done"] = "\n".join(f"- step {i}" for i in range(200))
    with pytest.raises(note.NoteTooLong, match="120-line cap"):
        note.write(tmp_path, parsed)
    assert not (tmp_path / note.NOTE_PATH).exists()


def test_missing_note_reads_as_none(tmp_path: Path) -> None:
    assert note.read(tmp_path) is None
