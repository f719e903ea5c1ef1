"""The compiled schema predicate (agent/protocol/predicate.py) says "valid" exactly when jsonschema does.

The predicate decides alone that a request is valid (jsonschema then never runs), so a disagreement
would let a bad request through or refuse a good one without a sentence. Checked as a property over a
generated corpus: for every schema in schemas/, valid instances of each request shape, each with every
field (at every depth) replaced by every value of a list of wrong types and edge values (1.0, True,
NaN, empty and lone-surrogate strings, …), fields removed, unknown fields added, and seeded random
combinations of two breakages; every sub-object of every instance is also fed to every schema.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any, Iterator

import pytest
from jsonschema import Draft202012Validator

from agent.protocol import jsonrpc, predicate
from tests.helpers import SCHEMA_EDGE_VALUES as VALUES

SCHEMAS = sorted(p.name for p in jsonrpc.SCHEMA_DIR.glob("*.json"))
SEED = 16

TEXT = {"kind": "text", "text": "What is in this catalog?"}
FILE_BYTES = {"kind": "file", "file": {"bytes": "YQ==", "name": "c.csv", "mimeType": "text/csv"}}
FILE_URI = {"kind": "file", "file": {"uri": "https://x/y.csv", "name": None}}
DATA = {"kind": "data", "data": {"k": 1}, "metadata": {}}
MESSAGE = {
    "kind": "message",
    "role": "user",
    "messageId": "m-1",
    "contextId": "ctx",
    "taskId": "t",
    "referenceTaskIds": ["a"],
    "extensions": ["https://x/ext"],
    "metadata": {},
    "parts": [TEXT, FILE_BYTES, FILE_URI, DATA],
}
SEED_INSTANCES: list[Any] = [
    {"jsonrpc": "2.0", "id": "r-1", "method": "message/send", "params": {"message": MESSAGE}},
    {"jsonrpc": "2.0", "id": 7, "method": "tasks/get", "params": {"id": "t", "historyLength": 2, "metadata": {}}},
    {"jsonrpc": "2.0", "id": None, "method": "tasks/cancel", "params": []},
    {
        "message": MESSAGE,
        "contextId": "ctx",
        "metadata": {},
        "catalog_context": {
            "merchant_id": "acme",
            "catalog_uri": "gs://b/x.csv",
            "reference_uri": "bq://p.d.t",
            "signature": "ab" * 32,
        },
        "configuration": {
            "acceptedOutputModes": ["text/plain"],
            "historyLength": 0,
            "blocking": True,
            "pushNotificationConfig": {},
        },
    },
    {"id": "t", "historyLength": 1.0, "metadata": {}},
    {"merchant_id": "acme", "catalog_uri": "gs://b/x.csv"},
]


def paths(node: Any, prefix: tuple = ()) -> Iterator[tuple]:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from paths(value, (*prefix, index))


def replaced(node: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    out = copy.deepcopy(node)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


def removed(node: Any, path: tuple) -> Any:
    out = copy.deepcopy(node)
    target = out
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return out


def corpus() -> Iterator[Any]:
    rng = random.Random(SEED)
    broken: list[Any] = []
    for seed in SEED_INSTANCES:
        yield seed
        for path in list(paths(seed)):
            for value in VALUES:
                broken.append(replaced(seed, path, value))
            if path:
                broken.append(removed(seed, path))
            node = seed
            for key in path:
                node = node[key]
            yield node  # every sub-object, against every schema
            if isinstance(node, dict):
                broken.append(replaced(seed, path, {**node, "unknown": 1}))
    yield from broken
    for _ in range(400):  # two breakages at once
        first = rng.choice(broken)
        path = rng.choice(list(paths(first)))
        yield replaced(first, path, rng.choice(VALUES))


CORPUS = list(corpus())


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_schema_is_valid_and_compiles(name):
    """The schemas are checked against the metaschema here (the server only does so when a request
    fails), and each one compiles: else every request would fall back to jsonschema."""
    Draft202012Validator.check_schema(json.loads((jsonrpc.SCHEMA_DIR / name).read_text(encoding="utf-8")))
    predicate.compile_schema(jsonrpc._inlined(name))


@pytest.mark.parametrize("name", SCHEMAS)
def test_predicate_agrees_with_jsonschema(name):
    check = predicate.compile_schema(jsonrpc._inlined(name))
    validator = Draft202012Validator(jsonrpc._inlined(name))
    disagreements = [x for x in CORPUS if check(x) != validator.is_valid(x)]
    assert not disagreements, f"{name}: {len(disagreements)} disagreements, first: {disagreements[0]!r:.300}"
    verdicts = {check(x) for x in CORPUS}
    assert verdicts == {True, False}, f"{name}: the corpus never reaches both answers"


def test_unknown_keywords_are_refused_not_ignored():
    for schema in ({"type": "string", "format": "email"}, {"patternProperties": {"^a": {}}}, {"$ref": "#/x"}):
        with pytest.raises(predicate.Unsupported):
            predicate.compile_schema(schema)
    assert predicate.compile_schema({"x-message": "m", "title": "t", "type": "object"})({})


SMALL_SCHEMAS: list[Any] = [
    True,
    False,
    {},
    {"not": {}},
    {"oneOf": [{"type": "integer"}, {"type": "number"}]},
    {"anyOf": [{"type": "integer"}, {"type": "string", "minLength": 2}]},
    {"allOf": [{"type": ["string", "null"]}, {"maxLength": 1}]},
    {"const": True},
    {"const": None},
    {"enum": [None, False, "x"]},
    {"pattern": "^[0-9a-f]+$"},
    {"minimum": 0},
    {"minimum": 0.5},
    {"minItems": 1, "items": {"type": "string"}},
    {"properties": {"a": {"type": "integer"}}, "additionalProperties": {"type": "string"}},
    {"properties": {"a": {}}, "additionalProperties": False, "required": ["a"]},
    {"if": {"type": "string"}, "then": {"minLength": 1}, "else": {"type": "null"}},
    {"if": {"type": "string"}, "else": {"type": "boolean"}},
    {"then": {"type": "string"}, "else": {"type": "string"}},  # without `if` they do nothing
]


@pytest.mark.parametrize("schema", SMALL_SCHEMAS, ids=[json.dumps(s)[:60] for s in SMALL_SCHEMAS])
def test_each_keyword_agrees_with_jsonschema(schema):
    """Keyword by keyword, including ones our schemas use only in shapes where a slip would not show
    (oneOf with overlapping branches, boolean consts, additionalProperties with a schema)."""
    check = predicate.compile_schema(schema)
    validator = Draft202012Validator(schema)
    values = VALUES + [{"a": v} for v in VALUES] + [{"a": 1, "b": v} for v in VALUES]
    disagreements = [v for v in values if check(v) != validator.is_valid(v)]
    assert not disagreements, f"{len(disagreements)} disagreements, first: {disagreements[0]!r:.200}"
