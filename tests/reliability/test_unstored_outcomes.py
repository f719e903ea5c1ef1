"""A turn whose final write and its `failed` fallback both fail is never left `working` (#12 item 2).

A real fault proxy in front of fake-gcs-server (tests/faultproxy.py) refuses every task write that
carries a terminal state. The instance that ran the turn keeps the `failed` outcome it answered
(agent.service.unstored), says it to tasks/get, refuses a tasks/cancel over it, and writes it on a later
request once the store takes writes again, with back-off while it does not. A second instance on the
same bucket sees what the store holds.
"""

from __future__ import annotations

import math
import time

from agent.service.unstored import UnstoredOutcomes
from agent.store.memory import MemoryTaskStore
from tests.helpers import CHAIRS_CSV as CSV
from tests.helpers import file_message as message
from tests.helpers import no_internals, rpc, stored_state, wait_for

FAILED_WRITE = b'"state": "failed"'
COMPLETED_WRITE = b'"state": "completed"'


def unstored_answer(server, proxy) -> dict:
    proxy.add(method="POST", body=COMPLETED_WRITE, status=403)
    proxy.add(method="POST", body=FAILED_WRITE, status=403)
    answer = rpc(server.url, "message/send", {"message": message("What is in this catalog?", CSV)})["result"]
    assert answer["status"]["state"] == "failed"  # never "completed": the store does not hold it
    return answer


def test_the_outcome_is_stored_on_a_later_request_once_the_store_is_back(faulty, clean, proxy):
    server, _, fake, bucket = faulty
    answer = unstored_answer(server, proxy)
    task_id = answer["id"]
    assert stored_state(fake, bucket, task_id) == "working"  # the store refused both final writes
    here = rpc(server.url, "tasks/get", {"id": task_id})["result"]
    assert here["status"] == answer["status"]  # this instance says the outcome its client got
    assert rpc(server.url, "tasks/cancel", {"id": task_id})["error"]["code"] == -32002
    proxy.clear()
    # The next requests after the back-off store it: wait for that event (polling the store), no sleep.
    wait_for(
        lambda: rpc(server.url, "tasks/get", {"id": task_id}) and stored_state(fake, bucket, task_id) == "failed", 30
    )
    there = rpc(clean.url, "tasks/get", {"id": task_id})["result"]
    assert there["status"]["state"] == "failed"
    text = there["status"]["message"]["parts"][0]["text"]
    assert text.startswith("The answer could not be saved") and "incident" in text
    no_internals(there)
    assert rpc(clean.url, "tasks/cancel", {"id": task_id})["error"]["code"] == -32002  # from any instance
    assert stored_state(fake, bucket, task_id) == "failed"


def test_while_the_store_stays_down_the_retries_back_off(faulty, proxy):
    server, _, fake, bucket = faulty
    answer = unstored_answer(server, proxy)
    refused = next(rule for rule in proxy.rules if rule.body == FAILED_WRITE)
    before, started = refused.hits, time.monotonic()
    for _ in range(40):  # forty requests, each of which may flush what is due
        assert rpc(server.url, "tasks/get", {"id": answer["id"]})["result"]["status"]["state"] == "failed"
    elapsed = time.monotonic() - started
    # back-off 1 s, doubling: within `elapsed` seconds at most log2(elapsed + 1) + 1 retries, not forty
    # (each retry may be sent twice by the storage client's own retry)
    assert refused.hits - before <= 2 * (math.log2(elapsed + 1) + 1), (refused.hits - before, elapsed)
    assert stored_state(fake, bucket, answer["id"]) == "working"
    proxy.clear()
    wait_for(
        lambda: (
            rpc(server.url, "tasks/get", {"id": answer["id"]}) and stored_state(fake, bucket, answer["id"]) == "failed"
        ),
        90,
    )


def test_a_write_that_lands_drops_the_entry_and_the_bound_holds():
    store = MemoryTaskStore(100, 10 * 2**20, 7)
    now = [0.0]
    kept = UnstoredOutcomes(limit=3, clock=lambda: now[0])
    tasks = []
    for number in range(5):
        task = {"id": f"t{number}", "contextId": "c", "kind": "task", "status": {"state": "failed"}, "history": []}
        store.create(dict(task, status={"state": "working"}))
        kept.keep(task)
        tasks.append(task)
    assert len(kept) == 3 and kept.get("t0") is None and kept.get("t4") is not None  # oldest dropped
    assert kept.flush(store) == 0  # the back-off has not passed
    now[0] = 1.0
    assert kept.flush(store) == 3 and len(kept) == 0
    assert store.state("t4") == "failed" and store.state("t0") == "working"
