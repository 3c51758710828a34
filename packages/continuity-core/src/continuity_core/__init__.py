"""Continuity core: vendor-neutral schemas, the project store, redaction and the brief."""

import sys
from types import FrameType

__version__ = "0.1.0"


class _NoTypingExtensionsForMsgspec:
    """msgspec's `_utils` imports typing_extensions when it is installed (the `mcp` extra
    brings it), and with it inspect and ast: ~7 ms of every start that loads msgspec, for
    nothing our schemas use. Only that one import fails, as it does wherever typing_extensions
    is not installed (msgspec then uses `typing`); everyone else imports it as usual
    (docs/decisions.md, "Hook start-up budget")."""

    @staticmethod
    def find_spec(name: str, path: object = None, target: object = None) -> None:
        if name != "typing_extensions":
            return None
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            if frame.f_globals.get("__name__") == "msgspec._utils":
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            frame = frame.f_back
        return None


if "msgspec" not in sys.modules:
    sys.meta_path.insert(0, _NoTypingExtensionsForMsgspec)
