"""A later red-team pass (#12: "attacks and faults that you have not seen"), against real servers.

- Numbers Python reads and JSON has not: `NaN`, `Infinity`, `1e999` (read as inf) were accepted and
  echoed back in the task's history as bare NaN/Infinity, so the answer (and every later tasks/get)
  was not JSON for any strict client; an integer of more than 4,300 digits was called "not valid JSON".
- A stored conversation or task that is not what the agent wrote (edited or replaced in the bucket):
  the next turn in that conversation answered -32603 with a traceback in the log.
- A megabyte contextId or file name went whole into the request line: one log entry over Cloud
  Logging's 256 KB limit, which drops it.
- Thousands of tiny file parts in one message: each parsed and named, tens of seconds of CPU and an
  answer several times the request's size from one anonymous request.
"""

from __future__ import annotations

import base64
import json
import uuid

import httpx
import pytest

from agent.service.inputs import MAX_FILE_PARTS, MAX_QUESTION_CHARS
from agent.store.gcs import object_key
from tests.emulators import shared_emulator
from tests.helpers import CHAIRS_CSV as CSV
from tests.helpers import file_message, no_internals, rpc, wait_for

TEXT_MESSAGE = (
    '{"kind":"message","role":"user","messageId":"m","parts":[{"kind":"text","text":"What is in this catalog?"}]'
)


def strict_json(text: str) -> dict:
    """The body parsed as JSON is defined (RFC 8259): no NaN, Infinity or -Infinity."""

    def refuse(literal: str) -> None:
        raise AssertionError(f"{literal} in the answer: not JSON")

    return json.loads(text, parse_constant=refuse)


def post(url: str, body: bytes) -> dict:
    response = httpx.post(url, content=body, headers={"Content-Type": "application/json"}, timeout=60)
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    return strict_json(response.text)


@pytest.mark.parametrize(
    "where, literal, code",
    [
        ("params.metadata", "NaN", -32700),
        ("params.message.metadata", "Infinity", -32700),
        ("data part", "-Infinity", -32700),
        ("data part", "1e999", -32600),
        ("params.metadata", "-1e400", -32600),
    ],
)
def test_numbers_that_are_not_json_are_refused_not_echoed(server, where, literal, code):
    if where == "params.metadata":
        body = '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":' + TEXT_MESSAGE
        body += '},"metadata":{"x":' + literal + "}}}"
    elif where == "params.message.metadata":
        body = '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":' + TEXT_MESSAGE
        body += ',"metadata":{"x":' + literal + "}}}}"
    else:
        body = (
            '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"role":"user","parts":['
            '{"kind":"text","text":"hi"},{"kind":"data","data":{"x":' + literal + "}}]}}}"
        )
    answer = post(server.url, body.encode())
    assert answer["id"] is None and answer["error"]["code"] == code, answer
    assert "NaN and Infinity" in answer["error"]["message"] or "too large" in answer["error"]["message"]


def test_finite_numbers_still_pass_and_come_back_as_sent(server):
    body = '{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":' + TEXT_MESSAGE
    body += ',"metadata":{"big":1.5e300,"tiny":1e-999,"neg":-0.0}}}}'
    task = post(server.url, body.encode())["result"]
    assert task["status"]["state"] == "completed"
    assert task["history"][0]["metadata"] == {"big": 1.5e300, "tiny": 0.0, "neg": -0.0}


def test_an_integer_longer_than_python_reads_is_named_not_called_invalid_json(server):
    body = b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"tasks/get","params":{"id":"x"}}'
    answer = post(server.url, body)
    assert answer["id"] is None and answer["error"]["code"] == -32600
    assert "4,300 digits" in answer["error"]["message"]


@pytest.fixture(scope="module")
def stored(start_server):
    fake = shared_emulator("fake")
    bucket = fake.create_bucket()
    return start_server({"STATE_BUCKET": bucket, "STORAGE_EMULATOR_HOST": fake.url}), fake, bucket


def overwrite(fake, bucket: str, name: str, data: bytes, metadata: dict | None = None) -> None:
    blob = fake.client.bucket(bucket).blob(name)
    blob.metadata = metadata
    blob.upload_from_string(data, content_type="application/json")


@pytest.mark.parametrize(
    "garbage",
    [
        b"not json",
        b"[1, 2]",
        b"\xff\xfe{",
        b"",
        b'"a string"',
        b'{"x": 1}',
        b"{}",
        b'{"v": 1, "context_id": "another"}',
    ],
)
def test_a_conversation_whose_stored_record_is_not_the_agents_is_refused_with_the_way_out(stored, garbage):
    server, fake, bucket = stored
    context_id = f"client-{uuid.uuid4()}"
    first = rpc(
        server.url,
        "message/send",
        {"message": dict(file_message("What is in this catalog?", CSV), contextId=context_id)},
    )
    assert first["result"]["status"]["state"] == "completed"
    overwrite(fake, bucket, f"contexts/{object_key(context_id)}/context.json", garbage)

    follow = rpc(
        server.url, "message/send", {"message": dict(file_message("and the price ladder?"), contextId=context_id)}
    )
    assert follow["error"]["code"] == -32602, follow
    assert "could not be read" in follow["error"]["message"] and "without contextId" in follow["error"]["message"]
    no_internals(follow)
    fresh = rpc(server.url, "message/send", {"message": file_message("What is in this catalog?")})
    assert fresh["result"]["status"]["state"] == "completed"
    assert "Traceback" not in server.output()


@pytest.mark.parametrize("garbage", [b"not json", b"[1]", b'{"task": 5}', b'{"task": {"id": "x"}}'])
def test_a_task_whose_stored_document_is_not_a_task_is_not_found_not_a_500(stored, garbage):
    server, fake, bucket = stored
    task = rpc(server.url, "message/send", {"message": file_message("What is in this catalog?")})["result"]
    # the object's metadata still says "completed" and whose it is: only the body is not a task
    metadata = {"state": "completed", "party": "anonymous", "written_at": "2999-01-01T00:00:00+00:00"}
    overwrite(fake, bucket, f"tasks/{object_key(task['id'])}.json", garbage, metadata)
    for method in ("tasks/get", "tasks/cancel"):
        answer = rpc(server.url, method, {"id": task["id"]})
        assert answer["error"]["code"] in (-32001, -32002), (method, answer)
    assert "Traceback" not in server.output()


def test_megabyte_ids_and_names_make_a_bounded_request_line(server):
    context_id = "c" * 300_000
    message = dict(file_message("What is in this catalog?", CSV, name="n" * 300_000 + ".csv"), contextId=context_id)
    before = len(server.output())
    task = rpc(server.url, "message/send", {"message": message})["result"]
    assert task["status"]["state"] == "completed" and task["contextId"] == context_id
    wait_for(lambda: task["id"] in server.output()[before:], timeout=10)
    written = server.output()[before:].splitlines()
    lines = [line for line in written if task["id"] in line and "a2a request" in line]
    assert lines, "the request line is written"
    assert max(len(line) for line in written) < 16_384
    assert "…(+299744 chars)" in lines[-1]


def test_a_message_with_thousands_of_files_reads_the_first_few_and_says_so(server):
    # 2,000 one-row CSVs and 2,000 links: before, every one was parsed (~1.5 ms each: a 32 MiB body holds
    # some 250,000) and named in the footer; now the first MAX_FILE_PARTS are read and one line says so.
    tiny = base64.b64encode(b"id,title,price\nP1,Chair,10.00\n").decode()
    parts: list[dict] = [{"kind": "text", "text": "What is in this catalog?"}]
    parts += [
        {"kind": "file", "file": {"bytes": tiny, "name": f"f{i}.csv", "mimeType": "text/csv"}} for i in range(2000)
    ]
    parts += [{"kind": "file", "file": {"uri": f"https://evil.example/{i}.csv"}} for i in range(2000)]
    task = rpc(server.url, "message/send", {"message": {"role": "user", "parts": parts}})["result"]
    assert task["status"]["state"] == "completed"
    text = task["artifacts"][0]["parts"][0]["text"]
    assert f"{4000 - MAX_FILE_PARTS} more file parts were not read" in text
    assert f"at most {MAX_FILE_PARTS} files" in text
    assert "f31.csv" in text and "f32.csv" not in text and "evil.example/0.csv" not in text


def test_a_question_of_one_megabyte_word_is_read_up_to_the_limit_not_failed(server):
    # The planner's title regex over a 1,000,000-character word was refused by the regex engine
    # ("pattern too large"): the turn failed with an incident.
    parts = [{"kind": "text", "text": "Where are the gaps in chairs? " + "a" * 1_000_000}]
    task = rpc(server.url, "message/send", {"message": {"role": "user", "parts": parts}})["result"]
    assert task["status"]["state"] == "completed", task["status"]
    text = task["artifacts"][0]["parts"][0]["text"]
    assert f"The question was read up to its first {MAX_QUESTION_CHARS:,} characters." in text
    assert "Chairs" in text


CALLER = "X-Test-Caller"
ALICE_CSV = b"id,title,price,brand\nA1,Alice armchair,10.00,AliceCo\nA2,Alice sofa,20.00,AliceCo\n"
MALLORY_CSV = b"id,title,price,brand\nM1,Mallory stool,1.00,EvilCorp\n"


@pytest.fixture(scope="module")
def gated(start_server, tmp_path_factory):
    gate = tmp_path_factory.mktemp("gate")
    return start_server({"TEST_STEP_GATE": str(gate), "CALLER_IDENTITY_HEADER": CALLER}), gate


def held_ids(gate) -> set[str]:
    return {p.name[: -len(".held")] for p in gate.glob("*.held")}


def test_two_parties_racing_on_one_new_context_id_never_share_its_files(gated):
    """Alice and Mallory both send on the same new contextId; both turns are held at the gate after
    their owner check (both found no conversation). Mallory's turn records first and owns it; Alice's
    record, made after, used to replace Mallory's file with hers in Mallory's conversation (and the
    reverse order gave a conversation bound to one and holding the other's data). Now the later record
    is not applied: each party's next turn is answered from its own file or refused."""
    server, gate = gated
    context_id = f"race-{uuid.uuid4()}"
    results: dict[str, dict] = {}

    def send(who: str, csv: bytes) -> None:
        body = {
            "jsonrpc": "2.0",
            "id": who,
            "method": "message/send",
            "params": {"message": dict(file_message("Which brands are in this catalog?", csv), contextId=context_id)},
        }
        results[who] = httpx.post(server.url, json=body, headers={CALLER: who}, timeout=90).json()

    import threading

    alice = threading.Thread(target=send, args=("alice", ALICE_CSV))
    alice.start()
    wait_for(lambda: len(held_ids(gate)) == 1, timeout=30)
    (alice_task,) = held_ids(gate)
    mallory = threading.Thread(target=send, args=("mallory", MALLORY_CSV))
    mallory.start()
    wait_for(lambda: len(held_ids(gate)) == 2, timeout=30)
    (mallory_task,) = held_ids(gate) - {alice_task}
    (gate / f"{mallory_task}.release").write_bytes(b"")
    mallory.join(60)
    (gate / f"{alice_task}.release").write_bytes(b"")
    alice.join(60)
    assert results["mallory"]["result"]["status"]["state"] == "completed"
    assert results["alice"]["result"]["status"]["state"] == "completed"

    def follow(who: str) -> dict:
        params = {"message": dict(file_message("Which brands are in this catalog?"), contextId=context_id)}
        body = {"jsonrpc": "2.0", "id": who, "method": "message/send", "params": params}
        thread_result: dict = {}

        def go() -> None:
            thread_result.update(httpx.post(server.url, json=body, headers={CALLER: who}, timeout=90).json())

        worker = threading.Thread(target=go)
        before = held_ids(gate)
        worker.start()
        while worker.is_alive():
            for task_id in held_ids(gate) - before:
                (gate / f"{task_id}.release").write_bytes(b"")
            worker.join(0.05)
        return thread_result

    mine = follow("mallory")["result"]
    text = mine["artifacts"][0]["parts"][0]["text"]
    assert "EvilCorp" in text and "AliceCo" not in text, text
    theirs = follow("alice")
    assert theirs["error"]["code"] == -32602, theirs  # not hers: refused, never answered from Mallory's file


def test_a_record_from_another_party_is_not_applied_on_either_back_end(fake_gcs):
    from agent.store.base import ContextChange
    from agent.store.gcs import Bucket, GcsContextStore
    from agent.store.memory import MemoryContextStore

    bucket = fake_gcs.create_bucket()
    for store in (MemoryContextStore(), GcsContextStore(Bucket(bucket, 7))):
        context_id = str(uuid.uuid4())
        store.record_turn(context_id, ContextChange(task_id="t1", party="caller:m", plan_memory={"who": "m"}))
        store.record_turn(context_id, ContextChange(task_id="t2", party="caller:a", plan_memory={"who": "a"}))
        state = store.load(context_id)
        assert (state.party, state.task_ids, state.plan_memory) == ("caller:m", ["t1"], {"who": "m"}), store
        store.record_turn(context_id, ContextChange(task_id="t3", party="caller:m"))
        assert store.load(context_id).task_ids == ["t1", "t3"]


def test_a_stored_catalog_deleted_by_the_store_leaves_the_table_cache_with_it(fake_gcs):
    """The raced second record's files (deleted: the first record owns the conversation) and a replaced
    attachment (deleted when the next one is recorded) took their table-cache entries with them only
    at eviction: budget held for tables no record names. Every cached "context" entry must name an
    object that is still in the bucket."""
    from agent.catalog.cache import TABLE_CACHE
    from agent.catalog.evidence import KIND_ATTACHED, LoadedCatalog
    from agent.catalog.ingest import read_table_bytes
    from agent.store.base import ContextChange
    from agent.store.gcs import Bucket, GcsContextStore

    def attached(name: str) -> LoadedCatalog:
        table, evidence = read_table_bytes(CSV, name, KIND_ATTACHED)
        return LoadedCatalog(table=table, sources=[evidence])

    bucket = Bucket(fake_gcs.create_bucket(), 7)
    store, context_id = GcsContextStore(bucket), str(uuid.uuid4())
    for party, name in (("caller:m", "first.csv"), ("caller:a", "raced.csv"), ("caller:m", "second.csv")):
        store.record_turn(context_id, ContextChange(task_id=name, party=party, catalogs=[attached(name)]))
    cached = [key for key in TABLE_CACHE.keys() if key[0] == "context" and key[1] == bucket.name]
    kept = [ref["object"] for ref in store.load(context_id).catalog_refs]
    assert len(kept) == 1 and [key[2] for key in cached] == kept, (cached, kept)
    assert all(bucket.exists(key[2]) for key in cached)


def test_an_id_too_long_to_repeat_in_every_frame_is_refused(server):
    # A 10 MB id was echoed in each of a stream's frames: 50 MB out for 10 MB in.
    for method in ("message/stream", "tasks/get"):
        body = {
            "jsonrpc": "2.0",
            "id": "i" * 1025,
            "method": method,
            "params": {"id": "x", "message": {"role": "user", "parts": [{"kind": "text", "text": "hi"}]}},
        }
        response = httpx.post(server.url, json=body, timeout=60)
        assert response.headers["content-type"].startswith("application/json"), method
        answer = response.json()
        assert answer["id"] is None and answer["error"] == {
            "code": -32600,
            "message": "The request's id is longer than 1,024 characters.",
        }
    for method in ("tasks/get", "tasks/cancel"):  # the plain shape, which takes the lean path
        body = {"jsonrpc": "2.0", "id": "i" * 1025, "method": method, "params": {"id": "x"}}
        answer = httpx.post(server.url, json=body, timeout=60).json()
        assert answer["id"] is None and answer["error"]["code"] == -32600, method
    body = {"jsonrpc": "2.0", "id": "i" * 1024, "method": "tasks/get", "params": {"id": "x"}}
    assert httpx.post(server.url, json=body, timeout=60).json() == {
        "jsonrpc": "2.0",
        "id": "i" * 1024,
        "error": {"code": -32001, "message": "No task with that id was found."},
    }
