"""Parties are isolated (SPEC §7): every context and task belongs to the party that created it.

A merchant (verified catalog_context), an authenticated caller (the header the operator named in
CALLER_IDENTITY_HEADER) and anonymous callers never see each other's conversations or tasks: a turn
in another party's conversation is refused (-32602, neutral), another party's task is "not found"
(-32001), and a signed turn never adopts an unsigned conversation's file.
"""

from __future__ import annotations

import base64
import uuid

import httpx
import pytest

from agent.service import trust
from tests.emulators import GcsEmulator
from tests.helpers import MERCHANT_CSV
from tests.helpers import TRUST_SECRET as SECRET

ATTACKER_CSV = b"id,title,price,brand\nX1,Attacker special,1.00,EvilCorp\nX2,Attacker deluxe,2.00,EvilCorp\n"
HEADER = "X-Test-Caller"


@pytest.fixture(scope="module")
def world(start_server):
    emu = GcsEmulator().start()
    bucket = emu.create_bucket()
    emu.upload(bucket, "acme/catalog.csv", MERCHANT_CSV, "text/csv")
    srv = start_server(
        {
            "STORAGE_EMULATOR_HOST": emu.url,
            "CATALOG_CONTEXT_SECRET": SECRET,
            "ALLOWED_CATALOG_PREFIXES": f"gs://{bucket}/{{merchant_id}}/",
            "CALLER_IDENTITY_HEADER": HEADER,
        }
    )
    acme = {"merchant_id": "acme", "catalog_uri": f"gs://{bucket}/acme/catalog.csv"}
    yield srv, dict(acme, signature=trust.sign(acme, SECRET))
    emu.stop()


def call(url: str, method: str, params: dict, caller: str | None = None) -> dict:
    headers = {HEADER: caller} if caller else {}
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(url, json=body, headers=headers, timeout=60).json()


def turn(
    url: str,
    context_id: str | None = None,
    csv: bytes | None = None,
    catalog_context=None,
    caller: str | None = None,
    text: str = "Which brands are in this catalog?",
) -> dict:
    parts: list[dict] = [{"kind": "text", "text": text}]
    if csv is not None:
        parts.append(
            {
                "kind": "file",
                "file": {"bytes": base64.b64encode(csv).decode(), "name": "mine.csv", "mimeType": "text/csv"},
            }
        )
    params: dict = {"message": {"role": "user", "parts": parts, "messageId": str(uuid.uuid4())}}
    if context_id:
        params["contextId"] = context_id
    if catalog_context is not None:
        params["catalog_context"] = catalog_context
    return call(url, "message/send", params, caller)


def test_a_signed_turn_never_adopts_an_unsigned_conversation(world):
    srv, acme = world
    context_id = f"session-{uuid.uuid4().hex[:8]}"
    planted = turn(srv.url, context_id, csv=ATTACKER_CSV)["result"]
    assert "EvilCorp" in planted["artifacts"][0]["parts"][0]["text"]
    refused = turn(srv.url, context_id, catalog_context=acme)
    assert refused["error"] == {"code": -32602, "message": trust.NOT_YOURS}
    # the merchant in a conversation of its own is answered from its own catalog
    own = turn(srv.url, catalog_context=acme)["result"]
    text = own["artifacts"][0]["parts"][0]["text"]
    assert "Oakline" in text and "EvilCorp" not in text


def test_callers_do_not_share_conversations(world):
    srv, _ = world
    context_id = str(uuid.uuid4())
    first = turn(srv.url, context_id, csv=ATTACKER_CSV, caller="alice@example.com")["result"]
    assert first["status"]["state"] == "completed"
    for caller in ("bob@example.com", None):
        answer = turn(srv.url, context_id, caller=caller)
        assert answer["error"] == {"code": -32602, "message": trust.NOT_YOURS}, caller
    again = turn(srv.url, context_id, caller="alice@example.com")["result"]
    assert "EvilCorp" in again["artifacts"][0]["parts"][0]["text"]  # alice's follow-up keeps her file


def test_another_party_s_task_is_not_found(world):
    srv, acme = world
    alice = turn(srv.url, csv=ATTACKER_CSV, caller="alice@example.com")["result"]
    merchant = turn(srv.url, catalog_context=acme)["result"]
    for task, allowed in ((alice, {"caller": "alice@example.com"}), (merchant, {"catalog_context": acme})):
        for intruder in ({"caller": "bob@example.com"}, {"caller": None}, {"catalog_context": None}):
            params: dict = {"id": task["id"]}
            cc = intruder.get("catalog_context")
            if cc is not None:
                params["catalog_context"] = cc
            for method in ("tasks/get", "tasks/cancel", "tasks/resubscribe"):
                answer = call(srv.url, method, params, intruder.get("caller"))
                assert answer["error"] == {"code": -32001, "message": "No task with that id was found."}, (
                    method,
                    intruder,
                )
        params = {
            "id": task["id"],
            **({"catalog_context": allowed["catalog_context"]} if "catalog_context" in allowed else {}),
        }
        got = call(srv.url, "tasks/get", params, allowed.get("caller"))["result"]
        assert got["id"] == task["id"] and got["status"]["state"] == "completed"
    # a follow-up naming another party's task is "not found" as well
    bob = call(
        srv.url,
        "message/send",
        {
            "message": {
                "role": "user",
                "parts": [{"kind": "text", "text": "more"}],
                "messageId": "m",
                "taskId": alice["id"],
            }
        },
        "bob@example.com",
    )
    assert bob["error"]["code"] == -32001


def test_a_new_client_chosen_context_id_starts_empty(world):
    srv, _ = world
    answer = turn(srv.url, f"brand-new-{uuid.uuid4()}")["result"]
    text = answer["artifacts"][0]["parts"][0]["text"]
    assert "EvilCorp" not in text and "attached earlier" not in text


def test_the_party_survives_every_write_on_both_back_ends(fake_gcs):
    from agent.protocol import objects
    from agent.store.gcs import Bucket, GcsTaskStore
    from agent.store.memory import MemoryTaskStore

    bucket = fake_gcs.create_bucket()
    for store in (MemoryTaskStore(), GcsTaskStore(Bucket(bucket, 7))):
        task_id = str(uuid.uuid4())
        store.create(objects.task(task_id, "c", objects.status("working")), party="merchant:acme")
        store.save(objects.task(task_id, "c", objects.status("working")))
        store.finish(objects.task(task_id, "c", objects.status("completed")))
        assert store.party(task_id) == "merchant:acme"
        assert "party" not in store.get(task_id) and store.party(str(uuid.uuid4())) is None
