"""The captured OpenCode home (tests/fixtures/opencode), placed where a test wants it.

`opencode.db.gz` is the database OpenCode 1.18.33 wrote against a loopback mock
(tests/fixtures/opencode/README.md says how), its paths rewritten to `/home/dev/work`; a test
gets a copy whose paths point into its own temporary folder.
"""

from __future__ import annotations

import gzip
import shutil
import sqlite3
from pathlib import Path

FIXTURES = Path(__file__).parents[1] / "fixtures" / "opencode"
CAPTURED_ROOT = "/home/dev/work"
MAIN = "ses_dbaad4d20ffemFum0wyhM5uTAT"  # proj: three runs, a sub-agent, a compaction, a kill
CHILD = "ses_dbaad1115ffeNAkbo90Ct46AUQ"  # the sub-agent session the main one started
OTHER = "ses_dbaaca7a6ffer08h7xoHf6JHpJ"  # another project
LIMITED = "ses_dbaac6f63ffe7luHEUjN0Yvjua"  # proj: a run that got 429s


def relocate(db: Path, root: str, captured: str = CAPTURED_ROOT) -> None:
    """Rewrite the `captured` root in every text column to `root`."""
    conn = sqlite3.connect(db)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            for col in conn.execute(f"PRAGMA table_info('{table}')").fetchall():
                if col[2].upper() == "TEXT":
                    name = col[1]
                    sql = f'UPDATE "{table}" SET "{name}" = replace("{name}", ?, ?) WHERE "{name}" LIKE ?'  # noqa: S608 - names from the schema
                    conn.execute(sql, (captured, root, f"%{captured}%"))
        conn.commit()
    finally:
        conn.close()


def home_copy(tmp_path: Path) -> tuple[Path, Path]:
    """(data folder with opencode.db, the work root holding proj/ and other/)."""
    data = tmp_path / "share" / "opencode"
    data.mkdir(parents=True)
    work = tmp_path / "work"
    (work / "proj").mkdir(parents=True)
    (work / "other").mkdir()
    db = data / "opencode.db"
    with gzip.open(FIXTURES / "opencode.db.gz", "rb") as src, db.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    relocate(db, str(work))
    return data, work


PAYLOADS = FIXTURES / "payloads"  # what baker's plugin sent from a real run (README.md)


def legacy_tree(db: Path, data: Path) -> None:
    """The sessions of `db` written out as the legacy `storage/` tree older OpenCode kept
    (session/<project>/<id>.json, message/<session>/<id>.json, part/<message>/<id>.json,
    todo/<session>.json): the same captured records, in the files peers still read."""
    import json

    conn = sqlite3.connect(db)
    try:
        storage = data / "storage"
        for sid, project, parent, directory, created, updated in conn.execute(
            "SELECT id, project_id, parent_id, directory, time_created, time_updated FROM session"
        ):
            info = {
                "id": sid,
                "projectID": project,
                "directory": directory,
                "time": {"created": created, "updated": updated},
            }
            if parent:
                info["parentID"] = parent
            _write(storage / "session" / project / f"{sid}.json", info)
            todos = [
                {"content": c, "status": s, "priority": p, "id": str(i)}
                for i, (c, s, p) in enumerate(
                    conn.execute(
                        "SELECT content, status, priority FROM todo WHERE session_id = ? "
                        "ORDER BY position",
                        (sid,),
                    )
                )
            ]
            if todos:
                _write(storage / "todo" / f"{sid}.json", todos)
        for mid, sid, data_ in conn.execute("SELECT id, session_id, data FROM message"):
            _write(
                storage / "message" / sid / f"{mid}.json",
                {"id": mid, "sessionID": sid, **json.loads(data_)},
            )
        for pid, mid, sid, data_ in conn.execute(
            "SELECT id, message_id, session_id, data FROM part"
        ):
            _write(
                storage / "part" / mid / f"{pid}.json",
                {"id": pid, "messageID": mid, "sessionID": sid, **json.loads(data_)},
            )
    finally:
        conn.close()


def _write(path: Path, value: object) -> None:
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
