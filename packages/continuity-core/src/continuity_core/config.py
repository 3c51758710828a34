"""The per-user store `~/.baker/` (or `$BAKER_HOME`) and its `config.toml`.

Read with msgspec (typos are errors naming the key and the file); edited with tomlkit so the
user's comments and order survive.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from continuity_core import trust
from continuity_core.errors import ConfigError
from continuity_core.fs import atomic_write, ensure_private_dir
from continuity_core.schemas.config import GlobalConfig


def baker_home() -> Path:
    """`$BAKER_HOME` or `~/.baker`, unchecked: `trust.home_dir` checks and creates it."""
    return trust.baker_home()


def config_path() -> Path:
    return baker_home() / "config.toml"


def load_config(path: Path | None = None) -> GlobalConfig:
    """The global config; a missing file is the defaults, an invalid one a ConfigError."""
    if path is None:
        path = config_path()
        try:  # the user's own folder and file: a 0644 config.toml is fine, a link is not
            trust.home_dir(create=False)
            data = trust.read_bytes(path, home=True)
        except FileNotFoundError:
            return GlobalConfig()
        except trust.Untrusted as e:
            raise ConfigError(str(e)) from None
        except OSError as e:
            raise ConfigError(f"cannot read {path}: {e.strerror}") from None
        return _decode(data, path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return GlobalConfig()
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror}") from None
    return _decode(data, path)


def _decode(data: bytes, path: Path) -> GlobalConfig:
    try:
        return msgspec.toml.decode(data, type=GlobalConfig)
    except msgspec.ValidationError as e:
        raise ConfigError(f"{path}: {_explain(e)}; fix or remove that key") from None
    except msgspec.DecodeError as e:
        raise ConfigError(f"{path} is not valid TOML: {e}") from None


def _explain(e: msgspec.ValidationError) -> str:
    text = str(e)
    # "Object contains unknown field `x` - at `$.transcripts`" -> "unknown key `x` in [transcripts]"
    if text.startswith("Object contains unknown field"):
        key = text.split("`")[1]
        where = text.rpartition("at `$")[2].rstrip("`").strip(".") or "top level"
        table = f"[{where}]" if where != "top level" else "the top level"
        return f"unknown key `{key}` in {table}"
    return text


def edit_config(change: Any, path: Path | None = None) -> bool:
    """Apply `change(doc)` to the TOML document with tomlkit; True when the file changed."""
    import tomlkit

    own = path is None
    path = path or config_path()
    if own:
        trust.home_dir()
    try:
        before = (trust.read_bytes(path, home=True) if own else path.read_bytes()).decode()
    except FileNotFoundError:
        before = ""
    doc = tomlkit.parse(before)
    change(doc)
    after = tomlkit.dumps(doc)
    if after == before:
        return False
    try:
        msgspec.toml.decode(after.encode(), type=GlobalConfig)
    except msgspec.ValidationError as e:
        raise ConfigError(f"refusing to write {path}: {_explain(e)}") from None
    if not own:
        ensure_private_dir(path.parent)
    atomic_write(path, after)
    return True
