"""Finding Copilot CLI sessions: `<COPILOT_HOME>/session-state/<id>/events.jsonl`.

The path holds no project: each session folder's `workspace.yaml` (`cwd`, `git_root`,
`branch`) says which project it belongs to, and the log's first event (`session.start`,
`context.cwd`) where that file is missing or unreadable. The global `session-store.db` is not
read: it is a second copy of the same facts whose newest rows often sit in an uncheckpointed
WAL that a read-only reader may not see, and one small file per session is cheap to read.
"""

from __future__ import annotations

import os

from continuity_core.adapters import Account, kit
from continuity_core.adapters.kit import expand, unique_accounts
from continuity_core.schemas.session import SessionRef

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from os import PathLike

    from continuity_core.schemas.config import GlobalConfig

AGENT = "copilot"
STATE = "session-state"
EVENTS = "events.jsonl"
WORKSPACE = "workspace.yaml"
TODOS_DB = "session.db"
HEAD_BYTES = 16384  # session.start is the first event, well under this
WORKSPACE_MAX = 65536  # a workspace.yaml is a few hundred bytes; never read a huge one


def accounts(config: GlobalConfig) -> list[Account]:
    """COPILOT_HOME, ~/.copilot, `[transcripts] copilot` and named Copilot accounts, once each."""
    wanted: list[tuple[str, str]] = []
    env = os.environ.get("COPILOT_HOME")
    if env:
        wanted.append(("COPILOT_HOME", env))
    wanted.append(("~/.copilot", "~/.copilot"))
    wanted += [(d, d) for d in config.transcripts.get(AGENT, [])]
    wanted += [(name, acc.dir) for name, acc in config.accounts.items() if acc.agent == AGENT]
    found = [Account(agent=AGENT, name=name, dir=expand(raw)) for name, raw in wanted]
    return unique_accounts(found, config)


# --- workspace.yaml --------------------------------------------------------------------------


def parse_workspace(text: str) -> dict[str, str]:
    """The top-level `key: scalar` pairs of a workspace.yaml, as Copilot writes it.

    Copilot writes a flat mapping of plain, single-quoted or double-quoted scalars; that subset
    is read here rather than adding a YAML library for five keys. A value in any other form
    (a block scalar, a flow collection, an alias) is left out, and the caller falls back to the
    session's first event for it.
    """
    import json

    out: dict[str, str] = {}
    for line in text.splitlines():
        if not line or line[0] in " \t#-" or (": " not in line and not line.endswith(":")):
            continue
        key, _, value = line.partition(":")
        value = value.strip()
        if not key.replace("_", "a").isalnum() or not value:
            continue
        if value[0] == '"':
            try:
                parsed = json.loads(value)
            except ValueError:
                continue
            if isinstance(parsed, str):
                out[key] = parsed
        elif value[0] == "'":
            if len(value) >= 2 and value.endswith("'"):
                out[key] = value[1:-1].replace("''", "'")
        elif value[0] not in "|>[{&*!%@`" and " #" not in value:
            out[key] = value
    return out


def workspace(folder: str) -> dict[str, str]:
    """A session folder's workspace.yaml read as `parse_workspace` reads it; {} when absent."""
    try:
        raw = kit.read_head(os.path.join(folder, WORKSPACE), WORKSPACE_MAX)
    except OSError:
        return {}
    return parse_workspace(raw.decode("utf-8", "replace"))


def start_context(events: str) -> dict[str, str]:
    """`cwd`, `git_root` and `branch` from the log's `session.start` (its first line)."""
    import msgspec

    from continuity_copilot.views import Start

    try:
        head = kit.read_head(events, HEAD_BYTES)
    except OSError:
        return {}
    first = head.split(b"\n", 1)[0]
    try:
        event = msgspec.json.decode(first, type=Start)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return {}
    ctx = event.data.context
    if event.type != "session.start" or ctx is None:
        return {}
    found = {"cwd": ctx.cwd, "git_root": ctx.gitRoot, "branch": ctx.branch}
    return {k: v for k, v in found.items() if v}


def facts(folder: str) -> dict[str, str]:
    """The session's `cwd`, `git_root` and `branch`: workspace.yaml, else its first event."""
    found = workspace(folder)
    if not found.get("cwd"):
        found = {**start_context(os.path.join(folder, EVENTS)), **found}
    return found


# --- sessions --------------------------------------------------------------------------------


def session_folders(home: str) -> Iterator[tuple[str, str]]:
    """(session id, folder) of every session in one account that has an events log."""
    root = os.path.join(home, STATE)
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or not kit.plain_id(entry.name):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                yield entry.name, entry.path
        except OSError:
            continue


def _stat(path: str) -> tuple[float, int] | None:
    import stat

    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return st.st_mtime, st.st_size


def ref_for(session_id: str, folder: str, account: Account) -> SessionRef | None:
    events = os.path.join(folder, EVENTS)
    got = _stat(events)
    if got is None:
        return None
    return SessionRef(
        agent=AGENT,
        account=account.name,
        session_id=session_id,
        path=events,
        mtime=got[0],
        cwd=facts(folder).get("cwd"),
        size=got[1],
    )


def project_roots(project: str | PathLike[str]) -> list[str]:
    """The project as written and as resolved: a session records whichever Copilot saw."""
    plain = os.path.normpath(os.path.abspath(project))
    real = os.path.realpath(plain)
    return [plain] if real == plain else [plain, real]


def within(cwd: str | None, roots: Sequence[str]) -> bool:
    if not cwd:
        return False
    cwd = os.path.normpath(cwd)
    return any(cwd == r or cwd.startswith(r.rstrip("/") + "/") for r in roots)


def discover(project: str | PathLike[str], accounts: Sequence[Account]) -> Iterator[SessionRef]:
    """Sessions whose working folder is `project` or below, across `accounts`, newest first."""
    roots = project_roots(project)
    found = [ref for ref in all_sessions(accounts) if within(ref.cwd, roots)]
    found.sort(key=lambda r: -r.mtime)
    return iter(found)


def all_sessions(accounts: Sequence[Account]) -> Iterator[SessionRef]:
    """Every session of every account, in no particular order."""
    seen: set[str] = set()
    for account in accounts:
        for session_id, folder in session_folders(account.dir):
            ref = ref_for(session_id, folder, account)
            if ref is not None and ref.path not in seen:
                seen.add(ref.path)
                yield ref


def by_id(session_id: str, accounts: Sequence[Account]) -> SessionRef | None:
    """The session `session_id` in the first account that holds it."""
    if not kit.plain_id(session_id):
        return None
    for account in accounts:
        folder = os.path.join(account.dir, STATE, session_id)
        ref = ref_for(session_id, folder, account)
        if ref is not None:
            return ref
    return None


def home_of(events: str) -> str | None:
    """The account folder an events.jsonl lies in (`<home>/session-state/<id>/events.jsonl`)."""
    folder = os.path.dirname(os.path.abspath(events))
    state = os.path.dirname(folder)
    if os.path.basename(events) != EVENTS or os.path.basename(state) != STATE:
        return None
    return os.path.dirname(state)
