"""Attached files through the front door: good CSVs are read; URI parts, other types, bad base64 and
unparseable CSVs are reported back by name and reason — in the answer and in the footer — never dropped."""

from __future__ import annotations

import base64
import uuid

import httpx
import pytest

from tests.conftest import CATALOGS


def send_parts(url: str, *parts: dict, text: str = "What is in this file?") -> dict:
    message = {"role": "user", "messageId": str(uuid.uuid4()), "parts": [{"kind": "text", "text": text}, *parts]}
    body = {"jsonrpc": "2.0", "id": "a", "method": "message/send", "params": {"message": message}}
    payload = httpx.post(url, json=body, timeout=60).json()
    assert "result" in payload, payload
    return payload["result"]


def file_part(data: bytes | str, name: str | None, mime: str | None) -> dict:
    file: dict = {"bytes": data if isinstance(data, str) else base64.b64encode(data).decode()}
    if name is not None:
        file["name"] = name
    if mime is not None:
        file["mimeType"] = mime
    return {"kind": "file", "file": file}


def footer_of(text: str) -> str:
    assert "\n---\nEvidence\n" in text
    return text.split("\n---\nEvidence\n", 1)[1]


GOOD = b"id,title,price,brand\n1,Teak bench,199.00,Acme\n2,Steel chair,49.50,Acme\n3,Rattan sofa,899,Other\n"


def test_good_csv_is_read_and_counted(server, a2a_validate):
    task = send_parts(server.url, file_part(GOOD, "garden.csv", "text/csv"))
    assert task["status"]["state"] == "completed"
    footer = footer_of(task["artifacts"][0]["parts"][0]["text"])
    assert "- garden.csv (attached file, " in footer and "3 rows read" in footer
    assert "demo" not in footer


@pytest.mark.parametrize(
    "name,mime",
    [
        ("products.csv", None),
        ("products.CSV", "application/octet-stream"),
        ("export.csv", "application/vnd.ms-excel"),
        (None, "text/csv"),
        ("noext", "application/csv"),
        ("catalog.csv", "application/x-csv"),
        ("catalog.csv", "text/x-comma-separated-values"),
    ],
)
def test_csv_recognised_by_type_or_name(server, name, mime):
    task = send_parts(server.url, file_part(GOOD, name, mime))
    footer = footer_of(task["artifacts"][0]["parts"][0]["text"])
    assert "3 rows read" in footer and "Not read" not in footer


def test_uri_part_reported_not_fetched(server):
    part = {"kind": "file", "file": {"uri": "https://example.com/feed.csv", "mimeType": "text/csv", "name": "feed.csv"}}
    task = send_parts(server.url, part)
    text = task["artifacts"][0]["parts"][0]["text"]
    assert "I could not read https://example.com/feed.csv: file links are not fetched." in text
    assert "- Not read: https://example.com/feed.csv (file links are not fetched)" in footer_of(text)


def test_pdf_reported(server):
    task = send_parts(
        server.url, file_part(b"%PDF-1.4 ...", "brochure.pdf", "application/pdf"), file_part(GOOD, "c.csv", "text/csv")
    )
    text = task["artifacts"][0]["parts"][0]["text"]
    footer = footer_of(text)
    assert "brochure.pdf (application/pdf is not CSV)" in footer
    assert "- c.csv (attached file, " in footer
    assert "I could not read brochure.pdf: application/pdf is not CSV." in text


def test_bad_base64_reported(server):
    task = send_parts(server.url, file_part("!!!not base64$$$", "broken.csv", "text/csv"))
    text = task["artifacts"][0]["parts"][0]["text"]
    assert "broken.csv (its bytes are not valid base64)" in footer_of(text)


def test_unparseable_csv_reported_and_nothing_else_means_no_catalog(server):
    binary = bytes(range(256)) * 40
    task = send_parts(server.url, file_part(binary, "garbage.csv", "text/csv"))
    assert task["status"]["state"] == "completed"
    text = task["artifacts"][0]["parts"][0]["text"]
    footer = footer_of(text)
    assert "garbage.csv (" in footer.split("- Not read: ", 1)[1]
    # Nothing readable remained: the answer says so and what to send instead, rather than
    # silently answering from the demo catalog.
    assert text.startswith("I could not read a catalog for this question. Attach your product export as a CSV")
    assert "demo" not in footer


def test_only_unreadable_input_means_no_catalog(server):
    """Nothing readable attached: the answer names the file and says what to send; the demo catalog,
    which the merchant did not ask about, does not answer (SPEC §4, issue 11)."""
    task = send_parts(server.url, file_part(b"%PDF", "brochure.pdf", "application/pdf"))
    text = task["artifacts"][0]["parts"][0]["text"]
    footer = footer_of(text)
    assert text.startswith("I could not read a catalog for this question.")
    assert "demo" not in footer
    assert "- Not read: brochure.pdf (application/pdf is not CSV)" in footer


def test_unknown_user_action_is_answered_with_a_line(server):
    """Not one of our follow-up buttons: a clear line in a completed answer (ours: test_a2ui_followups)."""
    action = {
        "kind": "data",
        "data": {
            "userAction": {
                "name": "drill_down",
                "surfaceId": "s",
                "sourceComponentId": "b",
                "timestamp": "2026-11-29T10:00:00Z",
                "context": {},
            }
        },
    }
    task = send_parts(server.url, action)
    assert task["status"]["state"] == "completed"
    assert "This button is not one this agent knows" in task["artifacts"][0]["parts"][0]["text"]


@pytest.mark.skipif(not CATALOGS.exists(), reason="shared catalogs absent")
@pytest.mark.parametrize(
    "name,rows",
    [
        ("shopify-garden-solutions.csv", 1842),
        ("woocommerce-sample-products.csv", 25),
        ("shopify-product-template.csv", 17),
        ("gmc-minimal-feed.csv", 3),
    ],
)
def test_real_exports_attached(server, a2a_validate, name, rows):
    task = send_parts(server.url, file_part((CATALOGS / name).read_bytes(), name, "text/csv"))
    assert task["status"]["state"] == "completed"
    footer = footer_of(task["artifacts"][0]["parts"][0]["text"])
    assert f"- {name} (attached file, " in footer
    assert f"{rows:,} rows read" in footer
