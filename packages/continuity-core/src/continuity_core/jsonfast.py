"""JSON for the hook path, on the C accelerator `_json` alone.

`import json` imports `re` (and with it `enum`, `functools`, ...), about as much start-up as a
bare interpreter again; the pre-tool hook's whole budget is two bare starts
(docs/decisions.md, "Hook start-up budget"). `_json`'s scanner and encoder do the work `json`
itself delegates to them; where `_json` is missing (PyPy), the standard `json` reads and this
module's own writer writes. `loads` and `dumps` read and write what `json.loads` and
`json.dumps` do for the plain data hooks handle (dicts with string keys, lists, strings,
ints, floats, bools, None), with two differences that keep a hook's input from failing it: a
document nested too deep for the scanner is a ValueError (json raises RecursionError), and an
escaped lone surrogate (`"\\ud800"`, which JSON.stringify writes for half an emoji) is read
as U+FFFD, as is a lone surrogate in a `str` given (an undecodable byte of argv), so every
string read can be encoded as UTF-8 (a file name, a digest, the hook's output). `encode`
writes as msgspec did, for the files it wrote.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_C: Any
try:
    import _json as _C
except ImportError:  # pragma: no cover - PyPy and other interpreters without it
    _C = None


def _constant(name: str) -> float:
    raise ValueError(f"{name} is not valid JSON")  # json.loads accepts it; nothing we write has it


class _Context:
    """What `_json.make_scanner` reads from a `json.JSONDecoder`."""

    __slots__ = (
        "memo",
        "object_hook",
        "object_pairs_hook",
        "parse_constant",
        "parse_float",
        "parse_int",
        "strict",
    )

    def __init__(self) -> None:
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = None
        self.parse_float = float
        self.parse_int = int
        self.parse_constant = _constant
        self.memo: dict[str, str] = {}


_scan: Any = _C.make_scanner(_Context()) if _C is not None else None
_WS = " \t\n\r"


def loads(data: bytes | str) -> Any:
    """The value of one JSON document; ValueError (or UnicodeDecodeError, a ValueError) when
    it is not one."""
    text: str
    if isinstance(data, (bytes, bytearray)):
        # As `json.loads` reads bytes: a UTF-8 byte-order mark is skipped.
        text = (data[3:] if data[:3] == b"\xef\xbb\xbf" else data).decode("utf-8")
    else:
        text = data
        if not text.isascii():  # a str from argv holds undecodable bytes as lone surrogates
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                text = _whole(text)
    if _scan is None:  # pragma: no cover
        import json

        try:
            value = json.loads(text)
        except RecursionError:
            raise ValueError("not JSON: nested too deep") from None
    else:
        start = len(text) - len(text.lstrip(_WS))
        try:
            value, end = _scan(text, start)
        except StopIteration:
            raise ValueError("not JSON: no value") from None
        except SystemError:
            # Python 3.11's scanner raises its syntax errors as `json.decoder`'s, and fails
            # this way where no one has imported that module (3.12 imports it itself).
            raise ValueError("not JSON: invalid syntax") from None
        except RecursionError:
            raise ValueError("not JSON: nested too deep") from None
        if text[end:].strip(_WS):
            raise ValueError(f"not JSON: extra data at {end}")
    if "\\ud" in text or "\\uD" in text:  # a surrogate escape: a pair, or one alone
        try:
            value = _whole(value)
        except RecursionError:
            raise ValueError("not JSON: nested too deep") from None
    return value


def _whole(value: Any) -> Any:
    """`value` with each lone surrogate in its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in value)
        return value
    if isinstance(value, list):
        return [_whole(v) for v in value]
    if isinstance(value, dict):
        return {_whole(k): _whole(v) for k, v in value.items()}
    return value


def _string(text: str, ascii_only: bool) -> str:
    if _C is None:  # pragma: no cover
        import json

        return json.dumps(text, ensure_ascii=ascii_only)
    if ascii_only:
        return str(_C.encode_basestring_ascii(text))
    return str(_C.encode_basestring(text))


def dumps(
    value: Any, *, ensure_ascii: bool = True, separators: tuple[str, str] = (", ", ": ")
) -> str:
    """`value` as JSON, as `json.dumps` writes it (`separators` too: `(",", ":")` for none of
    its spaces); anything else than plain data is written as its `str` (as `default=str`
    would)."""
    if _C is None:  # pragma: no cover
        out: list[str] = []
        _write(value, out, ensure_ascii, separators, float.__repr__)
        return "".join(out)
    # `json.dumps`'s own C encoder (`json.encoder.c_make_encoder`), set up as it sets it up.
    string = _C.encode_basestring_ascii if ensure_ascii else _C.encode_basestring
    write = _C.make_encoder(
        None, str, string, None, separators[1], separators[0], False, False, False
    )
    return "".join(write(value, 0))


def encode(value: Any) -> bytes:
    """`value` as `msgspec.json.encode` writes plain data: no spaces, UTF-8 text unescaped,
    floats in its notation (`1e16`, `1e-7`, `0.00001` where Python writes `1e+16`, `1e-07`,
    `1e-05`), so a document written before keeps its bytes."""
    out: list[str] = []
    _write(value, out, False, (",", ":"), _msgspec_float)
    return "".join(out).encode()


def _msgspec_float(value: float) -> str:
    text = float.__repr__(value)
    mantissa, e, exponent = text.partition("e")
    if not e:
        return text
    power = int(exponent)
    if power == -5:  # msgspec writes this one exponent in fixed notation
        sign, digits = ("-", mantissa[1:]) if mantissa.startswith("-") else ("", mantissa)
        return f"{sign}0.0000{digits.replace('.', '')}"
    return f"{mantissa}e{power}"


def _write(
    value: Any,
    out: list[str],
    ascii_only: bool,
    seps: tuple[str, str],
    real: Callable[[float], str],
) -> None:
    if isinstance(value, str):
        out.append(_string(value, ascii_only))
    elif value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float):
        if value - value != 0.0:  # NaN or an infinity
            raise ValueError(f"{value!r} is not valid JSON")
        out.append(real(value))
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for key, item in value.items():
            if not first:
                out.append(seps[0])
            first = False
            out.append(_string(key if isinstance(key, str) else str(key), ascii_only))
            out.append(seps[1])
            _write(item, out, ascii_only, seps, real)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(seps[0])
            _write(item, out, ascii_only, seps, real)
        out.append("]")
    else:
        out.append(_string(str(value), ascii_only))


_SPACE = b" \t\n\r\f\v"  # what `\s` matches in a bytes pattern


def raw_string(text: bytes, name: bytes) -> bytes | None:
    """The raw bytes (escapes as written) of the first string value of key `name` in `text`,
    which may be a JSON text cut anywhere: what `"name"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"` finds,
    without `re`. Lets a hook read one field of a huge first line without decoding it."""
    key = b'"' + name + b'"'
    at = text.find(key)
    while at >= 0:
        i = _skip_space(text, at + len(key))
        if text[i : i + 1] == b":":
            i = _skip_space(text, i + 1)
            if text[i : i + 1] == b'"':
                end = _string_end(text, i + 1)
                if end >= 0:
                    return text[i + 1 : end]
        at = text.find(key, at + 1)
    return None


def _skip_space(text: bytes, i: int) -> int:
    while text[i : i + 1] and text[i : i + 1] in _SPACE:
        i += 1
    return i


def _string_end(text: bytes, i: int) -> int:
    """Where the string whose body starts at `i` closes; -1 when the text ends first or an
    escape is cut by a line break (where the pattern stops too)."""
    while True:
        end = text.find(b'"', i)
        if end < 0:
            return -1
        slash = text.find(b"\\", i, end)
        if slash < 0:
            return end
        if text[slash + 1 : slash + 2] in (b"", b"\n"):
            return -1
        i = slash + 2
