"""The per-user store `~/.baker/` (or `$BAKER_HOME`) and its `config.toml`.

Read with tomllib into msgspec Structs (typos are errors naming the key and the file); edited with
tomlkit so the user's comments and order survive. A missing file is the defaults, read with
nothing imported: every hook asks for the config.
"""

from __future__ import annotations

import functools
import os

import msgspec

from continuity_core import trust
from continuity_core.errors import ConfigError
from continuity_core.schemas.config import AccountConfig, GlobalConfig

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def config_path() -> str:
    """`~/.baker/config.toml` (or under `$BAKER_HOME`), unchecked; a `str`: every hook asks."""
    return os.path.join(trust.home_root(), "config.toml")


def load_config() -> GlobalConfig:
    """The global config; a missing file is the defaults, an invalid one a ConfigError.

    Read once per process: the file is parsed again only when its identity (inode, size,
    modification time) changed, as when a command edits it and reads it back."""
    try:
        st = os.stat(config_path())
    except OSError:
        return _read()  # missing or unreadable: said as before, nothing to remember
    return _read_once((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))


@functools.lru_cache(maxsize=4)
def _read_once(identity: tuple[int, int, int, int]) -> GlobalConfig:
    return _read()


def _read() -> GlobalConfig:
    where = config_path()  # every hook comes here (no pathlib)
    try:  # the user's own folder and file: a 0644 config.toml is fine, a link is not
        trust.home_path(create=False)
        data = trust.read_bytes(where, home=True)
    except FileNotFoundError:
        return GlobalConfig()
    except trust.Untrusted as e:
        raise ConfigError(str(e)) from None
    except OSError as e:
        raise ConfigError(f"cannot read {where}: {e.strerror}") from None
    return _decode(data, where)


def _decode(data: bytes, path: str) -> GlobalConfig:
    import tomllib  # only where a config.toml exists

    try:
        text = data.decode("utf-8")
        raw = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path} is not valid TOML: {e}") from None
    try:
        config = msgspec.convert(raw, GlobalConfig)
    except msgspec.ValidationError as e:
        raise ConfigError(explain(e, path, text)) from None
    for agent, folders in config.transcripts.items():
        # as an account's `dir` (schemas.config): a relative folder would follow the cwd
        bad = next((f for f in folders if not f.startswith(("~", "/"))), None)
        if bad is not None:
            line, _ = locate(text, ["transcripts"], agent)
            at = f", line {line}" if line else ""
            raise ConfigError(
                f"{_shown(path)}{at}: [transcripts] {agent} holds {bad!r}, which "
                "must be an absolute path or start with ~"
            )
    return config


def config_or_defaults() -> tuple[GlobalConfig, str | None]:
    """The config, or the defaults and the reason when it is broken: the hooks, pickup and
    `baker audit` keep working on the default accounts rather than stop."""
    try:
        return load_config(), None
    except ConfigError as e:
        return GlobalConfig(), str(e)


# msgspec's words for TOML types, as a person writing the file reads them.
_TYPES = {
    "int": "a whole number",
    "float": "a number",
    "str": "a quoted string",
    "bool": "true or false",
    "array": "a list [...]",
    "object": "a table",
    "null": "nothing",
    "datetime": "a date",
}
_WHERE = r" - at `\$(?P<path>[^`]*)`$"  # compiled on first use by `re`: config errors are rare


def explain(e: msgspec.ValidationError, path: str, text: str = "") -> str:
    """A validation error (msgspec's words) in words: the file, the line, the key and
    what to do.

    `Object contains unknown field `transcript`` becomes
    "~/.baker/config.toml, line 3: unknown section [transcript] (did you mean [transcripts]?)".
    """
    import re  # only for an error: a hook that reads a good config never imports it

    raw = str(e)
    m = re.search(_WHERE, raw)
    # `$.transcripts.claude[0]`, `$.accounts[...].dir`: list indexes dropped, and msgspec does
    # not say which account, so that is found by validating each.
    dotted = re.sub(r"\[\d+\]", "", m.group("path")) if m else ""
    where = [
        _bad_account(text) if p == "[...]" else p for p in re.findall(r"\[\.\.\.\]|[^.\[]+", dotted)
    ]
    raw = raw[: m.start()] if m else raw
    what = raw
    # The line of the key the message names (the last of `where`), where one can be found.
    line, _ = locate(text, where[:-1], where[-1]) if where else (None, False)
    if raw.startswith("Object contains unknown field"):
        key = raw.split("`")[1]
        table = ".".join(where)
        line, header = locate(text, where, key)
        near = _suggest(key, where)
        hint = f" (did you mean {near}?)" if near else ""
        if header:
            what = f"unknown section [{'.'.join([*where, key])}]{hint}; fix or remove it"
        else:
            inside = f" in [{table}]" if table else " at the top level"
            what = f"unknown key `{key}`{inside}{hint}; fix or remove it"
    elif raw.startswith("Object missing required field"):
        missing = raw.split("`")[1]
        what = f"[{'.'.join(where)}] needs `{missing}`; add it"
    elif raw.startswith("Expected"):
        want, _, got = raw.removeprefix("Expected ").partition(", got ")
        key = where[-1] if where else ""
        table = ".".join(where[:-1])
        name = f"`{key}` in [{table}]" if table else f"`{key}`"
        # "`int` >= 0" (a constraint, and msgspec names no value then) or "`str` | `null`"
        kind, _, bound = want.partition("` ")
        what = f"{name} must be {_type_words(kind + '`')}" + (f" {bound}" if bound else "")
        if got:
            what += f", not {_type_words(got)}"
    elif where:  # a check of the struct's own (`__post_init__`): its table named
        line = locate(text, where, "dir")[0] if where[0] == "accounts" else None
        what = f"[{'.'.join(where)}] {raw}"
    at = f", line {line}" if line else ""
    return f"{_shown(path)}{at}: {what}"


def _bad_account(text: str) -> str:
    """The name of the first [accounts.NAME] table that does not validate."""
    import tomllib

    accounts = tomllib.loads(text).get("accounts", {})  # text that parsed once already
    for name, value in accounts.items() if isinstance(accounts, dict) else ():
        try:
            msgspec.convert(value, AccountConfig)
        except msgspec.ValidationError:
            return str(name)
    return "?"


def _type_words(names: str) -> str:
    words = [_TYPES.get(n.strip("` "), n.strip("` ")) for n in names.split(" | ")]
    return " or ".join(words)


def _shown(path: str) -> str:
    home = os.path.expanduser("~")
    return "~" + path[len(home) :] if path.startswith(home + "/") else path


def _suggest(key: str, where: list[str]) -> str:
    """The known key `key` was probably meant to be, as the file would spell it."""
    import difflib

    owner: Any = GlobalConfig
    for part in where:
        owner = _fields(owner).get(part)
        if owner is None:
            return ""
    fields = _fields(owner)
    close = difflib.get_close_matches(key, list(fields), n=1, cutoff=0.6)
    if not close:
        return ""
    hit = close[0]
    is_table = bool(_fields(fields[hit])) or str(fields[hit]).startswith("dict")
    return f"[{'.'.join([*where, hit])}]" if is_table else f"`{hit}`"


def _fields(owner: Any) -> dict[str, Any]:
    """A config table's keys as the file spells them: the Struct of each sub-table, the type
    of anything else; {} for what is no table."""
    if not (isinstance(owner, type) and issubclass(owner, msgspec.Struct)):
        return {}
    return {f.encode_name: f.type for f in msgspec.structs.fields(owner)}


_HEADER = r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(?:#.*)?$"
_KEY = r"^\s*(\"[^\"]*\"|'[^']*'|[A-Za-z0-9_-]+)\s*[=.]"


def _parts(dotted: str) -> list[str]:
    import re

    return [p.strip().strip("\"'") for p in re.findall(r"\"[^\"]*\"|'[^']*'|[^.]+", dotted)]


def locate(text: str, table: list[str], key: str) -> tuple[int | None, bool]:
    """(line number, is a section header) where `key` of `[table]` is written; (None, False)
    when the file spells it in a way this scan does not follow (inline tables)."""
    import re

    current: list[str] = []
    for n, line in enumerate(text.splitlines(), 1):
        h = re.match(_HEADER, line)
        if h:
            current = _parts(h.group(1))
            if current[: len(table) + 1] == [*table, key]:
                return n, True
            continue
        k = re.match(_KEY, line)
        if k and current == table and k.group(1).strip("\"'") == key:
            return n, False
    return None, False
