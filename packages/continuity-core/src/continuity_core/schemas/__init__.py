"""msgspec schemas: everything that crosses a package boundary or reaches disk."""

from continuity_core.schemas.checkpoint import Checkpoint, GitFacts, Worktree
from continuity_core.schemas.config import AccountConfig, GlobalConfig
from continuity_core.schemas.hook import HookEvent
from continuity_core.schemas.probe import ProbeResult, ProbesFile, ProbeSpec
from continuity_core.schemas.session import (
    ApiError,
    Compaction,
    FileEdit,
    Message,
    Session,
    SessionRef,
    TodoItem,
    ToolCall,
    Usage,
)
from continuity_core.schemas.trap import Trap

__all__ = [
    "AccountConfig",
    "ApiError",
    "Checkpoint",
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
    "TodoItem",
    "ToolCall",
    "Trap",
    "Usage",
    "Worktree",
]
