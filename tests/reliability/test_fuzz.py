"""Generated hostile requests against a real server (#12 "How to show it").

A seeded generator takes a valid request of each method and breaks it one field at a time: every field
gets every wrong type, hostile strings (lone surrogates, NUL and control characters, bidi overrides,
very long text, path and URL tricks), deep nesting and odd sizes; some bodies are broken as bytes
(invalid UTF-8, truncation, a BOM, garbage). Every answer must be HTTP 200 JSON (or a well-formed SSE
stream), carry a JSON-RPC code from the contract (never -32603), leak nothing internal, and the server
must stay up. Deterministic (fixed seed): a failure names the request that caused it.
"""

from __future__ import annotations

import base64
import copy
import json
import random
from typing import Any, Iterator

import httpx

SEED = 12
ALLOWED = {-32700, -32600, -32601, -32602, -32001, -32002, -32003, -32004, -32005, -32007}
INTERNALS = (
    "Traceback",
    'File "',
    ".py",
    "/work/",
    "/home/",
    "site-packages",
    "KeyError",
    "TypeError",
    "AttributeError",
    "ValueError",
    "RecursionError",
    "Exception",
    "gs://",
    "127.0.0.1:",
)
CSV64 = base64.b64encode(b"id,title,price\nP1,Chair,10.00\nP2,Table,20.00\n").decode()

WRONG_TYPES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    10**40,
    -(10**40),
    1e308,
    "",
    "x",
    [],
    {},
    [None],
    {"a": 1},
    [[[]]],
    "0",
    "null",
]
HOSTILE = [
    "\ud800",
    "\udfff",
    "a\ud83dz",
    "\x00",
    "\x00\x01\x1f\x7f",
    "\u202egnp.exe",
    "../../etc/passwd",
    "C:\\Windows\\win.ini",
    "file:///etc/passwd",
    "http://169.254.169.254/computeMetadata/v1/",
    "gs://other-bucket/x.csv",
    "%2e%2e%2f",
    "<script>alert(1)</script>",
    "![t](https://evil/b.png)",
    "' OR 1=1 --",
    "${jndi:ldap://x}",
    "{{7*7}}",
    "\r\nX-Injected: 1",
    "😀" * 50,
    "x" * 100_000,
    " ",
    "\ufeff",
    "NaN",
    "Infinity",
    "-0",
]


def deep(n: int) -> Any:
    node: Any = {}
    for _ in range(n):
        node = {"d": node}
    return node


def valid(method: str) -> dict:
    message = {
        "kind": "message",
        "role": "user",
        "messageId": "m-1",
        "parts": [
            {"kind": "text", "text": "What is in this catalog?"},
            {"kind": "file", "file": {"bytes": CSV64, "name": "c.csv", "mimeType": "text/csv"}},
        ],
    }
    if method in ("message/send", "message/stream"):
        params: dict = {
            "message": message,
            "configuration": {"acceptedOutputModes": ["text/plain"], "historyLength": 2},
            "metadata": {},
        }
    elif method == "tasks/get":
        params = {"id": "no-such-task", "historyLength": 1}
    else:
        params = {"id": "no-such-task"}
    return {"jsonrpc": "2.0", "id": "r-1", "method": method, "params": params}


# paths (into the valid request) of every field a mutation may replace
FIELDS = {
    "message/send": [
        ("jsonrpc",),
        ("id",),
        ("method",),
        ("params",),
        ("params", "message"),
        ("params", "message", "role"),
        ("params", "message", "messageId"),
        ("params", "message", "kind"),
        ("params", "message", "parts"),
        ("params", "message", "parts", 0),
        ("params", "message", "parts", 0, "kind"),
        ("params", "message", "parts", 0, "text"),
        ("params", "message", "parts", 1, "file"),
        ("params", "message", "parts", 1, "file", "bytes"),
        ("params", "message", "parts", 1, "file", "name"),
        ("params", "message", "parts", 1, "file", "mimeType"),
        ("params", "message", "contextId"),
        ("params", "message", "taskId"),
        ("params", "message", "metadata"),
        ("params", "message", "extensions"),
        ("params", "message", "referenceTaskIds"),
        ("params", "configuration"),
        ("params", "configuration", "acceptedOutputModes"),
        ("params", "configuration", "historyLength"),
        ("params", "configuration", "blocking"),
        ("params", "metadata"),
        ("params", "contextId"),
        ("params", "catalog_context"),
    ],
    "tasks/get": [("id",), ("params",), ("params", "id"), ("params", "historyLength"), ("params", "metadata")],
    "tasks/cancel": [("params", "id"), ("params", "metadata")],
    "tasks/resubscribe": [("params", "id")],
}


def put(body: dict, path: tuple, value: Any) -> dict:
    out = copy.deepcopy(body)
    node: Any = out
    for key in path[:-1]:
        node = node[key]
    if isinstance(node, list) and isinstance(path[-1], int) and path[-1] >= len(node):
        node.append(value)
    else:
        node[path[-1]] = value
    return out


def generate() -> Iterator[tuple[str, bytes]]:
    rng = random.Random(SEED)
    for method, fields in FIELDS.items():
        base = valid(method)
        for path in fields:
            for value in WRONG_TYPES + HOSTILE:
                yield f"{method} {path} = {str(value)[:40]!r}", json.dumps(put(base, path, value)).encode()
            for depth in (70, 600):
                yield f"{method} {path} nested {depth}", json.dumps(put(base, path, deep(depth))).encode()
    stream = valid("message/stream")
    for path in FIELDS["message/send"][::3]:
        value = rng.choice(WRONG_TYPES + HOSTILE)
        yield f"message/stream {path} = {str(value)[:40]!r}", json.dumps(put(stream, path, value)).encode()
    raw = json.dumps(valid("message/send")).encode()
    for name, body in [
        ("empty", b""),
        ("truncated", raw[: len(raw) // 2]),
        ("bom", b"\xef\xbb\xbf" + raw),
        ("raw surrogate", raw.replace(b"m-1", b"\xed\xa0\x80")),
        ("latin-1", raw.replace(b"What", b"\xe9t\xe9")),
        ("nul bytes", b"\x00" * 64),
        ("array", b"[" + raw + b"]"),
        ("batch", b"[" + raw + b"," + raw + b"]"),
        ("number", b"1e999"),
        ("deep array", b"[" * 50_000 + b"]" * 50_000),
        ("duplicate keys", raw[:-1] + b', "id": {"x": 1}}'),
        ("garbage", bytes(rng.randrange(256) for _ in range(512))),
        ("NaN literal", raw.replace(b'"messageId": "m-1"', b'"messageId": "m-1", "metadata": {"x": NaN}')),
        ("Infinity literal", raw.replace(b'"historyLength": 2', b'"historyLength": Infinity')),
        (
            "-Infinity literal",
            raw.replace(b'"messageId": "m-1"', b'"messageId": "m-1", "metadata": {"x": [-Infinity]}'),
        ),
        ("number past double", raw.replace(b'"messageId": "m-1"', b'"messageId": "m-1", "metadata": {"x": 1e999}')),
        ("integer past 4300 digits", raw.replace(b'"id": "r-1"', b'"id": ' + b"7" * 4400)),
    ]:
        yield f"raw {name}", body
    for i in range(60):  # random combinations of two breakages
        method = rng.choice(list(FIELDS))
        body = valid(method)
        for path in rng.sample(FIELDS[method], min(2, len(FIELDS[method]))):
            try:
                body = put(body, path, rng.choice(WRONG_TYPES + HOSTILE))
            except (KeyError, IndexError, TypeError):
                pass
        yield f"combo {i} {method}", json.dumps(body).encode()


def answers(response: httpx.Response) -> list[dict]:
    kind = response.headers.get("content-type", "")
    if kind.startswith("text/event-stream"):
        blocks = response.text.split("\n\n")
        assert blocks[-1] == ""
        return [strict_json(b[len("data: ") :]) for b in blocks[:-1]]
    assert kind.startswith("application/json"), kind
    return [strict_json(response.text)]


def strict_json(text: str) -> dict:
    """JSON as RFC 8259 defines it: Python's parser would also take NaN and Infinity, which a strict
    client cannot read."""

    def refuse(literal: str) -> None:
        raise AssertionError(f"{literal} in an answer: not JSON")

    return json.loads(text, parse_constant=refuse)


def test_generated_hostile_requests_stay_inside_the_contract(server):
    cases = list(generate())
    assert len(cases) >= 500
    seen_codes: set[int] = set()
    with httpx.Client(timeout=60) as client:
        for label, body in cases:
            response = client.post(server.url, content=body, headers={"Content-Type": "application/json"})
            assert response.status_code == 200, label
            assert response.headers.get("x-content-type-options") == "nosniff", label
            for answer in answers(response):
                assert answer.get("jsonrpc") == "2.0" and ("result" in answer) != ("error" in answer), label
                if "error" in answer:
                    code = answer["error"]["code"]
                    assert code in ALLOWED, (label, answer["error"])
                    assert isinstance(answer["error"]["message"], str) and answer["error"]["message"], label
                    seen_codes.add(code)
                text = json.dumps(answer, ensure_ascii=False)
                for word in INTERNALS:  # (what the client sent itself may come back: an echoed id, a file name)
                    assert word not in text or word.encode() in body, (label, word)
    assert {-32700, -32600, -32602, -32001} <= seen_codes
    assert httpx.get(server.url, timeout=10).json()["status"] == "ok"
    assert "Traceback" not in server.output()
