"""The project store `.baker/` at the worktree root: checkpoints, cursors, logs, locks.

Every write goes through `fs.atomic_write`; writers that touch shared state (checkpoint
retention, the traps file, the note) hold the sidecar lock `.baker/store.lock`, never a lock
on the data file itself.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from continuity_core import stamps, trust
from continuity_core.errors import NotAProject, StoreError
from continuity_core.fs import atomic_write, hexdigest
from continuity_core.schemas.checkpoint import Checkpoint
from continuity_core.stamps import new_id

KEEP_CHECKPOINTS = 20
LOCK_TIMEOUT_S = 5.0
LOG_MAX_BYTES = 1 << 20
KNOWN_SCHEMA = 1
STORE = trust.STORE
# What `new_checkpoint_id` makes: retention deletes nothing else.
CHECKPOINT_NAME = re.compile(r"\d{8}T\d{12}Z-[0-9a-f]{6}\.json")

T = TypeVar("T")
now_iso = stamps.now_iso  # callers import the one timestamp helper from here too


def find_worktree_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` holding `.git` (a folder, or a worktree's file)."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def find_project(start: Path | None = None) -> Path | None:
    """The project root: the nearest folder at or above `start` that has `.baker/`.

    The search stops at the git worktree root, so a nested repository is its own project.
    """
    start = (start or Path.cwd()).absolute()
    for folder in (start, *start.parents):
        if (folder / STORE).is_dir() and os.path.realpath(folder / STORE) != _user_store():
            return folder  # ~/.baker is the per-user store, never a project's
        if (folder / ".git").exists():
            return None
    return None


def _user_store() -> str:
    from continuity_core.config import baker_home

    return os.path.realpath(baker_home())


def project_root_for_init(start: Path | None = None) -> Path:
    """Where `baker init` puts the store: the worktree root, or `start` outside git."""
    start = (start or Path.cwd()).absolute()
    return find_worktree_root(start) or start


class Store:
    """One project's `.baker/` folder, checked by `trust.check_store` when it is made (raises
    `trust.Untrusted`; `verify=False` only for `baker doctor`, which reports instead)."""

    def __init__(self, root: Path, *, verify: bool = True) -> None:
        self.root = root
        self.dir = root / STORE
        if verify:
            trust.check_note(root)
            trust.check_store(root)  # last: it ends with the one git call

    @classmethod
    def here(cls, start: Path | None = None) -> Store:
        root = find_project(start)
        if root is None:
            raise NotAProject(
                f"{(start or Path.cwd())} is not in a Continuity project: run `baker init` "
                "at the repository root first"
            )
        return cls(root)

    @property
    def exists(self) -> bool:
        return self.dir.is_dir()

    def path(self, *parts: str) -> Path:
        return self.dir.joinpath(*parts)

    def folder(self, *parts: str) -> Path:
        """`.baker/<parts>`, created 0700 where missing, every component checked."""
        return trust.check_dirs(self.root, STORE, *parts, create=True)

    # --- locking -----------------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self, name: str = "store", timeout: float = LOCK_TIMEOUT_S) -> Iterator[None]:
        """Hold the sidecar `.baker/<name>.lock`; a timeout becomes a readable StoreError."""
        lock_path = self.folder() / f"{name}.lock"
        with _locked(lock_path, timeout):
            yield

    # --- documents -----------------------------------------------------------------------
    def write_json(self, path: Path, value: Any) -> None:
        self.folder(*path.parent.relative_to(self.dir).parts)
        atomic_write(path, msgspec.json.format(msgspec.json.encode(value), indent=2) + b"\n")

    def read_json(self, path: Path, type_: type[T]) -> T:
        """Decode a stored document, with a message naming the file when it cannot be used."""
        try:
            data = trust.read_bytes(path)
        except FileNotFoundError:
            raise
        except OSError as e:
            raise StoreError(f"cannot read {path}: {e.strerror}") from None
        return decode_document(data, type_, path)

    # --- checkpoints ---------------------------------------------------------------------
    @property
    def checkpoints_dir(self) -> Path:
        return self.path("checkpoints")

    def new_checkpoint_id(self) -> str:
        return new_id()

    def write_checkpoint(self, cp: Checkpoint, keep: int = KEEP_CHECKPOINTS) -> Path:
        """Write `cp` and keep only the newest `keep` automatic checkpoints."""
        folder = self.folder("checkpoints")
        target = folder / f"{cp.id}.json"
        with self.lock():
            self.write_json(target, cp)
            for old in self.checkpoint_paths()[keep:]:
                with contextlib.suppress(FileNotFoundError, IsADirectoryError,
                                         PermissionError):
                    old.unlink()  # only checkpoint-id names, in a folder that passed the check
        return target

    def checkpoint_paths(self) -> list[Path]:
        """Checkpoint files, newest first (ids sort by time): only names `new_checkpoint_id`
        makes, so retention never touches another file that happens to lie there."""
        try:
            names = [n for n in os.listdir(self.checkpoints_dir) if CHECKPOINT_NAME.fullmatch(n)]
        except FileNotFoundError:
            return []
        return [self.checkpoints_dir / n for n in sorted(names, reverse=True)]

    def latest_checkpoint(self) -> Checkpoint | None:
        """The newest checkpoint that decodes; corrupt ones are skipped (and left on disk)."""
        for path in self.checkpoint_paths():
            try:
                return self.read_json(path, Checkpoint)
            except (StoreError, FileNotFoundError):
                continue
        return None

    # --- incremental reader state --------------------------------------------------------
    def cursor_path(self, agent: str, transcript: str) -> Path:
        digest = hexdigest(transcript.encode())[:16]
        return self.path("cursors", f"{agent}-{digest}.msgpack")

    def load_cursor(self, agent: str, transcript: str, type_: type[T]) -> T | None:
        try:
            data = trust.read_bytes(self.cursor_path(agent, transcript))
            return msgspec.msgpack.decode(data, type=type_)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None  # a missing or stale cursor only costs a full read

    def save_cursor(self, agent: str, transcript: str, value: Any) -> None:
        """Store a cursor; one that did not change (nothing new was read) is not rewritten."""
        path = self.cursor_path(agent, transcript)
        data = msgspec.msgpack.encode(value)
        with contextlib.suppress(OSError, StoreError):
            if trust.read_bytes(path) == data:
                return
        self.folder("cursors")
        atomic_write(path, data, durable=False)  # a cache: one lost in a crash costs a read

    # --- hook log, read by `baker audit` -------------------------------------------------
    def log(self, event: str, **fields: Any) -> None:
        """Append one line to `.baker/log/events.jsonl`; never raises."""
        with contextlib.suppress(Exception):
            folder = self.folder("log")
            path = folder / "events.jsonl"
            with contextlib.suppress(FileNotFoundError):
                if os.lstat(path).st_size > LOG_MAX_BYTES:
                    os.replace(path, folder / "events.1.jsonl")
            import json

            from continuity_core.redact import redact

            line = json.dumps({"t": now_iso(), "event": event, **fields}, default=str)
            trust.append(path, (redact(line) + "\n").encode())

    def log_exception(self, command: str, exc: BaseException, **fields: Any) -> None:
        import traceback

        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else ""
        self.log("hook_error", command=command, error=f"{type(exc).__name__}: {exc}",
                 where=where, **fields)


@contextlib.contextmanager
def _locked(path: Path, timeout: float) -> Iterator[None]:
    """An exclusive lock on `path`: `flock` where there is one (importing filelock costs a
    hook ~35 ms of its start-up budget; see docs/decisions.md), filelock elsewhere."""
    held = f"{path} is held by another process for more than {timeout:g}s; retry in a moment " \
           "(if no baker is running, delete that file)"
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        from filelock import FileLock, Timeout

        trust.check_file(path)
        try:
            with FileLock(path, timeout=timeout, mode=0o600):
                yield
        except Timeout:
            raise StoreError(held) from None
        return
    fd = trust.open_fd(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StoreError(held) from None
                time.sleep(0.005)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def decode_document(data: bytes, type_: type[T], path: Path) -> T:
    """Decode a persisted JSON document, refusing schema versions newer than this build."""
    try:
        version = msgspec.json.decode(data, type=_Versioned).schema_version
    except (msgspec.DecodeError, msgspec.ValidationError):
        version = KNOWN_SCHEMA
    if version > KNOWN_SCHEMA:
        raise StoreError(
            f"{path} has schema_version {version}, newer than this baker understands "
            f"({KNOWN_SCHEMA}); update baker (pip install -U continuity-cli)"
        )
    try:
        return msgspec.json.decode(data, type=type_)
    except (msgspec.DecodeError, msgspec.ValidationError) as e:
        raise StoreError(
            f"{path} is corrupt ({e}); move it aside or delete it — other files are untouched"
        ) from None


class _Versioned(msgspec.Struct):
    schema_version: int = KNOWN_SCHEMA


def elapsed_ms(start: float) -> int:
    return int((time.perf_counter() - start) * 1000)
