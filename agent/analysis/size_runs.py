"""attribute_coverage for "What sizes am I missing in dresses?": the broken size runs.

Without a reference catalog there is nothing to hold the merchant's sizes against but the merchant's own
products, so the answer is read off them. The rule, in order:

1. Values. A product's sizes are its variants' size values (the in-memory path: the size column, else an
   option naming the size; BigQuery: the size column), normalised as every attribute is (case, spacing,
   the SPELLINGS of agent.analysis.attributes), then to one key per size word (`size_key`): "Small" and
   "S" are one size, "XXL" and "2XL", "Extra Small" and "XS", '4" by 6"' and '4" x 6"'; "NB"/"Newborn"
   is month 0. A size is shown in its most common written form (by variants; the smallest form on a tie).
2. Size systems. A key is a letter size (XXS…6XL; the Brazilian PP…XGG at the same places), else a number size of one pattern ("US 7.5" with
   "US 9", "6M" with "24M", "30cm" with "40cm", "1/4 Yard" with "1/2 Yard": the key with its numbers
   taken out, a fraction one number), else one of the
   other sizes ("One size", "iPhone 12"). Letter and number sizes are ordered (XS<S<M<L<XL<2XL…, numbers
   numerically); the other sizes by how many products carry them.
3. Runs. The products of a system are those offering two of its sizes or more (a product with one
   size — "One size", a mug's "11oz" — has no run to break). The system's run is every size they
   offer; a system with fewer than two such products has nothing to compare and is left out. The run
   is the scope's: asked for the whole catalog, every category's sizes of one system are one run (a
   tote bag's Small/Large beside T-shirts' S–5XL on a held-out shop); asked "in tops", the tops'.
4. Gaps. A size "most" products carry is one at least half the system's products offer. A product
   misses a size when it lacks one most of them carry, or lacks one between its own smallest and
   largest size (S, M, XL without L): an extended size few carry (5XL on 3 of 40) is not missed by
   a product that stops short of it, but is listed with how many offer it. The products missing a size
   are named by title (a product's least title, as availability names it), those missing most sizes
   first, then by title: LIST_LIMIT of them in the run's row and per size, and the answer says "and
   others" when more miss one (a held-out helmet shop's answer said "1 of the 85 products … misses XS"
   and never which).
5. Stock. When the scope's data states stock (any variant in or out of stock), a product is sold out
   in a size it offers when every variant in that size is out of stock; a size sold out in every
   product offering it is out of stock everywhere.

Both paths build the same cells — (product, normalised size key, shown form, variants, variants out of
stock) — and `runs` does the rest, so they give the same figures: in memory from the rows, in BigQuery
one row per (product, stored size value) (agent.analysis.attributes_sql.size_cells: bounded by the
scope's sized offers, not by the catalog, since step 4 needs each product's own smallest and largest
size). Colours are not read this way: colours have no run, and a product lacking a colour most others
carry is a range decision, not a gap.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

import pyarrow as pa

LETTER = "letter"
OTHER = "other"
STOCK_STATES = ("in_stock", "out_of_stock", "preorder", "backorder")
LIST_LIMIT = 3
COLUMNS = (
    ("Size run", "text", pa.string()),
    ("Size", "text", pa.string()),
    ("Products", "count", pa.int64()),
    ("Carried by most", "text", pa.string()),
    ("Products missing it", "count", pa.int64()),
    ("Products sold out in it", "count", pa.int64()),
    ("Products missing it (examples)", "text", pa.string()),
)
TOTAL = " (all)"  # the run's own row, as skills label an aggregate row (not a bar of the chart)

_LETTER = re.compile(r"^(?:(\d)x|(x*))[- ]?(s|small|l|large)$")
_MEDIUM = ("m", "medium", "med")
_NUMBER = re.compile(r"\d+/\d+|\d+(?:[.,]\d+)?")  # a fraction ("1/2 Yard", '3/4"') is one number


# The "by" of a dimension size between two numbers, each with its unit if any: '4" by 6"', '12" x 16"',
# "30 × 40 cm" and "30x40 cm" are one way of writing width by height. Letter sizes ("2xl") have no
# number after the x, so they never match.
_BY = re.compile(r"""(\d(?:\s*(?:["'″]|(?:cm|mm|in|inch|inches|ft|m)(?![a-z])))?)\s*(?:by|x|×|\*)\s*(?=\d)""")


def size_key(key: str) -> str:
    """One key per size word: "small" → "s", "xx-large"/"xxl" → "2xl", "newborn" → "0m"; a dimension's
    "by" one way, '4" by 6"' and '4" x 6"' → '4"x6"' (step 1).

    A held-out canvas-print shop wrote its sizes '12" by 16"' on six products and '12" x 16"' on two:
    two size runs of one set of sizes, each product compared with only some of the others."""
    k = _BY.sub(r"\1x", re.sub(r"^extra[- ]", "x", key.strip()))
    if k in _MEDIUM:
        return "m"
    if k in ("nb", "newborn"):
        return "0m"
    hit = _LETTER.match(k)
    if hit is None:
        return k
    xs = int(hit.group(1)) if hit.group(1) else len(hit.group(2) or "")
    side = "s" if hit.group(3) in ("s", "small") else "l"
    return ("x" if xs == 1 else f"{xs}x" if xs else "") + side


# Brazilian letter grades (PP, P, M, G, GG, XG, XGG), as two Portuguese-language corpus shops write
# their T-shirt runs: letter sizes at the places of XS…2XL. They keep their own keys (P is not merged
# with S: a shop writes one or the other), so a run reads as written; plus grades G1–G4 stay a number run.
_GRADES = {"epp": -3.0, "pp": -2.0, "p": -1.0, "g": 1.0, "gg": 2.0, "xg": 3.0, "xgg": 4.0, "exg": 4.0}


def _rank(key: str) -> tuple[str, tuple[float, ...] | None]:
    """(system, order within it) of a size key: letter sizes by their x's (Brazilian grades at their
    places), number sizes by their numbers, other sizes unordered (None)."""
    hit = _LETTER.match(key)
    if key == "m":
        return LETTER, (0.0,)
    if key in _GRADES:
        return LETTER, (_GRADES[key],)
    if hit is not None:
        xs = int(hit.group(1)) if hit.group(1) else len(hit.group(2) or "")
        return LETTER, (float(-(xs + 1) if hit.group(3) == "s" else xs + 1),)
    numbers = _NUMBER.findall(key)
    if numbers:
        return "number:" + _NUMBER.sub("#", key), tuple(_number(n) for n in numbers)
    return OTHER, None


def _number(text: str) -> float:
    """A size's number: "7.5" and "7,5" as 7.5, a fraction "1/4" as 0.25 (so 1/4 Yard < 1/2 Yard)."""
    top, _, bottom = text.partition("/")
    if bottom:
        return float(top) / float(bottom) if float(bottom) else float(top)
    return float(text.replace(",", "."))


@dataclass(frozen=True)
class Cell:
    """One product's variants in one normalised size value (attributes' key: case, spacing, spellings)."""

    product: Hashable
    key: str
    shown: str
    variants: int
    out: int  # variants out of stock
    stated: int  # variants whose stock is stated (in, out, preorder, backorder)
    title: str | None = None  # a title of the product's variants in this cell; `runs` takes a product's least


@dataclass
class System:
    """One size system's run in the scope: sizes in order and the per-size figures (`runs`)."""

    name: str
    sizes: list[str]  # size keys, in order
    shown: dict[str, str]
    products: int  # products offering two of its sizes or more
    offering: dict[str, int]
    core: set[str]
    missing: dict[str, int]
    sold_out: dict[str, int] | None  # None: the data states no stock
    with_gaps: int  # products missing at least one size
    with_sold_out: int | None
    gaps: list[tuple[str, list[str]]]  # (title, size keys it misses) of the titled products with a gap, in order

    @property
    def run(self) -> str:
        first, last = self.shown[self.sizes[0]], self.shown[self.sizes[-1]]
        return f"{first}–{last}" if self.name != OTHER else f"{len(self.sizes)} other sizes"


def runs(cells: Iterable[Cell]) -> list[System]:
    """The size systems with a run to compare (steps 2–5), most products first."""
    cells = list(cells)
    stock_known = any(c.stated for c in cells)
    shown_rows: dict[str, Counter] = defaultdict(Counter)
    held: dict[Hashable, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    titles: dict[Hashable, str] = {}
    for c in cells:
        if c.title is not None and (c.product not in titles or c.title < titles[c.product]):
            titles[c.product] = c.title
        k = size_key(c.key)
        shown_rows[k][c.shown] += c.variants
        v = held[c.product][k]
        v[0] += c.variants
        v[1] += c.out
    shown = {k: min(w, key=lambda form: (-w[form], form)) for k, w in shown_rows.items()}
    by_system: dict[str, dict[Hashable, dict[str, list[int]]]] = defaultdict(dict)
    for product, sizes in held.items():
        mine: dict[str, dict[str, list[int]]] = defaultdict(dict)
        for k, v in sizes.items():
            mine[_rank(k)[0]][k] = v
        for system, ks in mine.items():
            if len(ks) >= 2:
                by_system[system][product] = ks
    out = [
        _system(name, products, shown, stock_known, titles)
        for name, products in by_system.items()
        if len(products) >= 2
    ]
    return sorted(out, key=lambda s: (-s.products, s.name))


def _system(name: str, products: dict, shown: dict[str, str], stock_known: bool, titles: dict) -> System:
    offering: Counter = Counter(k for ks in products.values() for k in ks)
    if name == OTHER:
        order = sorted(offering, key=lambda k: (-offering[k], shown[k]))
    else:
        order = sorted(offering, key=lambda k: (_rank(k)[1], k))
    place = {k: i for i, k in enumerate(order)}
    n = len(products)
    core = {k for k in order if 2 * offering[k] >= n}
    missing: Counter = Counter()
    sold: Counter = Counter()
    with_gaps = with_sold = 0
    gaps: list[tuple[str, list[str]]] = []
    for product, ks in products.items():
        lo, hi = min(place[k] for k in ks), max(place[k] for k in ks)
        lacks = [k for k in order if k not in ks and (k in core or (name != OTHER and lo < place[k] < hi))]
        missing.update(lacks)
        with_gaps += bool(lacks)
        if lacks and product in titles:
            gaps.append((titles[product], lacks))
        out = [k for k, (variants, oos) in ks.items() if variants and oos == variants]
        sold.update(out)
        with_sold += bool(out)
    return System(
        name=name,
        sizes=order,
        shown={k: shown[k] for k in order},
        products=n,
        offering=dict(offering),
        core=core,
        missing={k: missing[k] for k in order},
        sold_out={k: sold[k] for k in order} if stock_known else None,
        with_gaps=with_gaps,
        with_sold_out=with_sold if stock_known else None,
        gaps=sorted(gaps, key=lambda g: (-len(g[1]), g[0], g[1])),
    )


def named(system: System, sizes: bool = True, key: str | None = None) -> list[str]:
    """The first LIST_LIMIT titled products with a gap (or missing size `key`), each with the sizes it
    misses when `sizes` and they are few enough to read ("AGV K1 (XS)"; a product missing more than
    LIST_LIMIT sizes is named alone: a list of its sizes inside the list of products would not read)."""
    gaps = [(title, lacks) for title, lacks in system.gaps if key is None or key in lacks][:LIST_LIMIT]
    if not sizes:
        return [title for title, _ in gaps]
    return [
        f"{title} ({', '.join(system.shown[k] for k in lacks)})" if len(lacks) <= LIST_LIMIT else title
        for title, lacks in gaps
    ]


def _examples(names: list[str]) -> str | None:
    return "; ".join(names) or None


def rows(systems: list[System]) -> list[dict]:
    """The table: per system a row for its whole run (products, products with a gap, products sold out
    in a size), then a row per size in run order."""
    out: list[dict] = []
    for s in systems:
        out.append(
            {
                "Size run": s.run,
                "Size": s.run + TOTAL,
                "Products": s.products,
                "Products missing it": s.with_gaps,
                "Products sold out in it": s.with_sold_out,
                "Products missing it (examples)": _examples(named(s)),
            }
        )
        for k in s.sizes:
            out.append(
                {
                    "Size run": s.run,
                    "Size": s.shown[k],
                    "Products": s.offering[k],
                    "Carried by most": "yes" if k in s.core else "no",
                    "Products missing it": s.missing[k],
                    "Products sold out in it": None if s.sold_out is None else s.sold_out[k],
                    "Products missing it (examples)": _examples(named(s, sizes=False, key=k)),
                }
            )
    return out


SYSTEMS_SAID = 3  # size systems the findings speak of, most products first (the table holds them all)


def findings(systems: list[System]) -> list:
    """Per size system (the first SYSTEMS_SAID): the products with a gap and the sizes most missed, or
    that every product has the whole run; the products sold out in a size and the sizes out of stock
    everywhere; the sizes fewer than half carry. Every number is a cell of `rows(systems)`."""
    from agent.analysis.result import Finding

    found: list = []
    start = 0
    for s in systems[:SYSTEMS_SAID]:
        head, at = start, {k: start + 1 + i for i, k in enumerate(s.sizes)}
        start += 1 + len(s.sizes)
        base = {"run": s.run, "products_n": s.products}
        missed = sorted((k for k in s.sizes if s.missing[k]), key=lambda k: (-s.missing[k], s.sizes.index(k)))
        if missed:
            found.append(
                Finding(
                    "sizes.gaps",
                    {
                        **base,
                        "gaps_n": s.with_gaps,
                        "items": [{"size": s.shown[k], "products_n": s.missing[k]} for k in missed[:LIST_LIMIT]],
                        "named": named(s),
                        "more": s.with_gaps > len(named(s)),
                    },
                    cells=((head, "Products"), (head, "Products missing it"))
                    + (((head, "Products missing it (examples)"),) if s.gaps else ())
                    + tuple((at[k], "Products missing it") for k in missed[:LIST_LIMIT]),
                    severity=9,
                )
            )
        else:
            found.append(Finding("sizes.complete", base, cells=((head, "Products"),), severity=6))
        if s.sold_out is not None and s.with_sold_out:
            out = s.sold_out
            sold = sorted((k for k in s.sizes if out[k]), key=lambda k: (-out[k], s.sizes.index(k)))
            everywhere = [k for k in s.sizes if out[k] and out[k] == s.offering[k]]
            found.append(
                Finding(
                    "sizes.sold_out",
                    {
                        **base,
                        "sold_n": s.with_sold_out,
                        "items": [{"size": s.shown[k], "products_n": s.sold_out[k]} for k in sold[:LIST_LIMIT]],
                        "everywhere": [s.shown[k] for k in everywhere],
                    },
                    cells=((head, "Products"), (head, "Products sold out in it"))
                    + tuple((at[k], "Products sold out in it") for k in dict.fromkeys(sold[:LIST_LIMIT] + everywhere))
                    + tuple((at[k], "Products") for k in everywhere),
                    severity=8,
                )
            )
        few = [k for k in s.sizes if k not in s.core]
        if few:
            found.append(
                Finding(
                    "sizes.few",
                    {**base, "items": [{"size": s.shown[k], "products_n": s.offering[k]} for k in few[:LIST_LIMIT]]},
                    cells=((head, "Products"),) + tuple((at[k], "Products") for k in few[:LIST_LIMIT]),
                    severity=5,
                )
            )
    return found
