"""Searching the archive: the FTS5 query, project scopes, and what a hit says to run."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import PurePath

import msgspec

MAX_RANKED = 5000  # a query matching more passages ranks the newest this many (bounded latency)


class Hit(msgspec.Struct, kw_only=True, omit_defaults=True):
    """One search result: a session, its best-matching passage, and how to open it."""

    agent: str
    account: str
    session_id: str
    project: str | None
    time: str | None
    snippet: str
    kind: str
    path: str
    gone: bool = False
    score: float = 0.0
    matches: int = 1  # matching passages in this session
    open: str = ""  # the command that continues from this session


def search(
    db: sqlite3.Connection, query: str, project: str | None, agent: str | None, limit: int
) -> list[Hit]:
    """Sessions matching `query`, best first (bm25), one hit per session.

    Raises `sqlite3.OperationalError`; `Archive.search` says what it means.
    """
    terms = fts_query(query)
    if not terms:
        return []
    match = f"text : ({terms})"
    if project is not None:  # a token of the project and of every folder above it
        match = f'scope : "{_scope_token(str(PurePath(project)))}" AND {match}'
    # Past MAX_RANKED matches, rank only the newest ones: bm25 costs per match.
    cutoff = db.execute(
        "SELECT rowid FROM chunks WHERE chunks MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?",
        (match, MAX_RANKED),
    ).fetchone()
    rows = db.execute(
        "SELECT snippet(chunks, 0, '«', '»', '…', 16), bm25(chunks, 1.0, 0.0), c.ts, "
        "s.kind, s.agent, s.account, s.session_id, s.project, s.path, s.gone, s.last_ts "
        "FROM chunks c JOIN sources s ON s.id = c.source "
        "WHERE chunks MATCH ? AND c.rowid >= ? AND (? IS NULL OR s.agent = ?) "
        "ORDER BY rank LIMIT ?",
        (match, cutoff[0] if cutoff else 0, agent, agent, max(limit * 20, 200)),
    ).fetchall()
    hits: dict[tuple[str, str], Hit] = {}
    for snip, score, ts, kind, agent_, account, session_id, proj, path, gone, last_ts in rows:
        key = (agent_, session_id)
        if key in hits:
            hits[key].matches += 1
            continue
        if len(hits) >= limit:
            continue
        hits[key] = Hit(
            agent=agent_,
            account=account,
            session_id=session_id,
            project=proj,
            time=ts or last_ts,
            snippet=" ".join(snip.split()),
            kind=kind,
            path=path,
            gone=bool(gone),
            score=round(-score, 3),
            open=open_command(kind, agent_, session_id, proj, bool(gone)),
        )
    return list(hits.values())


def _scope_token(folder: str) -> str:
    return "p" + hashlib.blake2b(folder.rstrip("/\\").encode() or b"/", digest_size=6).hexdigest()


def scope_tokens(project: str | None) -> str:
    """Tokens for `project` and each folder above it, so a search of a folder finds below it."""
    if not project:
        return ""
    path = PurePath(project)
    return " ".join(_scope_token(str(p)) for p in (path, *path.parents))


def fts_query(query: str) -> str:
    """A user's words as an FTS5 query: every word must occur; `word*` is a prefix search."""
    terms = []
    for word in query.split():
        prefix = word.endswith("*") and len(word) > 1
        bare = word.rstrip("*") if prefix else word
        if any(ch.isalnum() for ch in bare):
            terms.append('"' + bare.replace('"', '""') + '"' + ("*" if prefix else ""))
    return " ".join(terms)


def open_command(kind: str, agent: str, session_id: str, project: str | None, gone: bool) -> str:
    """What to run to pick this session up again."""
    import shlex

    if kind != "transcript" or gone:
        return f"baker recall --show {session_id}"
    where = f"cd {shlex.quote(project)} && " if project else ""
    return f"{where}baker handoff --from {agent} --session {session_id}"
