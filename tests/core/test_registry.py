from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from continuity_core import adapters
from continuity_core.adapters import protocol, registry
from continuity_core.errors import AdapterError
from tests.helpers.fake_agent import FakeAdapter

GOOD = "tests.helpers.fake_agent:FakeAdapter"


class Incomplete:
    name = "half"


@pytest.fixture
def fake_eps(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    def install(*items: tuple[str, str]) -> None:
        rows = [(n, v, f"dist-{i}", "1.0") for i, (n, v) in enumerate(items)]
        monkeypatch.setattr(registry, "entry_points", lambda group: iter(rows))

    return install


def test_broken_adapter_is_one_error_and_others_load(fake_eps: Callable[..., None]) -> None:
    fake_eps(
        ("good", GOOD), ("bad", "no_such_module_xyz:Adapter"), ("half", f"{__name__}:Incomplete")
    )
    good, bad = adapters.load_all()
    assert list(good) == ["good"] and isinstance(good["good"], FakeAdapter)
    assert bad["bad"].startswith("adapter 'bad' (dist-1) failed to load")
    assert "does not implement the Adapter protocol" in bad["half"]
    assert "accounts" in bad["half"] and "install_mcp" in bad["half"]


def test_duplicate_names_are_reported(fake_eps: Callable[..., None]) -> None:
    fake_eps(("good", GOOD), ("good", "elsewhere:Good"))
    with pytest.raises(AdapterError, match="registered twice"):
        adapters.load("good")


def test_allow_list(fake_eps: Callable[..., None], monkeypatch: pytest.MonkeyPatch) -> None:
    fake_eps(("good", GOOD), ("other", GOOD))
    monkeypatch.setenv("BAKER_ADAPTERS", "other")
    assert list(adapters.registered()) == ["other"]


def test_unknown_name_says_how_to_install(fake_eps: Callable[..., None]) -> None:
    fake_eps()
    with pytest.raises(AdapterError, match=r"continuity-cli\[nope\]"):
        adapters.load("nope")


def test_registry_does_not_import_modules(fake_eps: Callable[..., None]) -> None:
    import sys

    fake_eps(("lazy", "some_module_never_imported_abc:X"))
    assert "lazy" in adapters.registered()
    assert "some_module_never_imported_abc" not in sys.modules


def test_entry_points_are_read_from_installed_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for dist, body in [
        (
            "acme_agent-2.0.1.dist-info",
            "[console_scripts]\nx = y:z\n\n[continuity_core.adapters]\nacme = acme_agent:Acme\n",
        ),
        ("acme_agent-1.0.egg-info", "[continuity_core.adapters]\nacme = old:Acme\n"),
        ("other-0.1.dist-info", "[something.else]\nacme = nope:X\n"),
    ]:
        (tmp_path / dist).mkdir()
        name, _, version = dist.rpartition(".")[0].partition("-")
        (tmp_path / dist / "METADATA").write_text(f"Name: {name}\nVersion: {version}\n")
        (tmp_path / dist / "entry_points.txt").write_text(body)
    monkeypatch.setattr("sys.path", [str(tmp_path)])
    found = sorted(registry.entry_points(registry.GROUP))
    assert found in (
        [("acme", "acme_agent:Acme", "acme-agent", "2.0.1")],
        [("acme", "old:Acme", "acme-agent", "1.0")],
    )  # first of a name wins
    assert len(found) == 1


def test_the_real_adapters_are_registered() -> None:
    real = {name: r for name, r in adapters.registered().items()}
    for name in ("claude", "codex", "gemini"):
        if name in real:
            assert real[name].dist == f"continuity-{name}" and real[name].version != "?"


def test_the_fake_agent_meets_the_protocol() -> None:
    fake: adapters.Adapter = FakeAdapter()  # mypy checks the members' types here
    assert protocol.missing(fake) == []


def test_an_unreadable_entry_points_file_is_one_distribution_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A broken distribution beside baker (entry_points.txt not UTF-8) costs its own entry
    points, not every hook and command that looks for adapters."""
    for dist, body in [
        ("broken-1.0.dist-info", b"[continuity_core.adapters]\nx = \xff:X\n"),
        ("acme_agent-2.0.1.dist-info", b"[continuity_core.adapters]\nacme = a:A\n"),
    ]:
        (tmp_path / dist).mkdir()
        name, _, version = dist.rpartition(".")[0].partition("-")
        (tmp_path / dist / "METADATA").write_text(f"Name: {name}\nVersion: {version}\n")
        (tmp_path / dist / "entry_points.txt").write_bytes(body)
    monkeypatch.setattr("sys.path", [str(tmp_path)])
    assert list(registry.entry_points(registry.GROUP)) == [("acme", "a:A", "acme-agent", "2.0.1")]


def _site(folder: Path, *dists: tuple[str, str]) -> None:
    """Distributions in `folder`, which is then dated a minute back (settled, not racy)."""
    import os
    import time

    for dist, body in dists:
        (folder / dist).mkdir()
        name, _, version = dist.rpartition(".")[0].partition("-")
        (folder / dist / "METADATA").write_text(f"Name: {name}\nVersion: {version}\n")
        (folder / dist / "entry_points.txt").write_text(body)
    old = time.time() - 60 - len(list(folder.iterdir()))
    os.utime(folder, (old, old))


def test_the_entry_point_index_holds_what_importlib_metadata_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hooks read entry points from the per-user index; it says what `importlib.metadata`
    says, and a distribution installed since makes it stale."""
    from importlib import metadata

    site = tmp_path / "site"
    site.mkdir()
    _site(
        site,
        ("acme_agent-2.0.1.dist-info", "[continuity_core.adapters]\nacme = acme_agent:Acme\n"),
        ("acme_hooks-1.0.dist-info", "[continuity_core.hooks]\nacme = acme_agent.hooks\n"),
    )
    monkeypatch.setattr("sys.path", [str(site)])
    registry._entry_points.cache_clear()
    first = {g: list(registry.entry_points(g)) for g in (registry.GROUP, registry.HOOK_GROUP)}
    truth = {
        g: [
            (ep.name, ep.value, ep.dist.name.replace("_", "-"), ep.dist.version)
            for ep in metadata.entry_points(group=g)
            if ep.dist is not None and str(site) in str(ep.dist.locate_file(""))
        ]
        for g in first
    }
    assert first == truth and first[registry.GROUP] == [
        ("acme", "acme_agent:Acme", "acme-agent", "2.0.1")
    ]
    from continuity_core import trust

    assert len(list(Path(trust.home_path("cache")).glob("entry-points-*.json"))) == 1

    def no_scan(path: tuple[str, ...]) -> dict[str, list[tuple[str, str, str, str]]]:
        raise AssertionError("the index was current: no metadata read")

    registry._entry_points.cache_clear()
    with monkeypatch.context() as m:
        m.setattr(registry, "_scan", no_scan)
        assert {g: list(registry.entry_points(g)) for g in first} == first
    # A distribution installed since: its folder changed, the index is read again.
    _site(site, ("zeta-0.1.dist-info", "[continuity_core.adapters]\nzeta = zeta:Z\n"))
    registry._entry_points.cache_clear()
    assert sorted(r[0] for r in registry.entry_points(registry.GROUP)) == ["acme", "zeta"]
    registry._entry_points.cache_clear()


def test_an_entry_point_index_that_is_a_link_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index names the modules a hook imports: one reached through a link (another
    user's file, say) is ignored and the installed metadata read instead."""
    import json

    from continuity_core import trust

    site = tmp_path / "site"
    site.mkdir()
    _site(site, ("acme_agent-2.0.1.dist-info", "[continuity_core.adapters]\nacme = a:A\n"))
    monkeypatch.setattr("sys.path", [str(site)])
    registry._entry_points.cache_clear()
    assert list(registry.entry_points(registry.GROUP)) == [("acme", "a:A", "acme-agent", "2.0.1")]
    (index,) = Path(trust.home_path("cache")).glob("entry-points-*.json")
    hostile = json.loads(index.read_text())
    hostile["groups"][registry.GROUP] = [["acme", "evil:Payload", "acme-agent", "2.0.1"]]
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps(hostile))
    index.unlink()
    index.symlink_to(elsewhere)
    registry._entry_points.cache_clear()
    assert list(registry.entry_points(registry.GROUP)) == [("acme", "a:A", "acme-agent", "2.0.1")]
    registry._entry_points.cache_clear()
