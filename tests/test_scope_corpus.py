"""End to end over every real export in tests/corpus/: a question about an own category counts exactly
that category's active products (issue 10, "How to show it").

For each file and each of its five largest own categories (any level of any of a product's own paths,
product types included, counted here straight from the canonical table), "Where are the gaps in
<name>?" is planned and answered by the gaps skill; the products the answer finds "by your category"
are exactly that category's active products (a level of a standard taxonomy path — Shopify's
Product Category — with the own levels that are kinds of it, `expected_own`), the answer's total is the scope line's total, and no
file answers a question about its largest own category with an empty scope. "How many <name> do I
have?" counts the same products, with the name as written and in its other number ("Dress" for
"Dresses"), and so does the gaps question in the other number.

`SCOPE_CORPUS_DIR` points the test at another folder of exports (used while a corpus is being
gathered); the committed test reads the repository's `tests/corpus/**`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.analysis.inputs import SkillInput
from agent.analysis.planner import STOPWORDS, plan, tokens
from agent.analysis.registry import SKILLS
from agent.analysis.vocabulary import EQUIVALENT
from agent.catalog.errors import UnreadableCatalog
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from agent.render.text import render_skill

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("SCOPE_CORPUS_DIR") or ROOT / "tests" / "corpus")
FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix.lower() in (".csv", ".tsv", ".txt", ".parquet"))
TAX = load()
ANALYSED = ("active", "unknown")
TOP = 5


def _key(name: str) -> str:
    """How a category name is compared: its words (stemmed, "&"/"and" dropped) written together, so
    "Sunloungers" and "Sun Lounger", "T-Shirts" and "T-shirts" are one category."""
    return "".join(t for t in tokens(name) if t != "and")


def own_category_products(table) -> dict[str, tuple[str, set]]:
    """{key: (a name as written, active product keys)} for every level of every own path."""
    own = table["own_categories"].to_pylist()
    status = table["status"].to_pylist()
    pk = table["product_key"].to_pylist()
    found: dict[str, tuple[str, set]] = {}
    for value, st, key in zip(own, status, pk):
        if not value or st not in ANALYSED:
            continue
        for path in value.split("\n"):
            for level in path.split(" > "):
                k = _key(level)
                if k:
                    found.setdefault(k, (level, set()))[1].add(key)
    return found


def _standard_levels(table) -> set[str]:
    """Keys of the levels found only inside standard taxonomy paths (Shopify's Product Category, a
    Google path: the first level is a top-level Google name), never as a name the merchant wrote."""
    standard: set[str] = set()
    written: set[str] = set()
    for value in set(table["own_categories"].to_pylist()):
        for path in (value or "").split("\n"):
            levels = path.split(" > ")
            is_standard = len(levels) > 1 and TAX.id_for_path(levels[0]) is not None
            for depth, level in enumerate(levels):
                (standard if is_standard and depth > 0 else written).add(_key(level))
    return standard - written


def expected_own(cats: dict[str, tuple[str, set]], standard: set[str], key: str) -> set:
    """The products a question about an own level finds "by your category": the level's own, and for a
    level of a standard taxonomy path also the levels that are kinds of it (their words end with its
    words: "Concrete Pots" in Pots), as a taxonomy node holds its subcategories. A name the merchant
    wrote is counted exactly (agent.analysis.scope_resolution._is_standard_path)."""
    name, keys = cats[key]
    if key not in standard:
        return keys
    words = tuple(t for t in tokens(name) if t != "and")
    if len(words) == 1 and words[0] in EQUIVALENT:  # "Gardening" is no kind-holder: garden means outdoor
        return keys
    out = set(keys)
    for other_name, other_keys in cats.values():
        other_words = tuple(t for t in tokens(other_name) if t != "and")
        joined = any(mark in other_name for mark in ("&", ",", "/", "+")) or " and " in other_name.casefold()
        if len(other_words) > len(words) and other_words[-len(words) :] == words and not joined:
            out |= other_keys
    return out


def _read(path: Path):
    try:
        table, _ = read_table_bytes(path.read_bytes(), path.name, "attached file")
    except UnreadableCatalog as exc:
        pytest.skip(f"{path.name} is not readable as a catalog: {exc}")
    if table.num_rows == 0:  # a reader's limit (the corpus README lists today's), not a scope question
        pytest.skip(f"{path.name}: no product rows are read from it today")
    return table


def _askable(name: str) -> bool:
    """Names made only of question words ("All", "Products", "Other") are never a scope (issue 10,
    item 4), so they are not asked about; every other name the planner's tokenizer reads is (names in
    a script it does not read yet give no words at all: the lexicon work reads them)."""
    return any(t not in STOPWORDS and t != "and" for t in tokens(name))


def _numbers(name: str) -> list[str]:
    """The name as written and in its other number, when the planner reads both as the same words:
    "Dresses"/"Dress", "Accessories"/"Accessory", "Ring"/"Rings" ("New" and "News" are two words)."""
    low = name.casefold()
    if low.endswith("ies"):
        other = name[:-3] + "y"
    elif low.endswith("s") and not low.endswith("ss"):
        other = name[:-1]
    elif name[-1:].isalpha():
        other = name + "s"
    else:
        return [name]
    return [name, other] if tokens(other) == tokens(name) else [name]


def test_the_corpus_is_there():
    assert len(FILES) >= 4, CORPUS
    assert any(p.parent.name == "seed" for p in FILES)


def test_most_of_the_corpus_is_asked_about():
    """The skips above must stay the exception: most files that read rows have own categories."""
    with_rows = asked = 0
    for path in FILES:
        try:
            table, _ = read_table_bytes(path.read_bytes(), path.name, "attached file")
        except UnreadableCatalog:
            continue
        if table.num_rows:
            with_rows += 1
            asked += any(_askable(n) for n, _ in own_category_products(table).values())
    assert with_rows and asked >= 0.6 * with_rows, (asked, with_rows)


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_own_category_questions_count_exactly_that_category(path):
    table = _read(path)
    cats = own_category_products(table)
    if not cats:
        pytest.skip(f"{path.name} states no own category for any active product")
    standard = _standard_levels(table)
    ranked = sorted(
        ((name, expected_own(cats, standard, k)) for k, (name, _) in cats.items() if _askable(name)),
        key=lambda nk: (-len(nk[1]), nk[0]),
    )[:TOP]
    if not ranked:
        pytest.skip(f"{path.name}: its only own categories are question words ({sorted(n for n, _ in cats.values())})")
    problems = []
    for rank, (name, keys) in enumerate(ranked):
        for form in _numbers(name):
            for asked in (f"How many {form} do I have?", f"Where are the gaps in {form}?"):
                if asked == f"Where are the gaps in {name}?":
                    continue  # asked below, with the answer's checks
                p = plan(asked, table, TAX)
                found = dict(p.scope.found)
                if p.scope.is_whole_catalog or found.get("own") != len(keys):
                    problems.append(f"{asked} → {found or p.scope.label} by own category, expected {len(keys)}")
        question = f"Where are the gaps in {name}?"
        p = plan(question, table, TAX)
        if "assortment_gaps" not in p.skills or p.scope.is_whole_catalog:
            problems.append(f"{question} → skills {p.skills}, whole catalog (unmatched {p.scope.unmatched!r})")
            continue
        found = dict(p.scope.found)
        if found.get("own") != len(keys):
            problems.append(f"{question} → {found} by own category, expected {len(keys)}")
        result = SKILLS["assortment_gaps"].run(SkillInput(own=table, reference=None, scope=p.scope, taxonomy=TAX))
        total = result.table.to_pylist()[0]["Products"]
        if total != sum(found.values()) or total < len(keys):
            problems.append(f"{question} → gaps total {total}, scope found {found}")
        md = render_skill(result, p.notes)
        if rank == 0 and ("No active products" in md or total == 0):
            problems.append(f"{question} → empty scope for the largest own category")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", FILES, ids=[f"{p.parent.name}/{p.name}" for p in FILES])
def test_the_answer_says_how_the_scope_was_found(path):
    table = _read(path)
    cats = own_category_products(table)
    ranked = sorted(((n, k) for n, k in cats.values() if _askable(n)), key=lambda nk: (-len(nk[1]), nk[0]))
    if not ranked:
        pytest.skip(f"{path.name} has no own category that can be asked about")
    name, keys = ranked[0]
    p = plan(f"Where are the gaps in {name}?", table, TAX)
    result = SKILLS["assortment_gaps"].run(SkillInput(own=table, reference=None, scope=p.scope, taxonomy=TAX))
    md = render_skill(result, p.notes)
    assert f"{sum(dict(p.scope.found).values()):,} active product" in md
    assert "by your category" in md
