"""Where Gemini CLI keeps sessions: accounts, the project registry and the chat files.

`<home>/.gemini/tmp/<project-id>/chats/session-*.jsonl` (legacy: one `.json` object). The
project id is a slug from `projects.json`, a `tmp/*/.project_root` marker naming the root, or
(before 0.2x) the sha256 of the root. Session files hold no cwd: the registry is the only link.
"""

from __future__ import annotations

import os

from msgspec import Struct

from continuity_core import jsonl
from continuity_core.adapters import Account, kit
from continuity_core.adapters.kit import expand, unique_accounts
from continuity_core.fs import hexdigest
from continuity_core.jsonl import ForwardReader
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.session import SessionRef
from continuity_gemini.hooks import sid_from_name

TYPE_CHECKING = False
if TYPE_CHECKING:  # the Stop hook's checkpoint imports this module: str paths, no pathlib
    from collections.abc import Iterator, Sequence
    from os import PathLike

AGENT = "gemini"
HOME_ENV = "GEMINI_CLI_HOME"
CONTEXT_ID = "d04923d38bb0f6017037e74183378ef4"  # the CLI's constant <session_context> message id
STUB_PROBE_LINES = 24  # a stub is a header and one `$set`; real content shows within a few lines
PROBE_CHUNK = 1 << 16  # the reads of a probe: its lines are at the start of a file of any size


def _pure(path: str) -> str:
    """`path` as pathlib spells it (`a//b/./c/` is `a/b/c`), so that paths compare."""
    from pathlib import PurePosixPath  # here: the hooks that load this module never call it

    return str(PurePosixPath(path))


def config_dir(raw: str) -> str:
    """The `.gemini` folder for a path a user wrote: the folder itself or `<path>/.gemini`."""
    path = _pure(expand(raw))
    if (
        os.path.basename(path) == ".gemini"
        or os.path.isdir(os.path.join(path, "tmp"))
        or os.path.isfile(os.path.join(path, "projects.json"))
    ):
        return path
    # Anything else is read as the CLI reads GEMINI_CLI_HOME: `.gemini` goes below it.
    return os.path.join(path, ".gemini")


def accounts(config: GlobalConfig) -> list[Account]:
    """`$GEMINI_CLI_HOME/.gemini`, `~/.gemini`, `[transcripts] gemini` and named accounts."""
    env = os.environ.get(HOME_ENV)
    # named by the variable, as CODEX_HOME and CLAUDE_CONFIG_DIR
    wanted = [(HOME_ENV, os.path.join(expand(env), ".gemini"))] if env else []
    wanted.append(("~/.gemini", expand("~/.gemini")))
    wanted += [(raw, config_dir(raw)) for raw in config.transcripts.get(AGENT, [])]
    wanted += [(n, config_dir(a.dir)) for n, a in config.accounts.items() if a.agent == AGENT]
    found = [Account(agent=AGENT, name=name, dir=folder) for name, folder in wanted]
    return unique_accounts(found, config)


def cli_home(account: Account) -> str | None:
    """The `GEMINI_CLI_HOME` that makes the CLI use `account`, or None when none can."""
    path = _pure(account.dir)
    return (os.path.dirname(path) or ".") if os.path.basename(path) == ".gemini" else None


# --- the project registry -------------------------------------------------------------------


def registry(gemini_dir: str) -> dict[str, str]:
    """`projects.json` as {absolute root: slug}; empty when missing or corrupt."""
    try:
        with open(os.path.join(gemini_dir, "projects.json"), "rb") as f:
            data = jsonl.loads(f.read())
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return {}
    return {
        k: v
        for k, v in projects.items()
        if isinstance(k, str) and isinstance(v, str) and v and "/" not in v and v not in (".", "..")
    }


def markers(gemini_dir: str) -> dict[str, str]:
    """{root: slug} from `tmp/<slug>/.project_root`, the CLI's ownership markers."""
    out: dict[str, str] = {}
    try:
        names = os.listdir(os.path.join(gemini_dir, "tmp"))
    except OSError:
        return out
    for name in names:
        try:
            with open(
                os.path.join(gemini_dir, "tmp", name, ".project_root"), encoding="utf-8"
            ) as f:
                root = f.read().strip()
        except (OSError, UnicodeDecodeError):
            continue
        if root:
            out.setdefault(root, name)
    return out


def _under(path: str, roots: Sequence[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def project_dirs(gemini_dir: str, project: str | PathLike[str]) -> list[tuple[str, str]]:
    """(tmp folder, project root) for `project` and every root below it, from every source."""
    project = os.fspath(project)
    roots = {os.path.normpath(os.path.abspath(project))}
    try:  # no contextlib: a hook can come here
        roots.add(os.path.normpath(os.path.realpath(project)))
    except OSError:
        pass  # an unresolvable path: its absolute form alone
    tmp = os.path.join(gemini_dir, "tmp")
    return [
        (os.path.join(tmp, name), root)
        for name, root in _roots_by_folder(gemini_dir, sorted(roots)).items()
        if os.path.isdir(os.path.join(tmp, name, "chats"))
    ]


# --- session files --------------------------------------------------------------------------


class ChatFile(Struct, kw_only=True):
    """One chat file as discovery sees it."""

    path: str
    session_id: str
    mtime: float
    size: int
    legacy: bool
    has_content: bool

    def ref(self, account: Account, cwd: str | None) -> SessionRef:
        return SessionRef(
            agent=AGENT,
            account=account.name,
            session_id=self.session_id,
            path=self.path,
            mtime=self.mtime,
            cwd=cwd,
            size=self.size,
        )


def _probe(path: str) -> ChatFile | None:
    """Read just enough of a chat file to know its session and whether it holds a conversation."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    legacy = path.endswith(".json")
    session_id: str | None = None
    content = False
    try:
        if legacy:
            with open(path, "rb") as f:
                head = f.read(4096)
            if jsonl.raw_string(head, b"kind") == b"subagent":
                return None
            session_id = _session_id(head)
            content = st.st_size > 0
        else:
            lines = ForwardReader(path, include_tail=True, chunk=PROBE_CHUNK)
            for n, line in enumerate(lines):
                if n >= STUB_PROBE_LINES:
                    break
                if session_id is None and b'"projectHash"' in line:
                    if jsonl.raw_string(line, b"kind") == b"subagent":
                        return None
                    session_id = _session_id(line)
                elif not content and _is_content(line):
                    content = True
                if session_id and content:
                    break
    except OSError:
        return None
    if session_id is None:
        session_id = sid_from_name(os.path.basename(path))
    if not session_id:
        return None
    return ChatFile(
        path=path,
        session_id=session_id,
        mtime=st.st_mtime,
        size=st.st_size,
        legacy=legacy,
        has_content=content,
    )


def _is_content(line: bytes) -> bool:
    """A message other than the CLI's own <session_context>, appended or in a `$set` snapshot."""
    try:
        rec = jsonl.loads(line)
    except ValueError:
        return False
    if not isinstance(rec, dict):
        return False
    if isinstance(rec.get("id"), str):
        return bool(rec["id"] != CONTEXT_ID)
    snap = rec.get("$set")
    if isinstance(snap, dict) and isinstance(snap.get("messages"), list):
        return any(isinstance(m, dict) and m.get("id") != CONTEXT_ID for m in snap["messages"])
    return False


HEAD_BYTES = 4096  # a header line is ~250 bytes; a legacy `.json` names its id first


def own_session_id(transcript: str | None, session_id: str | None) -> str | None:
    """The id of the session a hook's `transcript_path` holds, where the hook says another.

    Gemini CLI 0.61 gives a session a new id when it falls back to another model (a quota or
    capacity error: silently along the flash-lite chain, or after the user's choice in the
    dialog), and every later hook carries that id; the chat file keeps its name, its header
    and its id, and `--resume` takes only that one. A file named after the hook's id (every
    other case, the `--resume` stub included) costs no read.
    """
    if not transcript or not session_id:
        return session_id
    named = sid_from_name(os.path.basename(_pure(transcript)))
    if not named or session_id.startswith(named):
        return session_id
    try:  # never blocks: a FIFO or device at that path is not read (hooks have a deadline)
        head = kit.read_head(transcript, HEAD_BYTES)
    except OSError:
        return session_id
    own = _session_id(head) or ""
    # an id as Gemini CLI makes them (a UUID): anything else in a header is not taken
    return own if own.startswith(named) and kit.plain_id(own) else session_id


def _session_id(head: bytes) -> str | None:
    """The `sessionId` a chat file's header records (its raw bytes: ids have no escapes)."""
    raw = jsonl.raw_string(head, b"sessionId")
    return raw.decode("utf-8", "replace") if raw else None


def chat_files(folder: str, sid8: str = "") -> list[str]:
    """The chat files in `folder`'s `chats/`; with `sid8`, only those named after a session
    whose id starts with it (the names are tested before anything is asked of the disk)."""
    chats = os.path.join(folder, "chats")
    try:
        names = os.listdir(chats)
    except OSError:
        return []
    out: list[str] = []
    for name in names:
        if not name.startswith("session-") or not name.endswith((".jsonl", ".json")):
            continue
        if sid8 and not name.split(".", 1)[0].endswith(sid8):
            continue
        path = os.path.join(chats, name)
        if os.path.isfile(path):
            out.append(path)
    return out


def best_per_session(files: Sequence[ChatFile]) -> list[ChatFile]:
    """One file per session: one with a conversation, `.jsonl` before `.json`, then newest.

    `--resume` writes a stub (header and <session_context> only) before it appends to the real
    file, and resuming a legacy `.json` writes the `.jsonl` beside it.
    """
    groups: dict[str, list[ChatFile]] = {}
    for f in files:
        groups.setdefault(f.session_id, []).append(f)
    out: list[ChatFile] = []
    for group in groups.values():
        real = [f for f in group if f.has_content]
        if not real:
            continue
        real.sort(key=lambda f: (not f.legacy, f.mtime), reverse=True)
        best = real[0]
        # The session's activity is its newest file's, whichever file holds the conversation.
        best.mtime = max(f.mtime for f in real)
        out.append(best)
    return out


def discover(project: str | PathLike[str], accs: Sequence[Account]) -> Iterator[SessionRef]:
    """Sessions of `project` (its root or below) across `accs`, newest first."""
    refs: list[SessionRef] = []
    for acc in accs:
        gemini_dir = _pure(acc.dir)
        for folder, root in project_dirs(gemini_dir, project):
            probed = [c for c in map(_probe, chat_files(folder)) if c is not None]
            refs += [f.ref(acc, root) for f in best_per_session(probed)]
    refs.sort(key=lambda r: r.mtime, reverse=True)
    return iter(refs)


def all_sessions(accs: Sequence[Account]) -> Iterator[SessionRef]:
    """Every session of every project folder in `accs`, in no particular order.

    The cwd comes from the registry, the `.project_root` markers or a legacy hash folder's known
    root; `--resume` stubs are left out as `discover` leaves them out.
    """
    for acc in accs:
        gemini_dir = _pure(acc.dir)
        roots = _roots_by_folder(gemini_dir)
        for folder in sorted(_all_folders(gemini_dir)):
            probed = [c for c in map(_probe, chat_files(folder)) if c is not None]
            cwd = roots.get(os.path.basename(folder))
            yield from (f.ref(acc, cwd) for f in best_per_session(probed))


def _roots_by_folder(gemini_dir: str, under: Sequence[str] = ()) -> dict[str, str]:
    """{tmp folder name: project root}, of the roots at or below `under` when it names any:
    slugs (the registry first, as the CLI reads it; markers are its fallback), then the
    legacy sha256 folder names of `under` and of every root known."""
    out: dict[str, str] = {}
    for source in (registry(gemini_dir), markers(gemini_dir)):
        for root, slug in source.items():
            if not under or _under(os.path.normpath(root), under):
                out.setdefault(slug, os.path.normpath(root))
    for root in [*under, *list(out.values())]:
        out.setdefault(hexdigest(root.encode(), "sha256"), root)
    return out


def _hook_folder(gemini_dir: str, transcript: str | None) -> str | None:
    """The `tmp/<folder>` of `gemini_dir` whose `chats/` holds `transcript` by its name, or
    None: a path anywhere else (another account's, outside `tmp`, `tmp/../chats`) is not."""
    if not transcript:
        return None
    chats = os.path.dirname(_pure(transcript))
    folder = os.path.dirname(chats)
    if (
        os.path.basename(chats) == "chats"
        and os.path.basename(folder) not in ("", ".", "..")
        and os.path.dirname(folder) == _pure(os.path.join(gemini_dir, "tmp"))
    ):
        return folder
    return None


def _search_order(
    gemini_dir: str, cwd: str | None, hint: str | None
) -> Iterator[tuple[str, str | None]]:
    """(folder, root when known) in the order `find_session` searches: the hook's own folder,
    then the cwd's, then every one; each listed only when the ones before did not hold it."""
    folder = _hook_folder(gemini_dir, hint)
    if folder is not None:
        yield folder, None
    if cwd:
        yield from project_dirs(gemini_dir, cwd)
    for folder in _all_folders(gemini_dir):
        yield folder, None


def find_session(
    session_id: str, accs: Sequence[Account], *, cwd: str | None = None, hint: str | None = None
) -> SessionRef | None:
    """The file holding `session_id`: the hook's folder first, then the cwd's, then every one.

    A checkpoint's common case costs one listing of the hook's `chats/`, a probe of the file
    named after the session (a `--resume` stub beside it is probed too) and `projects.json`.
    """
    sid8 = session_id[:8]
    for acc in accs:
        gemini_dir = _pure(acc.dir)
        seen: set[str] = set()
        for folder, root in _search_order(gemini_dir, cwd, hint):
            if folder in seen:
                continue
            seen.add(folder)
            named = chat_files(folder, sid8)
            probed = [c for c in map(_probe, named) if c is not None and c.session_id == session_id]
            best = best_per_session(probed)
            if best:
                return best[0].ref(acc, root or _root_of(gemini_dir, os.path.basename(folder)))
    return None


def _all_folders(gemini_dir: str) -> list[str]:
    tmp = os.path.join(gemini_dir, "tmp")
    try:
        names = os.listdir(tmp)
    except OSError:
        return []
    folders = [os.path.join(tmp, name) for name in names]
    return [f for f in folders if os.path.isdir(os.path.join(f, "chats"))]


def _root_of(gemini_dir: str, slug: str) -> str | None:
    """The root whose folder `slug` is: the registry's, else a marker's (read only then)."""
    for source in (registry, markers):
        for root, s in source(gemini_dir).items():
            if s == slug:
                return root
    return None
