"""Protocol benchmarks, printed not asserted (issue 2): run with `.venv/bin/python bench/bench_protocol.py`.

- time to the first SSE event of `message/stream` (warm, back to back, one keep-alive connection)
- `tasks/get` round trip (warm, back to back)
- warm `message/send` on the demo catalog (overview and the gaps question)
- cold start: process start → first agent-card response, ours vs a bare functions-framework hello world

Side by side in the same run, the official a2a-sdk reference server (bench/reference_server.py:
Starlette + uvicorn, trivial executor) measured by the same raw-socket client. Medians and ratios over
many runs; a raw socket on a kept-alive connection keeps client overhead out of the figures.
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.agent_process import AGENT_SETTINGS, free_port  # noqa: E402
from tests.conftest import Server  # noqa: E402

FIXED = """import functions_framework
from flask import Response

BODY = open("body.json", "rb").read()


@functions_framework.http
def fixed(request):
    request.get_data()
    return Response(BODY, 200, mimetype="application/json")
"""

HELLO = """import functions_framework

@functions_framework.http
def hello(request):
    return {"ok": True}
"""


def _body(method: str, params: dict, rid: int = 1) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode()


def _message(text: str) -> dict:
    return {"message": {"role": "user", "parts": [{"kind": "text", "text": text}]}}


def first_event_ms(conn: http.client.HTTPConnection, text: str) -> float:
    body = _body("message/stream", _message(text))
    start = time.perf_counter()
    conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    line = response.readline()
    elapsed = (time.perf_counter() - start) * 1000
    while line and not line.startswith(b"data:"):
        line = response.readline()
        elapsed = (time.perf_counter() - start) * 1000
    response.read()  # drain the rest of the stream so the connection can be reused
    return elapsed


def unary_ms(conn: http.client.HTTPConnection, body: bytes) -> tuple[float, dict]:
    start = time.perf_counter()
    conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
    data = conn.getresponse().read()
    return (time.perf_counter() - start) * 1000, json.loads(data)


class RawClient:
    """Minimal HTTP/1.1 over one kept-alive socket: times to the first SSE data line and to a full reply."""

    def __init__(self, port: int) -> None:
        import socket

        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(30)  # a reply that never completes fails the bench instead of hanging it
        self.last_length = 0

    @staticmethod
    def _request(body: bytes) -> bytes:
        head = b"POST / HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
        return head % len(body) + body

    def _recv(self) -> bytes:
        data = self.sock.recv(65536)
        if not data:  # the server closed the connection: stop rather than spin on empty reads
            raise ConnectionError("the server closed the connection")
        return data

    def first_event_ms(self, body: bytes) -> tuple[float, bytes]:
        start = time.perf_counter()
        self.sock.sendall(self._request(body))
        buffer, first = b"", None
        while True:
            buffer += self._recv()
            if first is None and b"data:" in buffer:
                first = (time.perf_counter() - start) * 1000
            if buffer.endswith(b"0\r\n\r\n"):
                return first or 0.0, buffer

    def unary_ms(self, body: bytes) -> float:
        start = time.perf_counter()
        self.sock.sendall(self._request(body))
        buffer = b""
        while True:
            buffer += self._recv()
            if b"\r\n\r\n" in buffer:
                head, rest = buffer.split(b"\r\n\r\n", 1)
                length = next(
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length")
                )
                if len(rest) >= length:
                    self.last_length = length
                    return (time.perf_counter() - start) * 1000


def client_figures(url: str, runs: int) -> tuple[float, float]:
    """(median ms to the first streamed event, median ms `get_task`) through the official a2a-sdk client
    (`ClientFactory` over one kept-alive httpx client): what an A2A caller sees, client work included."""
    import asyncio

    import httpx
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
    from a2a.types import Message, Part, Role, TaskQueryParams, TextPart

    async def measure() -> tuple[float, float]:
        async with httpx.AsyncClient(timeout=60) as http:
            card = await A2ACardResolver(http, url).get_agent_card()
            client = ClientFactory(ClientConfig(streaming=True, httpx_client=http)).create(card)

            async def first_event() -> tuple[float, str]:
                message = Message(
                    role=Role.user,
                    parts=[Part(root=TextPart(text="What is in this file?"))],
                    message_id=f"m{time.perf_counter_ns()}",
                )
                start, first, task_id = time.perf_counter(), None, ""
                async for event in client.send_message(message):
                    if first is None:
                        first = (time.perf_counter() - start) * 1000
                    task_id = event[0].id if isinstance(event, tuple) else task_id
                return first or 0.0, task_id

            for _ in range(10):
                await first_event()
            firsts, task_id = [], ""
            for _ in range(runs):
                ms, task_id = await first_event()
                firsts.append(ms)
            gets = []
            for _ in range(runs):
                start = time.perf_counter()
                await client.get_task(TaskQueryParams(id=task_id))
                gets.append((time.perf_counter() - start) * 1000)
            return median(firsts), median(gets)

    return asyncio.run(measure())


def raw_figures(port: int, runs: int) -> tuple[float, float, int]:
    """(median ms to first SSE event, median ms tasks/get round trip, task bytes), warm, back to back."""
    client = RawClient(port)
    stream = _body(
        "message/stream",
        {
            "message": {
                "role": "user",
                "messageId": "m",
                "kind": "message",
                "parts": [{"kind": "text", "text": "What is in this file?"}],
            }
        },
    )
    for _ in range(10):
        client.first_event_ms(stream)
    firsts, last = [], b""
    for _ in range(runs):
        ms, last = client.first_event_ms(stream)
        firsts.append(ms)
    task_id = json.loads(last.split(b"data: ", 1)[1].split(b"\n", 1)[0])["result"]["id"]
    get = _body("tasks/get", {"id": task_id})
    gets = [client.unary_ms(get) for _ in range(runs)]
    return median(firsts), median(gets), client.last_length


def our_answer(conn: http.client.HTTPConnection, text: str) -> dict[str, str]:
    """Our finished task's answer text and final status text, for the reference to answer alike."""
    _, sent = unary_ms(conn, _body("message/send", _message(text)))
    task = sent["result"]
    return {"answer": task["artifacts"][0]["parts"][0]["text"], "status": task["status"]["message"]["parts"][0]["text"]}


def bench_reference(
    runs: int, ours: tuple[float, float, int], ours_client: tuple[float, float], answer: dict[str, str], get_body: bytes
) -> None:
    port = free_port()
    answer_file = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False, encoding="utf-8")
    json.dump(answer, answer_file)
    answer_file.close()
    proc = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "reference_server.py"), str(port), answer_file.name],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_ready(port, "/.well-known/agent-card.json")
        ref = raw_figures(port, runs)
        ref_client = client_figures(f"http://127.0.0.1:{port}/", runs)
    finally:
        proc.terminate()
        proc.wait(10)
        os.unlink(answer_file.name)
    print(
        f"raw socket, first SSE event: ours {ours[0]:.2f} ms, a2a-sdk reference {ref[0]:.2f} ms, ratio {ours[0] / ref[0]:.2f}x"
    )
    print(
        f"raw socket, tasks/get:       ours {ours[1]:.2f} ms, a2a-sdk reference {ref[1]:.2f} ms, ratio {ours[1] / ref[1]:.2f}x"
        f"  (task JSON: ours {ours[2]:,} bytes, reference {ref[2]:,} bytes)"
    )
    print(
        f"a2a-sdk client, first event: ours {ours_client[0]:.2f} ms, a2a-sdk reference {ref_client[0]:.2f} ms, "
        f"ratio {ours_client[0] / ref_client[0]:.2f}x"
    )
    print(
        f"a2a-sdk client, get_task:    ours {ours_client[1]:.2f} ms, a2a-sdk reference {ref_client[1]:.2f} ms, "
        f"ratio {ours_client[1] / ref_client[1]:.2f}x"
    )
    floor = bench_floor(runs, get_body)
    print(
        f"raw socket, tasks/get floor: bare functions-framework function returning our bytes {floor:.2f} ms, "
        f"ratio to the reference {floor / ref[1]:.2f}x"
    )


def wait_ready(port: int, path: str, timeout: float = 30.0) -> None:
    """Until a local server answers GET `path` with 200 (or the timeout passes)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.05)


def bench_floor(runs: int, body: bytes) -> float:
    """tasks/get round trip of a bare functions-framework function that returns our tasks/get bytes as
    they are: the platform's floor (gunicorn gthread + Flask) with none of our code."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "main.py").write_text(FIXED)
        Path(tmp, "body.json").write_bytes(body)
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "functions_framework", "--target=fixed", f"--port={port}", "--host=127.0.0.1"],
            cwd=tmp,
            env=dict(os.environ, THREADS="8"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_ready(port, "/")
            client = RawClient(port)
            get = _body("tasks/get", {"id": "x"})
            for _ in range(10):
                client.unary_ms(get)
            return median([client.unary_ms(get) for _ in range(runs)])
        finally:
            proc.terminate()
            proc.wait(10)


def median(values: list[float]) -> float:
    return statistics.median(values)


def cold_start_ms(argv: list[str], url: str, path: str, cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                host, port = url.split("//")[1].rstrip("/").split(":")
                conn = http.client.HTTPConnection(host, int(port), timeout=1)
                conn.request("GET", path)
                if conn.getresponse().status == 200:
                    return (time.perf_counter() - start) * 1000
            except OSError:
                time.sleep(0.005)
    finally:
        proc.terminate()
        proc.wait(10)


def compile_as_deployed(*trees: Path) -> None:
    """Byte-compile `trees` as Cloud Functions' build does: the functions-framework buildpack runs
    `python3 -m compileall -f -q .` on the uploaded source, so a deployed instance imports our modules
    from .pyc files. Without this, a machine with PYTHONDONTWRITEBYTECODE set (this one) compiles all of
    them from source at every cold start (~60–80 ms), which a deployment never does; the bare
    functions' main.py is compiled the same way."""
    for tree in trees:
        subprocess.run(
            [sys.executable, "-m", "compileall", "-f", "-q", str(tree)], check=True, stdout=subprocess.DEVNULL
        )


def bench_cold(runs: int) -> None:
    ours, bare = [], []
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, "main.py").write_text(HELLO)
        compile_as_deployed(ROOT / "main.py", ROOT / "agent", Path(tmp))
        for _ in range(runs):
            port = free_port()
            url = f"http://127.0.0.1:{port}/"
            env = dict(os.environ, PUBLIC_URL=url)
            ours.append(
                cold_start_ms(
                    [sys.executable, "-m", "functions_framework", "--target=a2a", f"--port={port}", "--host=127.0.0.1"],
                    url,
                    "/.well-known/agent-card.json",
                    ROOT,
                    env,
                )
            )
            port = free_port()
            url = f"http://127.0.0.1:{port}/"
            bare.append(
                cold_start_ms(
                    [
                        sys.executable,
                        "-m",
                        "functions_framework",
                        "--target=hello",
                        f"--port={port}",
                        "--host=127.0.0.1",
                    ],
                    url,
                    "/",
                    Path(tmp),
                    dict(os.environ),
                )
            )
    print(
        f"cold start to first card: ours median {median(ours):.0f} ms, bare hello-world {median(bare):.0f} ms, "
        f"ratio {median(ours) / median(bare):.2f}x  ({runs} runs each)"
    )


SAME_IMPORTS = """import functions_framework
from flask import Response
{imports}

BODY = open("body.json", "rb").read()


@functions_framework.http
def fixed(request):
    request.get_data()
    return Response(BODY, 200, mimetype="application/json")
"""

# What a first demo send leaves imported, from a fresh interpreter (stdlib and our own modules left out)
LOADED_PROBE = r"""
import json, sys
before = set(sys.modules)
import main
from flask import Flask
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
    "role": "user", "parts": [{"kind": "text", "text": QUESTION}]}}})
app = Flask("probe")
with app.test_request_context(main.STATE.config.rpc_path, method="POST", data=body, content_type="application/json"):
    from flask import request
    reply = main.a2a(request).get_data()
stdlib = set(sys.stdlib_module_names)
own = {"main", "agent", "tests", "bench"}
tops = sorted({m.split(".")[0] for m in sys.modules} - stdlib - own - {m.split(".")[0] for m in before})
tops = [m for m in tops if not m.startswith("_") and m not in ("cython_runtime", "pandas")]
harness = {"flask.testing", "werkzeug.test"}  # this probe's own test request, not the server's
print("LOADED " + json.dumps([m for m in sys.modules if m.split(".")[0] in tops and m.count(".") <= 1
                             and not m.split(".")[-1].startswith("_") and m not in harness]))
print("OWN " + json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "agent")))
"""
COLD_QUESTION = "Where are the gaps in outdoor furniture?"


def no_pandas_path(tmp: str) -> str:
    """A folder whose `pandas` fails to import, first on PYTHONPATH: the runtime has no pandas (a tests-only
    dependency), but this venv does, and pyarrow's one-time probe for it would import it (~0.2 s) here only."""
    Path(tmp, "pandas").mkdir(exist_ok=True)
    Path(tmp, "pandas", "__init__.py").write_text('raise ImportError("pandas is not in the runtime")\n')
    return tmp


def loaded_after_first_send(no_pandas: str, prefix: str = "LOADED ") -> list[str]:
    """The third-party modules (and their first-level submodules) a first demo send imports; with
    prefix "OWN ", our own agent.* modules it leaves imported instead."""
    probe = "QUESTION = " + json.dumps(COLD_QUESTION) + "\n" + LOADED_PROBE
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    env["PYTHONPATH"] = f"{no_pandas}{os.pathsep}{ROOT}"
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, env=env, check=True)
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith(prefix))
    return json.loads(line[len(prefix) :])


def first_send_ms(argv: list[str], port: int, body: bytes, cwd: Path, env: dict) -> tuple[float, bytes]:
    """Process start → the first completed message/send reply (POSTed as soon as the port accepts)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                conn.request("POST", "/", body=body, headers={"Content-Type": "application/json"})
                reply = conn.getresponse().read()
                return (time.perf_counter() - start) * 1000, reply
            except OSError:
                time.sleep(0.002)
    finally:
        proc.terminate()
        proc.wait(10)


def bench_cold_send(runs: int) -> None:
    """Issue 16 item 5: process start → first completed demo send, ours vs (a) a bare function that
    imports the same libraries and returns our reply's bytes, and (b) the same plus importing our own
    modules, doing no work (the floor our imports set); paired rounds, ratios per round.

    The anchor's rule: "the same imports" are exactly the third-party modules (and their first-level
    submodules) that our first demo send leaves imported in a fresh interpreter (the probe,
    `loaded_after_first_send`), standard library excluded (both sides share it, and much of it is
    imported by functions-framework already). Nothing is added by hand: when our cold path stops
    importing a library (pyarrow.csv once the demo comes pre-normalised), the anchor drops it too.
    (b) adds the agent.* modules the same probe finds imported, by `import`, in the bare function."""
    body = _body("message/send", _message(COLD_QUESTION))
    got: dict[str, list[float]] = {"ours": [], "bare": [], "floor": []}
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as hidden:
        no_pandas = no_pandas_path(hidden)
        modules = loaded_after_first_send(no_pandas)
        own = loaded_after_first_send(no_pandas, "OWN ")
        base_env = dict(os.environ, PYTHONPATH=no_pandas)
        floor_env = {k: v for k, v in base_env.items() if not k.startswith(AGENT_SETTINGS)}
        floor_env["PYTHONPATH"] = f"{no_pandas}{os.pathsep}{ROOT}"
        imports = "\n".join(f"import {m}  # noqa" for m in modules if m not in ("functions_framework", "flask"))
        for name, extra in (("bare", ""), ("floor", "\n".join(f"import {m}  # noqa" for m in own))):
            Path(tmp, name).mkdir()
            Path(tmp, name, "main.py").write_text(SAME_IMPORTS.format(imports=imports + "\n" + extra))
        compile_as_deployed(ROOT / "main.py", ROOT / "agent", Path(tmp))
        for i in range(runs + 1):
            port = free_port()
            env = {k: v for k, v in base_env.items() if not k.startswith(AGENT_SETTINGS)}
            env.update(PUBLIC_URL=f"http://127.0.0.1:{port}/", THREADS="8")
            argv = [sys.executable, "-m", "functions_framework", f"--port={port}", "--host=127.0.0.1"]
            ours, reply = first_send_ms([*argv, "--target=a2a"], port, body, ROOT, env)
            assert b'"completed"' in reply, reply[:300]
            round_ms = {"ours": ours}
            for name, run_env in (("bare", base_env), ("floor", floor_env)):
                Path(tmp, name, "body.json").write_bytes(reply)
                port = free_port()
                argv = [sys.executable, "-m", "functions_framework", f"--port={port}", "--host=127.0.0.1"]
                round_ms[name], _ = first_send_ms([*argv, "--target=fixed"], port, body, Path(tmp, name), run_env)
            if i:  # the first round warms the page cache (and writes the bare functions' reply)
                for name, ms in round_ms.items():
                    got[name].append(ms)
    _print_cold_send(got, len(modules), len(own), runs)
    print("  imports: " + ", ".join(sorted({m.split(".")[0] for m in modules})))


def _print_cold_send(got: dict[str, list[float]], modules: int, own: int, runs: int) -> None:
    ratio = [o / b for o, b in zip(got["ours"], got["bare"])]
    floor = [f / b for f, b in zip(got["floor"], got["bare"])]
    print(
        f"process start -> first completed send ({COLD_QUESTION!r}): ours median {median(got['ours']):.0f} ms, "
        f"bare function with the same {modules} imports {median(got['bare']):.0f} ms, "
        f"paired ratio median {median(ratio):.2f}x (range {min(ratio):.2f}-{max(ratio):.2f}, {runs} pairs); "
        f"floor (bare + our {own} modules imported, no work) {median(got['floor']):.0f} ms, "
        f"{median(floor):.2f}x bare (range {min(floor):.2f}-{max(floor):.2f})"
    )


def main() -> None:
    if sys.argv[1:] == ["--cold-send"]:  # item 5 alone
        bench_cold_send(int(os.environ.get("BENCH_COLD_RUNS", "7")))
        return
    runs = int(os.environ.get("BENCH_RUNS", "200"))
    server = Server()
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        for _ in range(5):  # warm: imports, demo catalog parsed and cached
            first_event_ms(conn, "Where are the gaps in outdoor furniture?")
        firsts = [first_event_ms(conn, "What is in this file?") for _ in range(runs)]
        _, sent = unary_ms(conn, _body("message/send", _message("What is in this file?")))
        task_id = sent["result"]["id"]
        gets = [unary_ms(conn, _body("tasks/get", {"id": task_id}))[0] for _ in range(runs)]
        sends = [
            unary_ms(conn, _body("message/send", _message("What is in this file?")))[0]
            for _ in range(max(20, runs // 4))
        ]
        gaps = [
            unary_ms(conn, _body("message/send", _message("Where are the gaps in outdoor furniture?")))[0]
            for _ in range(max(20, runs // 4))
        ]
        print(f"time to first SSE event (warm, back to back): median {median(firsts):.2f} ms over {runs}")
        print(f"tasks/get round trip (warm, back to back):    median {median(gets):.2f} ms over {runs}")
        print(f"message/send overview on demo (warm):          median {median(sends):.2f} ms over {len(sends)}")
        print(f"message/send gaps question on demo (warm):     median {median(gaps):.2f} ms over {len(gaps)}")
        answer = our_answer(conn, "What is in this file?")
        conn.request(
            "POST", "/", body=_body("tasks/get", {"id": task_id}), headers={"Content-Type": "application/json"}
        )
        get_body = conn.getresponse().read()
        ours = raw_figures(server.port, runs)
        ours_client = client_figures(server.url, runs)
    finally:
        server.stop()
    try:
        bench_reference(runs, ours, ours_client, answer, get_body)
    except ImportError:
        print("a2a-sdk reference server not installed (pip install 'a2a-sdk[http-server]' uvicorn): skipped")
    bench_cold(int(os.environ.get("BENCH_COLD_RUNS", "7")))
    bench_cold_send(int(os.environ.get("BENCH_COLD_RUNS", "7")))


if __name__ == "__main__":
    main()
