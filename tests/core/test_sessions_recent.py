"""`sessions.recent`: a project's newest sessions across adapters and accounts."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from continuity_core.adapters import Account
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.session import SessionRef
from continuity_core.sessions import recent


class Fake:
    def __init__(self, name: str, mtimes: list[float], fail: bool = False) -> None:
        self.name, self.mtimes, self.fail, self.read = name, mtimes, fail, 0

    def accounts(self, config: GlobalConfig) -> list[Account]:
        return [Account(agent=self.name, name="default", dir=f"~/.{self.name}")]

    def discover(self, project: Path, accounts: Sequence[Account]) -> Iterator[SessionRef]:
        if self.fail:
            raise OSError("unreadable folder")
        for i, mtime in enumerate(sorted(self.mtimes, reverse=True)):  # newest first
            self.read += 1
            yield SessionRef(agent=self.name, account=accounts[0].dir, session_id=f"{self.name}{i}",
                             path=f"/t/{self.name}{i}", mtime=mtime)


def test_newest_first_across_adapters_and_bounded(tmp_path: Path) -> None:
    a, b = Fake("a", [1, 5, 9, 3]), Fake("b", [4, 8])
    found = recent(tmp_path, {"a": a, "b": b}, GlobalConfig(), limit=3)
    assert [(r.agent, r.mtime) for r in found.refs] == [("a", 9), ("b", 8), ("a", 5)]
    assert found.searched == ["a: ~/.a", "b: ~/.b"] and found.errors == []
    assert a.read == 3  # discovery is newest first: no more than `limit` are read from each


def test_one_adapter_failing_leaves_the_others(tmp_path: Path) -> None:
    found = recent(tmp_path, {"bad": Fake("bad", [], fail=True), "ok": Fake("ok", [2])},
                   GlobalConfig())
    assert [r.session_id for r in found.refs] == ["ok0"]
    assert found.errors == ["bad: unreadable folder"]
    only = recent(tmp_path, {"bad": Fake("bad", [], fail=True), "ok": Fake("ok", [2])},
                  GlobalConfig(), agent="ok")
    assert [r.session_id for r in only.refs] == ["ok0"] and only.errors == []
