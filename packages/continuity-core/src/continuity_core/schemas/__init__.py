"""Schemas: everything that crosses a package boundary or reaches disk (msgspec Structs, but
for the hook event, a plain class the pre-tool hook builds without msgspec)."""

TYPE_CHECKING = False

if TYPE_CHECKING:
    from continuity_core.schemas.checkpoint import Checkpoint, GitFacts, Worktree
    from continuity_core.schemas.config import AccountConfig, GlobalConfig
    from continuity_core.schemas.hook import HookEvent
    from continuity_core.schemas.probe import ProbeResult, ProbesFile, ProbeSpec
    from continuity_core.schemas.session import (
        ApiError,
        CommandRun,
        Compaction,
        FileEdit,
        Message,
        Session,
        SessionRef,
        SubagentResult,
        TodoItem,
        ToolCall,
        Usage,
    )
    from continuity_core.schemas.trap import Trap

# Each name's module, imported on first use: a hook that needs one schema module does not
# build every struct (docs/decisions.md, "How the hooks stay fast").
_MODULES = {
    "Checkpoint": "checkpoint",
    "GitFacts": "checkpoint",
    "Worktree": "checkpoint",
    "AccountConfig": "config",
    "GlobalConfig": "config",
    "HookEvent": "hook",
    "ProbeResult": "probe",
    "ProbesFile": "probe",
    "ProbeSpec": "probe",
    "ApiError": "session",
    "CommandRun": "session",
    "Compaction": "session",
    "FileEdit": "session",
    "Message": "session",
    "Session": "session",
    "SessionRef": "session",
    "SubagentResult": "session",
    "TodoItem": "session",
    "ToolCall": "session",
    "Usage": "session",
    "Trap": "trap",
}


def __getattr__(name: str) -> object:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "AccountConfig",
    "ApiError",
    "Checkpoint",
    "CommandRun",
    "Compaction",
    "FileEdit",
    "GitFacts",
    "GlobalConfig",
    "HookEvent",
    "Message",
    "ProbeResult",
    "ProbeSpec",
    "ProbesFile",
    "Session",
    "SessionRef",
    "SubagentResult",
    "TodoItem",
    "ToolCall",
    "Trap",
    "Usage",
    "Worktree",
]
