"""Tab-separated feeds and the labels files really arrive under (issue 11), end to end through a real
server: a table is read whatever its label says when its name and bytes agree; a file that cannot be
read is named with its reason, and the answer never comes from the demo catalog, a catalog attached
earlier in the conversation or the configured catalog as if nothing had happened.
"""

from __future__ import annotations

import base64
import csv
import io
import uuid
from pathlib import Path

import httpx
import pytest

NO_CATALOG = "I could not read a catalog for this question. Attach your product export"


def gmc_feed(rows: int, delimiter: str = "\t") -> bytes:
    header = ["id", "title", "price", "availability", "brand", "image_link", "item_group_id", "condition"]
    lines = [delimiter.join(header)]
    for i in range(rows):
        lines.append(
            delimiter.join(
                [
                    f"SKU{i}",
                    f"Garden chair {i}",
                    f"{10 + i}.00 USD",
                    "in stock" if i % 3 else "out of stock",
                    "Acme",
                    f"https://example.com/{i}.jpg",
                    f"G{i // 2}",
                    "new",
                ]
            )
        )
    return ("\n".join(lines) + "\n").encode()


def send(
    url: str,
    *files: tuple[bytes | str, str | None, str | None],
    text: str = "What is in this file?",
    context_id: str | None = None,
) -> dict:
    parts: list[dict] = [{"kind": "text", "text": text}]
    for data, name, mime in files:
        file: dict = {"bytes": data if isinstance(data, str) else base64.b64encode(data).decode()}
        if name is not None:
            file["name"] = name
        if mime is not None:
            file["mimeType"] = mime
        parts.append({"kind": "file", "file": file})
    message = {"role": "user", "messageId": str(uuid.uuid4()), "parts": parts}
    if context_id:
        message["contextId"] = context_id
    body = {"jsonrpc": "2.0", "id": "a", "method": "message/send", "params": {"message": message}}
    payload = httpx.post(url, json=body, timeout=60).json()
    assert "result" in payload, payload
    assert payload["result"]["status"]["state"] == "completed"
    return payload["result"]


def answer(task: dict) -> tuple[str, str]:
    text = task["artifacts"][0]["parts"][0]["text"]
    assert "\n---\nEvidence\n" in text
    return text, text.split("\n---\nEvidence\n", 1)[1]


@pytest.mark.parametrize(
    "name,mime",
    [
        ("feed.tsv", "text/tab-separated-values"),
        (None, "text/tab-separated-values"),
        ("feed.txt", "text/plain"),
        ("feed.tsv", "application/vnd.ms-excel"),
        ("feed.txt", "application/octet-stream"),
        ("feed.TSV", None),
        ("feed.txt", None),
        ("feed.tsv", "text/plain; charset=utf-8"),
        ("feed.csv", "text/plain"),
    ],
)
def test_tab_separated_feed_is_read_under_every_label(server, name, mime):
    text, footer = answer(send(server.url, (gmc_feed(9), name, mime)))
    assert "Google Merchant Center feed" in footer and "9 rows read" in footer
    assert "demo" not in footer and "Not read" not in footer


@pytest.mark.parametrize("mime", ["text/plain", "application/vnd.ms-excel", "application/octet-stream", None])
def test_comma_and_semicolon_tables_under_generic_labels(server, mime):
    data = b"sku;title;price\nA1;Chair;10,00\nB2;Table;20,50\n"
    _, footer = answer(send(server.url, (data, "export.txt", mime)))
    assert "2 rows read" in footer and "Not read" not in footer


def test_excel_unicode_text_is_read(server):
    """Excel's "Unicode Text" export: UTF-16 with a BOM, tab-separated, named .txt, sent as text/plain."""
    data = "sku\ttitle\tprice\nA1\tChaise longue\t10,50\nB2\tTable\t20,00\nC3\tBanc\t7,25\n".encode("utf-16")
    _, footer = answer(send(server.url, (data, "produits.txt", "text/plain")))
    assert "3 rows read" in footer and "Not read" not in footer


@pytest.mark.parametrize(
    "data,name,mime,reason",
    [
        (
            b"Dear team,\nplease find our notes below.\nThanks\n",
            "notes.txt",
            "text/plain",
            "not a delimited table (CSV or tab-separated)",
        ),
        (
            b"%PDF-1.4\x00\x01binary",
            "feed.tsv",
            "application/octet-stream",
            "not a delimited table (CSV or tab-separated)",
        ),
        (b"%PDF-1.4 ...", "brochure.pdf", "application/pdf", "application/pdf is not CSV"),
        (b"id\tprice\n1\t2\n", "feed.tsv", "image/png", "image/png is not CSV"),
        (b"id,title\n1,Chair\n", None, None, "a file without a media type is not CSV"),
        (
            b"PK\x03\x04binary",
            "products.xlsx",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "a spreadsheet workbook is not CSV; save or export it as CSV (UTF-8) and attach that",
        ),
        (
            b"\xd0\xcf\x11\xe0binary",
            "products.xls",
            "application/vnd.ms-excel",
            "a spreadsheet workbook is not CSV; save or export it as CSV (UTF-8) and attach that",
        ),
    ],
)
def test_unreadable_file_is_named_and_nothing_else_answers(server, data, name, mime, reason):
    text, footer = answer(send(server.url, (data, name, mime)))
    assert text.startswith(NO_CATALOG)
    assert f"I could not read {name or 'attachment-2.csv'}: {reason}." in text
    assert f"- Not read: {name or 'attachment-2.csv'} ({reason})" in footer
    assert "demo" not in footer


def test_unreadable_follow_up_does_not_answer_from_the_earlier_attachment(server):
    context_id = f"labels-{uuid.uuid4()}"
    first = send(server.url, (gmc_feed(6), "feed.tsv", "text/tab-separated-values"), context_id=context_id)
    assert "6 rows read" in answer(first)[1]
    follow = send(
        server.url,
        (b"%PDF-1.4 ...", "update.pdf", "application/pdf"),
        text="and with this update?",
        context_id=context_id,
    )
    text, footer = answer(follow)
    assert text.startswith(NO_CATALOG) and "feed.tsv" not in footer and "demo" not in footer
    assert "- Not read: update.pdf (application/pdf is not CSV)" in footer
    # without a new file, the earlier attachment answers again
    again = send(server.url, text="what is out of stock?", context_id=context_id)
    assert "- feed.tsv (attached earlier in this conversation" in answer(again)[1]


def test_unreadable_attachment_does_not_fall_back_to_the_configured_catalog(start_server, tmp_path):
    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "products.csv").write_bytes(b"sku,title,price\nC1,Configured chair,10.00\n")
    srv = start_server({"CATALOG_URI": str(folder)})
    _, footer = answer(send(srv.url, text="what is in my catalog?"))
    assert "- products.csv (local file" in footer  # the configured catalog answers when nothing is sent
    for files in (
        [(b"%PDF-1.4", "stock.pdf", "application/pdf")],
        [(b"\x00\x01\x02" * 400, "stock.csv", "text/csv")],
        [("!!!not base64$$$", "stock.tsv", "text/tab-separated-values")],
    ):
        text, footer = answer(send(srv.url, *files))
        assert text.startswith(NO_CATALOG), footer
        assert "products.csv" not in footer and "stock." in footer.split("- Not read: ", 1)[1]


CORPUS = Path(__file__).parent / "corpus"


@pytest.mark.parametrize(
    "path,mime",
    [
        ("gmc/campers4sale-vehicles-gbp.tsv", "text/tab-separated-values"),
        ("gmc/lake-erie-apparel.tsv", "text/plain"),
        ("gmc/gemmines-gemstones-tab-in-csv.csv", "application/vnd.ms-excel"),
        ("woocommerce/tgmodz-ragged-meta-columns.csv", "application/octet-stream"),
    ],
)
def test_real_feeds_under_their_labels(server, path, mime):
    data = (CORPUS / path).read_bytes()
    text = data.decode("utf-8-sig")
    delimiter = "\t" if text.split("\n", 1)[0].count("\t") > text.split("\n", 1)[0].count(",") else ","
    rows = sum(
        1 for r in list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))[1:] if any(c.strip() for c in r)
    )
    name = path.split("/")[1]
    _, footer = answer(send(server.url, (data, name, mime)))
    assert f"- {name} (attached file, " in footer and f"{rows:,} rows read" in footer
    assert "demo" not in footer and "Not read" not in footer and "skipped" not in footer
