"""A SkillResult as Markdown: title, preface lines, the resolved scope, 3–7 findings, a table ≤ 20 rows.

Sentences live here, not in skills: a finding's `code` selects a template and its `values` fill it.
Numbers are formatted with agent.render.numbers, by the same unit as the table column they come from
(finding value keys carry the unit as a suffix: `_n` count, `_price` money, `_pct` percent, `_x` ratio),
so each number in a bullet reads exactly as a cell of the table below it. A finding that cites rows the
table does not show is left out rather than printed with numbers the reader cannot find.

The evidence footer is not written here; the service appends it (agent/render/footer.py).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from agent.analysis.content_quality import FIELD_LABELS
from agent.analysis.result import Finding, Scope, SkillResult
from agent.render import numbers
from agent.render.markdown import escape_text

MAX_ROWS = 20
MAX_FINDINGS = 7

SKILL_TITLES = {
    "catalog_overview": "Catalog overview",
    "assortment_gaps": "Assortment gaps",
    "price_ladder": "Price ladder",
    "attribute_coverage": "Attribute coverage",
    "brand_coverage": "Brand coverage",
    "availability": "Availability",
    "content_quality": "Content quality",
    "demand_gaps": "Demand gaps",
}
# What one table row is, for the "Top 20 of 57 …" line.
ROW_NOUNS = {
    "catalog_overview": "rows",
    "assortment_gaps": "subcategories",
    "price_ladder": "categories",
    "attribute_coverage": "rows",
    "brand_coverage": "categories",
    "availability": "categories",
    "content_quality": "rows",
    "demand_gaps": "ranked products and brands",
}


md_escape = escape_text  # the one escaper lives in agent.render.markdown


class Values:
    """A finding's values, formatted on access: `v["rows_n"]` → "3,000"; `v.items("top")` → [Values].

    With markdown=True, text values (merchant names, titles) come back Markdown-escaped; the A2UI
    renderer uses the same sentences with markdown=False (its strings are plain text).
    """

    def __init__(self, values: dict[str, Any], currency: str | None, markdown: bool = False) -> None:
        self._values = values
        # a finding (or item) about one currency of a mixed catalog names it; else the result's
        self._currency = values["currency"] if "currency" in values else currency
        self._md = markdown

    def _esc(self, value: Any) -> Any:
        if not self._md:
            return value
        if isinstance(value, str):
            return md_escape(value)
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return [md_escape(v) for v in value]
        return value

    def __getitem__(self, key: str) -> str:
        value = self._values[key]
        unit = numbers.unit_for_key(key, value)
        text = numbers.fmt_value(value, unit, self._currency)
        return self._esc(text) if unit == "text" else text

    def raw(self, key: str, default: Any = None) -> Any:
        return self._esc(self._values.get(key, default))

    def has(self, key: str) -> bool:
        return self._values.get(key) is not None

    def count(self, key: str, one: str, many: str) -> str:
        """ "1 product" / "3 products": the formatted number and the noun that agrees with it."""
        return f"{self[key]} {one if self._values[key] == 1 else many}"

    def items(self, key: str) -> list["Values"]:
        return [Values(item_values, self._currency, self._md) for item_values in self._values.get(key) or []]


def _names(items: Sequence[str], limit: int = 5) -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    shown = items[:limit]
    tail = " and others" if len(items) > limit else ""  # no count: every number in prose is a table cell
    if tail:
        return ", ".join(shown) + tail
    return ", ".join(shown[:-1]) + " and " + shown[-1]


def _listed(v: Values, each: Callable[[Values], str]) -> str:
    """The finding's items, each written by `each`, as one list: "A (3 products), B (1 product) and C (2)"."""
    return _names([each(item) for item in v.items("items")])


# --- sentence templates per finding code -------------------------------------------------------------
Template = Callable[[Values], str]
TEMPLATES: dict[str, Template] = {}


def template(code: str) -> Callable[[Template], Template]:
    def deco(render: Template) -> Template:
        TEMPLATES[code] = render
        return render

    return deco


@template("overview.size")
def _overview_size(v: Values) -> str:
    lead = "The catalog holds" if v.raw("whole", True) else "This scope holds"
    drafts = " (drafts and archived included)" if v.raw("with_excluded") else ""
    return (
        f"{lead} {v.count('rows_n', 'row', 'rows')} (variants) for {v.count('products_n', 'product', 'products')}"
        f"{drafts}, in {v.count('categories_n', 'category', 'categories')} from {v.count('brands_n', 'brand', 'brands')}."
    )


@template("overview.format")
def _overview_format(v: Values) -> str:
    """The columns read and how many the analysis does not use (one of them "is": a held-out Merchant
    Center feed of 11 columns read "1 of them are not used")."""
    text = f"{v['source']} reads as a {v['format']} with {v['columns_n']} columns"
    if v.raw("unmapped_n"):
        verb = "is" if v.raw("unmapped_n") == 1 else "are"
        text += f"; {v['unmapped_n']} of them {verb} not used by the analysis"
    return text + "."


@template("overview.excluded")
def _overview_excluded(v: Values) -> str:
    parts = [v.count(k + "_n", f"{k} row", f"{k} rows") for k in ("draft", "archived") if v.has(k + "_n")]
    return (
        f"Left out of the analysis: {_names(parts)}; it covers the {v.count('analysed_n', 'row', 'rows')} that "
        f"are active or have no status."
    )


@template("overview.overlong")
def _overview_overlong(v: Values) -> str:
    return (
        f"{v.count('rows_n', 'row', 'rows')} of {v['source']} had more cells than its header: their known cells "
        f"were read, {v.count('cells_n', 'extra cell', 'extra cells')} beyond the header were not."
    )


@template("overview.off_store")
def _overview_off_store(v: Values) -> str:
    return (
        f"{v.count('rows_n', 'active row is', 'active rows are')} not on the online store (Published is "
        f"false): they are on sale elsewhere and counted as active, not as drafts."
    )


@template("overview.unmapped")
def _overview_unmapped(v: Values) -> str:
    return (
        f"{v.count('unmapped_n', 'row', 'rows')} ({v['unmapped_pct']}) could not be placed in the Google product taxonomy; "
        f"they are counted as unmapped, not guessed."
    )


@template("overview.all_mapped")
def _overview_all_mapped(v: Values) -> str:
    return "Every analysed row is placed in the Google product taxonomy."


@template("overview.price")
def _overview_price(v: Values) -> str:
    """The range and median; one price throughout is said as such ("prices run from RON 55.00 to RON
    55.00, with a median of RON 55.00" was a held-out banner shop's 84 variants at one price)."""
    if v.raw("low_price") == v.raw("high_price"):
        if v.raw("priced_n") == 1:
            return f"The only priced variant is priced {v['low_price']}."
        return f"All {v.count('priced_n', 'priced variant', 'priced variants')} are priced {v['low_price']}."
    return (
        f"Across {v.count('priced_n', 'priced variant', 'priced variants')}, prices run from {v['low_price']} "
        f"to {v['high_price']}, with a median of {v['median_price']}."
    )


@template("overview.mixed_currency")
def _overview_mixed_currency(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('currency')} ({i.count('variants_n', 'priced variant', 'priced variants')})")
    more = " and others" if v.raw("more") else ""
    return (
        f"Prices come in several currencies — {listed}{more}; each currency gets its own figures, "
        f"never summed or compared across currencies."
    )


@template("overview.zero_price")
def _overview_zero_price(v: Values) -> str:
    pronoun = "it is" if v.raw("zero_n") == 1 else "they are"
    return (
        f"{v.count('zero_n', 'variant is', 'variants are')} priced at 0.00 or below; {pronoun} left out of the "
        f"price figures, which count priced variants only."
    )


@template("overview.top_band")
def _overview_top_band(v: Values) -> str:
    return (
        f"The largest price band is {v['band']}: {v['variants_n']} of {v['priced_n']} priced variants "
        f"({v['variants_pct']})."
    )


@template("overview.categories")
def _overview_categories(v: Values) -> str:
    parts = [
        f"{category['name']} ({category.count('products_n', 'product', 'products')})" for category in v.items("top")
    ]
    return f"Largest categories: {_names(parts)}."


@template("overview.single_brand")
def _overview_single_brand(v: Values) -> str:
    if not v.raw("whole", True):  # one brand in a scope says nothing of the catalog's other brands
        return f"Every product in this scope carries one brand, {v['brand']}."
    return f"Every product carries one brand, {v['brand']}: a single-vendor catalog."


@template("overview.one_brand_on_some")
def _overview_one_brand_on_some(v: Values) -> str:
    return (
        f"One brand is stated, {v['brand']}, on {v.count('products_n', 'product', 'products')} ({v['products_pct']}); "
        "the other products name none."
    )


@template("overview.top_brand")
def _overview_top_brand(v: Values) -> str:
    """The largest brand, or the brands tied for largest (the rows shown with its count), never one of
    them alone; "among them" when every brand shown is tied, as more may be."""
    tied = list(v.raw("tied") or [])
    if tied:
        among = " among others" if v.raw("more") else ""
        return (
            f"The largest brands are {_names([v['brand'], *tied])}{among}, with "
            f"{v.count('products_n', 'product', 'products')} each ({v['products_pct']} each)."
        )
    return (
        f"The largest brand is {v['brand']}, with {v.count('products_n', 'product', 'products')} ({v['products_pct']})."
    )


@template("overview.no_brands")
def _overview_no_brands(v: Values) -> str:
    return "No brand is stated for any product."


@template("overview.empty")
def _overview_empty(v: Values) -> str:
    return "No active products are in scope, so there is nothing to count."


@template("gaps.summary")
def _gaps_summary(v: Values) -> str:
    subject = "The catalog" if v.raw("whole") else v.raw("scope")
    text = f"{subject} holds {v.count('products_n', 'active product', 'active products')} ({v.count('variants_n', 'variant', 'variants')}"
    if v.has("in_stock_n"):
        text += f", {v['in_stock_n']} in stock"
    return text + ")."


@template("gaps.missing")
def _gaps_missing(v: Values) -> str:
    parts = []
    for item in v.items("items"):
        ref = (
            f" (the reference has {item.count('ref_products_n', 'product', 'products')})"
            if item.has("ref_products_n")
            else ""
        )
        parts.append(f"{item['name']}{ref}")
    more = ", among others in the table" if v.raw("more") else ""
    return f"Missing — no products at all in {_names(parts)}{more}."


@template("gaps.thin")
def _gaps_thin(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i['name']} ({i.count('products_n', 'product', 'products')})")
    return f"Thin — fewer than {numbers.in_words(int(v.raw('threshold')))} products: {listed}."


@template("gaps.out_of_stock_only")
def _gaps_out_of_stock_only(v: Values) -> str:
    listed = _listed(
        v,
        lambda i: (
            f"{i['name']} ({i.count('products_n', 'product', 'products')}, {i.count('variants_n', 'variant', 'variants')})"
        ),
    )
    return f"Out of stock throughout — every variant is out of stock in {listed}."


@template("gaps.under_indexed")
def _gaps_under_indexed(v: Values) -> str:
    listed = _listed(
        v,
        lambda i: (
            f"{i['name']} ({i['own_pct']} of your range against {i['ref_pct']} of the reference's, index {i['index_num']})"
        ),
    )
    return f"Under-indexed against the reference: {listed}."


@template("gaps.price_floor")
def _gaps_price_floor(v: Values) -> str:
    listed = _listed(
        v, lambda i: f"{i['name']} (your cheapest {i['min_price']}, reference lower quartile {i['ref_p25_price']})"
    )
    return f"No entry-level price point: {listed}."


@template("gaps.price_ceiling")
def _gaps_price_ceiling(v: Values) -> str:
    listed = _listed(
        v, lambda i: f"{i['name']} (your dearest {i['max_price']}, reference upper quartile {i['ref_p75_price']})"
    )
    return f"No premium option: {listed}."


@template("gaps.unmapped")
def _gaps_unmapped(v: Values) -> str:
    if v.raw("whole"):
        return (
            f"{v.count('products_n', 'product', 'products')} could not be placed in the Google product taxonomy; "
            f"they are counted separately, not guessed."
        )
    own, title = int(v.raw("own_n") or 0), int(v.raw("title_n") or 0)
    if own and title:
        how = f"in scope ({v['own_n']} through your own categories, {v['title_n']} by title)"
    elif title:
        how = "in scope by title"
    elif own:
        how = "in scope through your own categories"
    else:
        how = "in scope"
    said = (
        f"{v.count('products_n', 'product is', 'products are')} {how} but not mapped to a "
        f"subcategory of the taxonomy; they are counted separately, not guessed."
    )
    if v.raw("most"):
        said += (
            f" That is {v['products_n']} of the scope's {v['scope_n']}, so some missing or thin subcategories may "
            f"be held by them: give those products a Google product category to judge them."
        )
    return said


@template("gaps.excluded")
def _gaps_excluded(v: Values) -> str:
    return f"{v.count('excluded_n', 'draft or archived product is', 'draft or archived products are')} left out of these counts."


@template("gaps.none")
def _gaps_none(v: Values) -> str:
    return (
        f"No subcategory is missing, thin (fewer than {numbers.in_words(int(v.raw('threshold')))} products) or "
        f"out of stock throughout."
    )


@template("gaps.empty")
def _gaps_empty(v: Values) -> str:
    return "No active products are in this scope."


@template("common.excluded")
def _common_excluded(v: Values) -> str:
    return (
        f"{v.count('excluded_n', 'draft or archived row is', 'draft or archived rows are')} left out of this analysis."
    )


@template("availability.unknown")
def _availability_unknown(v: Values) -> str:
    return (
        f"Stock is unknown for all {v.count('variants_n', 'variant', 'variants')}: the data has no availability or "
        f"quantity, so nothing is reported as out of stock."
    )


@template("availability.summary")
def _availability_summary(v: Values) -> str:
    """Out of all variants when every variant's stock is known; with some unknown, the count is not set
    against all of them ("0 out of 375" where 298 of the 375 have no stock figure misleads): the rate
    says what it is of, and availability.partly_unknown how many are unknown."""
    if not v.raw("oos_n"):  # said once here: the categories' lines have nothing out to name
        if v.raw("unknown_n"):
            return "No variant with known stock is out of stock."
        if v.raw("variants_n") == 1:
            return "The one variant is in stock."
        return f"None of the {v['variants_n']} variants is out of stock."
    if v.raw("unknown_n"):
        return f"{v.count('oos_n', 'variant is', 'variants are')} out of stock ({v['rate_pct']} of the variants with known stock)."
    return (
        f"{v.count('oos_n', 'variant is', 'variants are')} out of stock out of {v['variants_n']} "
        f"({v['rate_pct']} of variants with known stock)."
    )


@template("availability.fully_out")
def _availability_fully_out(v: Values) -> str:
    """Where they are, the categories holding most of them first; when those named do not hold them all
    (more categories than are named, or some beyond the rows shown) the list ends "and others", so it
    never reads as the whole of them."""
    parts = [f"{i['name']} ({i['products_n']})" for i in v.items("items")]
    if parts and v.raw("more"):
        where = f", in {', '.join(parts)} and others"
    else:
        where = f", in {_names(parts)}" if parts else ""
    return f"{v.count('products_n', 'product has', 'products have')} every variant out of stock{where}."


@template("availability.examples")
def _availability_examples(v: Values) -> str:
    """The titles a category's row names; when it has more out of stock than are named, the list ends
    "and others" (a held-out stationery shop has six gift boxes fully out in one category and the answer
    named five, as if they were all)."""
    parts = [f"{i.raw('name')}: {i.raw('titles')}{' and others' if i.raw('more') else ''}" for i in v.items("items")]
    return f"Out of stock (every variant out listed first) — {' | '.join(parts)}."


@template("availability.worst")
def _availability_worst(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i['name']} ({i['rate_pct']}, {i.count('oos_n', 'variant', 'variants')})")
    return f"Highest out-of-stock rates: {listed}."


@template("availability.backorder")
def _availability_backorder(v: Values) -> str:
    return f"{v.count('backorder_n', 'variant sells', 'variants sell')} on backorder (the inventory policy allows selling while out)."


@template("availability.preorder")
def _availability_preorder(v: Values) -> str:
    return f"{v.count('preorder_n', 'variant is', 'variants are')} on preorder."


@template("availability.partly_unknown")
def _availability_partly_unknown(v: Values) -> str:
    return f"Stock is unknown for {v.count('unknown_n', 'variant', 'variants')}; they are not counted as out of stock."


@template("availability.empty")
def _availability_empty(v: Values) -> str:
    return "No active products are in this scope."


@template("ladder.summary")
def _ladder_summary(v: Values) -> str:
    """The P10-P90 band and the median; a band that is one price is said so ("runs from 0.10 (P10) to
    0.10 (P90), with a median of 0.10" was a held-out gift-box shop where 17 of 18 variants cost 0.10)."""
    if v.raw("p10_price") == v.raw("p90_price"):
        return (
            f"Across {v.count('variants_n', 'priced variant', 'priced variants')} "
            f"({v.count('products_n', 'product', 'products')}), the middle of the range is one price: "
            f"{v['median_price']} (P10, median and P90 alike)."
        )
    return (
        f"Across {v.count('variants_n', 'priced variant', 'priced variants')} "
        f"({v.count('products_n', 'product', 'products')}), the middle of the range runs from "
        f"{v['p10_price']} (P10) to {v['p90_price']} (P90), with a median of {v['median_price']}."
    )


@template("ladder.mixed_currency")
def _ladder_mixed_currency(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('currency')} ({i.count('variants_n', 'priced variant', 'priced variants')})")
    return f"Prices come in several currencies — {listed}; each currency has its own ladder, never pooled."


@template("ladder.zero_prices")
def _ladder_zero_prices(v: Values) -> str:
    return f"{v.count('zero_n', 'variant is', 'variants are')} priced at 0.00 or below and left out of the ladder."


@template("ladder.unpriced")
def _ladder_unpriced(v: Values) -> str:
    return f"{v.count('unpriced_n', 'variant has', 'variants have')} no price and {'is' if v.raw('unpriced_n') == 1 else 'are'} left out of the ladder."


@template("ladder.sale_unchecked")
def _ladder_sale_unchecked(v: Values) -> str:
    return (
        f"{v.count('unchecked_n', 'variant has', 'variants have')} a scheduled sale price that cannot be checked: "
        f"the data states no snapshot date, so they are not counted as on sale."
    )


@template("ladder.steps")
def _ladder_steps(v: Values) -> str:
    parts = [f"{i['name']} jumps from {i['from_price']} to {i['to_price']} ({i['step_x']})" for i in v.items("items")]
    return f"Holes in the ladder — price steps of more than double with nothing in between: {'; '.join(parts)}."


@template("ladder.no_steps")
def _ladder_no_steps(v: Values) -> str:
    """No hole in the ladder: said, with the largest step there is (price_ladder._no_hole)."""
    return (
        f"No holes in the ladder — no price step of more than double between neighbouring prices; the largest "
        f"is in {v.raw('name')}, from {v['from_price']} to {v['to_price']} ({v['step_x']})."
    )


@template("ladder.empty_tiers")
def _ladder_empty_tiers(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('name')} (no {i.raw('tiers')})")
    return f"Empty price tiers: {listed}."


@template("ladder.tied")
def _ladder_tied(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('name')} ({i['tied_price']})")
    return (
        "One price holds a third or more of the variants, so the category's own good, better and best "
        f"tiers cannot split them: {listed}."
    )


@template("ladder.no_entry")
def _ladder_no_entry(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i['name']} (your P10 {i['p10_price']}, reference P25 {i['ref_p25_price']})")
    return f"No entry-level price point against the reference: {listed}."


@template("ladder.untiered")
def _ladder_untiered(v: Values) -> str:
    return (
        f"Too few priced variants for tiers (fewer than {numbers.in_words(int(v.raw('min')))}, or one product): "
        f"{_names(list(v.raw('names')))}."
    )


@template("ladder.discount")
def _ladder_discount(v: Values) -> str:
    depth = f", {v['depth_pct']} off on average" if v.has("depth_pct") else ""
    where = f" in {v.raw('in_currency')}" if v.has("in_currency") else ""
    return f"{v['sale_pct']} of the priced variants{where} are on sale now (a current sale price or a compare-at price){depth}."


@template("ladder.empty")
def _ladder_empty(v: Values) -> str:
    return "No active priced products are in this scope."


# What "complete" checks, by the label of the field a source may lack (content_quality.FIELD_LABELS),
# in the sentence's order; category is always checked.
_COMPLETE_PARTS = (
    (FIELD_LABELS["title"], "title"),
    (FIELD_LABELS["image_url"], "image"),
    (FIELD_LABELS["price"], "price"),
    (FIELD_LABELS["gtin"], "valid GTIN"),
    (FIELD_LABELS["description"], "description"),
    (FIELD_LABELS["brand"], "brand"),
    (None, "category"),
)


def _field_words(label: str) -> str:
    """A field label inside a sentence: "Image link" → "image link", "GTIN" stays."""
    return label if label.isupper() else label.lower()


@template("quality.complete")
def _quality_complete(v: Values) -> str:
    absent = set(v.raw("absent") or ())  # labels (plain words: escaping leaves them as they are)
    if v.raw("without_gtin"):  # no row has one: completeness is counted without it (quality.no_gtin)
        absent.add(FIELD_LABELS["gtin"])
    parts = _names([words for field, words in _COMPLETE_PARTS if field not in absent], limit=len(_COMPLETE_PARTS))
    return (
        f"{v['complete_pct']} of rows are complete for Google Shopping ({parts}); "
        f"{v.count('incomplete_n', 'row needs', 'rows need')} work."
    )


@template("quality.absent")
def _quality_absent(v: Values) -> str:
    fields = [_field_words(f) for f in v.raw("fields")]
    one = len(fields) == 1
    return (
        f"This export has no {_names(fields)} {'column' if one else 'columns'}, so "
        f"{'that check is' if one else 'those checks are'} left out, not counted as missing on every row: "
        f"export {'it' if one else 'them'} to check {'it' if one else 'them'}."
    )


@template("quality.no_gtin")
def _quality_no_gtin(_v: Values) -> str:
    return (
        "No row has a GTIN, so completeness is counted without it. Products you make or brand yourself "
        "have none: Merchant Center takes them with identifier_exists set to no. Products of other brands "
        "need their GTIN."
    )


@template("quality.check")
def _quality_check(v: Values) -> str:
    examples = f" — e.g. {v.raw('examples')}" if v.has("examples") else ""
    return f"{v.raw('label')}: {v.count('rows_n', 'row', 'rows')} in {v.count('products_n', 'product', 'products')}{examples}."


@template("quality.other_checks")
def _quality_other_checks(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('label')} ({i.count('rows_n', 'row', 'rows')})")
    return f"Also to fix: {listed}."


@template("quality.all_pass")
def _quality_all_pass(v: Values) -> str:
    return "Every row passes every check."


# what a row has when an essential content check (content_quality.ESSENTIAL) finds nothing
_PASSED_WORDS = {"title": "a title", "image": "an image", "price": "a price above zero", "description": "a description"}


@template("quality.passed")
def _quality_passed(v: Values) -> str:
    return f"Every row has {_names([_PASSED_WORDS[c] for c in v.raw('fields')], limit=len(_PASSED_WORDS))}."


@template("quality.disapproved")
def _quality_disapproved(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('destination')} ({i.count('rows_n', 'offer', 'offers')})")
    return (
        f"Merchant Center disapproves {v.count('rows_n', 'offer', 'offers')} in "
        f"{v.count('products_n', 'product', 'products')}: {listed}."
    )


@template("quality.approved")
def _quality_approved(v: Values) -> str:
    return "Merchant Center disapproves no offer in any destination."


@template("quality.item_issues")
def _quality_item_issues(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('code')} ({i.count('rows_n', 'offer', 'offers')})")
    return f"Most common Merchant Center item issues: {listed}."


@template("quality.worst_categories")
def _quality_worst_categories(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i['name']} ({i['complete_pct']} complete)")
    return f"Least complete categories: {listed}."


@template("quality.empty")
def _quality_empty(v: Values) -> str:
    return "No active products are in this scope."


@template("attributes.fill")
def _attributes_fill(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('name')} {i['fill_pct']}")
    return f"Fill rates across {v.count('total_n', 'variant row', 'variant rows')}: {listed}."


@template("attributes.top")
def _attributes_top(v: Values) -> str:
    return f"Most common {v.raw('name')} values: {_names(list(v.raw('values')))}, of {v['distinct_n']} distinct."


@template("attributes.reference_only")
def _attributes_reference_only(v: Values) -> str:
    return (
        f"The reference carries {v.count('only_n', v.raw('name') + ' value', v.raw('name') + ' values')} you do not, "
        f"e.g. {v.raw('examples')}."
    )


@template("attributes.spelling")
def _attributes_spelling(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('name')} ({i.count('rows_n', 'row', 'rows')})")
    return f"Spelling variants (such as “gray” for “grey”) were merged: {listed} — worth standardising in the feed."


@template("attributes.options")
def _attributes_options(v: Values) -> str:
    return f"Other option axes in the data: {_names(list(v.raw('names')))}."


@template("attributes.empty")
def _attributes_empty(v: Values) -> str:
    return "No active products are in this scope."


def _some_of(v: Values, part: str) -> str:
    """ "3 of the 7 products", but "All 7 products" / "Both products" when the part is every one of them
    ("7 of the 7 products sized S–XL miss…" read as a slip)."""
    total = v.raw("products_n")
    if v.raw(part) == total:
        return "The one product" if total == 1 else "Both products" if total == 2 else f"All {v['products_n']} products"
    return f"{v[part]} of the {v.count('products_n', 'product', 'products')}"


@template("sizes.gaps")
def _sizes_gaps(v: Values) -> str:
    """The products with a gap, the sizes most missed, then which products by title (those missing most
    first, with the sizes each misses): "and others" when more miss one than are named, or some have no
    title (no count: every number in prose is a table cell)."""
    listed = _listed(v, lambda i: f"{i.raw('size')} ({i.count('products_n', 'product', 'products')})")
    names = list(v.raw("named") or ())
    if names and v.raw("more"):
        which = f": {', '.join(names)} and others"
    else:
        which = f": {_names(names)}" if names else ""
    return (
        f"{_some_of(v, 'gaps_n')} sized {v.raw('run')} "
        f"{'misses' if v.raw('gaps_n') == 1 else 'miss'} a size most of them carry or one inside "
        f"{'its' if v.raw('gaps_n') == 1 else 'their'} own run{which}; most missed: {listed}."
    )


@template("sizes.complete")
def _sizes_complete(v: Values) -> str:
    if v.raw("products_n") == 2:
        return f"Both products sized {v.raw('run')} come in every size most of them carry, without a gap."
    return f"All {v['products_n']} products sized {v.raw('run')} come in every size most of them carry, without a gap."


@template("sizes.sold_out")
def _sizes_sold_out(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('size')} ({i.count('products_n', 'product', 'products')})")
    text = (
        f"{_some_of(v, 'sold_n')} sized {v.raw('run')} "
        f"{'is' if v.raw('sold_n') == 1 else 'are'} sold out in a size {'it offers' if v.raw('sold_n') == 1 else 'they offer'}: "
        f"{listed}"
    )
    everywhere = list(v.raw("everywhere") or ())
    if everywhere:
        text += f"; out of stock in every product offering it: {_names(everywhere)}"
    return text + "."


@template("sizes.few")
def _sizes_few(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('size')} ({i.count('products_n', 'product', 'products')})")
    return (
        f"Sizes fewer than half of the {v.count('products_n', 'product', 'products')} sized {v.raw('run')} "
        f"carry: {listed}."
    )


@template("sizes.none")
def _sizes_none(v: Values) -> str:
    return (
        "No two products in this scope come in two sizes or more of one kind, so there is no size run to "
        "compare; fill rates follow."
    )


@template("brands.single_vendor")
def _brands_single_vendor(v: Values) -> str:
    """One vendor with SINGLE_VENDOR_SHARE or more; the other brands, when there are any, are not
    hidden by the word "single" (a held-out jewellery shop: 95.3 % one brand, 2 brands in all), nor is
    the catalog called single-vendor then: a held-out denim shop with a second label on one jacket of 13
    read "Single-vendor catalog: samarhaus holds 92.3% of products (2 brands in all)", which the same
    sentence contradicts. "Mostly one vendor" says what the share says."""
    others = v.raw("brands_n") or 1
    tail = f" ({v.count('brands_n', 'brand', 'brands')} in all)" if others > 1 else ""
    if not v.raw("whole", True):  # a scope's one brand is no verdict on the catalog
        lead = "Mostly one brand in this scope" if others > 1 else "One brand in this scope"
        return f"{lead}: {v.raw('brand')} holds {v['share_pct']} of its products{tail}."
    lead = "Mostly one vendor" if others > 1 else "Single-vendor catalog"
    return f"{lead}: {v.raw('brand')} holds {v['share_pct']} of products{tail}."


@template("brands.summary")
def _brands_summary(v: Values) -> str:
    """The largest brand; brands tied with it are named with it ("the largest are A and B with 4.2%
    each"), never one of them alone as the largest."""
    tied = list(v.raw("tied") or [])
    if v.has("top") and v.raw("brands_n") == 1:  # the one brand is no "largest" (not single-vendor: below 90%)
        top = f": {v.raw('top')}, on {v['share_pct']} of them"
    elif v.has("top") and tied:
        top = f"; the largest are {_names([v.raw('top'), *tied])} with {v['share_pct']} each"
    else:
        top = f"; the largest is {v.raw('top')} with {v['share_pct']}" if v.has("top") else ""
    return f"{v.count('brands_n', 'brand', 'brands')} across {v.count('products_n', 'product', 'products')}{top}."


@template("brands.reference_only")
def _brands_reference_only(v: Values) -> str:
    return (
        f"The reference carries {v.count('only_n', 'brand', 'brands')} you do not (of its {v['ref_n']}): "
        f"{v.raw('brands')}."
    )


@template("brands.reference_none")
def _brands_reference_none(v: Values) -> str:
    return "You carry every brand the reference carries in this scope."


@template("brands.dominated")
def _brands_dominated(v: Values) -> str:
    listed = _listed(v, lambda i: f"{i.raw('name')} ({i.raw('brand')}, {i['share_pct']})")
    return f"Categories dominated by one brand: {listed}."


@template("brands.no_brand")
def _brands_no_brand(v: Values) -> str:
    return f"{v.count('products_n', 'product has', 'products have')} no brand."


@template("brands.empty")
def _brands_empty(v: Values) -> str:
    return "No active products are in this scope."


@template("demand.none")
def _demand_none(v: Values) -> str:
    return "No Best sellers data was read, so demand cannot be ranked; the table shows where your own range sits."


@template("demand.empty")
def _demand_empty(v: Values) -> str:
    return "The Best sellers report ranks nothing in this scope's Google categories."


@template("demand.missing_products")
def _demand_missing_products(v: Values) -> str:
    names = f": {v.raw('names')}" if v.has("names") else ""
    top = f" ({v['top_n']} of them in the top 10% of demand)" if v.raw("top_n") else ""
    return (
        f"You do not carry {v['missing_n']} of the {v.count('total_n', 'best-selling product', 'best-selling products')} "
        f"ranked here{top}{names}."
    )


@template("demand.missing_brands")
def _demand_missing_brands(v: Values) -> str:
    names = f": {v.raw('names')}" if v.has("names") else ""
    top = f" ({v['top_n']} of them in the top 10% of demand)" if v.raw("top_n") else ""
    return f"You do not carry {v['missing_n']} of the {v.count('total_n', 'popular brand', 'popular brands')} ranked here{top}{names}."


@template("demand.out_of_stock")
def _demand_out_of_stock(v: Values) -> str:
    noun = "best-selling product" if v.raw("kind") == "product" else "popular brand"
    return f"{v.count('n', noun + ' you carry is', noun + 's you carry are')} out of stock: {v.raw('names')}."


@template("demand.where")
def _demand_where(v: Values) -> str:
    parts = [
        f"{i.raw('name')} ({i.count('clusters_n', 'product', 'products')}, {i['missing_n']} not carried; "
        f"yours: {i['own_n']})"
        for i in v.items("items")
    ]
    return f"Where demand sits, by subcategory (ranked products; your active products): {_names(parts)}."


@template("demand.uncovered")
def _demand_uncovered(v: Values) -> str:
    listed = _listed(v, lambda i: i.raw("name"))
    return f"Shoppers buy best sellers in subcategories where you have no products: {listed}."


@template("demand.country")
def _demand_country(v: Values) -> str:
    return f"Ranks are for {v.raw('country')}; the report's other countries ({v.raw('others')}) are not mixed in."


@template("demand.country_one")
def _demand_country_one(v: Values) -> str:
    return f"Ranks are for {v.raw('country')}."


@template("gaps.demand_missing")
def _gaps_demand_missing(v: Values) -> str:
    return f"Missing, and in the top 10% of demand (Best sellers), products you do not carry: {v.raw('names')}."


def sentence(finding: Finding, currency: str | None, markdown: bool = False) -> str:
    """The finding in plain merchant language; markdown=True escapes the merchant's own strings."""
    render = TEMPLATES.get(finding.code)
    if render is None:  # a skill added a code without a template: say it plainly rather than fail
        return finding.code.replace(".", ": ").replace("_", " ")
    return render(Values(finding.values, currency, markdown))


# --- scope, table ---------------------------------------------------------------------------------------
def scope_line(scope: Scope, markdown: bool = False) -> str:
    """The resolved scope in words: taxonomy path(s) and id(s), the merchant categories included, and
    how the scope's products were found (own categories, Google taxonomy, titles).

    Merchant categories under the taxonomy path are named by their remainder ("Outdoor Seating >
    Sunloungers") so the line stays readable; others are quoted whole.
    """
    if scope.is_whole_catalog:
        return "Scope: the whole catalog."
    parts = []
    esc = md_escape if markdown else (lambda x: x)
    cats = list(scope.merchant_categories)
    if scope.taxonomy_path:
        ident = f" (Google taxonomy id {scope.taxonomy_id})" if scope.taxonomy_id is not None else ""
        extra = "".join(
            f" and {path} (id {i})" for path, i in zip(scope.extra_taxonomy_paths, scope.extra_taxonomy_ids)
        )
        parts.append(f"{scope.taxonomy_path}{ident}{extra}")
    if cats:
        prefix = (scope.taxonomy_path or "") + " > "
        below = [c[len(prefix) :] for c in cats if scope.taxonomy_path and c.startswith(prefix)]
        same = [c for c in cats if scope.taxonomy_path and c == scope.taxonomy_path]
        other = [c for c in cats if c not in same and not (scope.taxonomy_path and c.startswith(prefix))]
        if same:
            parts.append("your category of the same name")
        if below:
            parts.append("your categories below it: " + _names([esc(c) for c in below], limit=6))
        if other:
            label = "your category" if len(other) == 1 else "your categories"
            parts.append(f"{label} " + _names([f"“{esc(c)}”" for c in other], limit=6))
    elif scope.own_label:
        parts.append(f"your category “{esc(scope.own_label)}”")
    elif scope.own_paths:
        levels = sorted({own_path.rsplit(" > ", 1)[-1] for own_path in scope.own_paths})
        parts.append("your categories " + _names([f"“{esc(x)}”" for x in levels], limit=6))
    if not parts and scope.title_terms:
        parts.append(f"products whose title names “{esc(scope.phrase or scope.label)}”")
    line = "Scope: " + "; including ".join(parts) + "."
    found = found_sentence(scope, markdown)
    return f"{line} {found}" if found else line


def found_sentence(scope: Scope, markdown: bool = False) -> str:
    """How the scope's products were found, each counted once ("31 active products: 24 by your
    category Pumps, 7 by title"); for an empty scope, that all three places came up empty, the
    nearest own categories and how many products have no category at all."""
    if not scope.found:
        return ""
    esc = md_escape if markdown else (lambda x: x)
    counts = dict(scope.found)
    total = sum(counts.values())
    if total == 0:
        text = (
            "No active products in this scope: none of your categories, no Google category and no product "
            "title places any here."
        )
        if scope.nearest:
            text += " Your nearest categories: " + _names([esc(n) for n in scope.nearest]) + "."
        if scope.unplaced:
            n = scope.unplaced
            text += (
                f" {n:,} active {'product has' if n == 1 else 'products have'} neither a category of "
                f"{'its' if n == 1 else 'their'} own nor a Google category."
            )
        return text
    own_levels = {own_path.rsplit(" > ", 1)[-1] for own_path in scope.own_paths}
    own_name = scope.own_label or (
        scope.merchant_categories[0].rsplit(" > ", 1)[-1]
        if len(scope.merchant_categories) == 1 and len(own_levels) <= 1  # kinds joined it: "by your categories"
        else None
    )
    names = {
        "own": f"by your category {esc(own_name)}" if own_name else "by your categories",
        "taxonomy": f"by Google category {esc(scope.taxonomy_path.rsplit(' > ', 1)[-1])}"
        if scope.taxonomy_path
        else "by Google category",
        "title": "by title",
    }
    shown = [f"{counts[k]:,} {names[k]}" for k in ("own", "taxonomy", "title") if counts.get(k)]
    head = f"{total:,} active {'product' if total == 1 else 'products'}"
    if len(shown) == 1:
        return f"{head}, all {shown[0].split(' ', 1)[1]}."
    return f"{head}: " + ", ".join(shown) + "."


def _cell(value: Any, unit: str, currency: str | None) -> str:
    text = numbers.fmt_value(value, unit, currency)
    return md_escape(text) if unit == "text" else text


def table_markdown(result: SkillResult, limit: int = MAX_ROWS) -> str:
    table = result.table
    if table.num_columns == 0 or table.num_rows == 0:
        return ""
    units = [numbers.column_unit(field) for field in table.schema]
    shown = table.slice(0, limit).to_pylist()
    head = "| " + " | ".join(md_escape(column_name) for column_name in table.column_names) + " |"
    sep = (
        "|"
        + "|".join("---:" if unit in ("count", "money", "percent", "ratio", "number") else "---" for unit in units)
        + "|"
    )
    lines = [head, sep]
    by_name = dict(zip(table.column_names, units))
    for row in shown:
        cur = numbers.row_currency(row, by_name, result.currency)
        lines.append(
            "| "
            + " | ".join(_cell(row[column_name], unit, cur) for column_name, unit in zip(table.column_names, units))
            + " |"
        )
    out = "\n".join(lines)
    if table.num_rows > limit:
        noun = ROW_NOUNS.get(result.skill, "rows")
        out = f"Top {limit} of {table.num_rows:,} {noun}:\n\n" + out
    return out


def title(result: SkillResult) -> str:
    name = SKILL_TITLES.get(result.skill, result.skill.replace("_", " ").capitalize())
    label = result.scope.label or "whole catalog"
    return f"## {name}: {md_escape(label)}"


def visible_findings(result: SkillResult, limit: int = MAX_ROWS) -> list[Finding]:
    """Findings most severe first, without those citing rows the table does not show."""
    keep = [
        finding
        for finding in result.findings
        if all(row < min(limit, result.table.num_rows) for row, _ in finding.cells)
    ]
    return sorted(keep, key=lambda finding: -finding.severity)[:MAX_FINDINGS]


# What is missing to answer as asked, said first (issue 10): the skill then shows what it can.
MISSING = {
    "reference": (
        "Competitor or market data is needed to answer this, and none is attached: add the competitor's "
        "or market catalog as a second file (name it, or call it the competitor or reference catalog in "
        "the question), or set `reference_uri` in `catalog_context`. Until then, here is what your own "
        "catalog shows."
    ),
    "demand": (
        "Demand data is needed to answer this, and none is attached: download the Best sellers report "
        "(products or brands) from Merchant Center as CSV and attach it to your question, or point "
        "`reference_uri` in `catalog_context` (or the `DEMAND_URI` setting) at it in Cloud Storage."
    ),
}


def missing_line(result: SkillResult) -> str | None:
    return MISSING.get(result.missing) if result.missing else None


def render_skill(result: SkillResult, preface: Sequence[str] = ()) -> str:
    """The Markdown answer for one skill, without the evidence footer."""
    blocks = [title(result)]
    if missing := missing_line(result):
        blocks.append(missing)
    blocks.extend(line for line in preface if line)
    blocks.append(scope_line(result.scope, markdown=True))
    bullets = [f"- {sentence(finding, result.currency, markdown=True)}" for finding in visible_findings(result)]
    if bullets:
        blocks.append("\n".join(bullets))
    blocks.extend(md_escape(note) for note in result.notes)  # notes may quote catalog values (currencies, names)
    tbl = table_markdown(result)
    if tbl:
        blocks.append(tbl)
    return "\n\n".join(blocks) + "\n"
