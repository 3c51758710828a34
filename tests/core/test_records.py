"""`continuity_core.records`: the hooks' plain records, checked as msgspec checked its Structs."""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

from continuity_core.records import Invalid
from continuity_core.schemas.session import Message, Session, SessionRef, TodoItem, Usage

# The modules that keep a Literal alias for the type checker and its values in `CHOICES`.
WITH_CHOICES = (
    "continuity_core.schemas.session",
    "continuity_core.schemas.usage",
    "continuity_core.schemas.probe",
    "continuity_core.schemas.saved",
    "continuity_core.limits",
)


def _aliases(source: str) -> dict[str, tuple[object, ...]]:
    """`Name = Literal[...]` assignments, wherever they are (the `TYPE_CHECKING` block)."""
    found: dict[str, tuple[object, ...]] = {}
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Subscript)
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "Literal"
            and isinstance(node.targets[0], ast.Name)
        ):
            inner = node.value.slice
            items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            found[node.targets[0].id] = tuple(ast.literal_eval(item) for item in items)
    return found


@pytest.mark.parametrize("name", WITH_CHOICES)
def test_choices_hold_the_values_the_type_checker_sees(name: str) -> None:
    module = importlib.import_module(name)
    aliases = _aliases(inspect.getsource(module))
    assert module.CHOICES
    for alias, values in module.CHOICES.items():
        assert aliases[alias] == tuple(values), alias


def test_a_session_round_trips_through_plain_data() -> None:
    session = Session(
        agent="claude",
        session_id="s",
        messages=[Message(role="user", text="hi", kind="request")],
        todos=[TodoItem(content="ship", status="in_progress")],
        usage=Usage(context_tokens=5, context_window=10),
    )
    data = session.to_builtins()
    assert "schema_version" not in data and "tool_calls" not in data  # defaults left out
    assert Session.from_builtins(data) == session
    assert session.usage is not None and session.usage.fraction == 0.5


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "Expected `object`, got `array` - at `$`"),
        ({"agent": "a"}, "Object missing required field `session_id` - at `$`"),
        ({"agent": "a", "session_id": 1}, "Expected `str`, got `int` - at `$.session_id`"),
        (
            {"agent": "a", "session_id": "s", "todos": [{"content": "x", "status": "done"}]},
            "Invalid enum value 'done' - at `$.todos[0].status`",
        ),
        (
            {"agent": "a", "session_id": "s", "model": 3},
            "Expected `str | null`, got `int` - at `$.model`",
        ),
        (
            {"agent": "a", "session_id": "s", "usage": {"context_tokens": True}},
            "Expected `int`, got `bool` - at `$.usage.context_tokens`",
        ),
        (
            {"agent": "a", "session_id": "s", "model_tokens": {"m": "9"}},
            "Expected `int`, got `str` - at `$.model_tokens[...]`",
        ),
    ],
)
def test_data_that_does_not_fit_is_refused_in_msgspec_s_words(data: object, message: str) -> None:
    with pytest.raises(Invalid) as refused:
        Session.from_builtins(data)
    assert str(refused.value) == message


def test_keywords_frozen_records_and_replace() -> None:
    ref = SessionRef(agent="a", account="b", session_id="c", path="/p", mtime=1.0)
    assert ref.replace(path="/q").path == "/q" and ref.path == "/p"
    assert hash(ref) == hash(
        SessionRef(agent="a", account="b", session_id="c", path="/p", mtime=1.0)
    )
    with pytest.raises(AttributeError):
        ref.path = "/r"  # type: ignore[misc]  # frozen: the assignment is the test
    with pytest.raises(TypeError, match="Missing required argument 'session_id'"):
        Session(agent="a")  # type: ignore[call-arg]  # the missing argument is the test
    with pytest.raises(TypeError, match="Unexpected keyword argument 'colour'"):
        Session(agent="a", session_id="s", colour="red")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="has no field 'colour'"):
        ref.replace(colour="red")
    assert (
        Session(agent="a", session_id="s").requests
        is not Session(agent="a", session_id="s").requests
    )
