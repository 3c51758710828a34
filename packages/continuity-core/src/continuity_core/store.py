"""The project store `.baker/` at the worktree root: checkpoints, cursors, logs, locks.

Every write goes through `fs.atomic_write`; writers that touch shared state (checkpoint
retention, the traps file, the note) hold the sidecar lock `.baker/store.lock`, never a lock
on the data file itself.

The pre-tool hook opens the store, logs and locks on every tool call, so this module imports
no `re`, `pathlib`, `typing`, `contextlib` or msgspec at module level: its `root` is a `str`
(docs/decisions.md, "one path type per layer"); `path` hands out `Path`s to the commands.
"""

from __future__ import annotations

import json
import os
import re
import time

from continuity_core import stamps, trust
from continuity_core.errors import NotAProject, StoreError
from continuity_core.fs import atomic_write, hexdigest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from types import TracebackType
    from typing import Any, TypeVar

    from msgspec import Struct

    from continuity_core.schemas.checkpoint import Checkpoint

    R = TypeVar("R", bound=Struct)
    StrPath = str | os.PathLike[str]

KEEP_CHECKPOINTS = 20
LOCK_TIMEOUT_S = 5.0
KNOWN_SCHEMA = 1
STORE = trust.STORE
# In the store: the other machines' snapshots and traps, written by `baker pull`
# (`continuity_core.machines`) and read by the hooks.
MACHINES_FILE = "machines.json"
HASHED_FILES_MAX = 10  # the cited files a trap keeps hashes of: `trap add`, a pulled trap
# In the store: saved (authored) checkpoints (`continuity_core.saved`), `LATEST` the newest's id.
SAVED, SAVED_LATEST = "saved", "LATEST"
# What `stamps.new_id` makes: retention deletes nothing else.
_CHECKPOINT_NAME = r"[0-9]{8}T[0-9]{12}Z-[0-9a-f]{6}\.json"  # compiled where used: not at import


def _upwards(start: StrPath) -> Iterator[str]:
    """`start` (made absolute) and every folder above it, nearest first."""
    folder = os.path.abspath(start)
    yield folder
    while folder != (folder := os.path.dirname(folder)):
        yield folder


def worktree_root(start: StrPath) -> str | None:
    """The nearest folder at or above `start` holding `.git` (a folder, or a worktree's file)."""
    return next((f for f in _upwards(start) if os.path.exists(os.path.join(f, ".git"))), None)


def project_root(start: StrPath | None = None) -> str | None:
    """The project root: the nearest folder at or above `start` that has `.baker/`.

    The search stops at the git worktree root, so a nested repository is its own project.
    """
    user_store: str | None = None
    for folder in _upwards(start if start is not None else os.getcwd()):
        store = os.path.join(folder, STORE)
        if os.path.isdir(store):
            if user_store is None:
                user_store = os.path.realpath(trust.home_root())
            if os.path.realpath(store) != user_store:
                return folder  # ~/.baker is the per-user store, never a project's
        if os.path.exists(os.path.join(folder, ".git")):
            return None
    return None


def project_root_for_init(start: Path | None = None) -> Path:
    """Where `baker init` puts the store: the worktree root, or `start` outside git."""
    from pathlib import Path

    start = (start or Path.cwd()).absolute()
    return Path(worktree_root(start) or start)


class Store:
    """One project's `.baker/` folder, checked by `trust.check_store` when it is made (raises
    `trust.Untrusted`; `verify=False` only for `baker doctor`, which reports instead)."""

    def __init__(self, root: StrPath, *, verify: bool = True) -> None:
        self.root = os.fspath(root)
        self.store_dir = os.path.join(self.root, STORE)
        if verify:
            trust.note_path(self.root)
            trust.check_store(self.root)  # last: it ends with the one git call

    @classmethod
    def here(cls, start: Path | None = None) -> Store:
        root = project_root(start)
        if root is None:
            raise NotAProject(
                f"{start or os.getcwd()} is not in a Continuity project: run `baker init` "
                "at the repository root first"
            )
        return cls(root)

    @property
    def exists(self) -> bool:
        return os.path.isdir(self.store_dir)

    def path(self, *parts: str) -> Path:
        from pathlib import Path

        return Path(self.store_dir, *parts)

    def folder_path(self, *parts: str) -> str:
        """`.baker/<parts>`, created 0700 where missing, every component checked."""
        return trust.dirs(self.root, STORE, *parts, create=True)

    def lock(self, name: str = "store", timeout: float = LOCK_TIMEOUT_S) -> Lock:
        """Hold the sidecar `.baker/<name>.lock` (`with store.lock():`); a timeout becomes
        a readable StoreError."""
        return Lock(os.path.join(self.folder_path(), f"{name}.lock"), timeout)

    def write_json(self, path: StrPath, value: Any, *, durable: bool = True) -> None:
        """Write a document under `.baker/`, its folders created and checked (`folder_path`);
        `durable=False` skips the fsyncs (`fs.atomic_write`)."""
        target = os.fspath(path)
        rel = os.path.relpath(os.path.dirname(target), self.store_dir)
        if rel.startswith("..") or os.path.isabs(rel):
            raise ValueError(f"{target} is not inside {self.store_dir}")
        self.folder_path(*([] if rel == "." else rel.split(os.sep)))
        atomic_write(target, encode_document(value), durable=durable)

    def write_checkpoint(self, cp: Checkpoint, keep: int = KEEP_CHECKPOINTS) -> str:
        """Write `cp` and keep only the newest `keep` automatic checkpoints; the file's path."""
        folder = self.folder_path("checkpoints")
        target = os.path.join(folder, f"{cp.id}.json")
        with self.lock():
            # No fsync (two cost a checkpoint ~0.1 of its budget): a power cut may lose the
            # newest checkpoint, never tear it, and the next turn writes another; a handoff
            # reads the transcript itself (docs/decisions.md, "How the hooks stay fast").
            self.write_json(target, cp, durable=False)
            for old in self._checkpoint_names()[keep:]:
                try:  # only checkpoint-id names, in a folder that passed the check
                    os.unlink(os.path.join(folder, old))
                except (FileNotFoundError, IsADirectoryError, PermissionError):
                    pass
        return target

    def checkpoint_paths(self) -> list[Path]:
        """Checkpoint files, newest first (ids sort by time): only names `stamps.new_id`
        makes, so retention never touches another file that happens to lie there."""
        return [self.path("checkpoints", n) for n in self._checkpoint_names()]

    def _checkpoint_names(self) -> list[str]:
        try:
            names = os.listdir(os.path.join(self.store_dir, "checkpoints"))
        except FileNotFoundError:
            return []
        return sorted(filter(re.compile(_CHECKPOINT_NAME).fullmatch, names), reverse=True)

    def latest_checkpoint(self) -> Checkpoint | None:
        """The newest checkpoint that decodes; corrupt ones are skipped (and left on disk)."""
        from continuity_core.schemas.checkpoint import Checkpoint

        folder = os.path.join(self.store_dir, "checkpoints")
        for name in self._checkpoint_names():  # str paths: a handoff imports no pathlib
            path = os.path.join(folder, name)
            try:
                return decode_document(trust.read_bytes(path), Checkpoint, path)
            except (OSError, StoreError):
                continue
        return None

    # --- incremental reader state --------------------------------------------------------
    def cursor_path(self, agent: str, transcript: str) -> str:
        digest = hexdigest(transcript.encode())[:16]
        return os.path.join(self.store_dir, "cursors", f"{agent}-{digest}.json")

    def load_cursor(self, agent: str, transcript: str, type_: type[R]) -> R | None:
        path = self.cursor_path(agent, transcript)
        try:
            return decode_document(trust.read_bytes(path), type_, path)
        except (OSError, StoreError):
            return None  # a missing or stale cursor only costs a full read

    def save_cursor(self, agent: str, transcript: str, value: Struct) -> None:
        """Store a cursor; one that did not change (nothing new was read) is not rewritten."""
        path = self.cursor_path(agent, transcript)
        data = encode_document(value)
        first = False
        try:
            if trust.read_bytes(path) == data:
                return
        except FileNotFoundError:
            first = True
        except (OSError, StoreError):
            pass
        self.write_json(path, value, durable=False)  # a cache: one lost in a crash costs a read
        if first:  # the same transcript's cursor as 0.1.0 wrote it (msgpack): never read again
            try:
                os.unlink(path.removesuffix(".json") + ".msgpack")
            except OSError:
                pass

    # --- hook log, read by `baker audit` -------------------------------------------------
    def log(self, event: str, **fields: Any) -> None:
        """Append one line to `.baker/log/events.jsonl`, redacted; never raises."""
        try:
            from continuity_core.redact import redact

            line = redact(json.dumps({"t": stamps.now_iso(), "event": event, **fields}))
            trust.log_line(self.folder_path("log"), line)
        except Exception:  # noqa: S110 - logging is best effort by design
            pass

    def log_exception(self, command: str, exc: BaseException, **fields: Any) -> None:
        import traceback

        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{os.path.basename(tb[-1].filename)}:{tb[-1].lineno}" if tb else ""
        self.log(
            "hook_error",
            command=command,
            error=f"{type(exc).__name__}: {exc}",
            where=where,
            **fields,
        )


class Lock:
    """An exclusive lock on `path`, held inside `with`: `flock` where there is one, filelock
    elsewhere (docs/decisions.md, "The store's lock is `flock`"). A class, not a `contextlib`
    generator: the hooks take it without contextlib."""

    def __init__(self, path: str, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self._fd: int | None = None
        self._filelock: Any = None

    def _held(self) -> StoreError:
        return StoreError(
            f"{self.path} is held by another process for more than "
            f"{self.timeout:g}s; retry in a moment (if no baker is running, "
            "delete that file)"
        )

    def __enter__(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            from filelock import FileLock, Timeout

            trust.check_file(self.path)
            lock = FileLock(self.path, timeout=self.timeout, mode=0o600)
            try:
                lock.acquire()
            except Timeout:
                raise self._held() from None
            self._filelock = lock
            return
        fd = trust.open_fd(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            deadline = time.monotonic() + self.timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise self._held() from None
                    time.sleep(0.005)
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._filelock is not None:  # pragma: no cover - Windows
            self._filelock.release()
            self._filelock = None
        if self._fd is not None:
            os.close(self._fd)  # closing releases the lock
            self._fd = None


def encode_document(value: Any) -> bytes:
    """A document as `write_json` stores it: compact JSON, one line."""
    import msgspec

    return msgspec.json.encode(value) + b"\n"


def decode_document(data: bytes, type_: type[R], path: StrPath) -> R:
    """Decode a persisted JSON document into its record, refusing schema versions newer than
    this build; a StoreError naming the file when it cannot be used."""
    import msgspec

    try:
        raw = msgspec.json.decode(data)
    except ValueError as e:
        raise _corrupt(path, e) from None
    version = raw.get("schema_version", KNOWN_SCHEMA) if isinstance(raw, dict) else KNOWN_SCHEMA
    if isinstance(version, int) and version > KNOWN_SCHEMA:
        raise StoreError(
            f"{path} has schema_version {version}, newer than this baker understands "
            f"({KNOWN_SCHEMA}); update baker (pip install -U continuity-cli)"
        )
    try:
        return msgspec.convert(raw, type_)
    except ValueError as e:  # msgspec.ValidationError
        raise _corrupt(path, e) from None


def _corrupt(path: StrPath, e: ValueError) -> StoreError:
    return StoreError(
        f"{path} is corrupt ({e}); move it aside or delete it — other files are untouched"
    )
