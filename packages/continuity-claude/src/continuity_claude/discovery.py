"""Where Claude Code keeps transcripts: accounts (config dirs), project slugs, sessions.

`<config>/projects/<slug>/<session-id>.jsonl`; the slug is the realpath of the launch cwd with
every UTF-16 unit outside `[A-Za-z0-9]` turned into `-`, cut at 200 and hashed when longer.
Subagent transcripts live one level deeper (`<session>/subagents/`) and are never sessions.
"""

from __future__ import annotations

import os

from continuity_core import jsonl
from continuity_core.adapters import Account
from continuity_core.adapters.kit import expand, unique_accounts
from continuity_core.schemas.config import GlobalConfig
from continuity_core.schemas.session import SessionRef

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from os import PathLike
    from pathlib import Path

AGENT = "claude"
CONFIG_ENV = "CLAUDE_CONFIG_DIR"
DIR_NAME_ENV = "CLAUDE_CODE_PROJECT_DIR_NAME"  # 2.1.3xx: the project folder's name, if set
MAX_SLUG = 200
PEEK = 64 << 10  # bytes read from each end of a transcript to find its cwd
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def _units(text: str) -> tuple[int, ...]:
    """The UTF-16 code units of `text`, as JavaScript strings hold it (a lone surrogate as
    itself)."""
    import struct  # a slug is made on a pickup, not on every hook

    data = text.encode("utf-16-be", "surrogatepass")
    return struct.unpack(f">{len(data) // 2}H", data)


def _plain(units: Sequence[int]) -> str:
    return "".join(
        chr(u) if 48 <= u <= 57 or 65 <= u <= 90 or 97 <= u <= 122 else "-" for u in units
    )


def project_slug(cwd: str) -> str:
    """Claude Code's project folder name for `cwd` (already resolved), exactly as it makes it."""
    units = _units(cwd)
    slug = _plain(units)
    if len(slug) <= MAX_SLUG:
        return slug
    h = 0
    for u in units:  # JavaScript's String hashCode over UTF-16 units, as int32
        h = (h * 31 + u) & 0xFFFFFFFF
    h = abs(h - (1 << 32) if h >= 1 << 31 else h)
    digits = ""
    while True:
        h, r = divmod(h, 36)
        digits = _B36[r] + digits
        if h == 0:
            break
    return f"{slug[:MAX_SLUG]}-{digits}"


def accounts(config: GlobalConfig) -> list[Account]:
    """`CLAUDE_CONFIG_DIR` (comma-separated; named by the variable), `~/.claude`,
    `~/.config/claude` (where it exists), then config.toml."""
    # named by the variable, as Codex's CODEX_HOME is (CLAUDE_CONFIG_DIR[2]: its second folder)
    listed = [raw.strip() for raw in os.environ.get(CONFIG_ENV, "").split(",") if raw.strip()]
    wanted = [
        (CONFIG_ENV if len(listed) == 1 else f"{CONFIG_ENV}[{i}]", raw)
        for i, raw in enumerate(listed, 1)
    ]
    wanted.append(("~/.claude", "~/.claude"))
    if os.path.isdir(expand("~/.config/claude")):
        wanted.append(("~/.config/claude", "~/.config/claude"))
    wanted += [(raw, raw) for raw in config.transcripts.get(AGENT, [])]
    wanted += [(name, acc.dir) for name, acc in config.accounts.items() if acc.agent == AGENT]
    found = [Account(agent=AGENT, name=name, dir=expand(raw)) for name, raw in wanted]
    return unique_accounts(found, config)


def default_dir() -> Path:
    """The config dir Claude Code uses when `CLAUDE_CONFIG_DIR` is unset."""
    from pathlib import Path  # launch and install: not a hook's

    return Path.home() / ".claude"


def ref(account: str, path: str, mtime: float, size: int, cwd: str | None) -> SessionRef:
    """The session of the transcript at `path`: its file name without `.jsonl` is its id."""
    session_id = os.path.splitext(os.path.basename(path))[0]  # as `Path(path).stem`
    return SessionRef(
        agent=AGENT,
        account=account,
        session_id=session_id,
        path=path,
        mtime=mtime,
        cwd=cwd,
        size=size,
    )


def read_cwd(path: str) -> str | None:
    """The `cwd` recorded in a transcript, from its first or last bytes only."""
    try:
        with open(path, "rb") as f:
            raw = jsonl.raw_string(f.read(PEEK), b"cwd")
            if raw is None:
                end = f.seek(0, os.SEEK_END)
                if end > PEEK:
                    f.seek(max(PEEK, end - PEEK))
                    raw = jsonl.raw_string(f.read(), b"cwd")
    except OSError:
        return None
    if raw is None:
        return None
    try:
        value = jsonl.loads(b'"' + raw + b'"')
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _within(cwd: str, roots: set[str]) -> bool:
    return any(cwd == r or cwd.startswith(r.rstrip("/") + "/") for r in roots)


def _sessions(folder: str) -> list[tuple[float, str, int]]:
    """(mtime, path, size) of the session files directly in `folder`: a stat each, no reads."""
    out: list[tuple[float, str, int]] = []
    try:
        with os.scandir(folder) as it:
            for entry in it:
                if entry.name.endswith(".jsonl") and entry.is_file():
                    st = entry.stat()
                    out.append((st.st_mtime, entry.path, st.st_size))
    except OSError:
        pass
    return out


def discover(project: str | PathLike[str], accounts: Sequence[Account]) -> Iterator[SessionRef]:
    """Sessions started in `project` or below, across accounts, newest first.

    Folders are matched by slug (the project's and its subdirectories'); a folder that only
    shares a prefix, or whose slug collides, is confirmed by the records' `cwd`. When no folder
    matches (a moved or renamed project), folders are matched by `cwd` alone. The folder
    named by `CLAUDE_CODE_PROJECT_DIR_NAME`, when set, is looked in too.
    """
    raw = os.path.abspath(project)
    roots = {raw, os.path.realpath(raw)}
    exact = {project_slug(r) for r in roots}
    # a subdirectory's folder starts with the project's slug and a dash, or, past the cut,
    # with the same first 200 characters (its cwd then tells it from other long paths)
    plains = [_plain(_units(r)) for r in roots]
    prefixes = tuple(p + "-" if len(p) <= MAX_SLUG else p[:MAX_SLUG] for p in plains)
    # `CLAUDE_CODE_PROJECT_DIR_NAME` names the folder in place of the slug: its records'
    # `cwd` tells whether it is this project's
    named = os.environ.get(DIR_NAME_ENV, "").strip()
    chosen = {named, _plain(_units(named))} - {""}
    found: list[tuple[float, str, int, Account]] = []
    folders: list[tuple[str, Account]] = []
    for name, folder, acc in _project_folders(accounts):
        folders.append((folder, acc))
        if name in exact or name.startswith(prefixes) or name in chosen:
            found += [(m, p, s, acc) for m, p, s in _sessions(folder)]
    if not found:
        for folder, acc in folders:
            files = _sessions(folder)
            if files:
                newest = max(files)
                cwd = read_cwd(newest[1])
                if cwd and _within(cwd, roots):
                    found += [(m, p, s, acc) for m, p, s in files]
    found.sort(key=lambda f: (f[0], f[1]), reverse=True)
    for mtime, path, size, acc in found:
        cwd = read_cwd(path)
        folder = os.path.basename(os.path.dirname(path))
        if cwd is None:
            if folder not in exact:
                continue  # a prefix match must prove it belongs here
        elif not _within(cwd, roots):
            continue
        yield ref(acc.name, path, mtime, size, cwd)


def all_sessions(accounts: Sequence[Account]) -> Iterator[SessionRef]:
    """Every session of every project in `accounts`, in no particular order.

    A stat per file and the `cwd` from its first records; subagent transcripts (a folder
    deeper) are left out as `discover` leaves them out.
    """
    for _, folder, acc in _project_folders(accounts):
        for mtime, path, size in _sessions(folder):
            yield ref(acc.name, path, mtime, size, read_cwd(path))


def _project_folders(accounts: Sequence[Account]) -> Iterator[tuple[str, str, Account]]:
    """(name, path, account) of every `<config>/projects/<slug>` folder, sorted per account."""
    for acc in accounts:
        try:
            entries = [e for e in os.scandir(os.path.join(acc.dir, "projects")) if e.is_dir()]
        except OSError:
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            yield entry.name, entry.path, acc
