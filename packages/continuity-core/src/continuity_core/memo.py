"""A bounded memo for the hooks: `functools.lru_cache` imports functools and, with it,
collections (a hook's budget: docs/decisions.md, "How the hooks stay fast")."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Hashable
    from typing import TypeVar

    K = TypeVar("K", bound=Hashable)
    V = TypeVar("V")


def cached(size: int) -> Callable[[Callable[[K], V]], Callable[[K], V]]:
    """`lru_cache(maxsize=size)` for a function of one argument; a full memo starts again
    empty instead of evicting the least recent entry (the few keys a hook sees recur)."""

    def wrap(fn: Callable[[K], V]) -> Callable[[K], V]:
        memo: dict[K, V] = {}

        def call(key: K) -> V:
            try:
                return memo[key]
            except KeyError:
                pass
            if len(memo) >= size:
                memo.clear()
            value = memo[key] = fn(key)
            return value

        call.__name__, call.__qualname__, call.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        return call

    return wrap
