"""Finding OpenCode sessions: every account's databases and its legacy `storage/` tree.

An account is an OpenCode data folder (`$XDG_DATA_HOME/opencode`, by default
`~/.local/share/opencode`), or the database `OPENCODE_DB` names. A session belongs to a
project when the folder OpenCode ran in (`session.directory`) is the project or lies in it.
Sub-agent sessions (`parent_id` set) are their parent's, never listed on their own.
"""

from __future__ import annotations

import os

from continuity_core.adapters import Account
from continuity_core.adapters.kit import expand, unique_accounts
from continuity_core.schemas.session import SessionRef
from continuity_opencode import database

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from os import PathLike
    from typing import Any

    from continuity_core.schemas.config import GlobalConfig

AGENT = "opencode"
LEGACY = "storage"  # the JSON tree older OpenCode wrote, still read by its migration


# --- accounts --------------------------------------------------------------------------------


def default_data_dir() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join("~", ".local", "share")
    return os.path.join(expand(base), "opencode")


def accounts(config: GlobalConfig) -> list[Account]:
    """OPENCODE_DB, the XDG data folder, `[transcripts] opencode` and named OpenCode accounts."""
    wanted: list[tuple[str, str]] = []
    data = default_data_dir()
    named = os.environ.get("OPENCODE_DB")
    if named and named != ":memory:":
        # an absolute path, or a name relative to the data folder (formats/opencode.md)
        wanted.append(("OPENCODE_DB", named if os.path.isabs(named) else os.path.join(data, named)))
    wanted.append(("~/.local/share/opencode" if "XDG_DATA_HOME" not in os.environ else data, data))
    wanted += [(d, d) for d in config.transcripts.get(AGENT, [])]
    wanted += [(name, acc.dir) for name, acc in config.accounts.items() if acc.agent == AGENT]
    found = [Account(agent=AGENT, name=name, dir=expand(raw)) for name, raw in wanted]
    return unique_accounts(found, config)


def account_databases(account: Account) -> list[str]:
    """The databases of one account: the file itself for OPENCODE_DB, else the data folder's."""
    if account.dir.endswith(".db"):
        return [account.dir] if os.path.isfile(account.dir) else []
    return database.databases(account.dir)


# --- sessions --------------------------------------------------------------------------------


def project_roots(project: str | PathLike[str]) -> list[str]:
    """The project as written and as resolved: OpenCode records the folder it ran in."""
    plain = os.path.normpath(os.path.abspath(project))
    real = os.path.realpath(plain)
    return [plain] if real == plain else [plain, real]


_COLUMNS = "id, directory, time_updated"


def _rows(db: str, roots: Sequence[str] | None) -> list[tuple[str, str, int]]:
    """(id, directory, time_updated) of the top-level sessions in `db` under `roots` (all with
    None), newest first; [] for a database that cannot be read now."""
    import sqlite3

    try:
        conn = database.connect(db)
    except sqlite3.Error:
        return []
    try:
        where, args = "parent_id IS NULL", []
        if roots is not None:
            tests = []
            for root in roots:
                tests.append("directory = ? OR substr(directory, 1, ?) = ?")
                prefix = root.rstrip("/") + "/"
                args += [root, len(prefix), prefix]
            where += " AND (" + " OR ".join(tests) + ")"
        return conn.execute(
            f"SELECT {_COLUMNS} FROM session WHERE {where} ORDER BY time_updated DESC",  # noqa: S608 - only placeholders
            args,
        ).fetchall()
    except sqlite3.Error:
        return []
    finally:
        conn.close()


def _ref(account: Account, db: str, row: tuple[str, str, int]) -> SessionRef:
    sid, directory, updated = row
    return SessionRef(
        agent=AGENT,
        account=account.name,
        session_id=sid,
        path=database.session_path(db, sid),
        mtime=updated / 1000,
        cwd=directory,
    )


def discover(project: str | PathLike[str], accounts: Sequence[Account]) -> Iterator[SessionRef]:
    """Sessions of `project` across `accounts`, newest first."""
    roots = project_roots(project)
    found = [r for r in _every(accounts, roots)]
    found.sort(key=lambda r: -r.mtime)
    seen: set[str] = set()
    for ref in found:
        if ref.path not in seen:
            seen.add(ref.path)
            yield ref


def all_sessions(accounts: Sequence[Account]) -> Iterator[SessionRef]:
    """Every top-level session of every account, in no particular order."""
    seen: set[str] = set()
    for ref in _every(accounts, None):
        if ref.path not in seen:
            seen.add(ref.path)
            yield ref


def _every(accounts: Sequence[Account], roots: Sequence[str] | None) -> Iterator[SessionRef]:
    for account in accounts:
        for db in account_databases(account):
            for row in _rows(db, roots):
                yield _ref(account, db, row)
        if not account.dir.endswith(".db"):
            yield from legacy_sessions(account, roots)


def by_id(session_id: str, accounts: Sequence[Account]) -> SessionRef | None:
    """The session `session_id` in any account; a sub-agent's id gives its top-level parent
    (the session a checkpoint is about), or None."""
    import sqlite3

    for account in accounts:
        for db in account_databases(account):
            try:
                conn = database.connect(db)
            except sqlite3.Error:
                continue
            try:
                wanted, row = session_id, None
                for _ in range(16):  # a chain of sub-agents, never a loop
                    found = conn.execute(
                        "SELECT id, directory, time_updated, parent_id FROM session WHERE id = ?",
                        (wanted,),
                    ).fetchone()
                    if found is None:
                        break
                    row = found[:3]
                    if not found[3]:
                        break
                    wanted = found[3]
            except sqlite3.Error:
                row = None
            finally:
                conn.close()
            if row is not None:
                return _ref(account, db, row)
        for ref in legacy_sessions(account, None):
            if ref.session_id == session_id:
                return ref
    return None


# --- the legacy JSON tree --------------------------------------------------------------------


def legacy_sessions(account: Account, roots: Sequence[str] | None) -> Iterator[SessionRef]:
    """Top-level sessions of `<data>/storage/session/<project>/<id>.json` under `roots`."""
    base = os.path.join(account.dir, LEGACY, "session")
    try:
        projects = os.listdir(base)
    except OSError:
        return  # no legacy tree: the common case, which a pickup pays nothing for
    import json

    for project in projects:
        folder = os.path.join(base, project)
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if not (name.startswith("ses_") and name.endswith(".json")):
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, "rb") as f:
                    info = json.loads(f.read())
            except (OSError, ValueError):
                continue
            if not isinstance(info, dict) or info.get("parentID"):
                continue
            directory = info.get("directory")
            if not isinstance(directory, str):
                continue
            if roots is not None and not any(
                directory == r or directory.startswith(r.rstrip("/") + "/") for r in roots
            ):
                continue
            given = info.get("time")
            times: dict[str, Any] = given if isinstance(given, dict) else {}
            updated = times.get("updated") or times.get("created")
            yield SessionRef(
                agent=AGENT,
                account=account.name,
                session_id=name[:-5],
                path=path,
                mtime=updated / 1000
                if isinstance(updated, int | float)
                else os.path.getmtime(path),
                cwd=directory,
            )
