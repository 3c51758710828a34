from __future__ import annotations

from importlib import metadata

import pytest

from continuity_core import adapters
from continuity_core.errors import AdapterError


class Good:
    name = "good"


def eps(*items: tuple[str, str]) -> list[metadata.EntryPoint]:
    return [metadata.EntryPoint(name=n, value=v, group=adapters.GROUP) for n, v in items]


@pytest.fixture
def fake_eps(monkeypatch: pytest.MonkeyPatch) -> object:
    def install(*items: tuple[str, str]) -> None:
        monkeypatch.setattr(adapters.metadata, "entry_points", lambda group: eps(*items))

    return install


def test_broken_adapter_is_one_error_and_others_load(fake_eps: object) -> None:
    fake_eps(("good", f"{__name__}:Good"), ("bad", "no_such_module_xyz:Adapter"))  # type: ignore[operator]
    good, bad = adapters.load_all()
    assert list(good) == ["good"] and isinstance(good["good"], Good)
    assert "bad" in bad and "failed to load" in bad["bad"]


def test_duplicate_names_are_reported(fake_eps: object) -> None:
    fake_eps(("good", f"{__name__}:Good"), ("good", "elsewhere:Good"))  # type: ignore[operator]
    with pytest.raises(AdapterError, match="registered twice"):
        adapters.load("good")


def test_allow_list(fake_eps: object, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_eps(("good", f"{__name__}:Good"), ("other", f"{__name__}:Good"))  # type: ignore[operator]
    monkeypatch.setenv("BAKER_ADAPTERS", "other")
    assert list(adapters.registered()) == ["other"]


def test_unknown_name_says_how_to_install(fake_eps: object) -> None:
    fake_eps()  # type: ignore[operator]
    with pytest.raises(AdapterError, match=r"continuity-cli\[nope\]"):
        adapters.load("nope")


def test_registry_does_not_import_modules(fake_eps: object) -> None:
    import sys

    fake_eps(("lazy", "some_module_never_imported_abc:X"))  # type: ignore[operator]
    assert "lazy" in adapters.registered()
    assert "some_module_never_imported_abc" not in sys.modules
