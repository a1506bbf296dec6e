"""The base of every data schema: unknown keys are errors, validated data cannot change, and numbers are
finite and of a size a game can hold."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: The largest whole number any data or target file may give (either sign). Every value of the game is far
#: below it, and a game's sums of such values (its scores, CrypCoin, SP) stay within the int32 columns of the
#: output files and the engines' int64 arithmetic; a larger one is a typo, refused with its field's path.
MAX_DATA_INTEGER = 1_000_000
#: A whole number of things (steps, resources, markers): never negative.
Count = Annotated[int, Field(ge=0)]


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


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _integers_in_range(cls, raw: Any) -> Any:
        # before the fields are read: an int64 overflow would otherwise surface as a traceback in the tables
        if isinstance(raw, dict):
            for key, value in raw.items():
                found = _too_large(value, str(key))
                if found is not None:
                    raise ValueError(f"{found[0]}: {found[1]} is beyond the largest number data may give "
                                     f"({MAX_DATA_INTEGER:,}, either sign)")
        return raw
