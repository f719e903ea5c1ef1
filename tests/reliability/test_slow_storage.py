"""Slow storage fails fast (#12 item 7): one storage budget per turn (TURN_STORAGE_SECONDS), the
first streamed frame still immediate. Faults come from the proxy in front of fake-gcs-server."""

from __future__ import annotations

import json
import time
import uuid

import httpx
import pytest

from tests.emulators import shared_emulator
from tests.faultproxy import FaultProxy
from tests.helpers import CHAIRS_CSV as CSV

BUDGET_S = 3


@pytest.fixture(scope="module")
def rig(start_server):
    fake = shared_emulator("fake")
    bucket = fake.create_bucket()
    fake.upload(bucket, "shop/catalog.csv", CSV, "text/csv")
    proxy = FaultProxy(fake.url)
    catalog = start_server(
        {
            "STORAGE_EMULATOR_HOST": proxy.url,
            "CATALOG_URI": f"gs://{bucket}/shop/catalog.csv",
            "TURN_STORAGE_SECONDS": str(BUDGET_S),
        }
    )
    state = start_server(
        {"STORAGE_EMULATOR_HOST": proxy.url, "STATE_BUCKET": bucket, "TURN_STORAGE_SECONDS": str(BUDGET_S)}
    )
    yield catalog, state, proxy
    proxy.stop()


def timed_stream(url: str) -> tuple[float, float, list[dict]]:
    body = {
        "jsonrpc": "2.0",
        "id": "s",
        "method": "message/stream",
        "params": {
            "message": {
                "role": "user",
                "parts": [{"kind": "text", "text": "What is in this catalog?"}],
                "messageId": str(uuid.uuid4()),
            }
        },
    }
    started = time.monotonic()
    first, frames = None, []
    with httpx.stream("POST", url, json=body, timeout=120) as response:
        for line in response.iter_lines():
            if line:
                first = first if first is not None else time.monotonic() - started
                frames.append(json.loads(line[len("data: ") :]))
    return first, time.monotonic() - started, frames


def test_a_hung_catalog_read_is_reported_within_the_budget(rig):
    catalog, _, proxy = rig
    proxy.clear()
    proxy.add(method="GET", path="catalog.csv", delay=60, status=0)  # every read of the catalog hangs
    first, total, frames = timed_stream(catalog.url)
    proxy.clear()
    assert first < 1.5, "the Task frame goes out before any storage call"
    assert total < BUDGET_S + 4, total
    final = frames[-1]["result"]
    assert final["final"] is True and final["status"]["state"] == "completed"
    text = next(
        f["result"]["artifact"]["parts"][0]["text"] for f in frames if f["result"].get("kind") == "artifact-update"
    )
    assert "The configured catalog could not be read." in text  # said within the budget, not after 30 s


def test_a_dead_state_bucket_fails_the_turn_within_the_budget(rig):
    _, state, proxy = rig
    proxy.clear()
    proxy.add(status=503)  # every storage request fails (and the client library retries 503s)
    first, total, frames = timed_stream(state.url)
    proxy.clear()
    assert first < 1.5
    assert total < BUDGET_S + 6, total  # the work's budget, then the reserve for the final writes
    final = frames[-1]["result"]
    assert final["final"] is True and final["status"]["state"] == "failed"
    assert "incident" in final["status"]["message"]["parts"][0]["text"]
