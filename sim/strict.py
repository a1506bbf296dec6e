"""The base of every data schema: unknown keys are errors, validated data cannot change, a value has the type
its field names (no quoted numbers, no true for 1), and numbers are finite and of a size a game can hold."""

from __future__ import annotations

import types
from collections.abc import Callable
from contextvars import ContextVar
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

#: The largest whole number any data or target file may give (either sign). Every value of the game is far
#: below it, and a larger one is a typo, refused with its field's path. A game's sums of such values (scores,
#: CrypCoin, SP) stay within the engines' int64 arithmetic; extreme data (a million steps a round, a million
#: CrypCoin a step) can carry them past the int32 columns of the per-game files, which then refuse the run in
#: one line naming the column (sim/run.py), while --aggregate-only writes them (its counts are int64).
MAX_DATA_INTEGER = 1_000_000
#: A whole number of things (steps, resources, markers): never negative.
Count = Annotated[int, Field(ge=0)]


def _refuse_float(value: Any) -> Any:
    if isinstance(value, float):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


#: For a field of fixed whole numbers (``Annotated[Literal[12], NoFloat]``): pydantic's Literal takes 12.0 for 12,
#: even in strict mode, where every ``int`` field refuses a number that is not written whole.
NoFloat = BeforeValidator(_refuse_float)


# Set while a model's fields are validated, after its values were walked for too large integers: the models inside it
# skip the walk (each level of nesting walked its whole subtree again: 0.7 of the 1.2 ms Luna's data took).
_RANGE_WALKED: ContextVar[bool] = ContextVar("_RANGE_WALKED", default=False)


def _too_large(value: Any, path: str) -> tuple[str, int] | None:
    """The path and value of the first integer in ``value`` beyond :data:`MAX_DATA_INTEGER`, if any."""
    if isinstance(value, int) and not isinstance(value, bool):
        return (path, value) if abs(value) > MAX_DATA_INTEGER else None
    if isinstance(value, dict):
        items = ((f"{path}.{key}", item) for key, item in value.items())
    elif isinstance(value, list | tuple):
        items = ((f"{path}.{index}", item) for index, item in enumerate(value))
    else:
        return None
    for item_path, item in items:
        found = _too_large(item, item_path)
        if found is not None:
            return found
    return None


# Whether an annotation has a tuple anywhere in it, by the annotation's id (the annotation is kept with its answer, so
# the id is never reused while cached). Most fields have none, and skipping their values halved the time a tuner's
# data variant takes to validate (2.3 ms, Luna's data); a field's annotation is one object for the life of its model.
_HOLDS_TUPLE: dict[int, tuple[Any, bool]] = {}


def _holds_tuple(annotation: Any) -> bool:
    cached = _HOLDS_TUPLE.get(id(annotation))
    if cached is not None and cached[0] is annotation:
        return cached[1]
    holds = get_origin(annotation) is tuple or any(_holds_tuple(argument) for argument in get_args(annotation))
    _HOLDS_TUPLE[id(annotation)] = (annotation, holds)
    return holds


def _tuples_where_annotated(value: Any, annotation: Any) -> Any:
    """``value`` with each list that ``annotation`` types as a tuple made one: TOML, like JSON, has arrays only,
    and strict validation takes nothing but a tuple for a tuple; anything else is returned as it is."""
    if not _holds_tuple(annotation):
        return value
    origin, arguments = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _tuples_where_annotated(value, arguments[0])
    if origin is Union or origin is types.UnionType:
        for member in arguments:
            converted = _tuples_where_annotated(value, member)
            if converted is not value:
                return converted
        return value
    if isinstance(value, list) and origin is tuple:
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return tuple(_tuples_where_annotated(item, arguments[0]) for item in value)
        if len(arguments) == len(value):
            return tuple(_tuples_where_annotated(item, kind) for item, kind in zip(value, arguments, strict=True))
        return tuple(value)  # the wrong length: validation says so
    if isinstance(value, list) and origin is list and arguments:
        return [_tuples_where_annotated(item, arguments[0]) for item in value]
    if isinstance(value, dict) and origin is dict and len(arguments) == 2:
        return {key: _tuples_where_annotated(item, arguments[1]) for key, item in value.items()}
    return value


class Strict(BaseModel):
    # strict: pydantic's lax mode would read "5" or true as the number a field wants, and past the range check
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, strict=True)

    @model_validator(mode="wrap")
    @classmethod
    def _integers_in_range(cls, raw: Any, handler: Callable[[Any], Any]) -> Any:
        # before the fields are read: an int64 overflow would otherwise surface as a traceback in the tables
        if not isinstance(raw, dict):
            return handler(raw)
        if not _RANGE_WALKED.get():  # skipped in a model inside another, whose walk went through these values
            for key, value in raw.items():
                found = _too_large(value, str(key))
                if found is not None:
                    raise ValueError(f"{found[0]}: {found[1]} is beyond the largest number data may give "
                                     f"({MAX_DATA_INTEGER:,}, either sign)")
        fields = cls.model_fields
        raw = {key: _tuples_where_annotated(value, fields[key].annotation) if key in fields else value
               for key, value in raw.items()}
        walked = _RANGE_WALKED.set(True)
        try:
            return handler(raw)
        finally:
            _RANGE_WALKED.reset(walked)
