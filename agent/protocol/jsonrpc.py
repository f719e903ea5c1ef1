"""JSON-RPC 2.0 request parsing in stages: JSON → envelope → method → params (SPEC §2).

Each stage has its own error code, so a client learns exactly what was wrong. Schemas live in
`schemas/` at the repository root; each failing keyword there carries `x-message`, the fixed sentence
sent back. Validators are built lazily and once: the first request pays for them, not cold start. A
valid request is recognised by the schema compiled to a plain predicate (`predicate.py`); jsonschema
runs only to explain an invalid one.
"""

from __future__ import annotations

import functools
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import errors, predicate
from .objects import Encoded

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schemas"

SEND = "message/send"
STREAM = "message/stream"
GET = "tasks/get"
CANCEL = "tasks/cancel"
RESUBSCRIBE = "tasks/resubscribe"
EXTENDED_CARD = "agent/getAuthenticatedExtendedCard"
PUSH_METHODS = frozenset(
    {
        "tasks/pushNotificationConfig/set",
        "tasks/pushNotificationConfig/get",
        "tasks/pushNotificationConfig/list",
        "tasks/pushNotificationConfig/delete",
    }
)
PARAMS_SCHEMA = {
    SEND: "message_send_params.json",
    STREAM: "message_send_params.json",
    GET: "task_query_params.json",
    CANCEL: "task_id_params.json",
    RESUBSCRIBE: "task_id_params.json",
}
GENERIC_PARAMS_MESSAGE = "The request's params are not valid for this method."
MAX_DEPTH = 64  # nesting levels a request may have (A2A messages need about 8)
_SURROGATE = re.compile("[\ud800-\udfff]")
DEPTH_MESSAGE = "The request is nested too deeply (at most 64 levels)."
SURROGATE_MESSAGE = "The request holds a string that is not valid Unicode (a lone surrogate)."
# A request id is echoed in every answer, and in every frame of a stream: a 10 MB id made a 50 MB stream.
MAX_ID_CHARS = 1024
ID_LENGTH_MESSAGE = "The request's id is longer than 1,024 characters."


# A request id as echoed: a string, an integer, or an integral float (1.0) that the envelope accepts as one.
RequestId = str | int | float | None


@dataclass(frozen=True)
class Request:
    id: RequestId
    method: str
    params: dict[str, Any]


def _has_surrogate(text: str) -> bool:
    """A lone surrogate anywhere in `text`. An ASCII string (nearly every id, and what `isascii` answers
    from the string's own header, without a scan) has none, so the regex runs only on the others."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def read_id(payload: Any) -> RequestId:
    """The id to echo: the request's own when it is a string or integer, else null."""
    if isinstance(payload, dict):
        rid = payload.get("id")
        if isinstance(rid, str) and (len(rid) > MAX_ID_CHARS or _has_surrogate(rid)):
            return None  # cannot be echoed: not valid Unicode, or too long to repeat in every frame
        if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)):
            return rid
        if isinstance(rid, float) and rid.is_integer():  # 1.0 passes the envelope as an integer: echo it
            return rid
    return None


def _refuse_constant(literal: str) -> Any:
    """NaN, Infinity or -Infinity: Python's parser takes them, JSON (RFC 8259) has no such numbers.
    (Raised from inside the parser, which lets it through.)"""
    raise errors.RpcError(errors.PARSE_ERROR, CONSTANT_MESSAGE)


def _finite_float(literal: str) -> float:
    """A JSON number as a float; one beyond the double range (1e999) would parse as inf and be echoed
    as Infinity, which is not JSON (RFC 8259 §6 lets an implementation limit the range)."""
    value = float(literal)
    if math.isinf(value):
        raise errors.RpcError(errors.INVALID_REQUEST, RANGE_MESSAGE)
    return value


# Strict where Python's json is lenient: a NaN or Infinity literal (or 1e999, which parses as inf), once
# parsed, would be echoed (in the task's history, in tasks/get) as a bare NaN or Infinity that no strict
# client can parse. One decoder, built once (json.loads with a keyword builds a new one per call).
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)
CONSTANT_MESSAGE = "The request body is not valid JSON: NaN and Infinity are not JSON numbers."
DIGITS_MESSAGE = "The request holds a number too long to read (more than 4,300 digits)."
RANGE_MESSAGE = "The request holds a number too large to read (beyond 1.7e308)."


def parse_json(body: bytes) -> Any:
    """The parsed body. Strict UTF-8 first: json.loads(bytes) would let raw surrogate bytes (ED A0 80)
    through as a lone surrogate, which no answer can then encode."""
    try:
        return _DECODER.decode(body.decode("utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise errors.parse_error() from None
    except ValueError:  # valid JSON, but an integer longer than Python converts (sys.get_int_max_str_digits)
        raise errors.RpcError(errors.INVALID_REQUEST, DIGITS_MESSAGE) from None
    except RecursionError:  # valid JSON, nested past the parser's own limit (about 1,000 levels)
        raise errors.RpcError(errors.INVALID_REQUEST, DEPTH_MESSAGE) from None


def check_shape(payload: Any) -> None:
    """Nesting depth and lone surrogates (from `\\ud800` escapes), anywhere in the request, before the
    schemas run: -32600 in the envelope, -32602 under params. Iterative, so depth itself cannot hurt."""
    stack: list[tuple[Any, int, bool]] = [(payload, 1, False)]
    while stack:
        node, depth, in_params = stack.pop()
        if isinstance(node, str):
            if _has_surrogate(node):
                raise errors.RpcError(errors.INVALID_PARAMS if in_params else errors.INVALID_REQUEST, SURROGATE_MESSAGE)
            continue
        if not isinstance(node, (dict, list)):
            continue
        if depth > MAX_DEPTH:
            raise errors.RpcError(errors.INVALID_PARAMS if in_params else errors.INVALID_REQUEST, DEPTH_MESSAGE)
        if isinstance(node, dict):
            for key, value in node.items():
                under = in_params or (depth == 1 and key == "params")
                stack.append((key, depth + 1, under))
                stack.append((value, depth + 1, under))
        else:
            stack.extend((item, depth + 1, in_params) for item in node)


_TASK_ID_METHODS = frozenset({GET, CANCEL, RESUBSCRIBE})
_PLAIN_KEYS = frozenset({"jsonrpc", "id", "method", "params"})


def _plain_task_call(payload: dict[str, Any]) -> Request | None:
    """The Request of a tasks/get, tasks/cancel or tasks/resubscribe in its plain shape, else None.

    Why (issue 16 item 6): these are the calls a client repeats (polling), and on them the general
    checks (the depth and surrogate walk, two compiled schemas) were a tenth of our own time. Plain
    means exactly: the four members, jsonrpc "2.0", an id that is a string or an integer, params with
    only a non-empty string id, no lone surrogate in either string, an id of at most MAX_ID_CHARS. Every such request is valid under
    the schemas and gives the same Request the full path gives; anything else (null id, historyLength,
    metadata, any mistake) goes the full path, so every error stays the full path's own."""
    if payload.keys() != _PLAIN_KEYS or payload["jsonrpc"] != "2.0" or type(payload["jsonrpc"]) is not str:
        return None
    method, rid, params = payload["method"], payload["id"], payload["params"]
    if type(method) is not str or method not in _TASK_ID_METHODS or type(params) is not dict or len(params) != 1:
        return None
    task_id = params.get("id")
    if type(task_id) is not str or not task_id or _has_surrogate(task_id):
        return None
    if type(rid) is str:
        if len(rid) > MAX_ID_CHARS or _has_surrogate(rid):
            return None
    elif type(rid) is not int:
        return None
    return Request(id=rid, method=method, params=params)


def validate(payload: Any) -> Request:
    """Stages 2–4 on an already parsed body (the transport parses once and keeps the id to echo)."""
    plain = _plain_task_call(payload) if type(payload) is dict else None
    return plain if plain is not None else validate_fully(payload)


def validate_fully(payload: Any) -> Request:
    """Every check, in stage order: the path of every request that is not a plain task call."""
    if not isinstance(payload, dict):
        raise errors.RpcError(
            errors.INVALID_REQUEST, "The request must be one JSON-RPC 2.0 object (batches are not supported)."
        )
    check_shape(payload)
    rid = payload.get("id")
    if isinstance(rid, str) and len(rid) > MAX_ID_CHARS:
        raise errors.RpcError(errors.INVALID_REQUEST, ID_LENGTH_MESSAGE)
    _check("envelope.json", payload, errors.INVALID_REQUEST, "The request is not a valid JSON-RPC 2.0 request.")
    method = payload["method"]
    if method in PUSH_METHODS:
        raise errors.RpcError(errors.PUSH_NOT_SUPPORTED, "Push notifications are not supported by this agent.")
    if method == EXTENDED_CARD:
        raise errors.RpcError(errors.EXTENDED_CARD_NOT_CONFIGURED, "This agent has no authenticated extended card.")
    if method not in PARAMS_SCHEMA:
        raise errors.RpcError(errors.METHOD_NOT_FOUND, "The method is not supported by this agent.")
    params = payload.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise errors.RpcError(errors.INVALID_PARAMS, "The request's params must be an object.")
    _check(PARAMS_SCHEMA[method], params, errors.INVALID_PARAMS, GENERIC_PARAMS_MESSAGE)
    return Request(id=read_id(payload), method=method, params=params)


def success(request_id: RequestId, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def success_body(request_id: RequestId, result: Any) -> bytes:
    """`success(...)` as compact JSON in UTF-8; a result that carries its JSON (objects.Encoded) is
    spliced in, not encoded again — the same bytes either way (key order jsonrpc, id, result)."""
    if isinstance(result, Encoded):
        # an integer id (what clients send nearly always) is its decimal digits, as json writes it
        rid = str(request_id) if type(request_id) is int else _encode_id(request_id)
        return b"".join((_SUCCESS_HEAD, rid.encode("utf-8"), _SUCCESS_RESULT, result.data, b"}"))
    return json.dumps(success(request_id, result), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


_SUCCESS_HEAD, _SUCCESS_RESULT = b'{"jsonrpc":"2.0","id":', b',"result":'


# One encoder, made once: json.dumps with an option builds a new JSONEncoder on every call (1.3 against
# 0.7 µs for an id, in a loop). A JSON-RPC id is a string, a number or null, encoded as json.dumps would.
_encode_id = json.JSONEncoder(ensure_ascii=False).encode


def failure(request_id: RequestId, error: errors.RpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_dict()}


def _check(name: str, instance: Any, code: int, fallback: str) -> None:
    """Nothing when `instance` is valid under schema `name`; else the RpcError its best error names.

    The compiled predicate answers the valid case (nearly every request) without jsonschema, which
    is then neither run nor, on a cold instance, imported; only an invalid instance goes through the
    validator, so the error chosen and its sentence are exactly jsonschema's `best_match`."""
    if _predicate(name)(instance):
        return
    from jsonschema.exceptions import best_match

    error = best_match(_validator(name).iter_errors(instance))
    if error is not None:
        raise errors.RpcError(code, _message_for(error) or fallback)


def _message_for(error: Any) -> str | None:
    """The fixed sentence a schema attaches to the failing keyword (x-message and friends)."""
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = [name for name in error.validator_value if name not in error.instance]
        messages = schema.get("x-required-messages", {})
        for name in missing:
            if name in messages:
                return messages[name]
    if error.validator == "oneOf" and "x-oneOf-message" in schema:
        return schema["x-oneOf-message"]
    return schema.get("x-message")


@functools.cache
def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


def _inline(node: Any, document: str) -> Any:
    """The schema with every `$ref` replaced by what it points to (our schemas have no cycles).

    jsonschema resolves references through its registry on every validation, which made checking one
    small message cost ~0.35 ms; inlined once at load, it is several times cheaper.
    """
    if isinstance(node, list):
        return [_inline(item, document) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        target_doc, _, pointer = ref.partition("#")
        target_doc = target_doc or document
        target: Any = _schema(target_doc)
        for key in [k for k in pointer.split("/") if k]:
            target = target[key]
        merged = {k: v for k, v in target.items() if k not in ("$id", "$schema", "$defs")}
        merged.update({k: v for k, v in node.items() if k != "$ref"})
        return _inline(merged, target_doc)
    return {key: _inline(value, document) for key, value in node.items() if key != "$defs"}


@functools.cache
def _inlined(name: str) -> dict[str, Any]:
    return _inline(_schema(name), name)


@functools.cache
def _predicate(name: str) -> predicate.Check:
    """Schema `name` compiled to a yes/no check (or, with a keyword the compiler lacks, jsonschema's own)."""
    try:
        return predicate.compile_schema(_inlined(name))
    except predicate.Unsupported:
        return _validator(name).is_valid


@functools.cache
def _validator(name: str) -> Any:
    """jsonschema's validator for `name`, built on the first request that fails the predicate.
    (tests/test_schema_predicate.py checks every schema against the metaschema.)"""
    from jsonschema import Draft202012Validator

    schema = _schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(_inlined(name))
