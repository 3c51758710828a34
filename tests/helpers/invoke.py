"""The type of the `cli` fixture (tests/conftest.py): the click app invoked in-process."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # click comes with continuity-cli; an adapter's tests may run without it
    from click.testing import Result


class Invoke(Protocol):
    def __call__(self, *args: str, input: str | None = None) -> Result: ...
