"""A cancel from another instance against a run that does not see it in time (#12 items 2 and 9).

Instance B's tasks/cancel waits CANCEL_WAIT_SECONDS for the run to end and then writes `canceled`
itself (the run's instance may be gone). If the run's instance is alive but missed the cancel, its
stream may still end: what its client is told and what the store holds must agree, and neither may be
`completed` unless the store holds `completed`. The store's generation preconditions decide which
final write wins; the run reports what the store holds.

The timing is made explicit, never raced: instance A's stream is a generator the test pulls, so A is
*held* between two frames — after its last cancel check — for as long as the test wants; B's wait is
shortened by patching the constant (a wait that must run out, since A is held); and the interleaving of
the two final writes is forced by a bucket hook that runs A's final write in the middle of B's.
"""

from __future__ import annotations

import pytest

from agent import config
from agent.protocol import errors
from agent.protocol.context import CallContext
from agent.service import handler
from agent.service.handler import Service
from tests.helpers import InterveningBucket

QUESTION = {"message": {"role": "user", "parts": [{"kind": "text", "text": "What is in this catalog?"}]}}


@pytest.fixture
def two_instances(fake_gcs, monkeypatch):
    bucket = fake_gcs.create_bucket()
    settings = config.load({"STATE_BUCKET": bucket})
    monkeypatch.setattr(handler, "CANCEL_WAIT_SECONDS", 0.3)  # A is held, so B's wait always runs out
    return Service(settings), Service(settings), bucket


def held_after_last_artifact(service: Service):
    """Start a stream on `service` and pull it up to its last artifact: the run is past its last cancel
    check and suspended there until the test pulls again."""
    events = service.stream(dict(QUESTION), CallContext())
    seen = [next(events)]
    while seen[-1].get("kind") != "artifact-update":
        seen.append(next(events))
    return events, seen


def test_a_cancel_written_while_the_run_is_held_is_what_the_runs_client_is_told(two_instances):
    a, b, _ = two_instances
    events, seen = held_after_last_artifact(a)
    task_id = seen[0]["id"]
    answer = b.cancel({"id": task_id}, CallContext())  # B waits, sees no end, writes canceled itself
    assert answer["status"]["state"] == "canceled"
    rest = list(events)  # A goes on: its final write meets the stored cancel
    final = rest[-1]
    assert final["final"] is True and final["status"]["state"] == "canceled"
    stored = b.tasks.get(task_id)
    assert stored["status"]["state"] == "canceled" == a.tasks.state(task_id)


def test_a_run_that_finishes_inside_the_cancels_write_keeps_completed_and_the_cancel_is_refused(two_instances):
    a, b, bucket = two_instances
    events, seen = held_after_last_artifact(a)
    task_id = seen[0]["id"]
    rest: list[dict] = []
    # B reads `working`, then — before B's write lands — A ends the run and stores `completed`.
    b.tasks.bucket = InterveningBucket(bucket, 7, intervene=lambda: rest.extend(events))
    with pytest.raises(errors.RpcError) as refused:
        b.cancel({"id": task_id}, CallContext())
    assert refused.value.code == errors.TASK_NOT_CANCELABLE
    assert b.tasks.bucket.refused == 1  # B's write met the new generation and was refused (412)
    final = rest[-1]
    assert final["final"] is True and final["status"]["state"] == "completed"
    assert a.tasks.state(task_id) == "completed" == b.tasks.get(task_id)["status"]["state"]


def test_a_cancel_after_the_run_ended_is_refused_and_changes_nothing(two_instances):
    a, b, _ = two_instances
    events, seen = held_after_last_artifact(a)
    final = list(events)[-1]
    assert final["status"]["state"] == "completed"
    with pytest.raises(errors.RpcError) as refused:
        b.cancel({"id": seen[0]["id"]}, CallContext())
    assert refused.value.code == errors.TASK_NOT_CANCELABLE
    assert b.tasks.state(seen[0]["id"]) == "completed"
