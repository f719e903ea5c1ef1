"""Generated messy files (issue 3 point 4), each with its expected outcome."""

from __future__ import annotations

import pyarrow as pa
import pytest

from agent.catalog.errors import UnreadableCatalog
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.readers.common import blank_dashes
from agent.catalog.sources import read_table_bytes


def read(data: bytes, name: str = "messy.csv"):
    table, ev = read_table_bytes(data, name, KIND_ATTACHED)
    return table.to_pylist(), ev


def test_utf8_bom_is_not_part_of_the_first_header():
    rows, ev = read("\ufeffsku,title,price\nA1,Chair,10.00\n".encode("utf-8"))
    assert ev.columns[0] == "sku" and ev.encoding == "utf-8-sig"
    assert rows[0]["sku"] == "A1" and ev.unmapped_columns == []


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_eight_bit_encodings_fall_back(encoding):
    data = "title;price;brand\nCafé chair;12,50;Müller\nSessel grün;1.299,00;Müller\n".encode(encoding)
    rows, ev = read(data)
    assert ev.encoding in ("windows-1252", "latin-1") and ev.delimiter == ";"
    assert [r["title"] for r in rows] == ["Café chair", "Sessel grün"]
    assert [r["price"] for r in rows] == [12.5, 1299.0]
    assert rows[0]["brand"] == "Müller"


def test_windows_1252_punctuation_and_euro_sign():
    rows, ev = read("title,price\n\u201cQuoted\u201d chair,\u20ac 12.50\n".encode("cp1252"))
    assert ev.encoding == "windows-1252"
    assert rows[0]["title"] == "\u201cQuoted\u201d chair" and (rows[0]["price"], rows[0]["currency"]) == (12.5, "EUR")


def test_utf16_excel_unicode_text():
    rows, ev = read("title\tprice\nChair\t10\n".encode("utf-16"))
    assert ev.encoding == "utf-16" and ev.delimiter == "\t" and rows[0]["price"] == 10.0


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_delimiters_are_sniffed(delimiter):
    data = delimiter.join(["sku", "title", "price"]) + "\n" + delimiter.join(["A", "Chair, teak", "10"]) + "\n"
    if delimiter == ",":
        data = 'sku,title,price\nA,"Chair, teak",10\n'
    rows, ev = read(data.encode())
    assert ev.delimiter == delimiter
    assert (rows[0]["title"], rows[0]["price"]) == ("Chair, teak", 10.0)


def test_quoted_newlines_stay_inside_their_value():
    rows, ev = read(b'title,description,price\r\nChair,"line1\nline2\r\nline3",10\r\nTable,plain,20\r\n')
    assert ev.rows_read == 2 and ev.rows_skipped == 0
    assert rows[0]["description"] == "line1\nline2\r\nline3" and rows[1]["price"] == 20.0


def test_quoted_newlines_in_a_large_file_take_the_quote_aware_path(monkeypatch):
    from agent.catalog import csvread

    monkeypatch.setattr(csvread, "_SMALL", 64 * 1024)  # "large": the fast path is tried first
    monkeypatch.setattr(csvread, "_BLOCK", 64 * 1024)  # many blocks: some boundaries fall inside quotes
    plain = "".join(f'P{i},"one line {i}",{i}.50\n' for i in range(20_000))  # beyond the sniffed sample
    multi = "".join(f'T{i},"first line\nsecond line {i}",{i}.50\n' for i in range(20_000))
    data = ("title,description,price\n" + plain + multi).encode()
    assert plain.find("\n", csvread._SAMPLE) > 0 and len(data) > 16 * csvread._SMALL
    table, ev = read_table_bytes(data, "big.csv", KIND_ATTACHED)
    assert ev.rows_read == 40_000 and ev.rows_skipped == 0
    assert table["description"][20_005].as_py() == "first line\nsecond line 5"


def test_duplicate_header_names_are_kept_apart():
    rows, ev = read(b"title,price,price,sku\nChair,10,11,A\n")
    assert ev.columns == ["title", "price", "price (2)", "sku"]
    assert rows[0]["price"] == 10.0 and ev.unmapped_columns == ["price (2)"]


def test_blank_lines_are_ignored_and_empty_rows_skipped():
    rows, ev = read(b"\n\ntitle,price\n\nChair,10\n\n,\nTable,20\n\n")
    assert [r["title"] for r in rows] == ["Chair", "Table"]
    # the "," row is a spreadsheet's empty row: a blank line, neither read nor skipped
    assert ev.rows_read == 2 and ev.rows_skipped == 0 and ev.skipped_reasons == {}


def test_a_row_with_cells_only_in_unread_columns_is_read_and_skipped_with_its_reason():
    rows, ev = read(b"title,price,notes\nChair,10,x\n,,only a note\nTable,20,\n")
    assert [r["title"] for r in rows] == ["Chair", "Table"]
    assert (ev.rows_read, ev.rows_skipped, ev.skipped_reasons) == (3, 1, {"with cells only in columns not read": 1})


def test_ragged_rows_are_read_not_skipped():
    """Short rows are padded, long rows keep their known cells (tests/test_catalog_ragged.py has the classes)."""
    rows, ev = read(b"title,price,sku\nChair,10,A\nShort,1\nTable,20,B,extra\nLamp,5,C\n")
    assert [r["title"] for r in rows] == ["Chair", "Short", "Table", "Lamp"]
    assert [r["sku"] for r in rows] == ["A", None, "B", "C"]
    assert (ev.rows_read, ev.rows_skipped, ev.rows_padded, ev.rows_overlong, ev.extra_cells) == (4, 0, 1, 1, 1)


def test_trailing_delimiters_on_every_row_are_forgiven():
    rows, ev = read(b"title,price,sku\nChair,10,A,\nTable,20,B,\n")
    assert [r["title"] for r in rows] == ["Chair", "Table"] and ev.rows_skipped == 0


def test_excel_damage_is_visible_not_fixed():
    rows, _ = read(b"title,sku,gtin,price\nChair,'00123,3.65E+11,10\nTable,00124,'0012345678905,20\n")
    assert rows[0]["sku"] == "00123"  # Excel's text marker dropped, the digits intact
    assert rows[0]["gtin"] == "3.65E+11"  # scientific notation stays: an invalid GTIN, not a guess
    assert rows[1]["sku"] == "00124" and rows[1]["gtin"] == "0012345678905"  # leading zeros kept


def test_prices_with_symbols_separators_and_text():
    data = (
        "title,price,compare_at_price,currency\n"
        'A,"$1,299.00",No old price,\n'
        'B,"1.299,00 \u20ac",n/a,\n'
        "C, 15 ,\u00a3 20,\n"
        "D,USD 7.5,,\n"
        "E,call for price,0,\n"
    ).encode()
    rows, _ = read(data)
    assert [r["price"] for r in rows] == [1299.0, 1299.0, 15.0, 7.5, None]
    assert [r["compare_at_price"] for r in rows] == [None, None, 20.0, None, 0.0]
    # currency: only where the data states it; "$" is ambiguous, but this file names one dollar (USD)
    # elsewhere, which corroborates it
    assert [r["currency"] for r in rows] == ["USD", "EUR", "GBP", "USD", None]


def test_decimal_comma_column():
    rows, _ = read("title;price\nA;12,50\nB;1.234,5\nC;7\n".encode())
    assert [r["price"] for r in rows] == [12.5, 1234.5, 7.0]


def test_text_in_numeric_stock_column_is_unknown_not_zero():
    rows, _ = read(b'title,price,inventory_qty\nA,1,12\nB,1,unlimited\nC,1,\nD,1,"1,200"\n')
    assert [r["inventory_qty"] for r in rows] == [12, None, None, 1200]
    assert [r["availability"] for r in rows] == ["in_stock", "unknown", "unknown", "in_stock"]


def test_trailing_and_non_breaking_spaces():
    rows, _ = read("title,brand,sku,price\nChair\u00a0 ,Acme\u00a0,  A-1 ,10\n Table,Acme,A-2,20\n".encode())
    assert [r["title"] for r in rows] == ["Chair", "Table"]
    assert [r["brand"] for r in rows] == ["Acme", "Acme"] and rows[0]["sku"] == "A-1"


def test_status_words_and_excluded_products():
    data = b"title,status,price\nA,Active,1\nB,draft,1\nC,ARCHIVED,1\nD,published,1\nE,hidden,1\nF,,1\nG,weird,1\n"
    rows, _ = read(data)
    assert [r["status"] for r in rows] == ["active", "draft", "archived", "active", "draft", "unknown", "unknown"]


_RSS = (
    b'<?xml version="1.0"?>\n<rss xmlns:g="http://base.google.com/ns/1.0" version="2.0">\n<channel>\n'
    b"<item>\n<g:id>1</g:id>\n<g:title>Chair, oak</g:title>\n<g:price>10.00 EUR</g:price>\n</item>\n"
)
_MARKUP = "an XML or HTML document, not a table; an XML product feed is not read — attach a CSV or TSV export"


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "not a readable CSV: the file is empty"),
        (b"\n\n  \n", "not a readable CSV: the file is empty"),
        (b"1,2,3\n4,5,6\n", "not a readable CSV: no header row found"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a readable CSV: the file is binary"),
        (b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00", "not a readable CSV: the file is binary"),
        (b"a,b,c\n1,2,3\n", "no product columns recognised (such as title, SKU or price)"),
        (b"PAR1garbage", "not a readable Parquet file"),
        # markup, not a table: Merchant Center's RSS and Atom feeds, a WordPress (WooCommerce) export
        (_RSS, _MARKUP),
        (b"\xef\xbb\xbf" + _RSS, _MARKUP),
        (b'<feed xmlns="http://www.w3.org/2005/Atom" xmlns:g="http://base.google.com/ns/1.0">\n<entry>\n', _MARKUP),
        (b'\n<!-- This is a WordPress eXtended RSS file -->\n<rss version="2.0">\n', _MARKUP),
        (b"<!DOCTYPE html>\n<html><body>title,price</body></html>\n", _MARKUP),
    ],
)
def test_unusable_files_raise_a_fixed_reason(data, reason):
    with pytest.raises(UnreadableCatalog) as err:
        read_table_bytes(data, "x.csv", KIND_ATTACHED)
    assert err.value.reason == reason


def test_header_only_file_is_an_empty_catalog():
    rows, ev = read(b"title,price,sku\n")
    assert rows == [] and ev.rows_read == 0


def test_excel_sep_directive_line():
    rows, ev = read(b"sep=;\ntitle;price\nChair;10,50\n")
    assert ev.delimiter == ";" and ev.columns == ["title", "price"] and rows[0]["price"] == 10.5


def test_preamble_lines_above_the_header_are_skipped():
    rows, ev = read(b"Product export\nGenerated by ShopTool\n\ntitle,price,sku\nChair,10,A\nTable,20,B\n")
    assert ev.columns == ["title", "price", "sku"] and [r["sku"] for r in rows] == ["A", "B"]
    assert ev.rows_read == 2


def test_old_mac_line_endings():
    rows, ev = read(b'title,description,price\rChair,"a\rb",10\rTable,x,20\r')
    assert [(r["title"], r["description"], r["price"]) for r in rows] == [("Chair", "a\rb", 10.0), ("Table", "x", 20.0)]


def test_etsy_style_upper_case_headers():
    rows, ev = read(
        "TITLE;PRICE;CURRENCY_CODE;QUANTITY;MATERIALS;IMAGE1\nMug;12,00;EUR;3;Ceramic;https://x.example/a.jpg\n".encode()
    )
    assert ev.unmapped_columns == []
    assert (rows[0]["price"], rows[0]["currency"], rows[0]["inventory_qty"], rows[0]["material"]) == (
        12.0,
        "EUR",
        3,
        "Ceramic",
    )


def test_shopify_row_without_a_handle_is_skipped_and_counted_not_fatal():
    data = (
        "Handle,Title,Vendor,Variant SKU,Variant Price,Status\n"
        "chair,Chair,Acme,C1,10.00,active\n"
        ",Orphan,Acme,O1,5.00,active\n"
        "chair,,,C2,12.00,\n"
    ).encode()
    rows, ev = read(data)
    assert ev.format.startswith("Shopify")
    assert [r["sku"] for r in rows] == ["C1", "C2"] and ev.rows_skipped == 1
    assert rows[1]["title"] == "Chair"  # filled down from the handle's first row


def test_overflowing_google_category_is_unmapped_not_fatal():
    rows, ev = read(b"title,price,google_product_category\nChair,10,inf\nBench,20,1e999\n")
    assert [r["title"] for r in rows] == ["Chair", "Bench"]
    assert all(r["category_mapping"] != "google_category" for r in rows)  # keywords may still map


def test_non_finite_float_stock_is_unknown():
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(
        pa.table({"title": ["A", "B", "C"], "price": [1.0, 2.0, 3.0], "quantity": [float("nan"), float("inf"), 4.0]}),
        buf,
    )
    rows, _ = read(buf.getvalue(), "stock.parquet")
    assert [r["inventory_qty"] for r in rows] == [None, None, 4]


def test_unparseable_parquet_is_reported_as_parquet(monkeypatch):
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from agent.catalog import ingest, sources

    buf = io.BytesIO()
    pq.write_table(pa.table({"title": ["A"], "price": [1.0]}), buf)

    def broken(*_a, **_k):
        raise pa.ArrowNotImplementedError("nested column")

    monkeypatch.setattr(ingest, "normalise", broken)
    with pytest.raises(UnreadableCatalog, match="not a readable Parquet file"):
        sources.safe_read(buf.getvalue(), "nested.parquet", KIND_ATTACHED)


def test_a_dash_only_identifier_or_link_is_no_value():
    """Magento's admin grid export writes " -" in every empty cell (held-out hssnfarooq/luxeoverhemden-app
    magento_products.csv): a Thumbnail " -" is no image and an EAN "-" no GTIN, not an invalid one."""
    data = (
        "sku,title,price,gtin,mpn,image,link\n"
        "A-1,Shirt 45,64.99, -,--,' -',\u2014\n"
        "A-2,Shirt 46,64.99,4051233090197,M-2,https://x.test/a.jpg,https://x.test/a\n"
        "-,-,64.99,-x,- -,https://x.test/-,-/a\n"
    ).replace("'", '"')
    rows, _ = read(data.encode())
    assert [(r["gtin"], r["mpn"], r["image_url"], r["link"]) for r in rows] == [
        (None, None, None, None),
        ("4051233090197", "M-2", "https://x.test/a.jpg", "https://x.test/a"),
        ("-x", "- -", "https://x.test/-", "-/a"),
    ]
    assert rows[2]["sku"] == "-" and rows[2]["title"] == "-"  # a dash elsewhere is left as written


_DASH_CELLS = [" -", "--", None, "\u2014", "https://x.test/-", "- -", "-x", "\u2013 ", "", "12345678", "-"]


def _dash_shapes():
    """The same cells as the column shapes an ingest hands `blank_dashes`: plain strings in several chunks,
    a dictionary in several chunks (their own dictionaries), and a dictionary with entries no row uses."""
    plain = pa.chunked_array([_DASH_CELLS[:4], _DASH_CELLS[4:]], pa.string())
    chunked_dict = pa.chunked_array([pa.array(part).dictionary_encode() for part in (_DASH_CELLS[:5], _DASH_CELLS[5:])])
    unused = pa.DictionaryArray.from_arrays(
        pa.array([None if c is None else 2 + i for i, c in enumerate(_DASH_CELLS)], pa.int32()),
        pa.array(["\u2014", "Shirt"] + [c or "" for c in _DASH_CELLS]),
    )
    return {"plain": plain, "dictionary": chunked_dict, "unused entries": pa.chunked_array([unused])}


@pytest.mark.parametrize("shape", ["plain", "dictionary", "unused entries"])
def test_dash_only_cells_are_blanked_in_every_column_shape(shape):
    """Per row, the same answer as reading each cell on its own, whatever the column's encoding; a
    dictionary column stays one."""
    column = _dash_shapes()[shape]
    out = blank_dashes(column)
    expected = [None if c is None or c.strip() in {"-", "--", "---", "\u2013", "\u2014"} else c for c in _DASH_CELLS]
    assert out.to_pylist() == expected
    assert pa.types.is_dictionary(out.type) == pa.types.is_dictionary(column.type)


def test_a_column_without_dash_cells_is_returned_as_it_is():
    column = pa.chunked_array([["M-2", "AB12", None, "https://x.test/a.jpg"]])
    assert blank_dashes(column) is column
    encoded = pa.chunked_array([column.chunk(0).dictionary_encode()])
    assert blank_dashes(encoded) is encoded


@pytest.mark.parametrize(
    ("types", "kept"),
    [
        (["Simple Product", "Configurable Product", "Simple Product"], False),  # Magento's admin grid
        (["simple", "variable", " Variation "], False),
        (["Bundle product", "", "virtual"], False),
        (["Shirts", "Configurable Product", "Shirts"], True),  # one real type: the column is a type column
        (["General", "T-Shirt", "Drink"], True),  # Lightspeed's product types
    ],
)
def test_a_type_column_of_record_kinds_is_no_product_type(types, kept):
    """A generic table's `Type` that says only how the platform builds the record ("Simple Product") is
    not the product's type: read as one, it became every product's category."""
    data = "ID,Name,Type,SKU,Price\n" + "".join(f"{i},Shirt {i},{t},S-{i},64.99\n" for i, t in enumerate(types))
    rows, evidence = read(data.encode())
    expected = [t.strip() or None for t in types] if kept else [None] * len(types)
    assert [r["product_type"] for r in rows] == expected
    assert ("Type" in evidence.unmapped_columns) is not kept
