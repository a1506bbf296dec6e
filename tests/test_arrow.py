"""Arrow arrays built from buffers (sim/arrow.py): the values and types ``pa.array`` gives, and no pandas."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from sim import arrow

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16, np.float32, np.float64])
def test_numeric_arrays_equal_pa_array(dtype):
    values = np.array([3, -1, 0, 7, 2], dtype=np.int64).astype(dtype)
    assert arrow.numeric(values).equals(pa.array(values))
    assert arrow.numeric(values[::2]).equals(pa.array(values[::2]))  # a strided view is copied first


@pytest.mark.parametrize("values", [np.array([True, False]), np.zeros((2, 2)), np.array(["a"])])
def test_numeric_refuses_what_it_cannot_lay_out(values):
    with pytest.raises(TypeError, match="one-dimensional integers or floats"):
        arrow.numeric(values)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_numeric_values_view_what_the_array_holds(dtype):
    values = np.array([5, -2, 9, 0, 4, 4], dtype=dtype)
    array = arrow.numeric(values)
    assert np.array_equal(arrow.numeric_values(array), values)
    assert np.array_equal(arrow.numeric_values(array.slice(2, 3)), values[2:5])  # an offset into the buffer
    assert arrow.numeric_values(array).dtype == values.dtype


def test_numeric_values_refuses_text_and_nulls():
    with pytest.raises(TypeError, match="integers or floats without nulls"):
        arrow.numeric_values(arrow.strings(["a"]))
    with pytest.raises(TypeError, match="integers or floats without nulls"):
        arrow.numeric_values(pa.array([1, None], pa.int32()))


def test_strings_and_dictionaries_equal_pa_array():
    words = ["", "luna", "scripted", "Heliumtank Ü", "C7"]
    assert arrow.strings(words).equals(pa.array(words, pa.string()))
    assert arrow.strings([]).equals(pa.array([], pa.string()))
    codes = np.array([4, 0, 1, 1, 3], dtype=np.int8)
    assert arrow.dictionary(codes, words).equals(
        pa.DictionaryArray.from_arrays(pa.array(codes), pa.array(words, pa.string())))


def test_dictionaries_hold_each_word_once():
    codes = np.array([3, 0, 1, 2, 2, 0], dtype=np.int8)
    array = arrow.dictionary(codes, ["luna", "scripted", "luna", "luna"])  # four seats, two kinds
    assert array.dictionary.to_pylist() == ["luna", "scripted"]
    assert array.indices.type == pa.int8()
    assert array.to_pylist() == ["luna", "luna", "scripted", "luna", "luna", "luna"]


def test_repeated_seat_words_leave_no_stray_memory_in_the_parquet_file(tmp_path):
    """Regression: with "luna" four times in the kind column's dictionary, the parquet writer sized the
    dictionary page for four words but wrote one, so the page ended in whatever memory it was given, and
    equal tables became files of unequal bytes. Arrow's pool is scribbled with a different byte before each
    write: the files must still be equal."""
    import hashlib

    from sim.run import _parquet_writer

    codes = np.tile(np.arange(4, dtype=np.int8), 1000)
    table = arrow.table({"kind": arrow.dictionary(codes, ["luna"] * 4)})
    digests = set()
    for byte in (0x00, 0xFF, 0x5A):
        held = [pa.allocate_buffer(size) for size in (32, 64, 128, 256) for _ in range(2000)]
        for buffer in held:  # freed below: the pool hands this memory out next
            np.frombuffer(buffer, dtype=np.uint8)[:] = byte
        del held
        path = tmp_path / f"kind{byte}.parquet"
        writer = _parquet_writer(path, table)
        writer.write_table(table)
        writer.close()
        digests.add(hashlib.sha256(path.read_bytes()).hexdigest())
    assert len(digests) == 1


def test_tables_keep_the_order_and_mark_fields_non_null():
    table = arrow.table({"b": arrow.numeric(np.array([1.5])), "a": arrow.strings(["x"])})
    assert table.column_names == ["b", "a"]
    assert [field.nullable for field in table.schema] == [False, False]


def test_rows_writer_writes_plain_what_the_first_chunk_holds_constant(tmp_path):
    """sim.run._parquet_writer: a number with one value throughout the first table is written PLAIN, any
    other BYTE_STREAM_SPLIT; a later table where that number varies is written as faithfully."""
    import pyarrow.parquet as pq

    from sim.run import ParquetRows

    def chunk_table(level: np.ndarray) -> pa.Table:
        return arrow.table({"score": arrow.numeric(np.array([3, 9, 4], np.int32)),
                            "level": arrow.numeric(level),
                            "won": arrow.numeric(np.array([0.5, 0.5, 0.5])),
                            "kind": arrow.dictionary(np.zeros(3, np.int8), ["luna"])})

    tables = [chunk_table(np.array([5, 5, 5], np.int32)), chunk_table(np.array([5, 7, 5], np.int32))]
    rows = ParquetRows(tmp_path / "seats.parquet", lambda table, scratch: table)
    for table in tables:
        rows.consume(table)
    rows.finish(tmp_path)
    written = pq.ParquetFile(tmp_path / "seats.parquet")
    encodings = {written.schema_arrow.field(i).name: written.metadata.row_group(0).column(i).encodings
                 for i in range(written.metadata.num_columns)}
    assert "BYTE_STREAM_SPLIT" in encodings["score"] and "BYTE_STREAM_SPLIT" not in encodings["level"]
    assert "PLAIN" in encodings["level"] and "BYTE_STREAM_SPLIT" not in encodings["won"]
    back = written.read()
    assert back["level"].to_pylist() == [5, 5, 5, 5, 7, 5]
    assert back["won"].to_pylist() == [0.5] * 6 and back["kind"].to_pylist() == ["luna"] * 6


@pytest.mark.parametrize("options", [[], ["--aggregate-only"], ["--detail", "rounds"]])
def test_simulate_never_imports_pandas(tmp_path, options):
    """pandas costs a warm ``simulate`` about 0.15 s; the run's files need none of it (issue 9)."""
    code = ("import json, sys\nfrom sim.cli import main\n"
            f"code = main(['simulate', '--seats', 'scripted:balanced,luna:5', '--games', '40', '--quiet', "
            f"'--out', {str(tmp_path / 'run')!r}, *{options!r}])\n"
            "print(json.dumps([code, 'pandas' in sys.modules]))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == [0, False]
