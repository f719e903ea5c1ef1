"""No dead code in agent/ (issue 13): every top-level function and class is used by the agent itself.

A name is used when it appears in agent/ or main.py other than where it is defined. Registered by a
decorator (the text templates, looked up by finding code) counts as used; two public entry points kept
for callers outside the agent are listed with the reason.
"""

from __future__ import annotations

import ast
import re
from collections import Counter

from tests.conftest import ROOT

KEPT = {
    # the Best sellers report from bq:// (issue 15) reads through it; tested in tests/test_bigquery_source.py
    "read_newest_partition": "agent/catalog/bigquery.py",
    # bench/eval_mapping.py scores the Shopify category path step on its own
    "resolve_shopify": "agent/catalog/categorise.py",
    # `make data` regenerates the bundled derived tables with these (tests check the files are current)
    "write_table": "agent/analysis/vocabulary_table.py",
    "write_demo": "agent/catalog/demo_bundle.py",
}


def unused(sources: dict[str, str]) -> list[str]:
    """Top-level functions and classes whose name appears nowhere but in their own definition."""
    words = Counter(re.findall(r"\b\w+\b", "\n".join(sources.values())))
    found = []
    for name, text in sources.items():
        for node in ast.parse(text).body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if node.decorator_list or words[node.name] > 1 or KEPT.get(node.name) == name:
                continue
            found.append(f"{name}:{node.lineno} {node.name}")
    return found


def agent_sources() -> dict[str, str]:
    paths = [p for p in (ROOT / "agent").rglob("*.py") if "build" not in p.parts] + [ROOT / "main.py"]
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sorted(paths)}


def test_every_function_and_class_of_the_agent_is_used():
    assert not unused(agent_sources()), "dead code: " + ", ".join(unused(agent_sources()))


def test_the_check_finds_an_unused_function():
    made_up = {"agent/x.py": "def used():\n    pass\n\ndef forgotten():\n    used()\n"}
    assert unused(made_up) == ["agent/x.py:4 forgotten"]
