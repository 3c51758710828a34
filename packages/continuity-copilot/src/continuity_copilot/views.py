"""Tolerant msgspec views of the Copilot CLI events baker reads (`events.jsonl`).

Each view holds only the fields baker uses, all with defaults; unknown fields are ignored,
and a field of the wrong type makes the line a bad line (msgspec.ValidationError is a
ValueError). The shapes are those of Copilot CLI 1.0.102's `session-events.schema.json`.
"""

from __future__ import annotations

import msgspec


class Envelope(msgspec.Struct):
    """Every line: `{"type", "data", "id", "timestamp", "parentId"}`; `data` decoded later."""

    type: str = ""
    timestamp: str | None = None
    data: msgspec.Raw = msgspec.Raw(b"{}")


class Context(msgspec.Struct):
    cwd: str | None = None
    gitRoot: str | None = None
    branch: str | None = None


class StartData(msgspec.Struct):
    selectedModel: str | None = None
    context: Context | None = None


class Start(msgspec.Struct):
    """`session.start` (and `session.resume`) as a whole line."""

    type: str = ""
    data: StartData = msgspec.field(default_factory=StartData)


class ContextChanged(msgspec.Struct):
    cwd: str | None = None
    branch: str | None = None


class UserMessage(msgspec.Struct):
    content: str = ""
    source: str | None = None  # "agent-<session id>": a sub-agent's task, not the user's
    isAutopilotContinuation: bool = False


class AssistantMessage(msgspec.Struct):
    model: str | None = None
    content: str = ""
    parentToolCallId: str | None = None


class ToolStart(msgspec.Struct):
    toolCallId: str = ""
    toolName: str = ""
    arguments: dict[str, object] | None = None
    parentToolCallId: str | None = None


class ToolResult(msgspec.Struct):
    content: str | None = None


class ToolError(msgspec.Struct):
    message: str | None = None
    code: str | None = None


class Edit(msgspec.Struct):
    path: str = ""
    kind: str = "edit"


class ShellExecution(msgspec.Struct):
    exitCode: int | None = None


class ToolComplete(msgspec.Struct):
    toolCallId: str = ""
    success: bool = True
    result: ToolResult | None = None
    error: ToolError | None = None
    fileEdits: list[Edit] = msgspec.field(default_factory=list)
    shellExecution: ShellExecution | None = None
    parentToolCallId: str | None = None


class SubagentStarted(msgspec.Struct):
    toolCallId: str = ""
    agentDescription: str | None = None
    agentDisplayName: str | None = None


class Tokens(msgspec.Struct):
    model: str | None = None
    inputTokens: int = 0  # includes the cached tokens (formats/copilot.md)
    outputTokens: int = 0
    cacheReadTokens: int | None = None
    cacheWriteTokens: int | None = None
    maxPromptTokens: int | None = None


class UsageRecord(msgspec.Struct):
    usage: Tokens | None = None


class UsageInfo(msgspec.Struct):
    tokenLimit: int | None = None
    currentTokens: int | None = None


class SessionError(msgspec.Struct):
    errorType: str = ""
    errorCode: str | None = None
    message: str = ""
    statusCode: int | None = None


class CompactionStart(msgspec.Struct):
    trigger: str | None = None
    currentTokens: int | None = None


class CompactionComplete(msgspec.Struct):
    success: bool = True
    preCompactionTokens: int | None = None
    summaryContent: str | None = None
    trigger: str | None = None


class Budget(msgspec.Struct):
    resetAtEpochMs: float | None = None


class Observation(msgspec.Struct):
    capacityState: str | None = None
    quotaId: str | None = None
    budgetMetadata: Budget | None = None


class QuotaObservation(msgspec.Struct):
    observation: Observation | None = None


class CreditsExhausted(msgspec.Struct):
    usedAiCredits: float | None = None
    maxAiCredits: float | None = None


class HookError(msgspec.Struct):
    message: str | None = None


class HookInput(msgspec.Struct):
    error: HookError | None = None


class HookStart(msgspec.Struct):
    """`hook.start`: Copilot logs each hook call with its whole input before running it."""

    hookType: str = ""
    input: HookInput | None = None


class Abort(msgspec.Struct):
    reason: str = ""


class Interrupted(msgspec.Struct):
    activity: str | None = None
