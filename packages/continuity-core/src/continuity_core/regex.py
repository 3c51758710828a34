"""Regular expressions compiled on first use.

Importing `re` costs a hook ~5 ms (it imports `enum`), a third of a bare interpreter's start,
and every compiled pattern a little more. So the modules on a hook's path hold their patterns
as `Lazy` and import `re` only inside the functions that need it: a hook whose texts never
need a pattern never pays for one (docs/decisions.md, "Hook start-up budget"). Flags go
inline (`(?s)`, `(?i)`), so a module needs no `re` to name them.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re


_SPECIAL = {i: "\\" + chr(i) for i in b"()[]{}?*+-|^$\\.&~# \t\n\r\v\f"}


def escape(text: str) -> str:
    """`re.escape`, without importing `re`."""
    return text.translate(_SPECIAL)


class Lazy:
    """A `str` pattern, compiled the first time `rx` is read."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self._compiled: re.Pattern[str] | None = None

    @property
    def rx(self) -> re.Pattern[str]:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.source)
        return self._compiled


class LazyBytes:
    """A `bytes` pattern, compiled the first time `rx` is read."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._compiled: re.Pattern[bytes] | None = None

    @property
    def rx(self) -> re.Pattern[bytes]:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.source)
        return self._compiled
