"""The host server's request threads, all started at an instance's first request (issue 16 item 4).

functions-framework serves the function with gunicorn's gthread worker, whose request threads are a
`concurrent.futures.ThreadPoolExecutor` of THREADS workers. The executor starts a thread only when a
connection finds none idle, and `Thread.start()` waits until the new thread holds the interpreter lock.
While turns are computing, that lock is handed over only at the switch interval (5 ms), so in the
first burst a fresh instance sees, the thread that accepts connections waited ~5 ms per new thread
(a probe: 32 submits behind 9 ms turns took 177 ms, 0.1 ms with the threads started), and the first
event's p95 of that burst was 34–86 ms against 15–22 ms for the next ones (bench/README.md, "Round 16";
round 9 had found that one earlier burst removed it).

So the first request of a process starts the rest of the pool before it is answered, while nothing
else is computing (~85 µs a thread: ~2.6 ms for 32): it queues one short wait per missing thread,
which makes the executor start a thread for each, and then releases them all at once. The pool is
found from the thread serving the request (a `ThreadPoolExecutor` worker holds a weak reference to its
executor as its first argument); a request served any other way (the Flask test client, a
`werkzeug` thread per request, the preview server) finds no pool and nothing happens. This reads two
private attributes of the standard library's executor (`_threads`, `_max_workers`) and the worker's
`_args`; each is checked, and a Python whose executor differs gets the old behaviour, never an error.

Installed as WSGI middleware that removes itself after the first request (`start_on_first_request`),
so later requests pay nothing for it.
"""

from __future__ import annotations

import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agent import logs

HOLD_SECONDS = 1.0  # a started thread's placeholder wait, released as soon as the pool is full


def start_on_first_request(app: Any) -> None:
    """Wrap `app.wsgi_app` (a Flask app, or `flask.current_app`'s proxy of one) so that the first request
    starts the host's request threads."""
    real = app._get_current_object() if hasattr(app, "_get_current_object") else app  # the proxy needs a context
    real.wsgi_app = _FirstRequest(real, real.wsgi_app)


class _FirstRequest:
    """WSGI middleware for one request: it puts the app it wraps back in its place, then fills the pool."""

    def __init__(self, flask_app: Any, inner: Any) -> None:
        self._flask_app = flask_app
        self._inner = inner
        self._lock = threading.Lock()
        self._done = False

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        with self._lock:
            first, self._done = not self._done, True
        if first:
            self._flask_app.wsgi_app = self._inner
            try:
                pool = pool_of_current_thread()
                if pool is not None:
                    fill(pool)
            except Exception:  # an optimisation only: the request is answered whatever happens here
                logs.logger().warning("the host's request threads could not be started ahead", exc_info=True)
        return self._inner(environ, start_response)


def pool_of_current_thread() -> ThreadPoolExecutor | None:
    """The executor whose worker thread this is, or None (not such a thread, or an executor of another shape)."""
    args = getattr(threading.current_thread(), "_args", None)
    if not (isinstance(args, tuple) and args and isinstance(args[0], weakref.ReferenceType)):
        return None
    pool = args[0]()
    return pool if isinstance(pool, ThreadPoolExecutor) else None


def fill(pool: ThreadPoolExecutor) -> int:
    """Start the pool's missing threads; how many threads it has after. Each queued wait holds a thread
    until all are queued, so every submit finds none idle and starts one, up to the pool's size."""
    threads = getattr(pool, "_threads", None)
    size = getattr(pool, "_max_workers", None)
    if not isinstance(threads, set) or not isinstance(size, int):
        return 0
    go = threading.Event()
    try:
        for _ in range(size):
            if len(threads) >= size:
                break
            pool.submit(go.wait, HOLD_SECONDS)
    except RuntimeError:  # the pool is shutting down, or the system would start no more threads: the
        pass  # threads already started stay, the server starts the rest as it needs them
    finally:
        go.set()
    return len(threads)
