"""Arrow arrays built from their buffers, so that writing a run never imports pandas.

``pa.array`` asks, the first time it runs, whether its argument is a pandas object, and to know that it
imports pandas: about 0.15 s, a seventh of a warm ``simulate`` of a few games (issue 9: warm start under
one second). Arrays made with ``pa.Array.from_buffers`` skip that question; they share the numpy
memory they are made from (no copy) and hold the same values and types ``pa.array`` would give.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pyarrow as pa


def numeric(values: np.ndarray) -> pa.Array:
    """A one-dimensional numpy array of integers or floats as an arrow array of the same type, no nulls."""
    if values.ndim != 1 or values.dtype.kind not in "iuf":
        raise TypeError(f"numeric arrays are one-dimensional integers or floats, got {values.dtype} "
                        f"with {values.ndim} dimensions")
    values = np.ascontiguousarray(values)
    return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])


def numeric_values(array: pa.Array) -> np.ndarray:
    """The values of a :func:`numeric`-like arrow array (integers or floats, no nulls) as a numpy view of its
    memory (``pa.Array.to_numpy`` imports pandas)."""
    if not (pa.types.is_integer(array.type) or pa.types.is_floating(array.type)) or array.null_count:
        raise TypeError(f"numeric values are integers or floats without nulls, got {array.type} "
                        f"with {array.null_count} nulls")
    whole = np.frombuffer(array.buffers()[1], dtype=array.type.to_pandas_dtype())
    return whole[array.offset:array.offset + len(array)]


def strings(words: Sequence[str]) -> pa.Array:
    """``words`` as an arrow string array, no nulls."""
    encoded = [word.encode("utf-8") for word in words]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    np.cumsum([len(word) for word in encoded], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def dictionary(codes: np.ndarray, words: Sequence[str]) -> pa.DictionaryArray:
    """``words[codes]`` as a dictionary array: ``codes`` (integers, each a valid index) index ``words``.

    The dictionary holds each word once (``words`` may repeat one: four Lunas are four "luna" seats). Given
    a dictionary with a repeated value, the parquet writer (pyarrow 26) wrote a few header bytes of the
    text columns' pages differently from one write of the same table to the next, so equal runs gave
    files of unequal bytes.
    """
    unique = list(dict.fromkeys(words))
    if len(unique) < len(words):
        position = np.array([unique.index(word) for word in words], dtype=codes.dtype)
        codes, words = position[codes], unique
    return pa.DictionaryArray.from_arrays(numeric(codes), strings(words))


def table(columns: Mapping[str, pa.Array]) -> pa.Table:
    """A table of ``columns`` in their order, every field marked non-null.

    Non-null fields spare the parquet writer a definition level per value (a tenth of its time).
    """
    schema = pa.schema([pa.field(name, array.type, nullable=False) for name, array in columns.items()])
    return pa.Table.from_arrays(list(columns.values()), schema=schema)
