"""Two functions-framework processes sharing one state bucket behave as one agent (SPEC §7).

fake-gcs-server holds the bucket: it honours generation preconditions, which is what keeps two
instances from overwriting each other's turns.
"""

from __future__ import annotations

import base64
import json
import threading
import time
import uuid

import httpx
import pytest

from agent.store.gcs import object_key
from tests.emulators import shared_emulator
from tests.helpers import ALL_SKILLS_QUESTION, big_csv, footer, raw_stream, stream_body, wait_for  # noqa: F401 - wait_for: as before
from tests.helpers import CHAIRS_CSV as CSV


@pytest.fixture(scope="module")
def pair(start_server):
    fake = shared_emulator("fake")
    bucket = fake.create_bucket()
    env = {"STATE_BUCKET": bucket, "STORAGE_EMULATOR_HOST": fake.url}
    return start_server(env), start_server(env), fake, bucket


def rpc(url: str, method: str, params: dict) -> dict:
    body = {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}
    return httpx.post(url, json=body, timeout=90).json()


def send(url: str, text: str, context_id: str | None = None, csv: bytes | None = None) -> dict:
    parts: list[dict] = [{"kind": "text", "text": text}]
    if csv is not None:
        parts.append(
            {
                "kind": "file",
                "file": {"bytes": base64.b64encode(csv).decode(), "name": "catalog.csv", "mimeType": "text/csv"},
            }
        )
    params: dict = {"message": {"role": "user", "parts": parts, "messageId": str(uuid.uuid4())}}
    if context_id:
        params["contextId"] = context_id
    return rpc(url, "message/send", params)


def stored_context(fake, bucket: str, context_id: str) -> dict:
    blob = fake.client.bucket(bucket).blob(f"contexts/{object_key(context_id)}/context.json")
    return json.loads(blob.download_as_bytes())


def test_follow_up_on_another_instance_answers_from_the_attached_data(pair):
    a, b, fake, bucket = pair
    context_id = f"client-{uuid.uuid4()}"  # a contextId the agent has never seen starts a new context
    first = send(a.url, "What is out of stock in outdoor chairs?", context_id, csv=CSV)["result"]
    assert first["contextId"] == context_id and first["status"]["state"] == "completed"
    assert footer(first)[0] == ("catalog.csv", "attached file", "240")

    follow = send(b.url, "and the price ladder?", context_id)["result"]
    assert follow["status"]["state"] == "completed" and follow["contextId"] == context_id
    assert footer(follow)[0] == ("catalog.csv", "attached earlier in this conversation", "240")
    assert follow["artifacts"][0]["name"] == "price_ladder"
    assert "Outdoor Chairs" in follow["artifacts"][0]["parts"][0]["text"]  # the remembered scope

    stored = stored_context(fake, bucket, context_id)
    assert stored["task_ids"] == [first["id"], follow["id"]]
    assert [c["object"] for c in stored["catalogs"]] == [f"contexts/{context_id}/catalog-1.parquet"]

    # tasks/get and tasks/resubscribe on the other instance return the same task.
    got = rpc(b.url, "tasks/get", {"id": first["id"]})["result"]
    assert got == first
    again = rpc(a.url, "tasks/get", {"id": follow["id"]})["result"]
    assert again["artifacts"] == follow["artifacts"]
    frames = raw_stream(
        b.url, {"jsonrpc": "2.0", "id": "r", "method": "tasks/resubscribe", "params": {"id": first["id"]}}
    )
    assert [f["result"]["kind"] for f in frames] == ["task", "status-update"]
    assert frames[0]["result"]["status"]["state"] == "completed" and frames[1]["result"]["final"] is True
    assert rpc(b.url, "tasks/cancel", {"id": first["id"]})["error"]["code"] == -32002
    assert rpc(b.url, "tasks/get", {"id": str(uuid.uuid4())})["error"]["code"] == -32001


def test_cancel_on_another_instance_stops_the_running_stream(pair, start_server, tmp_path):
    """The run is held at the test gate (TEST_STEP_GATE) until it sees the cancel instance B stored,
    so the order — cancel flagged, then the run's next step — is fixed, not a race."""
    _, b, fake, bucket = pair
    gate = tmp_path / "gate"
    gate.mkdir()
    a = start_server({"STATE_BUCKET": bucket, "STORAGE_EMULATOR_HOST": fake.url, "TEST_STEP_GATE": str(gate)})
    data = base64.b64encode(big_csv(2_000)).decode()
    body = stream_body(ALL_SKILLS_QUESTION)
    body["params"]["message"]["parts"].append(
        {"kind": "file", "file": {"bytes": data, "name": "big.csv", "mimeType": "text/csv"}}
    )
    frames: list[dict] = []
    side: dict = {}

    def cancel_on_b(task_id: str) -> None:
        side["cancel"] = rpc(b.url, "tasks/cancel", {"id": task_id})

    worker = None
    with httpx.stream("POST", a.url, json=body, timeout=120) as response:
        for line in response.iter_lines():
            if not line:
                continue
            frames.append(json.loads(line[len("data: ") :]))
            result = frames[-1]["result"]
            if worker is None and result.get("kind") == "status-update" and result["status"]["state"] == "working":
                task_id = result["taskId"]
                wait_for((gate / f"{task_id}.held").exists)  # the run is held before its first step
                worker = threading.Thread(target=cancel_on_b, args=(task_id,))
                worker.start()
                # no release file: the held run goes on by itself once it sees B's cancel flag in the
                # shared bucket (releasing it by hand could let its next step read a cached "not yet")
    worker.join(60)
    task_id = frames[0]["result"]["id"]
    final = frames[-1]["result"]
    assert final["final"] is True and final["status"]["state"] == "canceled"
    assert side["cancel"]["result"]["status"]["state"] == "canceled"
    artifacts = [f for f in frames if f["result"].get("kind") == "artifact-update"]
    assert artifacts == [], "the run must stop at its next step, before any skill ran"
    for url in (a.url, b.url):
        assert rpc(url, "tasks/get", {"id": task_id})["result"]["status"]["state"] == "canceled"


def test_concurrent_turns_on_two_instances_lose_none(pair):
    a, b, fake, bucket = pair
    context_id = str(uuid.uuid4())
    results: list[dict] = []
    lock = threading.Lock()

    def turn(url: str) -> None:
        answer = send(url, "What is in this catalog?", context_id)
        with lock:
            results.append(answer)

    threads = [threading.Thread(target=turn, args=(url,)) for url in (a.url, b.url) * 4]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    task_ids = {r["result"]["id"] for r in results}
    assert len(task_ids) == 8
    assert sorted(stored_context(fake, bucket, context_id)["task_ids"]) == sorted(task_ids)


def test_turn_and_attachment_limits_answer_clearly(start_server):
    srv = start_server({"CONTEXT_MAX_TURNS": "2", "CONTEXT_MAX_ATTACHED_BYTES": "1000"})
    context_id = str(uuid.uuid4())
    first = send(srv.url, "What is in this file?", context_id, csv=CSV)["result"]
    text = first["artifacts"][0]["parts"][0]["text"]
    assert footer(first)[0] == ("catalog.csv", "attached file", "240")
    assert "catalog.csv is larger than a conversation keeps for follow-ups (1,000 bytes)" in text
    second = send(srv.url, "and the brands?", context_id)["result"]
    assert footer(second)[0][0] == "demo-catalog.csv"  # the large file was not kept: said, not hidden
    third = send(srv.url, "and the prices?", context_id)
    assert third["error"]["code"] == -32602
    assert (
        third["error"]["message"]
        == "This conversation has reached its limit of 2 turns; start a new conversation to continue."
    )


def test_resubscribe_on_another_instance_to_a_running_task(pair, monkeypatch):
    """A run on another instance is known only from the store: its latest Task, then the stream closes."""
    from agent.protocol import objects
    from agent.store import gcs as gcs_store

    a, b, fake, bucket = pair
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", fake.url)
    task_id, context_id = str(uuid.uuid4()), str(uuid.uuid4())
    user = {
        "kind": "message",
        "role": "user",
        "messageId": "m",
        "parts": [{"kind": "text", "text": "gaps?"}],
        "taskId": task_id,
        "contextId": context_id,
    }
    working = objects.status(
        "working",
        objects.agent_message([objects.text_part("Reading the catalog…")], task_id=task_id, context_id=context_id),
    )
    gcs_store.GcsTaskStore(gcs_store.Bucket(bucket, 7)).create(
        objects.task(task_id, context_id, working, history=[user])
    )
    started = time.monotonic()
    frames = raw_stream(b.url, {"jsonrpc": "2.0", "id": "r", "method": "tasks/resubscribe", "params": {"id": task_id}})
    assert time.monotonic() - started < 5
    assert len(frames) == 1 and frames[0]["result"]["kind"] == "task"
    assert frames[0]["result"]["status"]["state"] == "working" and frames[0]["result"]["id"] == task_id
    assert rpc(a.url, "tasks/get", {"id": task_id})["result"]["history"] == [user]


def test_attachment_limit_counts_only_the_catalog_that_is_kept(start_server):
    """A small own catalog with a large competitor file: the competitor (not kept) does not count."""
    srv = start_server({"CONTEXT_MAX_ATTACHED_BYTES": str(len(CSV) + 100)})
    big = CSV + CSV.split(b"\n", 1)[1] * 3
    parts = [
        {"kind": "text", "text": "Which brands do competitors carry that I don't?"},
        {"kind": "file", "file": {"bytes": base64.b64encode(CSV).decode(), "name": "mine.csv", "mimeType": "text/csv"}},
        {
            "kind": "file",
            "file": {"bytes": base64.b64encode(big).decode(), "name": "competitor.csv", "mimeType": "text/csv"},
        },
    ]
    context_id = str(uuid.uuid4())
    first = rpc(
        srv.url,
        "message/send",
        {"message": {"role": "user", "parts": parts, "messageId": str(uuid.uuid4())}, "contextId": context_id},
    )["result"]
    assert "larger than a conversation keeps" not in first["artifacts"][0]["parts"][0]["text"]
    second = send(srv.url, "What is in this file?", context_id)["result"]
    assert footer(second)[0][0] == "mine.csv"  # kept for the follow-up
