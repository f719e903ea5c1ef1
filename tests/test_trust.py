"""catalog_context trust (SPEC §7): every refusal is neutral and reads nothing; a signed one is read.

The server under test talks to a private gcp-storage-emulator whose request log proves that a refused
catalog_context caused no Cloud Storage request at all.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid

import httpx
import pytest

from agent.protocol.errors import RpcError
from agent.service import trust
from tests.conftest import ROOT
from tests.emulators import GcsEmulator
from tests.helpers import MERCHANT_CSV as CSV
from tests.helpers import TRUST_SECRET as SECRET


def signed(**fields) -> dict:
    return dict(fields, signature=trust.sign(fields, SECRET))


# --- verify(), no server ------------------------------------------------------------------------------

PREFIXES = ("gs://acme-catalogs/{merchant_id}/", "gs://shared-market/feeds/")


def check(raw, secret=SECRET, bound=None) -> trust.TrustedContext:
    return trust.verify(raw, prefixes=PREFIXES, secret=secret, bound_merchant=bound)


def test_signed_context_under_the_merchants_prefix_is_accepted():
    ok = check(
        signed(
            merchant_id="acme",
            catalog_uri="gs://acme-catalogs/acme/catalog/",
            reference_uri="gs://shared-market/feeds/market.parquet",
        )
    )
    assert ok == trust.TrustedContext(
        "acme", "gs://acme-catalogs/acme/catalog/", "gs://shared-market/feeds/market.parquet"
    )
    # Uppercase hex is the same signature; no secret configured means no signature needed.
    raw = signed(merchant_id="acme", catalog_uri="gs://acme-catalogs/acme/a.csv")
    assert check(dict(raw, signature=raw["signature"].upper())).merchant_id == "acme"
    assert (
        check({"merchant_id": "acme", "catalog_uri": "gs://acme-catalogs/acme/a.csv"}, secret=None).merchant_id
        == "acme"
    )


@pytest.mark.parametrize(
    "raw",
    [
        {"merchant_id": "acme", "catalog_uri": "gs://acme-catalogs/acme/a.csv"},  # unsigned
        dict(
            signed(merchant_id="acme", catalog_uri="gs://acme-catalogs/acme/a.csv"),
            catalog_uri="gs://acme-catalogs/acme/b.csv",
        ),
        dict(merchant_id="acme", catalog_uri="gs://acme-catalogs/acme/a.csv", signature="0" * 64),
        dict(merchant_id="acme", catalog_uri="gs://acme-catalogs/acme/a.csv", signature="é" * 64),  # not hex, not ASCII
        signed(merchant_id="acme", catalog_uri="gs://acme-catalogs/globex/a.csv"),  # another merchant's folder
        signed(merchant_id="acme", catalog_uri="gs://other-bucket/acme/a.csv"),
        signed(merchant_id="acme", catalog_uri="gs://acme-catalogs/acme/../globex/a.csv"),
        signed(merchant_id="acme", catalog_uri="gs://acme-catalogs/acme/%2e%2e/globex/a.csv"),
        signed(merchant_id="acme", catalog_uri="gs://acme-catalogs/acme//a.csv"),
        signed(merchant_id="acme", catalog_uri="gs://acme-catalogs/acme/a.csv?alt=media"),
        signed(merchant_id="acme", catalog_uri="gs://acme-catalogs/acme\\..\\globex\\a.csv"),
        signed(merchant_id="acme", catalog_uri="gs://169.254.169.254/acme/a.csv"),
        signed(merchant_id="acme", catalog_uri="https://storage.googleapis.com/acme-catalogs/acme/a.csv"),
        signed(merchant_id="acme", catalog_uri="http://metadata.google.internal/computeMetadata/v1/"),
        signed(merchant_id="acme", catalog_uri="file:///etc/passwd"),
        signed(merchant_id="acme", catalog_uri="/srv/catalogs/acme/a.csv"),
        signed(
            merchant_id="acme", catalog_uri="gs://acme-catalogs/acme/a.csv", reference_uri="https://example.com/f.csv"
        ),
        signed(merchant_id="../acme", catalog_uri="gs://acme-catalogs/../acme/a.csv"),
        signed(merchant_id="acme\n", catalog_uri="gs://shared-market/feeds/a.csv"),  # "$" alone allows a final newline
        signed(merchant_id="acme"),  # no catalog_uri
        signed(merchant_id="acme", catalog_uri="gs://acme-catalogs/acme/a.csv", extra="x"),
        "gs://acme-catalogs/acme/a.csv",
    ],
)
def test_refusals_are_neutral(raw):
    with pytest.raises(RpcError) as caught:
        check(raw)
    assert caught.value.code == -32602 and caught.value.message == trust.REFUSED


def test_bound_context_refuses_another_merchant():
    raw = signed(merchant_id="globex", catalog_uri="gs://acme-catalogs/globex/a.csv")
    assert check(raw).merchant_id == "globex"
    with pytest.raises(RpcError, match=re.escape(trust.REFUSED)):
        check(raw, bound="acme")


def test_canonical_json_is_documented_form():
    fields = {"merchant_id": "acmé", "catalog_uri": "gs://b/p/", "signature": "ignored"}
    assert trust.canonical_json(fields) == '{"catalog_uri":"gs://b/p/","merchant_id":"acmé"}'.encode()


def test_sign_helper_on_the_command_line():
    fields = {"merchant_id": "acme", "catalog_uri": "gs://acme-catalogs/acme/"}
    env = {"PATH": os.environ["PATH"], "CATALOG_CONTEXT_SECRET": SECRET}
    done = subprocess.run(
        [sys.executable, "-m", "agent.service.trust", "sign"],
        input=json.dumps(fields),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out == dict(fields, signature=trust.sign(fields, SECRET))
    assert check(out).catalog_uri == fields["catalog_uri"]
    bad = subprocess.run(
        [sys.executable, "-m", "agent.service.trust", "sign"],
        input='{"merchant_id": "acme", "x": 1}',
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode == 2 and "not a valid catalog_context" in bad.stderr


# --- through the front door, observing the emulator ---------------------------------------------------


@pytest.fixture(scope="module")
def emulator():
    emu = GcsEmulator().start()
    yield emu
    emu.stop()


@pytest.fixture(scope="module")
def setup(emulator, start_server):
    bucket = emulator.create_bucket()
    emulator.upload(bucket, "acme/catalog.csv", CSV, "text/csv")
    emulator.upload(bucket, "globex/catalog.csv", CSV, "text/csv")
    srv = start_server(
        {
            "STORAGE_EMULATOR_HOST": emulator.url,
            "CATALOG_CONTEXT_SECRET": SECRET,
            "ALLOWED_CATALOG_PREFIXES": f"gs://{bucket}/{{merchant_id}}/",
        }
    )
    return srv, bucket


def ask(url: str, catalog_context=None, context_id: str | None = None, text: str = "What is in this catalog?") -> dict:
    params: dict = {
        "message": {"role": "user", "parts": [{"kind": "text", "text": text}], "messageId": str(uuid.uuid4())}
    }
    if catalog_context is not None:
        params["catalog_context"] = catalog_context
    if context_id:
        params["contextId"] = context_id
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params}
    return httpx.post(url, json=body, timeout=60).json()


def test_refused_contexts_read_nothing_and_a_signed_one_is_read(setup, emulator):
    srv, bucket = setup
    good = f"gs://{bucket}/acme/catalog.csv"
    refused = [
        {"merchant_id": "acme", "catalog_uri": good},  # unsigned
        dict(
            merchant_id="acme",
            catalog_uri=good,
            signature=trust.sign({"merchant_id": "acme", "catalog_uri": good}, "wrong"),
        ),
        signed(merchant_id="acme", catalog_uri=f"gs://{bucket}/globex/catalog.csv"),  # outside acme's prefix
        signed(merchant_id="acme", catalog_uri=f"gs://{bucket}/acme/../globex/catalog.csv"),  # traversal
        signed(merchant_id="acme", catalog_uri=f"{emulator.url}/storage/v1/b/{bucket}/o/acme%2Fcatalog.csv?alt=media"),
        signed(merchant_id="acme", catalog_uri=f"file:///{bucket}/acme/catalog.csv"),
        signed(merchant_id="acme", catalog_uri="http://169.254.169.254/computeMetadata/v1/"),
    ]
    for raw in refused:
        emulator.reset_requests()
        response = ask(srv.url, raw)
        assert response["error"]["code"] == -32602, raw
        assert response["error"]["message"] == trust.REFUSED
        assert bucket not in json.dumps(response)
        assert emulator.requests() == [], raw  # nothing was read, not even metadata

    emulator.reset_requests()
    context_id = str(uuid.uuid4())
    answer = ask(srv.url, signed(merchant_id="acme", catalog_uri=good), context_id)
    text = answer["result"]["artifacts"][0]["parts"][0]["text"]
    assert re.search(rf"- {re.escape(good)} \(generation \d+[^)]*\): 3 rows read", text), text
    assert emulator.downloads(bucket, "acme/catalog.csv")

    # The conversation is now bound to acme: globex (correctly signed, inside its own prefix) is refused,
    # and so is a turn without catalog_context (it would fall back to a catalog that is not acme's).
    emulator.reset_requests()
    other = ask(srv.url, signed(merchant_id="globex", catalog_uri=f"gs://{bucket}/globex/catalog.csv"), context_id)
    assert other["error"]["message"] == trust.REFUSED and emulator.requests() == []
    bare = ask(srv.url, None, context_id)
    assert bare["error"]["code"] == -32602 and bare["error"]["message"] == trust.REQUIRED
    # globex in a conversation of its own is fine.
    fine = ask(srv.url, signed(merchant_id="globex", catalog_uri=f"gs://{bucket}/globex/catalog.csv"))
    assert fine["result"]["status"]["state"] == "completed"
