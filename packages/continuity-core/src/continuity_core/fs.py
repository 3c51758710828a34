"""The one atomic writer and the private-permission helpers every store uses."""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:  # hooks write through here: no pathlib, typing or functools at import
    from pathlib import Path
    from typing import Literal

    StrPath = str | os.PathLike[str]
    CopyAction = Literal["copy", "extend", "same", "conflict"]
else:
    CopyAction = str

DIR_MODE = 0o700
FILE_MODE = 0o600


def ensure_private_dir(path: StrPath) -> str:
    """Create `path` and any missing parents as 0700; existing folders keep their mode."""
    path = os.fspath(path)
    if path and not os.path.isdir(path):  # "": a relative path's parent, the cwd
        ensure_private_dir(os.path.dirname(path))
        try:
            os.mkdir(path, DIR_MODE)
        except FileExistsError:  # made meanwhile; a file there is an error
            if not os.path.isdir(path):
                raise
    return path


def atomic_write(
    path: StrPath,
    data: bytes | str,
    *,
    mode: int = FILE_MODE,
    durable: bool = True,
    keep_mode: bool = True,
) -> None:
    """Replace `path` with `data` so readers see the old or the new file, never a torn one.

    Temp file in the same folder, fsync, `os.replace`, then fsync of the folder. `mode` is
    applied to new files; an existing file keeps its own mode (agents' settings files) unless
    `keep_mode` is False (the note is 0600 whatever an older version made it). A
    symlink at `path` is replaced, not followed (`agentfiles` resolves a user's link first).
    `durable=False` skips the fsyncs, for per-call scratch state whose loss in a power cut
    costs nothing (which traps a session has seen, the tool call in flight): still atomic.
    """
    if isinstance(data, str):
        data = data.encode()
    path = os.fspath(path)
    if keep_mode:
        try:
            st = os.lstat(path)  # a link is replaced, never followed; it lends no mode
            if stat.S_ISREG(st.st_mode):
                mode = stat.S_IMODE(st.st_mode)
        except FileNotFoundError:
            pass
    # A private temp name in the same folder (what tempfile.mkstemp does, without importing
    # it: hooks pay for every import).
    folder, name = os.path.split(path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with open(fd, "wb") as f:  # closes fd
            f.write(data)
            if durable:
                f.flush()
                os.fsync(fd)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    if durable:  # the folder too, so the rename survives a power cut
        try:
            fd = os.open(folder or ".", os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError:
            pass


def is_loose(path: Path) -> bool:
    """True when group or others may read or write `path`."""
    try:
        return bool(stat.S_IMODE(path.stat().st_mode) & 0o077)
    except OSError:
        return False


def inside(base: StrPath, candidate: StrPath) -> bool:
    """True when `candidate`, symlinks resolved, is `base` or lies below it."""
    try:
        top, path = os.path.realpath(base), os.path.realpath(candidate)
    except (ValueError, OSError):
        return False
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def copy_action(src: Path, dst: Path) -> CopyAction:
    """What copying `src` over `dst` would do to an append-only transcript: a new file,
    extend it (`dst` is a prefix of `src`), nothing, or a conflict (`dst` holds records
    `src` does not, which a copy would lose)."""
    try:
        old = dst.read_bytes()
    except FileNotFoundError:
        return "copy"
    new = src.read_bytes()
    if old == new:
        return "same"
    return "extend" if new.startswith(old) else "conflict"


def backup_beside(path: Path) -> Path:
    """Move `path` aside to `<name>.baker-backup-<UTC time>` in its folder; the new name."""
    from continuity_core.stamps import stamp

    backup = path.with_name(f"{path.name}.baker-backup-{stamp()}")
    os.replace(path, backup)
    return backup


def hexdigest(data: bytes, algorithm: str = "sha1") -> str:
    """The hex digest that names a scratch file or fingerprints a file (not security)."""
    import hashlib

    return hashlib.new(algorithm, data).hexdigest()


def checksum(data: bytes) -> str:
    """A hook's marker or cache file name: `data`'s CRC-32, Adler-32 and length, in hex (hashlib's
    OpenSSL costs a hook a quarter of a bare start). No digest: nothing an adversary picks."""
    import zlib

    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}{len(data):x}"
