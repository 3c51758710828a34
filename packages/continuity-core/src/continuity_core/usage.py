"""Context-usage levels: when to save, refresh or rotate, from a session's measured usage.

Thresholds are a percentage of the context window ("50%") or a token count ("100000",
"100k"). A percentage needs the window; when the window is unknown the token defaults apply.
No measurement means `unknown`: a number is never invented.
"""

from __future__ import annotations

from msgspec import Struct

from continuity_core.errors import ConfigError
from continuity_core.schemas.usage import UsageReport

# The checkpoint hook reads the levels after every turn (`checkpoint.remind`): nothing here
# imports typing or pathlib (docs/decisions.md, "How the hooks stay fast").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Literal

    from continuity_core.adapters import Adapter
    from continuity_core.schemas.config import UsageConfig
    from continuity_core.schemas.session import Usage

LEVELS: tuple[Literal["prepare", "refresh", "rotate"], ...] = ("prepare", "refresh", "rotate")
DEFAULT_TOKENS = {"prepare": 100_000, "refresh": 125_000, "rotate": 150_000}
ACTIONS: dict[str, str] = {
    "ok": "no action",
    "prepare": "save a checkpoint (baker save)",
    "refresh": "update the checkpoint (baker save again)",
    "rotate": "update the checkpoint and suggest a new session with its resume prompt",
    "unknown": "report that context usage cannot be measured; do not guess a number",
}


class Threshold(Struct, kw_only=True, frozen=True):
    """A parsed threshold: `percent` of the window, or a count of `tokens`."""

    percent: float | None = None
    tokens: int | None = None

    def tokens_for(self, window: int | None, level: str) -> int:
        if self.tokens is not None:
            return self.tokens
        if window and self.percent is not None:
            return int(window * self.percent / 100)
        return DEFAULT_TOKENS[level]


def parse_threshold(raw: str | int | float) -> Threshold:
    """ "50%" -> 50 % of the window; "100000", "100k", "1.5m" -> a token count."""
    text = str(raw).strip().lower().replace("_", "").replace(",", "")
    try:
        if text.endswith("%"):
            value = float(text[:-1])
            if not 0 < value <= 100:
                raise ValueError
            return Threshold(percent=value)
        scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
        number = float(text[:-1]) if scale > 1 else float(text)
        if number <= 0:
            raise ValueError
        return Threshold(tokens=int(number * scale))
    except (ValueError, IndexError):
        raise ConfigError(
            f'usage threshold {raw!r} is neither a percentage ("50%") nor a token count '
            '("100000" or "100k")'
        ) from None


def thresholds(
    config: UsageConfig | None = None, overrides: Mapping[str, str | None] | None = None
) -> dict[str, Threshold]:
    """The thresholds in force: flags over `[usage]` in config.toml over the defaults."""
    if config is None:
        from continuity_core.schemas.config import UsageConfig

        config = UsageConfig()
    return {
        level: parse_threshold((overrides or {}).get(level) or getattr(config, level))
        for level in LEVELS
    }


def level_for(
    usage: Usage | None,
    limits: Mapping[str, Threshold],
    *,
    source: str = "",
    agent: str | None = None,
    session_id: str | None = None,
    reason: str | None = None,
) -> UsageReport:
    """The level `usage` has reached; `unknown` (with `reason`) when there is no measurement."""
    report = UsageReport(
        level="unknown", action="", source=source, agent=agent, session_id=session_id
    )
    if usage is None or usage.context_tokens <= 0:
        report.reason = reason or "the session recorded no context usage yet"
    else:
        window = usage.context_window or None
        applied: dict[str, int] = {lvl: limits[lvl].tokens_for(window, lvl) for lvl in LEVELS}
        reached = (lvl for lvl in reversed(LEVELS) if usage.context_tokens >= applied[lvl])
        report.level = next(reached, "ok")  # the highest level reached
        report.context_tokens, report.context_window = usage.context_tokens, window
        report.percent = round(100 * usage.context_tokens / window, 1) if window else None
        report.thresholds = applied
    report.action = ACTIONS[report.level]
    return report


# --- where a measurement comes from ----------------------------------------------------------


def from_file(adapter: Adapter, path: Path) -> tuple[Usage | None, str, str | None]:
    """Usage of the transcript at `path` (named on the command line) read by `adapter`;
    (usage, session id, reason)."""
    from continuity_core.schemas.session import SessionRef

    st = path.stat()
    ref = SessionRef(
        agent=adapter.name,
        account="",
        session_id=path.stem.removesuffix(".trimmed"),
        path=str(path),
        mtime=st.st_mtime,
        size=st.st_size,
    )
    session = adapter.read(ref, None).session
    reason = None if session.usage else f"{path} records no context usage"
    return session.usage, session.session_id or ref.session_id, reason


def live(
    root: Path,
    limits: Mapping[str, Threshold],
    agent: str | None = None,
    session_id: str | None = None,
) -> UsageReport:
    """The level of the previous session of the project at `root` (the newest that did work,
    in any agent and account, or of `agent`, or the session `session_id`:
    `continuity_core.sessions.choose`)."""
    from continuity_core.adapters import load_all
    from continuity_core.config import load_config
    from continuity_core.sessions import NoMatch, choose, why_none
    from continuity_core.store import Store

    adapters, broken = load_all()
    store = Store(root)
    try:
        choice = choose(
            root,
            adapters,
            load_config(),
            store if store.exists else None,
            agent=agent,
            session_id=session_id,
        )
    except NoMatch as e:  # --agent's (a name no adapter has, too): the first line says why
        return level_for(None, limits, source="live session", reason=str(e).splitlines()[0])
    problems = [*broken.values(), *choice.errors]
    if choice.ref is None or choice.session is None:
        where = "; ".join(choice.searched) or "no agent adapter is installed"
        why = f"no session of this project was found (searched: {where})"
        why = "; ".join(filter(None, [why, why_none(root, choice.below)]))
        return level_for(None, limits, source="live session", reason="; ".join([why, *problems]))
    ref = choice.ref
    return level_for(
        choice.session.usage,
        limits,
        source=f"{ref.agent} transcript {ref.path}",
        agent=ref.agent,
        session_id=ref.session_id,
        reason=f"{ref.path} records no context usage yet",
    )
