"""Merchant Center destination statuses and item issues -> the canonical columns content_quality reads.

The `Products_` transfer table carries, per offer, two repeated records (the Content API's product
status, as the transfer writes it):
- `destinations`: {name, status, approved_countries[], pending_countries[], disapproved_countries[]},
  one per destination the offer is meant for ("Shopping", "SurfacesAcrossGoogle", …);
- `issues`: {code, servability, resolution, attribute_name, destination, short_description,
  detailed_description, documentation, applicable_countries[]}, one per item issue.

They become two canonical columns (agent.catalog.canonical), each per row the sorted distinct values
joined by a newline, dictionary-encoded (a few dozen combinations recur over a million offers):
- `disapproved_destinations`: the destinations whose `disapproved_countries` is not empty or whose
  (deprecated) `status` says "disapproved";
- `issue_codes`: the codes of every item issue, whatever its servability.

An offer of a table that has the record but none of them is "" (the data says: none); a source
without the records (every file) leaves the columns null, so content_quality shows no trace of them.
The work is vectorised over the flattened elements: only the disapproved destinations and the issues
are sorted, never the rows.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

SEPARATOR = "\n"
DESTINATIONS = "destinations"
ISSUES = "issues"
RECORDS = (DESTINATIONS, ISSUES)


def _joined_per_row(values: pa.Array, parents: np.ndarray, row_count: int) -> pa.DictionaryArray:
    """Per row 0..row_count-1, the sorted distinct `values` whose parent is that row, newline-joined
    ("" where none)."""
    empty = pa.array([""], pa.string())
    if not len(values):
        return pa.DictionaryArray.from_arrays(pa.array(np.zeros(row_count, np.int32)), empty)
    pairs = pa.table({"p": pa.array(parents, pa.int64()), "v": values})
    pairs = pairs.filter(pc.invert(pc.fill_null(pc.equal(pc.utf8_trim_whitespace(pairs["v"]), ""), True)))
    pairs = (
        pairs.group_by(["p", "v"], use_threads=False).aggregate([]).sort_by([("p", "ascending"), ("v", "ascending")])
    )
    grouped = pairs.group_by("p", use_threads=False).aggregate([("v", "list")])
    joined = pc.binary_join(grouped["v_list"], SEPARATOR).combine_chunks().dictionary_encode()
    indices = np.zeros(row_count, np.int32)
    indices[grouped["p"].to_numpy()] = joined.indices.to_numpy(zero_copy_only=False) + 1
    return pa.DictionaryArray.from_arrays(pa.array(indices), pa.concat_arrays([empty, joined.dictionary]))


def _elements(records: pa.ChunkedArray | pa.Array) -> tuple[pa.StructArray, np.ndarray]:
    """The list column's struct elements, flattened, and the row each belongs to."""
    arr = records.combine_chunks() if isinstance(records, pa.ChunkedArray) else records
    return pc.list_flatten(arr), pc.list_parent_indices(arr).to_numpy(zero_copy_only=False)


def disapproved_destinations(destinations: pa.ChunkedArray | pa.Array) -> pa.DictionaryArray:
    """Per offer, the destinations that disapprove it (module docstring)."""
    elements, parents = _elements(destinations)
    if not len(elements):
        return _joined_per_row(pa.array([], pa.string()), parents, len(destinations))
    status = pc.fill_null(
        pc.equal(pc.utf8_lower(pc.utf8_trim_whitespace(pc.struct_field(elements, "status"))), "disapproved"), False
    )
    countries = pc.fill_null(
        pc.greater(pc.list_value_length(pc.struct_field(elements, "disapproved_countries")), 0), False
    )
    keep = pc.or_(status, countries)
    names = pc.utf8_trim_whitespace(pc.struct_field(elements, "name"))
    return _joined_per_row(pc.filter(names, keep), parents[keep.to_numpy(zero_copy_only=False)], len(destinations))


def issue_codes(issues: pa.ChunkedArray | pa.Array) -> pa.DictionaryArray:
    """Per offer, the codes of its item issues (module docstring)."""
    elements, parents = _elements(issues)
    if not len(elements):
        return _joined_per_row(pa.array([], pa.string()), parents, len(issues))
    return _joined_per_row(pc.utf8_trim_whitespace(pc.struct_field(elements, "code")), parents, len(issues))


def attach(canonical_table: pa.Table, raw: pa.Table) -> pa.Table:
    """The canonical table with `disapproved_destinations` / `issue_codes` filled from the raw transfer
    rows it was read from (matched by `row_number`, 1-based over `raw`); columns the raw table lacks
    stay null."""
    jobs = (("disapproved_destinations", DESTINATIONS, disapproved_destinations), ("issue_codes", ISSUES, issue_codes))
    positions = None
    for column, record, convert in jobs:
        if record not in raw.column_names:
            continue
        if positions is None:
            positions = pc.subtract(canonical_table["row_number"], 1)
        values = pc.take(convert(raw[record]), positions)
        index = canonical_table.schema.get_field_index(column)
        field = canonical_table.schema.field(index)
        canonical_table = canonical_table.set_column(index, field, values.cast(field.type))
    return canonical_table
