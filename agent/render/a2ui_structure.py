"""Structural checks on one A2UI v0.8 surface that the JSON Schema cannot express.

The schema checks shapes; a client also needs a well-formed tree: one action per message, one type per
component, unique ids, every referenced child present, the root present, every component reachable
exactly once (a tree, so the renderer builds as many nodes as we sent), no cycles, `weight` only on
children of Row/Column, inline values only (no data model, no templates), and one surface id throughout.
The builder runs these on its own output (cheap, pure) and the tests run them on every surface.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

ACTIONS = ("beginRendering", "surfaceUpdate", "dataModelUpdate", "deleteSurface")
ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]+$")
MAX_COMPONENTS = 150
# Property paths whose strings are meant to be component ids.
_REFERENCE = re.compile(r"(\.explicitList\[\d+\]|\.child|\.entryPointChild|\.contentChild|\.componentId)$")


def child_ids(kind: str, props: dict[str, Any]) -> list[str]:
    """Ids a component of type `kind` refers to as children, in order."""
    ids: list[str] = []
    children = props.get("children")
    if isinstance(children, dict):
        ids.extend(x for x in children.get("explicitList", []) if isinstance(x, str))
    for key in ("child", "entryPointChild", "contentChild"):
        if isinstance(props.get(key), str):
            ids.append(props[key])
    for tab in props.get("tabItems", []) or []:
        if isinstance(tab, dict) and isinstance(tab.get("child"), str):
            ids.append(tab["child"])
    return ids


def validate_structure(messages: list[dict], max_components: int = MAX_COMPONENTS) -> list[str]:
    """Problems with one surface's messages (`beginRendering` then `surfaceUpdate`); empty when sound."""
    errors: list[str] = []
    surface_ids: set[str] = set()
    roots: list[str] = []
    components: list[dict] = []
    for message_index, msg in enumerate(messages):
        if not isinstance(msg, dict) or len(msg) != 1 or next(iter(msg)) not in ACTIONS:
            errors.append(f"message {message_index}: must hold exactly one of {', '.join(ACTIONS)}")
            continue
        action, body = next(iter(msg.items()))
        if "version" in body:
            errors.append(f"message {message_index}: has a 'version' key")
        if not isinstance(body.get("surfaceId"), str) or not body["surfaceId"]:
            errors.append(f"message {message_index}: surfaceId missing")
        else:
            surface_ids.add(body["surfaceId"])
        if action == "beginRendering":
            if components:
                errors.append(f"message {message_index}: beginRendering must come before surfaceUpdate")
            roots.append(body.get("root"))
        elif action == "surfaceUpdate":
            components.extend(component for component in body.get("components", []) if isinstance(component, dict))
        else:
            errors.append(f"message {message_index}: unexpected {action} (no data model, no deletion)")
    if len(surface_ids) > 1:
        errors.append(f"surfaceId differs across messages: {sorted(surface_ids)}")
    if len(roots) != 1:
        errors.append(f"expected one beginRendering, found {len(roots)}")
    if not components:
        errors.append("no components")
        return errors
    errors.extend(_check_components(components, roots[0] if roots else None, max_components))
    return errors


def _check_components(components: list[dict], root: str | None, max_components: int) -> list[str]:
    errors: list[str] = []
    if len(components) > max_components:
        errors.append(f"{len(components)} components exceed the limit of {max_components}")
    by_id: dict[str, tuple[str, dict]] = {}
    for comp in components:
        cid = comp.get("id")
        if set(comp) - {"id", "component", "weight"}:
            errors.append(f"component {cid!r}: unexpected keys {sorted(set(comp) - {'id', 'component', 'weight'})}")
        if not isinstance(cid, str) or not ID_PATTERN.match(cid):
            errors.append(f"component id {cid!r} is not [A-Za-z0-9_-]+")
            continue
        if cid in by_id:
            errors.append(f"component id {cid!r} is not unique")
        body = comp.get("component")
        if not isinstance(body, dict) or len(body) != 1:
            errors.append(f"component {cid!r}: 'component' must hold exactly one type")
            continue
        kind, props = next(iter(body.items()))
        by_id[cid] = (kind, props if isinstance(props, dict) else {})
    # Values: inline literals only, never empty, never equal to a component id.
    for cid, (kind, props) in by_id.items():
        for where, value in _walk(props):
            if where.endswith(".path") or where.endswith(".template") or where.endswith(".dataBinding"):
                errors.append(f"component {cid!r}: data binding at {where} (literals only)")
            if where.endswith(".literalString") and value == "":
                errors.append(f"component {cid!r}: empty literalString")
            # The reference renderer core resolves *any* string property equal to an id as a child.
            if isinstance(value, str) and value in by_id and not _REFERENCE.search(where):
                errors.append(f"component {cid!r}: value {value!r} at {where} equals a component id")
        if kind == "Text" and "literalString" not in (props.get("text") or {}):
            errors.append(f"component {cid!r}: Text without literalString")
    # Tree: children exist, one parent each, weight only under Row/Column, root reaches everything.
    parent: dict[str, str] = {}
    for cid, (kind, props) in by_id.items():
        for child in child_ids(kind, props):
            if child not in by_id:
                errors.append(f"component {cid!r}: child {child!r} does not exist")
            elif child in parent:
                errors.append(f"component {child!r} has two parents ({parent[child]!r}, {cid!r})")
            else:
                parent[child] = cid
    for comp in components:
        cid = comp.get("id")
        if "weight" in comp and (cid not in parent or by_id[parent[cid]][0] not in ("Row", "Column")):
            errors.append(f"component {cid!r}: weight outside a Row/Column")
    if root not in by_id:
        errors.append(f"root {root!r} does not exist")
        return errors
    if root in parent:
        errors.append(f"root {root!r} is somebody's child (cycle)")
    seen: set[str] = set()
    stack = [root]
    while stack:
        cid = stack.pop()
        if cid in seen:
            errors.append(f"cycle through {cid!r}")
            continue
        seen.add(cid)
        kind, props = by_id[cid]
        stack.extend(child_id for child_id in child_ids(kind, props) if child_id in by_id)
    unreachable = sorted(set(by_id) - seen)
    if unreachable:
        errors.append(f"unreachable from root: {unreachable[:10]}")
    return errors


def _walk(value: Any, where: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield f"{where}.{key}", item
            yield from _walk(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield f"{where}[{i}]", item
            yield from _walk(item, f"{where}[{i}]")
