"""Regular expressions compiled on first use.

Importing `re` costs a hook ~5 ms (it imports `enum`), a third of a bare interpreter's start,
and every compiled pattern a little more. So the modules on a hook's path hold their patterns
as `Lazy` (`LazyBytes` for bytes) and import `re` only inside the functions that need it: a
hook whose texts never need a pattern never pays for one (docs/decisions.md, "Hook start-up
budget"). Flags go inline (`(?s)`, `(?i)`), so a module needs no `re` to name them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import AnyStr, Generic

    class _Typed(Generic[AnyStr]):
        """What the type checker sees of `Lazy`: one class for `str` and `bytes` patterns."""

        source: AnyStr

        def __init__(self, source: AnyStr) -> None: ...

        @property
        def rx(self) -> re.Pattern[AnyStr]: ...

    Lazy = _Typed[str]
    LazyBytes = _Typed[bytes]


_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def escape(text: str) -> str:
    """`re.escape`, without importing `re`."""
    return text.translate(_SPECIAL)


class _Lazy:
    """A pattern (`str` or `bytes`), compiled the first time `rx` is read."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str | bytes) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | re.Pattern[bytes] | None = None

    @property
    def rx(self) -> re.Pattern[str] | re.Pattern[bytes]:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.source)
        return self._compiled


if not TYPE_CHECKING:
    Lazy = LazyBytes = _Lazy
