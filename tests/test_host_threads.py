"""An instance's first request starts every request thread of the host server (agent/protocol/host_threads.py).

Through the front door: a real functions-framework process, whose gunicorn worker's OS threads are
counted after its first request (the readiness probe), with the setting on and off. Then the parts
on their own: a real ThreadPoolExecutor filled from one of its own threads, and the cases that must
change nothing."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import psutil
import pytest

from agent.protocol import host_threads


def _worker_threads(srv) -> int:
    """OS threads of the gunicorn worker (the function-framework process's child that serves)."""
    (worker,) = psutil.Process(srv.proc.pid).children(recursive=True)
    return worker.num_threads()


@pytest.mark.parametrize("setting, started", [("1", True), ("0", False)])
def test_the_first_request_starts_every_request_thread(start_server, setting, started):
    srv = start_server({"START_THREADS": setting})  # ready: its card has answered one request
    if started:
        assert _worker_threads(srv) >= srv.threads + 1  # the accepting thread and all THREADS request threads
    else:
        assert _worker_threads(srv) < srv.threads  # gunicorn started one for the one request


def test_a_pool_is_filled_from_one_of_its_threads():
    with ThreadPoolExecutor(max_workers=6) as pool:
        got = pool.submit(lambda: (host_threads.pool_of_current_thread(), host_threads.fill(pool))).result()
        assert got == (pool, 6)
        assert len(pool._threads) == 6
        # the placeholders are released at once: all six take new work together
        gate = threading.Barrier(6, timeout=5)
        assert all(f.result() is not None for f in [pool.submit(gate.wait) for _ in range(6)])


def test_a_full_pool_gets_no_more_work():
    with ThreadPoolExecutor(max_workers=2) as pool:
        assert host_threads.fill(pool) == 2
        queued = pool._work_queue.qsize()
        assert host_threads.fill(pool) == 2 and pool._work_queue.qsize() == queued


def test_no_pool_outside_an_executor_and_other_shapes_are_left_alone():
    assert host_threads.pool_of_current_thread() is None  # the main thread
    seen: list = []
    plain = threading.Thread(target=lambda: seen.append(host_threads.pool_of_current_thread()))
    plain.start()
    plain.join()
    assert seen == [None]

    odd = ThreadPoolExecutor(max_workers=3)
    odd._threads = None  # type: ignore[assignment]  # an executor whose insides differ
    assert host_threads.fill(odd) == 0
    odd._threads = set()  # as it was, for its shutdown
    odd.shutdown()


def test_a_shut_down_pool_is_not_an_error():
    pool = ThreadPoolExecutor(max_workers=3)
    pool.shutdown()
    assert host_threads.fill(pool) == 0


def test_the_middleware_runs_once_then_steps_aside():
    class App:
        def __init__(self) -> None:
            self.wsgi_app = self.inner
            self.calls = 0

        def inner(self, environ, start_response):
            self.calls += 1
            return [b"ok"]

    app = App()
    host_threads.start_on_first_request(app)
    wrapper = app.wsgi_app
    assert wrapper != app.inner
    assert wrapper({}, None) == [b"ok"]
    assert app.wsgi_app == app.inner  # later requests skip the layer
    assert wrapper({}, None) == [b"ok"] and app.calls == 2  # a request already inside it still passes


def test_installed_through_flasks_proxy_the_app_itself_is_wrapped():
    """main.py installs it with `flask.current_app` (a proxy); requests arrive with no app context."""
    import flask

    app = flask.Flask("probe")
    inner = app.wsgi_app
    with app.app_context():
        host_threads.start_on_first_request(flask.current_app)
    assert isinstance(app.wsgi_app, host_threads._FirstRequest)
    response = app.test_client().get("/nowhere")  # Flask's own 404: the request passed through the layer
    assert response.status_code == 404 and app.wsgi_app == inner


def test_a_failure_while_starting_threads_never_fails_the_request(monkeypatch):
    def broken(pool):
        raise OSError("cannot start a thread")

    monkeypatch.setattr(host_threads, "fill", broken)

    class App:
        def __init__(self) -> None:
            self.wsgi_app = lambda environ, start_response: [b"ok"]

    app = App()
    host_threads.start_on_first_request(app)
    with ThreadPoolExecutor(max_workers=2) as pool:  # served from a pool thread, so `fill` is reached
        assert pool.submit(app.wsgi_app, {}, None).result() == [b"ok"]
