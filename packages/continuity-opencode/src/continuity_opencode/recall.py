"""A session's records for the recall archive (`Adapter.session_records`).

An OpenCode session is rows of one database (or files of the legacy `storage/` tree), not a
JSONL file of its own, so the archive cannot read `ref.path` itself: it reads the session's
message and part rows here, each decoded, oldest first, and takes their text as it does a
JSONL line's (a text part's `text`, a tool part's `state.input` and `state.output`, ...).
"""

from __future__ import annotations

import os

from continuity_core import stamps
from continuity_opencode import database

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from continuity_core.schemas.session import SessionRef


class Rows:
    """`SessionRecords` over OpenCode's database and its legacy tree."""

    def records(self, ref: SessionRef) -> Iterator[tuple[str | None, object]]:
        db, sid = database.split_path(ref.path)
        if not db:
            yield from _legacy(ref)
            return
        conn = database.connect(db)
        try:
            with database.Snapshot(conn) as c:
                rows = c.execute(
                    "SELECT time_created, data, 0 AS part, id FROM message WHERE session_id = ? "
                    "UNION ALL SELECT time_created, data, 1, id FROM part WHERE session_id = ? "
                    "ORDER BY 1, 3, 4",
                    (sid, sid),
                ).fetchall()
        finally:
            conn.close()
        for created, data, _part, _id in rows:
            record = _decode(data)
            if record is not None:
                yield stamps.iso(created / 1000), record


def _decode(data: str | bytes) -> object | None:
    import json  # the hooks load the adapter, never this: json stays off their path

    try:
        record: object = json.loads(data)
    except ValueError:  # a row written half-way: its text is indexed once it is whole
        return None
    return record


def _legacy(ref: SessionRef) -> Iterator[tuple[str | None, object]]:
    """`storage/message/<session>/*.json` and each message's `storage/part/<message>/*.json`."""
    base = os.path.dirname(os.path.dirname(os.path.dirname(ref.path)))  # …/storage
    for message in _files(os.path.join(base, "message", ref.session_id)):
        record = _read(message)
        if record is None:
            continue
        times = record.get("time") if isinstance(record, dict) else None
        created = times.get("created") if isinstance(times, dict) else None
        ts = stamps.iso(created / 1000) if isinstance(created, int | float) else None
        yield ts, record
        mid = os.path.basename(message)[:-5]
        for part in _files(os.path.join(base, "part", mid)):
            found = _read(part)
            if found is not None:
                yield ts, found


def _files(folder: str) -> list[str]:
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names]


def _read(path: str) -> object | None:
    try:
        with open(path, "rb") as f:
            return _decode(f.read())
    except OSError:
        return None
