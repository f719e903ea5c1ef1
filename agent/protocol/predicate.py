"""A JSON Schema compiled once into a plain yes/no function: the cheap check for valid requests.

Why: jsonschema walks the schema object on every call (keyword lookups, a generator per level, error
objects prepared for `best_match`), which was the largest single part of a `tasks/get` on our side
(issue 16 item 6). Nearly every request is valid, and a valid request needs no error at all — only the
answer "valid". So the schemas are compiled here into nested closures that answer exactly that, and
jsonschema (with `best_match` and the schemas' `x-message` sentences) runs only when this says "no":
the errors a client sees are built as before, by the same validator.

Exact Draft 2020-12 semantics, for the keywords our schemas use and no others: `compile_schema`
raises `Unsupported` on any keyword it does not know, and the caller then keeps jsonschema alone for
that schema (a new keyword in `schemas/` can make a request slower, never wrongly accepted).
tests/test_schema_predicate.py checks this module against jsonschema over generated requests.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from agent.errors import AgentError

Check = Callable[[Any], bool]

# Keywords with no effect on validity (annotations, ours included: x-message and friends).
_ANNOTATIONS = frozenset({"$schema", "$id", "$comment", "title", "description", "examples", "default"})


class Unsupported(AgentError):
    """The schema uses a keyword this compiler does not implement."""


def compile_schema(schema: Any) -> Check:
    """`schema` (with every `$ref` already inlined) as a function: instance → is it valid?"""
    if schema is True:
        return _always
    if schema is False:
        return _never
    if not isinstance(schema, dict):
        raise Unsupported(f"a schema must be an object or a boolean, not {type(schema).__name__}")
    unknown = [k for k in schema if k not in _KEYWORDS and k not in _ANNOTATIONS and not k.startswith("x-")]
    if unknown:
        raise Unsupported(f"keywords not compiled: {', '.join(sorted(unknown))}")
    checks: list[Check] = []
    if "type" in schema:
        checks.append(_type(schema["type"]))
    for keyword in ("const", "enum"):
        if keyword in schema:
            checks.append(_KEYWORDS[keyword](schema[keyword], schema))
    for keyword in _KEYWORDS:
        if keyword in schema and keyword not in ("type", "const", "enum", "then", "else"):
            checks.append(_KEYWORDS[keyword](schema[keyword], schema))
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda x: first(x) and second(x)
    return lambda x: all(check(x) for check in checks)


def _always(_: Any) -> bool:
    return True


def _never(_: Any) -> bool:
    return False


def _is_integer(x: Any) -> bool:
    # JSON Schema's integer: any number with a zero fractional part (1.0 is one); booleans are not numbers.
    return (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer())


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


_TYPES: dict[str, Check] = {
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
    "string": lambda x: isinstance(x, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
}


def _type(value: Any) -> Check:
    names = [value] if isinstance(value, str) else list(value)
    if any(name not in _TYPES for name in names):
        raise Unsupported(f"type {value!r}")
    tests = [_TYPES[name] for name in names]
    if len(tests) == 1:
        return tests[0]
    return lambda x: any(test(x) for test in tests)


def _literal(value: Any) -> Check:
    """Equality as JSON Schema means it, for the literals we compile: strings, null and booleans
    (True is not 1 there); anything else is left to jsonschema."""
    if isinstance(value, str):
        return lambda x: isinstance(x, str) and x == value
    if value is None:
        return lambda x: x is None
    if isinstance(value, bool):
        return lambda x: x is value
    raise Unsupported(f"const/enum value {value!r}")


def _const(value: Any, _: dict) -> Check:
    return _literal(value)


def _enum(values: Any, _: dict) -> Check:
    if all(isinstance(v, str) for v in values):
        allowed = frozenset(values)
        return lambda x: isinstance(x, str) and x in allowed
    tests = [_literal(v) for v in values]
    return lambda x: any(test(x) for test in tests)


def _min_length(n: int, _: dict) -> Check:
    return lambda x: not isinstance(x, str) or len(x) >= n


def _max_length(n: int, _: dict) -> Check:
    return lambda x: not isinstance(x, str) or len(x) <= n


def _pattern(pattern: str, _: dict) -> Check:
    search = re.compile(pattern).search  # jsonschema also searches (not anchored unless the pattern is)
    return lambda x: not isinstance(x, str) or search(x) is not None


def _minimum(bound: Any, _: dict) -> Check:
    return lambda x: not _is_number(x) or not x < bound  # (NaN passes, as in jsonschema)


def _min_items(n: int, _: dict) -> Check:
    return lambda x: not isinstance(x, list) or len(x) >= n


def _items(schema: Any, _: dict) -> Check:
    check = compile_schema(schema)
    return lambda x: not isinstance(x, list) or all(check(item) for item in x)


def _required(names: list[str], _: dict) -> Check:
    needed = tuple(names)
    return lambda x: not isinstance(x, dict) or all(name in x for name in needed)


def _properties(properties: dict[str, Any], _: dict) -> Check:
    checks = {name: compile_schema(sub) for name, sub in properties.items()}

    def check(x: Any) -> bool:
        if not isinstance(x, dict):
            return True
        for name, value in x.items():
            test = checks.get(name)
            if test is not None and not test(value):
                return False
        return True

    return check


def _additional_properties(schema: Any, parent: dict) -> Check:
    if "patternProperties" in parent:
        raise Unsupported("additionalProperties beside patternProperties")
    known = frozenset(parent.get("properties", {}))
    extra = compile_schema(schema)
    return lambda x: not isinstance(x, dict) or all(extra(v) for k, v in x.items() if k not in known)


def _if(schema: Any, parent: dict) -> Check:
    condition = compile_schema(schema)
    then = compile_schema(parent.get("then", True))
    otherwise = compile_schema(parent.get("else", True))
    return lambda x: then(x) if condition(x) else otherwise(x)


def _one_of(schemas: list[Any], _: dict) -> Check:
    checks = [compile_schema(sub) for sub in schemas]
    return lambda x: sum(1 for check in checks if check(x)) == 1


def _any_of(schemas: list[Any], _: dict) -> Check:
    checks = [compile_schema(sub) for sub in schemas]
    return lambda x: any(check(x) for check in checks)


def _all_of(schemas: list[Any], _: dict) -> Check:
    checks = [compile_schema(sub) for sub in schemas]
    return lambda x: all(check(x) for check in checks)


def _not(schema: Any, _: dict) -> Check:
    check = compile_schema(schema)
    return lambda x: not check(x)


def _unused(_: Any, __: dict) -> Check:
    return _always  # `then`/`else` are compiled by `if` (and alone, without `if`, they do nothing)


_KEYWORDS: dict[str, Callable[[Any, dict], Check]] = {
    "type": lambda value, _: _type(value),
    "const": _const,
    "enum": _enum,
    "minLength": _min_length,
    "maxLength": _max_length,
    "pattern": _pattern,
    "minimum": _minimum,
    "minItems": _min_items,
    "items": _items,
    "required": _required,
    "properties": _properties,
    "additionalProperties": _additional_properties,
    "if": _if,
    "then": _unused,
    "else": _unused,
    "oneOf": _one_of,
    "anyOf": _any_of,
    "allOf": _all_of,
    "not": _not,
}
