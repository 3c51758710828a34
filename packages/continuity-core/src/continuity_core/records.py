"""Plain record classes for what the hooks build and store: msgspec's Structs without msgspec.

A checkpoint after every turn has a budget of three bare interpreter starts (issue 17), and
importing msgspec costs about one: it imports typing, datetime, decimal, uuid with platform,
and its own inspect and JSON-schema modules (docs/decisions.md, "Hook start-up budget"). The
records a hook builds and stores — the Session and what it holds, the cursor, the checkpoint,
the adapters' small results — are these classes instead: keyword construction with defaults,
equality, a repr, `replace`, and conversion to and from plain data (`to_builtins`,
`from_builtins`) checked against the annotations, so a corrupt cursor or checkpoint is refused
as msgspec refused it (`Invalid`, a ValueError, with msgspec's wording). The rest of the code
base keeps msgspec; `enc_hook`, `dec_hook` and `schema_hook` let it encode, decode and
describe a record inside a Struct.

A field is an annotation, left a string (`from __future__ import annotations` in every module
that defines records: nothing is evaluated), with its default as the class attribute or
`field(default_factory=list)`. The annotations are read as a small grammar: `str`, `int`,
`float`, `bool`, `None`, `Any`, `list[T]`, `dict[str, T]`, `A | B`, `Literal["a", "b"]`,
`Annotated[int, ">= N"]` (a lower bound, as msgspec's `Meta(ge=N)`), the
name of a record class the defining module imports, or a name in that module's `CHOICES`
(the values of a Literal alias that exists for the type checker only). Anything else is an
error the first time the class converts data. Type checkers see the classes as dataclasses.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Self, TypeVar, dataclass_transform

    T = TypeVar("T")
    Convert = Callable[[Any, str], Any]
else:

    def dataclass_transform(**_options: object) -> Callable[[type], type]:
        return lambda cls: cls


class Invalid(ValueError):
    """Data that does not fit a record's fields; msgspec's ValidationError in the same words."""


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def field(*, default_factory: Callable[[], T]) -> T:
    """A field whose default is made per instance (a list, a dict)."""
    return _Factory(default_factory)  # type: ignore[return-value]  # a marker the class reads


_MISSING: Any = object()
_SCALARS = (str, int, float, bool, type(None))


@dataclass_transform(kw_only_default=True, field_specifiers=(field,))
class Record:
    """The base of every record class; see the module's docstring."""

    _fields: tuple[str, ...] = ()
    _types: dict[str, str] = {}  # noqa: RUF012 - each subclass gets its own
    _defaults: dict[str, Any] = {}  # noqa: RUF012 - ditto
    _names: dict[str, str] = {}  # noqa: RUF012 - field -> name in data (`rename="kebab"`)
    _omit = False
    _forbid = False
    _convs: dict[str, Convert] | None = None
    __hash__ = None  # type: ignore[assignment]  # each subclass: by its fields when frozen

    def __init_subclass__(
        cls,
        *,
        frozen: bool = False,
        omit_defaults: bool = False,
        forbid_unknown_fields: bool = False,
        rename: str | None = None,
    ) -> None:
        super().__init_subclass__()
        types: dict[str, str] = {}
        for klass in reversed(cls.__mro__):
            for name, ann in vars(klass).get("__annotations__", {}).items():
                if klass is not Record and not str(ann).startswith("ClassVar"):
                    types[name] = str(ann)
        cls._fields = tuple(types)
        cls._types = types
        cls._defaults = {
            name: value for name in types if (value := getattr(cls, name, _MISSING)) is not _MISSING
        }
        cls._names = {n: n.replace("_", "-") if rename == "kebab" else n for n in types}
        cls._omit, cls._forbid, cls._convs = omit_defaults, forbid_unknown_fields, None
        if frozen:
            cls.__setattr__ = cls.__delattr__ = _immutable  # type: ignore[method-assign]
            cls.__hash__ = Record._hash  # type: ignore[assignment, method-assign]
        else:
            cls.__hash__ = None  # type: ignore[assignment]

    def __init__(self, **values: Any) -> None:
        own = self.__dict__
        for name in self._fields:
            value = values.pop(name, _MISSING)
            if value is _MISSING:
                value = self._defaults.get(name, _MISSING)
                if value is _MISSING:
                    raise TypeError(f"Missing required argument '{name}'")
                if type(value) is _Factory:
                    value = value.make()
            own[name] = value
        if values:
            raise TypeError(f"Unexpected keyword argument '{next(iter(values))}'")
        post = getattr(self, "__post_init__", None)
        if post is not None:
            post()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    def _hash(self) -> int:
        return hash(tuple(self.__dict__[name] for name in self._fields))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={self.__dict__[name]!r}" for name in self._fields)
        return f"{type(self).__name__}({shown})"

    def replace(self, **changes: Any) -> Self:
        """A copy with `changes` (as `msgspec.structs.replace`)."""
        for name in changes:
            if name not in self._types:
                raise TypeError(f"`{type(self).__name__}` has no field '{name}'")
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy.__dict__.update(changes)
        return copy

    def to_builtins(self) -> dict[str, Any]:
        """The record as plain data: what JSON holds (defaults left out with `omit_defaults`)."""
        out: dict[str, Any] = {}
        own, names, defaults = self.__dict__, self._names, self._defaults
        for name in self._fields:
            value = own[name]
            if self._omit:
                default = defaults.get(name, _MISSING)
                if type(default) is _Factory:
                    if not value:
                        continue
                elif default is not _MISSING and type(value) is type(default) and value == default:
                    continue
            out[names[name]] = value if type(value) in _SCALARS else to_builtins(value)
        return out

    @classmethod
    def from_builtins(cls, data: Any, where: str = "$") -> Self:
        """The record plain data describes; `Invalid` when it does not fit the annotations."""
        if type(data) is not dict:
            raise Invalid(f"Expected `object`, got `{_kind(data)}` - at `{where}`")
        convs = cls._convs if cls._convs is not None else cls._compile()
        own: dict[str, Any] = {}
        for name in cls._fields:
            key = cls._names[name]
            value = data.get(key, _MISSING)
            if value is not _MISSING:
                own[name] = convs[name](value, f"{where}.{key}")
                continue
            value = cls._defaults.get(name, _MISSING)
            if value is _MISSING:
                raise Invalid(f"Object missing required field `{key}` - at `{where}`")
            own[name] = value.make() if type(value) is _Factory else value
        if cls._forbid:
            known = cls._names.values()
            for key in data:
                if key not in known:
                    raise Invalid(f"Object contains unknown field `{key}` - at `{where}`")
        record = object.__new__(cls)
        record.__dict__.update(own)
        post = getattr(record, "__post_init__", None)
        if post is not None:
            try:
                post()
            except (TypeError, ValueError) as e:
                raise Invalid(f"{e} - at `{where}`") from None
        return record

    @classmethod
    def _compile(cls) -> dict[str, Convert]:
        module = vars(sys.modules[cls.__module__])
        cls._convs = {name: _converter(ann, module) for name, ann in cls._types.items()}
        return cls._convs


def _immutable(self: object, *args: object) -> None:
    raise AttributeError(f"immutable type: '{type(self).__name__}'")


def to_builtins(value: Any) -> Any:
    """`value` with every record in it as plain data (lists, dicts, tuples as lists)."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, Record):
        return value.to_builtins()
    if isinstance(value, (list, tuple)):
        return [to_builtins(v) for v in value]
    if isinstance(value, dict):
        return {k: to_builtins(v) for k, v in value.items()}
    return value


# --- reading annotations ------------------------------------------------------------------------


def _split(text: str, sep: str) -> list[str]:
    """`text` split at `sep` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


_JSON_NAMES = {str: "str", int: "int", float: "float", bool: "bool", type(None): "null"}


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return _JSON_NAMES.get(type(value), type(value).__name__)


def _expected(ann: str, value: Any, where: str) -> Invalid:
    shown = " | ".join("null" if p == "None" else p for p in _split(ann, "|"))
    return Invalid(f"Expected `{shown}`, got `{_kind(value)}` - at `{where}`")


def _literal(values: tuple[Any, ...], ann: str) -> Convert:
    allowed = frozenset(values)

    def check(value: Any, where: str) -> Any:
        if type(value) in (str, int) and value in allowed:
            return value
        if type(value) is str:
            raise Invalid(f"Invalid enum value {value!r} - at `{where}`")
        raise _expected(ann, value, where)

    return check


def _scalar(kind: type, ann: str) -> Convert:
    def check(value: Any, where: str) -> Any:
        if type(value) is kind:
            return value
        if kind is float and type(value) is int:
            return float(value)
        raise _expected(ann, value, where)

    return check


def _at_least(convert: Convert, kind: str, low: int) -> Convert:
    """`Annotated[int, ">= N"]`: a number no lower than N (msgspec's `Meta(ge=N)`)."""

    def check(value: Any, where: str) -> Any:
        value = convert(value, where)
        if value < low:
            raise Invalid(f"Expected `{kind}` >= {low} - at `{where}`")
        return value

    return check


def _any(value: Any, where: str) -> Any:
    return value


def _none(value: Any, where: str) -> Any:
    if value is None:
        return None
    raise _expected("None", value, where)


def _converter(ann: str, module: dict[str, Any]) -> Convert:
    """The function that checks (and builds) a value of annotation `ann`."""
    ann = ann.strip()
    parts = _split(ann, "|")
    if len(parts) > 1:
        options = [_converter(p, module) for p in parts if p != "None"]
        nullable = len(options) < len(parts)

        def union(value: Any, where: str) -> Any:
            if value is None and nullable:
                return None
            for option in options:
                try:
                    return option(value, where)
                except Invalid as e:
                    if len(options) == 1 and not str(e).endswith(f"- at `{where}`"):
                        raise  # `X | None` and an error inside X: that one, as msgspec says
            raise _expected(ann, value, where)

        return union
    scalars = {"str": str, "int": int, "float": float, "bool": bool}
    if ann in scalars:
        return _scalar(scalars[ann], ann)
    if ann in ("Any", "object"):
        return _any
    if ann == "None":
        return _none
    head, _, rest = ann.partition("[")
    if rest:
        inner = rest[:-1]
        if head == "list":
            item = _converter(inner, module)

            def items(value: Any, where: str) -> Any:
                if type(value) is not list:
                    raise _expected(ann, value, where)
                return [item(v, f"{where}[{i}]") for i, v in enumerate(value)]

            return items
        if head == "dict":
            key, val = _split(inner, ",")
            if key != "str":
                raise TypeError(f"record annotation {ann!r}: keys must be str")
            each = _converter(val, module)

            def mapping(value: Any, where: str) -> Any:
                if type(value) is not dict:
                    raise _expected(ann, value, where)
                out = {}
                for k, v in value.items():
                    if type(k) is not str:
                        raise _expected(ann, value, where)
                    out[k] = each(v, f"{where}[...]")  # as msgspec: the key is not named
                return out

            return mapping
        if head == "Literal":
            return _literal(tuple(_literal_value(v) for v in _split(inner, ",")), ann)
        if head == "Annotated":
            kind, bound = _split(inner, ",")
            return _at_least(_converter(kind, module), kind, int(_literal_value(bound)[2:]))
    found = module.get(ann)
    if isinstance(found, type) and issubclass(found, Record):
        return found.from_builtins
    choices = module.get("CHOICES", {}).get(ann)
    if choices is not None:
        return _literal(tuple(choices), ann)
    raise TypeError(f"record annotation {ann!r} is not one this module reads")


def _literal_value(text: str) -> Any:
    if text[:1] in "\"'" and text[-1:] == text[:1]:
        return text[1:-1]
    if text.lstrip("-").isdigit():
        return int(text)
    raise TypeError(f"record annotation: Literal value {text!r} is not a string or an int")


# --- msgspec, where a record sits inside a Struct ---------------------------------------------


def enc_hook(value: Any) -> Any:
    """msgspec's `enc_hook`: a record is encoded as its plain data."""
    if isinstance(value, Record):
        return value.to_builtins()
    raise NotImplementedError(f"Encoding objects of type {type(value).__name__} is unsupported")


def dec_hook(type_: Any, value: Any) -> Any:
    """msgspec's `dec_hook`: a record is built from its plain data."""
    if isinstance(type_, type) and issubclass(type_, Record):
        return type_.from_builtins(value)
    raise NotImplementedError(f"Decoding objects of type {type_} is unsupported")


def json_schema(cls: type[Record]) -> dict[str, Any]:
    """The JSON Schema of a record class, in msgspec's shape (nested records inline)."""
    module = vars(sys.modules[cls.__module__])
    props = {}
    for name, ann in cls._types.items():
        schema = _schema(ann, module)
        default = cls._defaults.get(name, _MISSING)
        if type(default) is _Factory:
            default = default.make()
        if default is not _MISSING and not isinstance(default, Record):  # as msgspec shows it
            schema["default"] = default
        props[cls._names[name]] = schema
    out: dict[str, Any] = {"title": cls.__name__}
    if cls.__doc__ and cls.__doc__ is not Record.__doc__:
        from inspect import cleandoc  # as msgspec words it; only the docs are built here

        out["description"] = cleandoc(cls.__doc__)
    out["type"] = "object"
    out["properties"] = props
    out["required"] = [cls._names[n] for n in cls._fields if n not in cls._defaults]
    if cls._forbid:  # as msgspec says `forbid_unknown_fields`
        out["additionalProperties"] = False
    return out


def _schema(ann: str, module: dict[str, Any]) -> dict[str, Any]:
    ann = ann.strip()
    parts = _split(ann, "|")
    if len(parts) > 1:
        return {"anyOf": [_schema(p, module) for p in parts]}
    simple = {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}
    if ann in simple:
        return {"type": simple[ann]}
    if ann == "None":
        return {"type": "null"}
    if ann in ("Any", "object"):
        return {}
    head, _, rest = ann.partition("[")
    if head == "list" and rest:
        return {"type": "array", "items": _schema(rest[:-1], module)}
    if head == "dict" and rest:
        values = _schema(_split(rest[:-1], ",")[1], module)
        return {"type": "object", "additionalProperties": values} if values else {"type": "object"}
    if head == "Literal" and rest:
        return {"enum": sorted(_literal_value(v) for v in _split(rest[:-1], ","))}
    if head == "Annotated" and rest:
        kind, bound = _split(rest[:-1], ",")
        return {**_schema(kind, module), "minimum": int(_literal_value(bound)[2:])}
    found = module.get(ann)
    if isinstance(found, type) and issubclass(found, Record):
        return json_schema(found)
    choices = module.get("CHOICES", {}).get(ann)
    if choices is not None:
        return {"enum": sorted(choices)}
    raise TypeError(f"record annotation {ann!r} is not one this module reads")


def schema_hook(type_: Any) -> dict[str, Any]:
    """msgspec's `schema_hook`: a record's JSON Schema."""
    if isinstance(type_, type) and issubclass(type_, Record):
        return json_schema(type_)
    raise NotImplementedError(f"Generating a schema for type {type_} is unsupported")
