"""The recall archive over the real captured transcripts of each agent."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from continuity_core import archive as archive_mod
from continuity_core.adapters import Account, RetentionPolicy
from continuity_core.archive import Archive, refresh
from continuity_core.errors import StoreError
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.session import SessionRef
from tests.conftest import copy_tree
from tests.helpers.stub_adapter import StubAdapter

CHAT = "/home/dev/src/chat-server"
LATEST = "Add limit and offset query parameters to GET /rooms for pagination."


class DaysFile:
    """A retention policy read from `<account>/days.json`: a number, or null for forever."""

    def retention_days(self, account: Account) -> tuple[float | None, str]:
        path = Path(account.dir) / "days.json"
        days = json.loads(path.read_text()) if path.exists() else 30
        return (None if days is None else float(days)), str(path)


class FolderAdapter(StubAdapter):
    """A minimal adapter over raw files: every *.jsonl under its account dir is a session."""

    def __init__(self, name: str, root: Path) -> None:
        self.name = name
        self.root = root
        self.retention: RetentionPolicy | None = DaysFile() if name != "codex" else None

    def accounts(self, config: GlobalConfig) -> list[Account]:
        return [Account(agent=self.name, name=str(self.root), dir=str(self.root))]

    def all_sessions(self, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        for acc in accounts:
            for path in sorted(Path(acc.dir).rglob("*.jsonl")):
                if path.name == "history.jsonl":
                    continue
                st = path.stat()
                yield SessionRef(
                    agent=self.name,
                    account=acc.dir,
                    session_id=path.stem,
                    path=str(path),
                    mtime=st.st_mtime,
                    size=st.st_size,
                )


@pytest.fixture
def homes(tmp_path: Path, fixtures: Path) -> dict[str, Path]:
    return {
        agent: copy_tree(fixtures / agent / f".{agent}", tmp_path / agent)
        for agent in ("claude", "codex", "gemini")
    }


@pytest.fixture
def adapters(homes: dict[str, Path]) -> dict[str, FolderAdapter]:
    return {name: FolderAdapter(name, home) for name, home in homes.items()}


def index(
    adapters: dict[str, FolderAdapter], project: Path | None = None
) -> archive_mod.IndexStats:
    with Archive() as archive:
        return refresh(archive, project, adapters=adapters, config=GlobalConfig())


def search(query: str, **kw: Any) -> list[archive_mod.Hit]:
    with Archive() as archive:
        return archive.search(query, **kw)


def test_every_agents_sessions_are_found_with_their_project(
    adapters: dict[str, FolderAdapter],
) -> None:
    stats = index(adapters)
    assert stats.indexed == stats.files > 20 and not stats.skipped
    hits = search("pagination", project=CHAT)
    # Gemini records carry no cwd: only its adapter (below) knows the project of a chat.
    assert {h.agent for h in hits} == {"claude", "codex"}
    assert "gemini" in {h.agent for h in search("pagination", project=None)}
    claude = next(h for h in hits if h.agent == "claude")
    assert claude.session_id == "d6782a42-5c90-4a01-9811-8946dd346920"
    assert claude.project == CHAT and "«pagination»" in claude.snippet
    assert claude.time and claude.time.startswith("2026-11-30T")
    assert claude.open == f"cd {CHAT} && baker handoff --from claude --session {claude.session_id}"
    # Tool calls' commands and outputs are searchable too, not just the chat.
    assert any(h.agent == "claude" for h in search("integration.sh", project=None))


def test_scoped_to_the_project_unless_asked(adapters: dict[str, FolderAdapter]) -> None:
    index(adapters)
    assert search("pagination", project="/home/dev/src/weather-cli") == []
    assert search("celsius_to_fahrenheit", project="/home/dev/src/weather-cli")
    assert search("celsius_to_fahrenheit", project="/home/dev/src/weather") == []  # not a prefix


def test_secrets_never_reach_the_archive(adapters: dict[str, FolderAdapter]) -> None:
    index(adapters)
    assert search("deploy", project="/home/dev/src/deploy-scripts")
    for secret in (
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_FAKEa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6",
        "Sup3rS3cretPw",
        "wJalrXUtnFEMI",
    ):
        assert search(secret) == []
        for path in archive_mod.db_path().parent.glob("archive.sqlite*"):
            assert secret.encode() not in path.read_bytes(), path.name


def test_store_is_private(adapters: dict[str, FolderAdapter]) -> None:
    index(adapters)
    path = archive_mod.db_path()
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


def test_archive_survives_deletion_of_its_source(
    adapters: dict[str, FolderAdapter], homes: dict[str, Path]
) -> None:
    index(adapters)
    transcript = next(homes["claude"].rglob("d6782a42-*.jsonl"))
    transcript.unlink()
    stats = index(adapters)
    assert stats.gone == 1
    hit = next(h for h in search("pagination", project=CHAT) if h.agent == "claude")
    assert hit.gone and hit.open == f"baker recall --show {hit.session_id}"
    with Archive() as archive:
        text = "\n".join(t for _, t in archive.show("d6782a42"))
    assert LATEST in text


def test_only_appended_bytes_are_indexed(
    adapters: dict[str, FolderAdapter], homes: dict[str, Path]
) -> None:
    index(adapters)
    assert index(adapters).bytes == 0  # nothing changed, nothing read
    transcript = next(homes["claude"].rglob("d6782a42-*.jsonl"))
    line = json.dumps(
        {
            "type": "user",
            "timestamp": "2026-12-01T10:00:00Z",
            "message": {"role": "user", "content": "Now add websocket heartbeats."},
        }
    )
    torn = '{"type": "user", "message": {"content": "half writ'
    with transcript.open("a") as f:
        f.write(line + "\n" + torn)
    stats = index(adapters)
    assert (stats.indexed, stats.bytes, stats.reset) == (1, len(line) + 1, 0)
    [hit] = search("heartbeats", project=CHAT)
    assert hit.time == "2026-12-01T10:00:00Z"
    assert search("writ") == []  # the torn last line waits until it is complete
    with transcript.open("a") as f:
        f.write('ten"}}\n')
    assert index(adapters).bytes == len(torn) + 7
    assert search("written")
    [hit] = search("pagination", project=CHAT, agent="claude")
    assert hit.matches == 1  # the old text was not indexed twice


def test_a_rewritten_or_shrunk_transcript_is_read_again(
    adapters: dict[str, FolderAdapter], homes: dict[str, Path]
) -> None:
    index(adapters)
    transcript = next(homes["claude"].rglob("d6782a42-*.jsonl"))
    transcript.write_text(
        json.dumps(
            {
                "type": "user",
                "message": {"role": "user", "content": "Start over: port the server to aiohttp."},
            }
        )
        + "\n"
    )
    stats = index(adapters)
    assert (stats.indexed, stats.reset) == (1, 1)
    assert search("aiohttp", agent="claude")
    assert not search("pagination", agent="claude", project=CHAT)


def test_forget_removes_a_session_for_good(adapters: dict[str, FolderAdapter]) -> None:
    index(adapters)
    with Archive() as archive:
        session_id, rows = archive.forget("d6782a42")
    assert session_id.startswith("d6782a42") and rows > 0
    index(adapters)  # the transcript is still on disk: it stays forgotten
    assert not search("pagination", project=CHAT, agent="claude")
    with Archive() as archive, pytest.raises(StoreError, match="no archived session"):
        archive.forget("d6782a42")


def test_a_corrupt_database_is_rebuilt_with_a_message(adapters: dict[str, FolderAdapter]) -> None:
    index(adapters)
    path = archive_mod.db_path()
    for extra in path.parent.glob("archive.sqlite-*"):
        extra.unlink()
    path.write_bytes(b"this is not a database" * 500)
    with Archive() as archive:
        assert archive.notice and "moved it to" in archive.notice
        refresh(archive, None, adapters=adapters, config=GlobalConfig())
        assert archive.search("pagination", project=CHAT)
    assert list(path.parent.glob("archive.sqlite.corrupt-*"))
    path.write_bytes(b"broken again, within the same second" * 500)
    with Archive() as archive:
        assert archive.notice
    assert len(list(path.parent.glob("archive.sqlite.corrupt-*"))) == 2  # neither overwritten


def test_two_archives_index_concurrently_without_duplicates(
    adapters: dict[str, FolderAdapter],
) -> None:
    with Archive() as first, Archive() as second:
        first.db.execute("BEGIN")
        assert first.db.execute("SELECT count(*) FROM sources").fetchone()  # a reader's snapshot
        refresh(second, None, adapters=adapters, config=GlobalConfig())  # not blocked by it
        first.db.execute("COMMIT")
        refresh(first, None, adapters=adapters, config=GlobalConfig())
        [hit] = first.search("pagination", project=CHAT, agent="claude")
        assert hit.matches == 1


def test_checkpoints_and_saved_handoffs_of_the_project(repo: Path) -> None:
    from continuity_core.schemas.checkpoint import Checkpoint
    from continuity_core.schemas.session import Message, Session
    from continuity_core.stamps import new_id
    from continuity_core.store import Store

    store = Store(repo)
    session = Session(
        agent="codex",
        session_id="s-123",
        requests=["Migrate the billing cron"],
        messages=[Message(role="assistant", text="Moved it to systemd timers")],
    )
    store.write_checkpoint(
        Checkpoint(id=new_id(), created_at="2026-11-30T05:00:00Z", session=session)
    )
    saved = Path(store.folder_path("saved"), "20261130-note.md")
    saved.write_text("---\nagent: claude\n---\n# Decisions\nKeep the flaky canary disabled.\n")
    with Archive() as archive:
        refresh(archive, repo, adapters={}, config=GlobalConfig())
        [hit] = archive.search("systemd timers", project=str(repo))
        assert (hit.agent, hit.session_id, hit.kind) == ("codex", "s-123", "checkpoint")
        [hit] = archive.search("canary", project=str(repo))
        assert hit.kind == "saved" and hit.open == "baker recall --show 20261130-note"


def test_queries_with_punctuation_are_words_not_syntax(adapters: dict[str, FolderAdapter]) -> None:
    index(adapters)
    assert search('GET /rooms "AND" (', project=CHAT)
    assert search("roo*", project=CHAT)
    assert search("-- ! ()") == []


def test_real_adapters_index_each_agents_fixtures(
    homes: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from continuity_core.adapters import load_all

    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(homes["claude"]))
    monkeypatch.setenv("CODEX_HOME", str(homes["codex"]))
    gemini_home = tmp_path / "gemini-home"
    gemini_home.mkdir()
    (gemini_home / ".gemini").symlink_to(homes["gemini"])
    monkeypatch.setenv("GEMINI_CLI_HOME", str(gemini_home))
    adapters, broken = load_all()
    assert not broken, broken
    if not adapters:
        pytest.skip("no adapter package is installed")
    with Archive() as archive:
        refresh(archive, Path(CHAT), adapters=adapters, config=GlobalConfig())
        hits = archive.search("pagination", project=CHAT)
    assert {h.agent for h in hits} == set(adapters) & {"claude", "codex", "gemini"}


def test_retention_report_counts_sessions_due_for_deletion(
    adapters: dict[str, FolderAdapter], homes: dict[str, Path]
) -> None:
    (homes["claude"] / "days.json").write_text("10")
    (homes["gemini"] / "days.json").write_text("null")
    now = time.time()
    old = next(homes["claude"].rglob("d6782a42-*.jsonl"))
    os.utime(old, (now - 5 * 86400, now - 5 * 86400))  # 10-day policy: gone within 7 days
    index(adapters)
    report = {r.agent: r for r in archive_mod.retention_report(adapters, GlobalConfig(), now=now)}
    assert (report["claude"].days, report["claude"].due, report["claude"].unarchived) == (10, 1, 0)
    assert report["gemini"].days is None and report["gemini"].due == 0
    assert report["codex"].days is None  # no retention ability: kept forever
    old.write_text(old.read_text() + "\n")  # grown since it was archived
    os.utime(old, (now - 5 * 86400, now - 5 * 86400))
    report = {r.agent: r for r in archive_mod.retention_report(adapters, GlobalConfig(), now=now)}
    [finding] = archive_mod.retention_findings(list(report.values()))
    assert finding.level == "warn" and "1 will go within 7 days" in finding.message


def test_an_archive_from_a_newer_baker_is_refused_not_rebuilt(
    adapters: dict[str, FolderAdapter],
) -> None:
    from continuity_core.errors import StoreError

    index(adapters)
    with Archive() as archive:
        archive.db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    with pytest.raises(StoreError, match="newer baker"):
        Archive()
    assert not list(archive_mod.db_path().parent.glob("archive.sqlite.corrupt-*"))


def test_a_fifo_named_like_a_transcript_is_skipped_not_waited_on(
    adapters: dict[str, FolderAdapter], homes: dict[str, Path]
) -> None:
    import threading

    fifo = homes["claude"] / "projects" / "fifo-0000.jsonl"
    fifo.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(fifo)
    done: list[archive_mod.IndexStats] = []
    thread = threading.Thread(target=lambda: done.append(index(adapters)), daemon=True)
    thread.start()
    thread.join(30)
    assert done, "indexing waited on a FIFO"
    assert any(s.startswith(f"{fifo}: not a regular file") for s in done[0].skipped)
    assert done[0].indexed > 20
