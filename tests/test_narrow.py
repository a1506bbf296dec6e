"""The writer's int64 -> int32 narrowing (``sim.fast.narrow``): both paths keep every value or refuse."""

import numpy as np
import pytest

from sim.fast.narrow import COMPILED_FROM, narrow_to_int32
from sim.run import _disk_array

INT32 = np.iinfo(np.int32)
# a short column (numpy's passes) and a long one (the compiled pass)
SIZES = (7, COMPILED_FROM + 3)


@pytest.mark.parametrize("size", SIZES)
def test_values_in_range_are_copied_exactly(size):
    rng = np.random.default_rng(5)
    values = rng.integers(INT32.min, INT32.max, size=size, endpoint=True, dtype=np.int64)
    values[:2] = INT32.min, INT32.max  # both ends of the range fit
    out = np.full(size, 99, np.int32)
    assert narrow_to_int32(values, out)
    assert np.array_equal(out.astype(np.int64), values)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("misfit", [INT32.max + 1, INT32.min - 1, 2**32 + 5, -(2**40), 2**63 - 1])
@pytest.mark.parametrize("where", [0, -1])
def test_one_value_beyond_int32_anywhere_is_refused(size, misfit, where):
    # 2**32 + 5 truncates to 5, a value that fits: the check is the round trip, not the sign
    values = np.arange(size, dtype=np.int64)
    values[where] = misfit
    assert not narrow_to_int32(values, np.empty(size, np.int32))


def test_a_long_column_even_strided_takes_the_compiled_pass_and_a_short_one_numpys(monkeypatch):
    from sim.fast import narrow

    calls = []
    compiled = narrow._narrow_into
    monkeypatch.setattr(narrow, "_narrow_into", lambda values, out: calls.append(values.size) or compiled(values, out))
    values = np.arange(3 * COMPILED_FROM, dtype=np.int64)[::3]  # every third value: a strided view
    out = np.empty(values.size, np.int32)
    assert narrow_to_int32(values, out) and np.array_equal(out, values)
    assert narrow_to_int32(values[:5], out[:5])  # a short one: numpy's passes
    assert calls == [COMPILED_FROM]


def test_an_output_of_another_shape_or_type_is_refused():
    with pytest.raises(ValueError, match="int32 output"):
        narrow_to_int32(np.zeros(4, np.int64), np.zeros(4, np.int64))
    with pytest.raises(ValueError, match="int32 output"):
        narrow_to_int32(np.zeros(4, np.int64), np.zeros(5, np.int32))


@pytest.mark.parametrize("size", SIZES)
def test_a_column_beyond_int32_names_itself(size):
    values = np.zeros(size, np.int64)
    values[size // 2] = INT32.max + 1
    with pytest.raises(OverflowError, match=r"^cash: a value beyond the int32 range"):
        _disk_array("cash", values)
    assert _disk_array("game", values).type.bit_width == 64  # the game number stays wide
