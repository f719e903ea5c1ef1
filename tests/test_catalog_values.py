"""The vectorised value helpers the ingest fast paths rely on, checked against plain Python.

The fast paths skip work when raw bytes show there is nothing to do (no edge byte to trim, no run of
spaces, no Excel apostrophe), reuse buffers, and build dictionaries by hand; each test compares the
result with what Python's own string methods say, including the awkward cases (sliced arrays, nulls,
non-ASCII edges, whitespace-only values, several chunks with different dictionaries).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from agent.catalog import categorise, taxonomy
from agent.catalog.readers.common import FillDown, fill_down, first_row_per_key, take_sorted
from agent.catalog.values import clean_text, concat_dictionary, strip_excel_text_marker

MESSY = [
    "chair",
    " chair",
    "chair ",
    "\u00a0Sofa\u00a0",
    "Café",
    "  ",
    "",
    None,
    "a  b",
    "tab\tin",
    "x\n",
    "\u3000wide",
    "ü",
    "end ü ",
    "'00123",
    "'",
    "plain",
]


def py_clean(v: str | None, collapse: bool = False) -> str | None:
    """Reference: Unicode-aware strip; empty -> None; optionally inner ASCII space runs -> one space."""
    if v is None:
        return None
    v = v.strip()
    if collapse:
        import re

        v = re.sub(r"[ \t\n\f\r]{2,}", " ", v)
    return v or None


def dictionary_is_null_free(arr) -> bool:
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    return all(c.dictionary.null_count == 0 for c in chunks)


def test_clean_text_plain_strings_matches_python_including_slices_and_nulls():
    arr = pa.array(MESSY * 3)
    for piece in (arr, arr.slice(5), arr.slice(3, 20), pa.chunked_array([arr.slice(0, 10), arr.slice(10)])):
        expected = [py_clean(v) for v in piece.to_pylist()]
        got = clean_text(piece, categorical=False)
        assert got.to_pylist() == expected
        assert got.null_count == sum(v is None for v in expected)


def test_clean_text_untouched_column_keeps_its_buffers():
    arr = pa.array(["SKU-1", "SKU-2", "SKU-3"] * 1000)
    got = clean_text(arr, categorical=False)
    assert got.chunk(0).buffers()[2].address == arr.buffers()[2].address


def test_clean_text_empties_become_nulls_without_copying_text():
    arr = pa.array(["a", "", "b", None, ""])
    got = clean_text(arr, categorical=False).chunk(0)
    assert got.to_pylist() == ["a", None, "b", None, None] and got.null_count == 3
    assert got.buffers()[2].address == arr.buffers()[2].address


def test_clean_text_large_string():
    arr = pa.array(MESSY, pa.large_string())
    assert clean_text(arr, categorical=False).to_pylist() == [py_clean(v) for v in MESSY]


def test_clean_text_dictionary_free_text_keeps_nulls_in_indices():
    d = pa.chunked_array([pa.array(MESSY).dictionary_encode(), pa.array(list(reversed(MESSY))).dictionary_encode()])
    got = clean_text(d, categorical=False)
    assert got.to_pylist() == [py_clean(v) for v in MESSY + list(reversed(MESSY))]
    assert dictionary_is_null_free(got)
    assert got.null_count == sum(py_clean(v) is None for v in MESSY) * 2  # is_valid/null_count see the blanks


def test_clean_text_categorical_is_unique_and_collapses_runs():
    values = MESSY + ["Teak", "Teak ", " Teak", "Red  Oak", "Red Oak"]
    # several chunks with their own dictionaries, as Parquet row groups give them
    d = pa.chunked_array(
        [
            pa.array(values[:9]).dictionary_encode(),
            pa.array(values[9:]).dictionary_encode(),
            pa.array(values).dictionary_encode(),
        ]
    )
    got = clean_text(d, categorical=True)
    expected = [py_clean(v, collapse=True) for v in values[:9] + values[9:] + values]
    assert got.to_pylist() == expected
    dictionary = got.chunk(0).dictionary.to_pylist()
    assert len(dictionary) == len(set(dictionary)) and None not in dictionary
    assert got.null_count == sum(v is None for v in expected)


def test_concat_dictionary_shared_and_distinct_dictionaries():
    base = pa.array(["x", "y", "z"]).dictionary_encode()
    shared = pa.chunked_array([base.slice(0, 2), base.slice(2)])
    c = concat_dictionary(shared)
    assert c.to_pylist() == ["x", "y", "z"] and len(c.dictionary) == 3  # not repeated per chunk
    distinct = pa.chunked_array(
        [pa.array(["a", "b"]).dictionary_encode(), pa.array(["b", None, "c"]).dictionary_encode()]
    )
    assert concat_dictionary(distinct).to_pylist() == ["a", "b", "b", None, "c"]


def test_excel_text_marker_only_where_present():
    arr = pa.chunked_array([pa.array(["'00123", "A1", None, ""]), pa.array(["4006381333931"])])
    assert strip_excel_text_marker(arr).to_pylist() == ["00123", "A1", None, None, "4006381333931"]
    clean = pa.chunked_array([pa.array(["A", "", None, "B"])])
    assert strip_excel_text_marker(clean) is clean


def test_fill_down_plan_matches_python_for_text_dictionaries_and_numbers():
    rng = np.random.default_rng(7)
    handles = [f"h{k}" for k in rng.integers(0, 40, 400)]
    handles[5] = handles[17] = None
    titles = [f"T{k}" if rng.random() < 0.7 else None for k in range(400)]
    prices = [float(k) if rng.random() < 0.8 else None for k in range(400)]
    enc = pa.array(handles).dictionary_encode()
    keys = np.where(enc.is_valid().to_numpy(zero_copy_only=False), enc.indices.fill_null(0).to_numpy(), -1).astype(
        np.int64
    )
    nkeys = len(enc.dictionary)
    plan = FillDown.plan(keys, nkeys, first_row_per_key(keys, nkeys))
    first_row: dict[str, int] = {}
    for i, h in enumerate(handles):
        if h is not None:
            first_row.setdefault(h, i)
    for values in (
        pa.chunked_array([pa.array(titles[:150]), pa.array(titles[150:])]),
        pa.array(titles).dictionary_encode(),
        pa.array(prices),
    ):
        plain = values.to_pylist()
        expected = [None if h is None else plain[first_row[h]] for h in handles]
        got = fill_down(values, keys, nkeys, plan)
        assert got.to_pylist() == expected
        assert got.null_count == sum(v is None for v in expected)
        if pa.types.is_dictionary(got.type):
            assert got.dictionary.null_count == 0
    # without a fixed source row: the first row holding a value
    expected = []
    for h in handles:
        rows = [i for i, g in enumerate(handles) if g == h and titles[i] is not None] if h is not None else []
        expected.append(titles[rows[0]] if rows else None)
    assert fill_down(pa.array(titles), keys, nkeys).to_pylist() == expected


def test_take_sorted_across_chunks():
    arr = pa.chunked_array([pa.array(["a", "b"]), pa.array([], pa.string()), pa.array(["c", "d", "e"])])
    assert take_sorted(arr, pa.array([0, 2, 3, 4], pa.int64())).to_pylist() == ["a", "c", "d", "e"]
    assert take_sorted(arr, pa.array([4, 0], pa.int64())).to_pylist() == ["e", "a"]  # unsorted: general take


def test_map_rows_paths_follow_ids_and_unmapped_rows_are_null():
    tax = taxonomy.load()
    chair_path = tax.node(6828).path
    gc = pa.chunked_array([pa.array(["6828", None, "not a category", "6828", None]).dictionary_encode()])
    title = pa.chunked_array([pa.array([None, "Teak garden bench", None, None, "Mystery object"]).dictionary_encode()])
    ids, paths, method = categorise.map_rows(5, gc, None, None, title)
    assert ids.to_pylist() == [6828, 5044, None, 6828, None]
    assert paths.to_pylist() == [chair_path, tax.node(5044).path, None, chair_path, None]
    assert method.to_pylist() == ["google_category", "name_match", "unmapped", "google_category", "unmapped"]
    assert pc.count_distinct(paths.dictionary).as_py() == len(paths.dictionary)


def test_clean_text_unique_input_skips_rehash_only_when_nothing_changes():
    d = pa.chunked_array([pa.array(["h1", "h2", "h1", None, "h3"]).dictionary_encode()])
    same = clean_text(d, categorical=True, unique=True)
    assert same.chunk(0).dictionary.equals(d.chunk(0).dictionary) and same.to_pylist() == d.to_pylist()
    # trimming merges "a " into "a": the result is re-encoded even though the input was unique
    merged = clean_text(
        pa.chunked_array([pa.array(["a ", "a", "b", "a "]).dictionary_encode()]), categorical=True, unique=True
    )
    assert merged.to_pylist() == ["a", "a", "b", "a"]
    assert sorted(merged.chunk(0).dictionary.to_pylist()) == ["a", "b"]
    assert len(set(merged.chunk(0).indices.to_pylist())) == 2


def test_first_row_per_key_any_numbering():
    rng = np.random.default_rng(3)
    for keys in (
        rng.integers(-1, 30, 500),  # arbitrary numbering (general path)
        pa.array([f"h{k}" if k >= 0 else None for k in rng.integers(-1, 30, 500)]).dictionary_encode(),
    ):
        if isinstance(keys, pa.DictionaryArray):  # first-appearance numbering (fast path)
            nkeys = len(keys.dictionary)
            keys = np.where(keys.is_valid().to_numpy(zero_copy_only=False), keys.indices.fill_null(0).to_numpy(), -1)
        else:
            nkeys = 30
        expected = [-1] * (nkeys + 1)
        for i, k in enumerate(keys.tolist()):
            if k >= 0 and expected[k] < 0:
                expected[k] = i
        assert first_row_per_key(np.asarray(keys, dtype=np.int64), nkeys).tolist() == expected


def test_categorical_clean_dedupes_a_shared_dictionary_with_repeats():
    # chunks sharing one dictionary that repeats a value: combining does not unify it, so cleaning must
    d = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2], pa.int32()), pa.array(["a", "a", "b"]))
    got = clean_text(pa.chunked_array([d, d]), categorical=True)
    assert got.to_pylist() == ["a", "a", "b"] * 2
    assert sorted(got.chunk(0).dictionary.to_pylist()) == ["a", "b"]


def test_map_rows_quick_path_equals_the_general_one():
    tax = taxonomy.load()
    values = ["6828", tax.node(5044).path, "6828", "719", tax.node(5044).path] * 3
    quick = categorise.map_rows(len(values), pa.chunked_array([pa.array(values).dictionary_encode()]), None, None, None)
    # one unresolvable row sends the same values down the general path
    general = categorise.map_rows(
        len(values) + 1, pa.chunked_array([pa.array(values + [None]).dictionary_encode()]), None, None, None
    )
    for q, g in zip(quick, general):
        assert q.to_pylist() == g.to_pylist()[:-1]
    assert quick[0].to_pylist()[:4] == [6828, 5044, 6828, 719]
    assert set(quick[2].to_pylist()) == {"google_category"}


def test_identifier_clean_drops_excel_marker_in_the_same_pass():
    ids = ["'00123", " '00456 ", "A-1", None, "", "'", "'x'", "\u00a0'789"] * 2
    expected = []
    for v in ids:
        v = py_clean(v)
        if v is not None and v.startswith("'"):
            v = v[1:] or None
        expected.append(v)
    arr = pa.chunked_array([pa.array(ids[:5]), pa.array(ids[5:])])
    assert clean_text(arr, categorical=False, marker=True).to_pylist() == expected
    d = pa.chunked_array([pa.array(ids).dictionary_encode()])
    assert clean_text(d, categorical=True, marker=True).to_pylist() == [v if v else None for v in expected]


def test_null_columns_share_one_zero_block_and_are_valid_for_every_canonical_type():
    from agent.catalog import canonical
    from agent.catalog.readers.common import null_column

    for n in (0, 3, 1000):
        for field in canonical.SCHEMA:
            a = null_column(n, field.type)
            a.validate(full=True)
            assert a.type == field.type and a.null_count == n and a.to_pylist() == [None] * n
    f, s = null_column(1000, pa.float64()), null_column(1000, pa.string())
    assert f.buffers()[1].address == s.buffers()[1].address  # one block behind both


def test_map_rows_quick_path_from_merchant_paths_equals_the_general_one():
    tax = taxonomy.load()
    paths = [tax.node(6828).path + " > Teak", tax.node(5044).path, tax.node(6828).path] * 3
    col = pa.chunked_array([pa.array(paths).dictionary_encode()])
    quick = categorise.map_rows(len(paths), None, col, None, None)
    general = categorise.map_rows(
        len(paths) + 1, None, pa.chunked_array([pa.array(paths + [None]).dictionary_encode()]), None, None
    )
    for q, g in zip(quick, general):
        assert q.to_pylist() == g.to_pylist()[:-1]
    assert quick[0].to_pylist()[:3] == [6828, 5044, 6828] and set(quick[2].to_pylist()) == {"merchant_path"}


def test_entry_mask_matches_python_on_slices_nulls_and_index_widths():
    from agent.catalog.readers.common import entry_mask

    values = ["Color", None, "Size", "Colour", None, "Title", "Color"] * 40
    for index_type in (pa.int8(), pa.int16(), pa.int32(), pa.int64()):
        arr = pa.array(values).dictionary_encode()
        arr = pa.DictionaryArray.from_arrays(arr.indices.cast(index_type), arr.dictionary)
        for sliced in (arr, arr.slice(3, 150), arr.slice(13)):
            got = entry_mask(sliced, lambda v: v in ("Color", "Colour")).to_pylist()
            assert got == [v in ("Color", "Colour") for v in sliced.to_pylist()]
    # an index under a null may hold any value: the mask must not read past the dictionary
    garbage = pa.Array.from_buffers(
        pa.int32(), 3, [pa.py_buffer(bytes([0b101])), pa.py_buffer(np.array([0, 99, 1], np.int32).tobytes())]
    )
    odd = pa.DictionaryArray.from_arrays(garbage, pa.array(["a", "b"]))
    assert entry_mask(odd, lambda v: v == "b").to_pylist() == [False, False, True]


def test_value_codes_per_chunk_dictionaries_match_python():
    from agent.catalog.readers.common import value_codes

    chunks = [
        pa.array(["active", None, "draft", "active"]).dictionary_encode(),
        pa.array(["archived", "active", None]).dictionary_encode(),
        pa.array(["draft"]).dictionary_encode(),
    ]
    col = pa.chunked_array(chunks)
    labels = {"active": 0, "draft": 1, "archived": 2}
    got = value_codes(col, lambda v: labels.get(v, 3), np.int8, missing=9)
    assert got.tolist() == [9 if v is None else labels[v] for v in col.to_pylist()]
    plain = value_codes(pa.chunked_array([pa.array(["draft", None])]), lambda v: labels.get(v, 3), np.int8, missing=9)
    assert plain.tolist() == [1, 9]


@pytest.mark.parametrize("index_type", [pa.int8(), pa.int16(), pa.int32(), pa.int64()])
@pytest.mark.parametrize("start,missing", [(0, -1), (1, 0)])
def test_entry_numbers_are_entry_codes_of_a_range(index_type, start, missing):
    """`entry_numbers` is `entry_codes` through an identity table, by arithmetic: nulls (whose index
    slots hold anything) get `missing`, a sliced array is read from its offset, any index width."""
    from agent.catalog.values import entry_codes, entry_numbers

    indices = pa.array([2, 0, None, 1, 1, None, 0, 2, 2, 1] * 3, type=index_type)
    column = pa.DictionaryArray.from_arrays(indices, pa.array(["a", "b", "c"]))
    for arr in (column, column.slice(3, 17), column.slice(5)):
        expected = entry_codes(arr, np.arange(start, start + 3, dtype=np.int64), missing=missing)
        got = entry_numbers(arr, start=start, dtype=np.int32, missing=missing)
        assert got.dtype == np.int32 and got.tolist() == expected.tolist()
        assert got.tolist() == [missing if v is None else v + start for v in arr.indices.to_pylist()]


def test_entry_numbers_of_no_rows_and_of_only_nulls():
    from agent.catalog.values import entry_numbers

    empty = pa.DictionaryArray.from_arrays(pa.array([], pa.int32()), pa.array([], pa.string()))
    assert entry_numbers(empty).tolist() == []
    nulls = pa.DictionaryArray.from_arrays(pa.nulls(4, pa.int32()), pa.array(["a"]))
    assert entry_numbers(nulls, start=1, missing=0).tolist() == [0, 0, 0, 0]
