"""Memory stays bounded: no file bytes past the turn, and every bound derives from one budget."""

from __future__ import annotations

import base64
import hashlib
import json
import uuid

import httpx

from agent import config
from agent.service.live import LiveRegistry
from tests.helpers import CHAIRS_CSV as CSV
from tests.helpers import raw_stream


def _send(url: str, method: str = "message/send") -> dict:
    parts = [
        {"kind": "text", "text": "What is in this catalog?"},
        {"kind": "file", "file": {"bytes": base64.b64encode(CSV).decode(), "name": "mine.csv", "mimeType": "text/csv"}},
    ]
    body = {
        "jsonrpc": "2.0",
        "id": "1",
        "method": method,
        "params": {"message": {"role": "user", "parts": parts, "messageId": str(uuid.uuid4())}},
    }
    return httpx.post(url, json=body, timeout=60).json()


def test_tasks_keep_a_reference_to_the_file_not_its_bytes(server, a2a_validate):
    answer = _send(server.url)["result"]
    assert answer["status"]["state"] == "completed"
    got = httpx.post(
        server.url, json={"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"id": answer["id"]}}, timeout=30
    ).json()
    a2a_validate(got, "GetTaskSuccessResponse")
    file_part = got["result"]["history"][0]["parts"][1]
    assert file_part["file"] == {
        "name": "mine.csv",
        "mimeType": "text/csv",
        "uri": "urn:sha256:" + hashlib.sha256(CSV).hexdigest(),
    }
    assert file_part["metadata"]["storedByReference"] == {"size": len(CSV), "sha256": hashlib.sha256(CSV).hexdigest()}
    b64 = base64.b64encode(CSV).decode()
    assert b64[:200] not in json.dumps(got) and b64[:200] not in json.dumps(answer)
    frames = raw_stream(
        server.url, {"jsonrpc": "2.0", "id": "r", "method": "tasks/resubscribe", "params": {"id": answer["id"]}}
    )
    assert b64[:200] not in json.dumps(frames)


def test_the_stream_s_first_task_carries_no_file_bytes(server):
    parts = [
        {"kind": "text", "text": "What is in this catalog?"},
        {"kind": "file", "file": {"bytes": base64.b64encode(CSV).decode(), "name": "mine.csv", "mimeType": "text/csv"}},
    ]
    frames = raw_stream(
        server.url,
        {
            "jsonrpc": "2.0",
            "id": "s",
            "method": "message/stream",
            "params": {"message": {"role": "user", "parts": parts, "messageId": "m1"}},
        },
    )
    assert "bytes" not in frames[0]["result"]["history"][0]["parts"][1]["file"]
    assert frames[-1]["result"]["status"]["state"] == "completed"


def test_every_bound_derives_from_the_one_budget_after_the_process_reserve():
    reserve = config.PROCESS_RESERVE_BYTES
    small = config.load({"MEMORY_BUDGET_BYTES": str(256 << 20)})
    one = config.load({"MEMORY_BUDGET_BYTES": str(1 << 30)})
    big = config.load({"MEMORY_BUDGET_BYTES": str(4 << 30)})
    for cfg in (small, one, big):
        parts = (cfg.table_cache_bytes, cfg.memory_store_bytes, cfg.task_store_bytes, cfg.live_bytes)
        shareable = max(cfg.memory_budget_bytes - reserve, cfg.memory_budget_bytes // 4)
        # 35 % of what the process leaves stays for the turns in flight; the parsed-catalog cache has 50 % so
        # that a 4 GiB instance keeps a 5M-variant catalog of either kind warm (issue 16; agent/config.py says why)
        assert sum(parts) <= shareable * 0.65 + 4, "35 % of what the process leaves stays for the turns in flight"
        if cfg is not small:  # 256 MiB cannot hold the process at all (the floor below)
            # 1 GiB: 193 MiB (18 %) stays beyond the process and the bounds, for a 32 MiB body, its decoded
            # file and parsed table; bench/README.md "Memory under large sends" peaked at 551 MiB of it
            assert reserve + sum(parts) <= cfg.memory_budget_bytes * (0.82 if cfg is one else 0.9)
        assert cfg.context_max_attached_bytes <= cfg.memory_store_bytes
    # the shares are of the budget less the reserve: 4 GiB leaves 3,624 MiB, 1 GiB 552 MiB
    assert big.table_cache_bytes == int(((4 << 30) - reserve) * config.SHARE_TABLE_CACHE)
    assert one.table_cache_bytes == int(((1 << 30) - reserve) * config.SHARE_TABLE_CACHE)
    assert big.table_cache_bytes >= 5_000_000 * 350  # 5M Parquet variants stay warm on a 4 GiB instance
    assert small.table_cache_bytes == int((256 << 20) // 4 * config.SHARE_TABLE_CACHE)  # the floor: a quarter
    assert config.load({}).memory_budget_bytes == 1 << 30  # unset: 1 GiB (deploy.sh passes its MEMORY)


def test_finished_runs_are_bounded_by_bytes_too():
    live = LiveRegistry(max_bytes=100_000)
    for i in range(20):
        run = live.open(f"t{i}")
        run.publish({"kind": "artifact-update", "text": "x" * 20_000})
        live.close(f"t{i}")
    kept = [i for i in range(20) if live.get(f"t{i}") is not None]
    assert kept and kept == list(range(20 - len(kept), 20)) and len(kept) <= 5
