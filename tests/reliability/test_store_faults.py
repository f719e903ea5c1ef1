"""Storage faults, injected by a real proxy in front of fake-gcs-server (tests/faultproxy.py).

A client is never told `completed` unless the store holds it; a later cancel never overwrites the
outcome the client got, which is stored once the store is back (tests/reliability/test_unstored_outcomes.py); a conversation whose attachment could not be kept says so on the next turn.
"""

from __future__ import annotations

import json
import uuid

import httpx

from agent.store.gcs import object_key
from tests.helpers import CHAIRS_CSV as CSV
from tests.helpers import file_message as message
from tests.helpers import footer, no_internals, rpc, stored_state, wait_for

COMPLETED_WRITE = b'"state": "completed"'


def stream(url: str, params: dict) -> list[dict]:
    body = {"jsonrpc": "2.0", "id": "s", "method": "message/stream", "params": params}
    frames = []
    with httpx.stream("POST", url, json=body, timeout=90) as response:
        for line in response.iter_lines():
            if line:
                frames.append(json.loads(line[len("data: ") :]))
    return frames


def test_a_failed_final_write_is_answered_failed_and_stored_failed(faulty, proxy):
    server, _, fake, bucket = faulty
    rule = proxy.add(method="POST", body=COMPLETED_WRITE, status=403)
    frames = stream(server.url, {"message": message("What is out of stock?", CSV)})
    assert rule.hits >= 3, "the final write is retried"
    final = frames[-1]["result"]
    assert final["final"] is True and final["status"]["state"] == "failed"
    text = final["status"]["message"]["parts"][0]["text"]
    assert text.startswith("The answer could not be saved") and "incident" in text
    no_internals(frames)
    task_id = final["taskId"]
    assert stored_state(fake, bucket, task_id) == "failed"
    got = rpc(server.url, "tasks/get", {"id": task_id})["result"]
    assert got["status"]["state"] == "failed"


def test_when_no_final_write_lands_a_cancel_cannot_overwrite_the_answer(faulty, proxy):
    server, _, fake, bucket = faulty
    proxy.add(method="POST", path="/o", body=b'"state": "completed"', status=403)
    proxy.add(method="POST", path="/o", body=b'"state": "failed"', status=403)
    answer = rpc(server.url, "message/send", {"message": message("What is in this catalog?", CSV)})["result"]
    assert answer["status"]["state"] == "failed"  # never "completed": the store does not hold it
    assert stored_state(fake, bucket, answer["id"]) == "working"
    proxy.clear()
    cancel = rpc(server.url, "tasks/cancel", {"id": answer["id"]})
    assert cancel["error"]["code"] == -32002
    assert stored_state(fake, bucket, answer["id"]) in ("working", "failed")  # never "canceled"
    # ... and the outcome the client got is stored on a later request (agent.service.unstored), not
    # left `working` for ever; a cancel after that is refused by the store itself.
    wait_for(
        lambda: (
            rpc(server.url, "tasks/get", {"id": answer["id"]}) and stored_state(fake, bucket, answer["id"]) == "failed"
        ),
        30,
    )
    assert rpc(server.url, "tasks/cancel", {"id": answer["id"]})["error"]["code"] == -32002
    assert stored_state(fake, bucket, answer["id"]) == "failed"


def test_a_transient_fault_on_the_final_write_still_completes(faulty, proxy):
    server, _, fake, bucket = faulty
    rule = proxy.add(method="POST", body=COMPLETED_WRITE, status=403, times=1)
    answer = rpc(server.url, "message/send", {"message": message("What is in this catalog?", CSV)})["result"]
    assert rule.hits == 1
    assert answer["status"]["state"] == "completed"
    assert stored_state(fake, bucket, answer["id"]) == "completed"


def test_an_attachment_that_could_not_be_kept_is_named_on_the_next_turn(faulty, proxy):
    server, _, fake, bucket = faulty
    context_id = str(uuid.uuid4())
    proxy.add(method="POST", body=b'.parquet"', status=403)  # the Parquet upload of the attached catalog
    first = rpc(
        server.url,
        "message/send",
        {"message": message("What is in this catalog?", CSV, "mine.csv"), "contextId": context_id},
    )["result"]
    assert first["status"]["state"] == "completed" and footer(first)[0][0] == "mine.csv"
    proxy.clear()
    second = rpc(server.url, "message/send", {"message": message("and the brands?"), "contextId": context_id})["result"]
    text = second["artifacts"][0]["parts"][0]["text"]
    assert "The catalog attached earlier in this conversation (mine.csv) could not be saved or read back" in text
    assert "kept for" not in text


def test_an_attachment_deleted_from_storage_is_said_unreadable_not_expired(faulty, proxy, clean):
    server, _, fake, bucket = faulty  # `clean` holds no cached copy of the attachment
    context_id = str(uuid.uuid4())
    first = rpc(
        server.url,
        "message/send",
        {"message": message("What is in this catalog?", CSV, "mine.csv"), "contextId": context_id},
    )["result"]
    assert first["status"]["state"] == "completed"
    for blob in fake.client.list_blobs(bucket, prefix=f"contexts/{object_key(context_id)}/catalog-"):
        blob.delete()
    second = rpc(clean.url, "message/send", {"message": message("and the brands?"), "contextId": context_id})["result"]
    text = second["artifacts"][0]["parts"][0]["text"]
    assert "(mine.csv) could not be saved or read back" in text and "kept for" not in text
