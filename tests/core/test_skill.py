"""The `continuity` skill: a valid Agent Skills SKILL.md, installed and removed per agent folder."""

from __future__ import annotations

import re
from pathlib import Path

from continuity_core import skill

DIRS = (".claude/skills", ".agents/skills", ".gemini/skills")


def front_matter(text: str) -> dict[str, str]:
    assert text.startswith("---\n")
    block = text.split("---\n", 2)[1]
    return {
        k.strip(): v.strip() for k, _, v in (line.partition(":") for line in block.splitlines())
    }


def test_the_skill_follows_the_agent_skills_format() -> None:
    text = skill.text()
    meta = front_matter(text)
    assert set(meta) == {"name", "description"}
    # The spec: name is 1-64 lowercase letters, digits and single hyphens, equal to the folder.
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", meta["name"]) and len(meta["name"]) <= 64
    assert meta["name"] == skill.NAME
    assert 0 < len(meta["description"]) <= 1024


def test_the_skill_teaches_save_resume_and_check() -> None:
    text = skill.text()
    for heading in ("## Save", "## Resume", "## Check", "## Security"):
        assert heading in text
    for step in (
        "baker facts --json",
        "baker save <draft>",
        "baker resume-check",
        "baker usage --json",
        "(from <source>)",
        "/continuity resume <id>",
        "$continuity resume <id>",
        "update baker",
    ):
        assert step in text, step
    for level in ("prepare", "refresh", "rotate", "ok", "unknown"):
        assert f"`{level}`" in text


def test_install_is_idempotent_and_dry_run_writes_nothing(tmp_path: Path) -> None:
    dry = skill.install(tmp_path, DIRS, dry_run=True)
    assert [c.action for c in dry] == ["created"] * 3
    assert not any(tmp_path.iterdir())
    first = skill.install(tmp_path, DIRS)
    assert [c.path for c in first] == [f"{d}/continuity/SKILL.md" for d in DIRS]
    for d in DIRS:
        assert (tmp_path / d / "continuity" / "SKILL.md").read_text() == skill.text()
    assert [c.action for c in skill.install(tmp_path, [*DIRS, DIRS[0]])] == ["unchanged"] * 3


def test_install_refreshes_an_older_copy(tmp_path: Path) -> None:
    target = tmp_path / DIRS[0] / "continuity" / "SKILL.md"
    target.parent.mkdir(parents=True)
    target.write_text(
        "---\nname: continuity\ndescription: old\n---\n\n"
        "# Continuity: save, resume, check\nold steps\n"
    )
    assert [c.action for c in skill.install(tmp_path, DIRS[:1])] == ["updated"]
    assert target.read_text() == skill.text()


def test_uninstall_removes_ours_and_keeps_what_is_not(tmp_path: Path) -> None:
    skill.install(tmp_path, DIRS)
    extra = tmp_path / DIRS[1] / "continuity" / "notes.md"
    extra.write_text("the user's own file\n")
    foreign = tmp_path / DIRS[2] / "continuity" / "SKILL.md"
    foreign.write_text("---\nname: continuity\ndescription: someone else's\n---\nbody\n")
    dry = skill.uninstall(tmp_path, DIRS, dry_run=True)
    assert [c.action for c in dry] == ["removed", "removed", "skipped"]
    assert (tmp_path / DIRS[0] / "continuity" / "SKILL.md").exists()
    changes = skill.uninstall(tmp_path, DIRS)
    assert [c.action for c in changes] == ["removed", "removed", "skipped"]
    assert not (tmp_path / DIRS[0] / "continuity").exists()
    assert extra.exists() and not extra.with_name("SKILL.md").exists()
    assert foreign.exists()
    assert [c.action for c in skill.uninstall(tmp_path, DIRS[:1])] == ["unchanged"]
