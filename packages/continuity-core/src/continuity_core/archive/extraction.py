"""Text out of sessions: what the archive indexes, found without parsing any vendor format.

Core knows the keys every format shares; an adapter adds its own through
`Adapter.archive_text` (`kit.ArchiveKeys`)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from continuity_core.redact import secret_name, secret_option
from continuity_core.schemas.config import GlobalConfig
from continuity_core.store import SAVED  # .baker/saved/: saved handoffs (markdown)

if TYPE_CHECKING:
    from continuity_core.adapters import Adapter

MAX_STRING = 32_000  # characters kept of one string: a huge tool output is cut, not dropped

Kind = Literal["transcript", "checkpoint", "saved"]

# String leaves under these keys (anywhere below them) are what a searcher wants: requests,
# answers, tool commands and outputs, plans, summaries. Keys are the union over the agents'
# formats' common names; an adapter adds its own (`kit.ArchiveKeys`).
TEXT_KEYS = frozenset(
    """
    text content command cmd output arguments input args prompt description summary
    stdout stderr result title query old_string new_string explanation plan step
    thoughts subject error reason file_path patch
    """.split()  # noqa: SIM905 - a table of words, read as text
)
# Subtrees that are never worth indexing: ids, hashes, usage, and injected system
# instructions, repeated in every session (an adapter adds its agent's own).
SKIP_KEYS = frozenset(
    """
    id uuid type role sessionId session_id timestamp signature usage tokens snapshot
    attachment instructions requestId messageId status model cwd
    """.split()  # noqa: SIM905 - a table of words, read as text
)
SKIP_ROLES = frozenset({"developer", "system"})

_decode = msgspec.json.Decoder()


# --- extraction --------------------------------------------------------------------------


Texts = Callable[[object], list[str]]  # `Adapter.archive_text`


def strings(
    record: object, text_keys: frozenset[str] = TEXT_KEYS, skip_keys: frozenset[str] = SKIP_KEYS
) -> list[str]:
    """The string leaves of `record` under `text_keys`, outside `skip_keys` and secrets."""
    out: list[str] = []

    def walk(value: Any, keep: bool) -> None:
        if isinstance(value, str):
            if keep and value.strip():
                out.append(value[:MAX_STRING])
        elif isinstance(value, dict):
            if value.get("role") in SKIP_ROLES:
                return
            for key, item in value.items():
                if key in skip_keys or secret_name(key):  # a tool input's `password`, `env.DB_PASS`
                    continue
                walk(item, keep or key in text_keys or (key == "message" and isinstance(item, str)))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if not (i and secret_option(value[i - 1])):  # `["--password", "…"]`
                    walk(item, keep)

    walk(record, False)
    return out


def extract(record: Any, texts: Texts) -> tuple[str, str | None]:
    """The text (each string once, in order) and the timestamp of one decoded JSONL record."""
    ts = record.get("timestamp") if isinstance(record, dict) else None
    return "\n".join(dict.fromkeys(texts(record))), ts if isinstance(ts, str) else None


def line_text(line: bytes, texts: Texts) -> tuple[str, str | None, Any]:
    """Decode one JSONL line into (text, timestamp, record); a bad line is ("", None, None)."""
    try:
        record = _decode.decode(line)
    except msgspec.DecodeError:
        return "", None, None
    return (*extract(record, texts), record)


def _cwd_of(record: Any) -> str | None:
    """An absolute `cwd` at the top of a record or one level down (where formats put it)."""
    if not isinstance(record, dict):
        return None
    for holder in (record, *(v for v in record.values() if isinstance(v, dict))):
        cwd = holder.get("cwd")
        if isinstance(cwd, str) and os.path.isabs(cwd):
            return cwd
    return None


# --- what gets indexed -------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """One file to index and the session it belongs to."""

    kind: Kind
    agent: str
    account: str
    session_id: str
    path: str
    # A session that is no file of its own (`Adapter.session_records`: rows of a database):
    # its records, indexed whole again whenever its `mtime` changes. None: `path` is a JSONL
    # transcript, indexed by byte offset.
    records: Callable[[], Iterator[tuple[str | None, object]]] | None = None
    mtime: float = 0.0
    project: str | None = None  # the session's working folder, when known
    texts: Texts = strings  # what of a transcript's record is indexed: its adapter's choice


def sources_for(
    adapters: Mapping[str, Adapter], config: GlobalConfig, project: Path | None
) -> tuple[list[Source], list[str]]:
    """Every transcript of every adapter and account, plus the project's checkpoints and handoffs.

    Returns the sources and one error line per adapter that failed (the others still count).
    """
    found: list[Source] = []
    errors: list[str] = []
    for name, adapter in adapters.items():
        try:
            stored = adapter.session_records  # sessions kept as records, not files
            for ref in adapter.all_sessions(adapter.accounts(config)):
                found.append(
                    Source(
                        kind="transcript",
                        agent=ref.agent,
                        account=ref.account,
                        session_id=ref.session_id,
                        path=ref.path,
                        records=None if stored is None else functools.partial(stored.records, ref),
                        mtime=ref.mtime,
                        project=ref.cwd,
                        texts=adapter.archive_text,
                    )
                )
        except Exception as e:  # one adapter's failure never hides the others' sessions
            errors.append(f"{name}: {e}")
    if project is not None:
        found += project_sources(project)
    return found, errors


def project_sources(project: Path) -> list[Source]:
    """The project's automatic checkpoints and saved handoffs (not their .json sidecars)."""
    store = project / ".baker"
    found: list[tuple[Kind, Path]] = [
        *(("checkpoint", p) for p in sorted((store / "checkpoints").glob("*.json"))),
        *(("saved", p) for p in sorted((store / SAVED).rglob("*.md")) if p.is_file()),
    ]
    return [
        Source(
            kind, agent="baker", account="", session_id=p.stem, path=str(p), project=str(project)
        )
        for kind, p in found
    ]
