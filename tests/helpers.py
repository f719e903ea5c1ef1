"""Helpers shared by test modules, in one place: test modules import from here, never from each other.

Fixtures live in `tests/conftest.py` and, for the storage emulators, in `tests/emulators.py` (loaded
as a plugin by conftest's `pytest_plugins`, so no test module imports a fixture).
"""

from __future__ import annotations

import asyncio
import base64
import csv
import datetime as dt
import io
import json
import math
import os
import re
import shlex
import subprocess
import time
import uuid
from decimal import Decimal
from typing import Any

import httpx
import pyarrow as pa

from agent.analysis.common import build_table
from agent.analysis.result import Finding, Scope, SkillResult
from agent.protocol import objects
from agent.store import gcs as gcs_store
from tests.conftest import ROOT

# --- the wire ---------------------------------------------------------------------------------------


# Wrong types and edge values for request members (1.0, True, NaN, empty and lone-surrogate strings, …):
# the schema-predicate corpus (test_schema_predicate) and the lean task-call path (test_plain_task_call).
SCHEMA_EDGE_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    -1.0,
    0.5,
    10**40,
    1e308,
    math.nan,
    math.inf,
    -math.inf,
    "",
    "x",
    "2.0",
    "message",
    "text",
    "file",
    "data",
    "user",
    "agent",
    "gs://bucket/x.csv",
    "bq://p.d.t",
    "acme",
    "a" * 64,
    "0" * 64,
    "\ud800",
    " ",
    [],
    [None],
    ["text/plain"],
    [{"kind": "text", "text": "hi"}],
    {},
    {"a": 1},
    {"kind": "text"},
    {"bytes": "YQ==", "uri": "gs://b/x"},
]


def raw_stream(url: str, body: dict, headers: dict | None = None) -> list[dict]:
    """Read SSE frames raw, checking each is exactly one `data:` line followed by a blank line."""
    frames = []
    with httpx.stream("POST", url, json=body, headers=headers or {}, timeout=60) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        buffer = ""
        for chunk in response.iter_text():
            buffer += chunk
        blocks = buffer.split("\n\n")
        assert blocks[-1] == "", "stream must end with a blank line"
        for block in blocks[:-1]:
            lines = block.split("\n")
            assert len(lines) == 1 and lines[0].startswith("data: "), block[:200]
            frames.append(json.loads(lines[0][len("data: ") :]))
    return frames


def stream_body(text: str, rid: str = "s1", **params) -> dict:
    """A message/stream request with one text part."""
    message = {"role": "user", "parts": [{"kind": "text", "text": text}], "messageId": str(uuid.uuid4())}
    return {"jsonrpc": "2.0", "id": rid, "method": "message/stream", "params": {"message": message, **params}}


async def official_client(url: str, streaming: bool, extensions: list[str] | None = None):
    """The official A2A client (a2a-sdk) for the agent at `url`, and the httpx client to close after."""
    from a2a.client import A2ACardResolver, ClientConfig, ClientFactory

    http = httpx.AsyncClient(timeout=60)
    card = await A2ACardResolver(http, url).get_agent_card()
    config = ClientConfig(streaming=streaming, httpx_client=http, extensions=extensions or [])
    return ClientFactory(config).create(card), http


def wait_for(condition, timeout: float = 60.0) -> None:
    """Wait for an explicit event (a file, an object) — not for time to pass."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the awaited event did not happen"
        time.sleep(0.02)


# --- catalogs and questions -------------------------------------------------------------------------

ALL_SKILLS_QUESTION = (
    "Give me an overview, the gaps in outdoor furniture, the price ladder, missing colours, "
    "brands competitors carry, what is out of stock, and is it ready for Google Shopping?"
)


def big_csv(rows: int) -> bytes:
    """A generic CSV of `rows` outdoor chairs: large enough that a run has steps to cancel between."""
    lines = ["id,title,price,brand,category,availability"]
    for i in range(rows):
        lines.append(
            f"P{i},Garden chair {i},{10 + i % 500}.99,Brand{i % 40},Furniture > Outdoor Furniture > Outdoor Seating > Outdoor Chairs,in stock"
        )
    return ("\n".join(lines) + "\n").encode()


# --- answers: every number in the bullets is a number in the rendered table -------------------------

NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def bullets(markdown: str) -> list[str]:
    return [line[2:] for line in markdown.splitlines() if line.startswith("- ")]


def table_text(markdown: str) -> str:
    return "\n".join(line for line in markdown.splitlines() if line.startswith("|"))


def numbers_in(text: str) -> set[str]:
    return {m.group(0).rstrip(",") for m in NUMBER.finditer(text)}


def prose_numbers_missing_from_table(markdown: str) -> set[str]:
    """Numbers that appear in a bullet but in no cell of the rendered table."""
    in_table = numbers_in(table_text(markdown))
    missing = set()
    for b in bullets(markdown):
        missing |= numbers_in(b) - in_table
    return missing


def assert_prose_numbers_in_table(markdown: str) -> None:
    missing = prose_numbers_missing_from_table(markdown)
    assert not missing, f"numbers in bullets but not in the table: {sorted(missing)}\n{markdown}"
    assert len(bullets(markdown)) <= 7


# --- deploy.sh --dry-run --------------------------------------------------------------------------


def dry_run(*args: str, **env: str) -> subprocess.CompletedProcess:
    """`bash deploy.sh --dry-run ARGS` with only PATH and `env` set."""
    full = {"PATH": os.environ["PATH"], **env}
    return subprocess.run(
        ["bash", "deploy.sh", "--dry-run", *args], cwd=ROOT, env=full, capture_output=True, text=True, timeout=60
    )


def commands(out: str) -> list[list[str]]:
    """The printed commands, split the way the shell would split them."""
    return [shlex.split(line) for line in out.splitlines() if line.startswith(("gcloud ", "curl "))]


def flags(argv: list[str]) -> dict[str, str]:
    """--name=value flags of one command (a bare --flag maps to '')."""
    out = {}
    for arg in argv:
        if arg.startswith("--"):
            name, _, value = arg.partition("=")
            out[name] = value
    return out


def deploy_env(argv: list[str]) -> dict[str, str]:
    """The function's environment as the deploy command sets it (--set-env-vars with the ^|^ separator)."""
    raw = flags(argv)["--set-env-vars"]
    assert raw.startswith("^|^")
    return dict(item.split("=", 1) for item in raw[3:].split("|"))


def the(cmds: list[list[str]], *prefix: str) -> list[str]:
    """The one printed command that starts with `prefix` (fails when there are none or several)."""
    found = [c for c in cmds if c[: len(prefix)] == list(prefix)]
    assert len(found) == 1, (prefix, found)
    return found[0]


# --- shared catalogs and evidence lines ----------------------------------------------------------

# 240 outdoor chairs in three colours, every fifth out of stock (several instances, stores and faults)
CHAIRS_CSV = b"id,title,price,brand,category,availability,color\n" + b"".join(
    f"P{i},Garden chair {i},{20 + i * 7 % 300}.00,Brand{i % 4},"
    f"Furniture > Outdoor Furniture > Outdoor Seating > Outdoor Chairs,"
    f"{'in stock' if i % 5 else 'out of stock'},{['red', 'blue', 'teak'][i % 3]}\n".encode()
    for i in range(240)
)
FOOTER_LINE = re.compile(r"^- (?P<name>[^\n(]+) \((?P<kind>[^,)]+)[^)]*\): (?P<rows>[\d,]+) rows read", re.M)


def footer(task: dict) -> list[tuple[str, str, str]]:
    """(name, kind, rows) of each evidence line of a finished task's answer."""
    text = task["artifacts"][0]["parts"][0]["text"]
    return [(m["name"], m["kind"], m["rows"]) for m in FOOTER_LINE.finditer(text)]


# catalog_context signing (tests/test_trust.py, reliability/test_parties.py)
TRUST_SECRET = "s3cret-for-tests"
MERCHANT_CSV = (
    b"id,title,price,brand,category,availability\n"
    b"P1,Teak garden chair,129.00,Oakline,Furniture > Outdoor Furniture > Outdoor Seating,in stock\n"
    b"P2,Bistro table,89.50,Oakline,Furniture > Outdoor Furniture > Outdoor Tables,out of stock\n"
    b"P3,Sun lounger,199.00,Sunny,Furniture > Outdoor Furniture > Outdoor Seating,in stock\n"
)


# --- small Shopify exports read through the catalog layer, planned and answered --------------------

SHOPIFY_COLUMNS = [
    "Handle",
    "Title",
    "Body (HTML)",
    "Vendor",
    "Product Category",
    "Type",
    "Published",
    "Option1 Name",
    "Option1 Value",
    "Variant SKU",
    "Variant Inventory Tracker",
    "Variant Inventory Qty",
    "Variant Inventory Policy",
    "Variant Price",
    "Status",
]


def csv_bytes(header: list[str], rows: list[list]) -> bytes:
    """A CSV file's bytes: the header row, then the rows."""
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(header)
    w.writerows(rows)
    return out.getvalue().encode()


def shopify(products: list[tuple[str, str, str]], qty=lambda i: 3) -> pa.Table:
    """A Shopify product export read through the catalog layer: (title, Product Category, Type) per product, one variant each, active, tracked stock."""
    rows = []
    for i, (title, category, typ) in enumerate(products):
        rows.append(
            [
                f"p{i}",
                title,
                "",
                "Acme",
                category,
                typ,
                "TRUE",
                "Title",
                "Default Title",
                f"SKU{i}",
                "shopify",
                qty(i),
                "deny",
                10 + i,
                "active",
            ]
        )
    from agent.catalog.ingest import read_table_bytes

    table, _ = read_table_bytes(csv_bytes(SHOPIFY_COLUMNS, rows), "products_export.csv", "attached file")
    return table


def plan_and_answer(question: str, table, memory=None, skill: str | None = None):
    """Plan the question on `table`, run its first skill (or `skill`) and render it: (plan, result, Markdown)."""
    from agent.analysis.inputs import SkillInput
    from agent.analysis.planner import plan
    from agent.analysis.registry import SKILLS
    from agent.catalog.taxonomy import load
    from agent.render.text import render_skill

    taxonomy = load()
    p = plan(question, table, taxonomy, memory)
    sid = skill or p.skills[0]
    result = SKILLS[sid].run(SkillInput(own=table, reference=None, scope=p.scope, taxonomy=taxonomy))
    return p, result, render_skill(result, p.notes)


# --- the official client ---------------------------------------------------------------------------


def run(coro):
    """Run one coroutine of the official client to its end."""
    return asyncio.run(coro)


def user_message(text: str, parts: list | None = None, context_id: str | None = None):
    """An a2a-sdk Message with one text part (and any further parts)."""
    from a2a.types import Message, Part, Role, TextPart

    all_parts = [Part(root=TextPart(text=text))] + (parts or [])
    return Message(role=Role.user, parts=all_parts, message_id=str(uuid.uuid4()), context_id=context_id)


async def collect_events(url: str, text: str, streaming: bool, **kw):
    """Every event the official client yields for one message (kw: parts, context_id)."""
    client, http = await official_client(url, streaming)
    events = []
    try:
        async for event in client.send_message(user_message(text, **kw)):
            events.append(event)
    finally:
        await http.aclose()
    return events


# --- A2UI results in several shapes -------------------------------------------------------------

# An evidence footer as the text answer ends (tests/test_a2ui.py, test_a2ui_renderer.py)
A2UI_FOOTER = (
    "---\nEvidence\n"
    "- catalog.csv (attached file, Shopify product export): 354 rows read, 12 skipped; snapshot date not stated in the data\n"
    "- Google product taxonomy 2021-09-21 (bundled): 10 subcategories under Furniture > Outdoor Furniture\n"
    "Freshness: not stated — no snapshot date in the data."
)
GAP_COLS = (
    ("Subcategory", "text", pa.string()),
    ("Products", "count", pa.int64()),
    ("In stock", "percent", pa.float64()),
    ("Median price", "money", pa.float64()),
    ("Gap", "text", pa.string()),
)


def gaps_result(n: int = 57, currency: str | None = "USD", chart: bool = True) -> SkillResult:
    rows = [(f"Sub {i}", (i * 7) % 23, 100.0 * (i % 5) / 4, 99.5 + i, "thin" if i % 3 else None) for i in range(n)]
    findings = [Finding("gaps.missing", {"name": "Sub 0", "products_n": 0}, cells=((0, "Products"),), severity=5)]
    return SkillResult(
        skill="assortment_gaps",
        scope=Scope(label="Outdoor Furniture", taxonomy_id=4299, taxonomy_path="Furniture > Outdoor Furniture"),
        table=build_table(GAP_COLS, rows),
        findings=findings,
        currency=currency,
        chart=("Subcategory", "Products") if chart else None,
        notes=["Stock is unknown for 3 products."],
    )


def wide_result() -> SkillResult:
    cols = tuple((f"col_{i}", "count", pa.int64()) for i in range(12))
    rows = [tuple(r * 100 + c for c in range(12)) for r in range(57)]
    return SkillResult(skill="content_quality", scope=Scope(), table=build_table(cols, rows), chart=("col_0", "col_1"))


def empty_result() -> SkillResult:
    return SkillResult(
        skill="availability",
        scope=Scope(label="Lighting"),
        table=build_table(GAP_COLS, []),
        findings=[Finding("overview.empty", {}, severity=10)],
        chart=("Subcategory", "Products"),
    )


def odd_types_result() -> SkillResult:
    table = pa.table(
        {
            "Item": pa.array(["a", None, ""]),
            "Amount": pa.array([Decimal("1234.5"), None, Decimal("-2")], type=pa.decimal128(10, 2)),
            "Flag": pa.array([True, False, None]),
            "When": pa.array([dt.date(2026, 11, 28), None, dt.date(2020, 1, 1)]),
            "Tags": pa.array([["x", "y"], [], None], type=pa.list_(pa.string())),
            "Ratio": pa.array([float("inf"), float("nan"), -0.5]),
        }
    )
    return SkillResult(skill="catalog_overview", scope=Scope(), table=table)


# Results in several shapes: chart or not, money with and without currency, 57 rows, wide, empty, odd types
SHAPES = {
    "gaps_57_rows_chart_usd": lambda: gaps_result(),
    "gaps_no_currency": lambda: gaps_result(currency=None),
    "gaps_no_chart_3_rows": lambda: gaps_result(n=3, chart=False),
    "one_row": lambda: gaps_result(n=1),
    "wide_12_columns": wide_result,
    "empty_table": empty_result,
    "odd_types": odd_types_result,
}


def literal(comp: dict) -> str:
    """The literal text of an A2UI Text component."""
    return comp["component"]["Text"]["text"]["literalString"]


class FakeClock:
    """An injected monotonic clock a test moves by hand (`clock.now += 5`): caches, budgets and the
    idle release take one, so no test sleeps or races the real clock."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now


# --- one turn straight through a Runner (no HTTP) ----------------------------------------------------


def demo_head(rows: int = 40) -> bytes:
    """The demo catalog's header and first `rows` rows: a small attachment that is still a real export."""
    demo = ROOT / "data" / "demo" / "catalog.csv"
    return b"".join(demo.read_bytes().splitlines(keepends=True)[: rows + 1])


def ask_runner(runner, question: str, attachments=(), context=None, context_id: str = "conv") -> str:
    """One text message through `runner` as the service would hand it over (a Turn: validated, decoded,
    `context` as the handler loaded it), run to its end; the first artifact's text."""
    from agent.service.runner import Turn, drain

    turn = Turn(
        task_id=objects.new_id(),
        context_id=context_id,
        user_message={
            "kind": "message",
            "role": "user",
            "messageId": objects.new_id(),
            "parts": [{"kind": "text", "text": question}],
        },
        question=question,
        attachments=list(attachments),
        unreadable=[],
        notices=[],
        context=context,
    )
    drain(runner.events(turn))
    return turn.final_task["artifacts"][0]["parts"][0]["text"]


# --- Cloud Storage races, forced rather than timed ---------------------------------------------------


class InterveningBucket(gcs_store.Bucket):
    """A bucket whose first JSON write is preceded by `intervene()` — another instance's write of the same
    object — so the generation precondition decides between the two: `refused` counts the writes the
    store turned down (412), `writes` all attempts."""

    def __init__(self, *args, intervene, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.intervene, self.writes, self.refused = intervene, 0, 0

    def write_json(self, name, doc, generation, metadata=None):
        self.writes += 1
        if self.writes == 1:
            self.intervene()
        try:
            return super().write_json(name, doc, generation, metadata)
        except Exception:
            self.refused += 1
            raise


# --- cold processes -----------------------------------------------------------------------------------


def clean_env(**extra: str) -> dict[str, str]:
    """A child interpreter's environment for cold-process tests: the shell's without the agent's own
    settings (tests/agent_process.AGENT_SETTINGS), the repository first on PYTHONPATH, then `extra`."""
    from tests.agent_process import AGENT_SETTINGS

    env = {k: v for k, v in os.environ.items() if not k.startswith(AGENT_SETTINGS) and k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


# --- storage faults (tests/reliability/test_store_faults.py, test_unstored_outcomes.py) -------------

INTERNALS = ("Traceback", "injected fault", "127.0.0.1", "googleapis", "/home/", "/work/", ".py")


def rpc(url: str, method: str, params: dict) -> dict:
    body = {"jsonrpc": "2.0", "id": str(uuid.uuid4()), "method": method, "params": params}
    return httpx.post(url, json=body, timeout=90).json()


def ask_with_catalog_context(url: str, catalog_context: dict, text: str = "What is in this catalog?") -> dict:
    """message/send of `text` with a catalog_context (a BigQuery or bucket catalog named by the caller)."""
    params = {
        "message": {"role": "user", "parts": [{"kind": "text", "text": text}], "messageId": str(uuid.uuid4())},
        "catalog_context": catalog_context,
    }
    return httpx.post(
        url, json={"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": params}, timeout=120
    ).json()


def artifacts_text(response: dict) -> str:
    """The text parts of a message/send result's artifacts, one after another."""
    task = response["result"]
    parts = [p for a in task.get("artifacts", []) for p in a["parts"] if p.get("kind") == "text"]
    return "\n".join(p["text"] for p in parts)


def file_message(text: str, csv: bytes | None = None, name: str = "catalog.csv") -> dict:
    parts: list[dict] = [{"kind": "text", "text": text}]
    if csv is not None:
        parts.append(
            {"kind": "file", "file": {"bytes": base64.b64encode(csv).decode(), "name": name, "mimeType": "text/csv"}}
        )
    return {"role": "user", "parts": parts, "messageId": str(uuid.uuid4())}


def stored_state(fake, bucket: str, task_id: str) -> str | None:
    """The task state the bucket holds (its object metadata), read straight from the emulator."""
    blob = fake.client.bucket(bucket).get_blob(f"tasks/{gcs_store.object_key(task_id)}.json")
    return (blob.metadata or {}).get("state") if blob is not None else None


def no_internals(payload: object) -> None:
    text = json.dumps(payload)
    for word in INTERNALS:
        assert word not in text, word
