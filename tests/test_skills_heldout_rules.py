"""Rules of the non-gaps skills found by asking held-out real exports (not in the corpus) the merchant's
questions and checking every figure against an independent count: each test builds a small export the
way those files are written and fails without its rule."""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

from agent.analysis.inputs import SkillInput
from agent.analysis.registry import SKILLS
from agent.analysis.result import Scope
from agent.catalog.ingest import read_table_bytes
from agent.catalog.taxonomy import load
from tests.helpers import csv_bytes

TAX = load()
SHOPIFY = [
    "Handle",
    "Title",
    "Body (HTML)",
    "Vendor",
    "Type",
    "Option1 Name",
    "Option1 Value",
    "Option2 Name",
    "Option2 Value",
    "Variant SKU",
    "Variant Price",
    "Image Src",
    "Status",
]


def _shopify(rows: list[list]) -> object:
    table, _ = read_table_bytes(csv_bytes(SHOPIFY, rows), "products_export_1.csv", "attached file")
    return table


def _run(skill: str, table) -> list[dict]:
    result = SKILLS[skill].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    return result.table.to_pylist()


def test_option_named_like_an_attribute_is_counted_once_under_it():
    """A Shopify shop names its axes "Color Options" and "Size (Inch)" (held-out exports of a frame shop
    and a tumbler shop): the catalog layer reads them as colour and size, so attribute_coverage must too,
    not list the same values again as "Option: Color Options" and "Option: Size (Inch)"."""
    rows = []
    for i, (colour, size) in enumerate([("All Blue", '8" by 10"'), ("All Pink", '12" by 16"'), ("Pink & Blue", "")]):
        first = i == 0
        rows.append(
            [
                "tumbler",
                "Kids Tumbler" if first else "",
                "<p>Tumbler</p>" if first else "",
                "Muse" if first else "",
                "Drinkware" if first else "",
                "Color Options" if first else "",
                colour,
                "Size (Inch)" if first else "",
                size,
                f"T{i}",
                "12.00",
                "https://example.com/t.jpg" if first else "",
                "active" if first else "",
            ]
        )
    got = {r["Attribute"]: r for r in _run("attribute_coverage", _shopify(rows))}
    assert not [a for a in got if a.startswith("Option:")], got.keys()
    assert got["Colour"]["Filled rows"] == 3 and got["Colour"]["Distinct values"] == 3
    assert got["Size"]["Filled rows"] == 2 and got["Size"]["Distinct values"] == 2


def test_woocommerce_brand_attribute_is_not_an_option_axis():
    """A WooCommerce "Brand" attribute is read as the brand column; it is no colour-like axis to list."""
    header = ["ID", "Type", "SKU", "Name", "Published", "Regular price", "Categories", "Images"]
    header += ["Attribute 1 name", "Attribute 1 value(s)", "Attribute 1 visible", "Attribute 1 global"]
    rows = [
        [str(i), "simple", f"S{i}", f"Speaker {i}", "1", "20", "Speakers", "https://e.com/a.jpg", "Brand", b, "1", "0"]
        for i, b in enumerate(("AeroPulse", "VoltMax"))
    ]
    table, _ = read_table_bytes(csv_bytes(header, rows), "wc-product-export.csv", "attached file")
    got = [r["Attribute"] for r in _run("attribute_coverage", table)]
    assert "Option: Brand" not in got


def _vendors(vendors: list[str]):
    rows = [
        [f"p{i}", f"Swimsuit {i}", "<p>Swim</p>", v, "Swimwear", "Title", "Default Title", "", "", f"S{i}", "88.00"]
        + ["https://example.com/s.jpg", "active"]
        for i, v in enumerate(vendors)
    ]
    return _shopify(rows)


def test_brand_spelled_in_other_cases_is_one_brand():
    """A held-out swimwear export has its own vendor as "SWIMINISTA" on 15 products and "Swiminista" on
    8: counted apart, that was 4 brands of 3 and a 60 % top brand where it holds 92 %. Case is no brand
    difference: brand_coverage and the overview count one brand, shown by its spelling on most products."""
    table = _vendors(["SWIMINISTA"] * 3 + ["Swiminista"] * 2 + ["Route"])
    total = _run("brand_coverage", table)[0]
    assert total["Brands"] == 2
    assert total["Top brand"] == "SWIMINISTA" and total["Top brand share"] == round(100 * 5 / 6, 1)
    overview = {(r["Section"], r["Item"]): r for r in _run("catalog_overview", table)}
    assert overview[("Summary", "Brands")]["Count"] == 2
    assert overview[("Top brands (products)", "SWIMINISTA")]["Count"] == 5
    assert ("Top brands (products)", "Swiminista") not in overview


def test_brand_shown_by_its_spelling_on_most_products_ties_by_name():
    table = _vendors(["jazzupco", "JAZZUPCO", "JazzUpCo", "jazzupco"])
    assert _run("brand_coverage", table)[0]["Top brand"] == "jazzupco"
    table = _vendors(["jazzupco", "JAZZUPCO"])
    assert _run("brand_coverage", table)[0]["Top brand"] == "JAZZUPCO"  # a tie: the smaller name


def test_content_quality_says_which_essentials_no_row_lacks():
    """ "Which products have missing images or descriptions?" on held-out exports where none is missing
    got the GTIN and category problems only: silence about images. The answer now says what every row
    has, and leaves out a field a row lacks (here: one description)."""
    from agent.render.text import render_skill

    rows = [
        [f"p{i}", f"Ring {i}", "" if i == 0 else "<p>Gold ring</p>", "Muse", "Rings", "Title", "Default Title"]
        + ["", "", f"R{i}", "15.00", "https://example.com/r.jpg", "active"]
        for i in range(3)
    ]
    table = _shopify(rows)
    result = SKILLS["content_quality"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    md = render_skill(result)
    assert "Every row has a title, an image and a price above zero." in md
    assert "Missing description" in md


def test_out_of_stock_count_is_not_set_against_variants_whose_stock_is_unknown():
    """A held-out Shopify export tracks stock ("shopify") but carries no quantity column: 298 of 375
    variants have no stock figure. "0 variants are out of stock out of 375" set the count against all
    375; with some stock unknown the sentence gives the rate over the known ones only, and the unknown
    ones are said apart."""
    from agent.render.text import render_skill
    from tests.helpers import bullets

    header = ["Handle", "Title", "Vendor", "Option1 Name", "Option1 Value", "Variant SKU", "Variant Price"]
    header += ["Variant Inventory Tracker", "Variant Inventory Policy", "Status"]
    rows = [
        ["suit", "Swimsuit", "Swim", "Size", size, f"S-{size}", "88.00", "shopify", "deny", "active" if i == 0 else ""]
        for i, size in enumerate(("XS", "S", "M"))
    ] + [["insurance", "Shipping insurance", "Route", "Title", "Default Title", "R1", "0.98", "", "continue", "active"]]
    table, _ = read_table_bytes(csv_bytes(header, rows), "products_export_1.csv", "attached file")
    result = SKILLS["availability"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    total = result.table.to_pylist()[0]
    assert total["Variants"] == 4 and total["Stock unknown variants"] == 3
    md = render_skill(result)
    assert not [b for b in bullets(md) if "out of 4" in b], md
    assert "No variant with known stock is out of stock." in md  # said once, not again below
    assert "Stock is unknown for 3 variants" in md


def test_example_ids_holding_a_comma_are_not_read_as_two():
    """A held-out print-on-demand export keeps several ids in one SKU ("MINIHT,FULLHT"): joined with
    ", " the examples read as more SKUs than there are. Then they are joined with "; "."""
    from agent.analysis.content_quality import join_examples

    assert join_examples(["A1", "B2"]) == "A1, B2"
    assert join_examples(["MINIHT,FULLHT", "1701002423,1701002422"]) == "MINIHT,FULLHT; 1701002423,1701002422"
    assert join_examples([]) is None
    rows = [
        [f"p{i}", f"Tee {i}", "<p>Tee</p>", "Magic", "Shirts", "Title", "Default Title", "", "", "MINIHT,FULLHT"]
        + ["20.00", "https://example.com/t.jpg", "active"]
        for i in range(2)
    ]
    result = SKILLS["content_quality"].run(SkillInput(own=_shopify(rows), reference=None, scope=Scope(), taxonomy=TAX))
    dup = next(r for r in result.table.to_pylist() if r["Item"] == "Duplicate SKU")
    assert dup["Examples"] == "MINIHT,FULLHT"


def test_overview_says_one_price_throughout_as_such():
    """A held-out Merchant Center feed prices its 84 banners at 55.00 RON each: "prices run from RON 55.00
    to RON 55.00, with a median of RON 55.00" reads as a range that is none."""
    from agent.render.text import render_skill
    from tests.helpers import assert_prose_numbers_in_table

    header = ["id", "title", "description", "link", "image_link", "price", "availability", "brand"]
    rows = [
        [f"b{i}", f"Banner {i}", "Banner", "https://e.ro/b", "https://e.ro/b.jpg", "55.00 RON", "in stock", "Prynt"]
        for i in range(4)
    ]
    table, _ = read_table_bytes(csv_bytes(header, rows), "google_merchant_feed.csv", "attached file")
    result = SKILLS["catalog_overview"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    md = render_skill(result)
    assert "All 4 priced variants are priced RON 55.00." in md, md
    assert "run from" not in md
    assert_prose_numbers_in_table(md)


def test_price_ladder_says_a_one_price_middle_as_such():
    """Held-out exports where most variants share one price (a gift-box shop at 0.10, a suit shop at
    1,499.00) read "the middle of the range runs from 0.10 (P10) to 0.10 (P90), with a median of 0.10"."""
    from agent.render.text import render_skill
    from tests.helpers import assert_prose_numbers_in_table

    rows = [
        [f"p{i}", f"Gift box {i}", "<p>Box</p>", "Xactz", "Gift Boxes", "Title", "Default Title", "", "", f"X{i}"]
        + ["0.01" if i == 0 else "0.10", "https://example.com/b.jpg", "active"]
        for i in range(12)
    ]
    result = SKILLS["price_ladder"].run(SkillInput(own=_shopify(rows), reference=None, scope=Scope(), taxonomy=TAX))
    md = render_skill(result)
    assert "the middle of the range is one price: 0.10 (P10, median and P90 alike)." in md, md
    assert_prose_numbers_in_table(md)


def test_single_vendor_sentence_says_how_many_brands_there_are():
    """A held-out jewellery export: "MUSES." on 41 of 43 products, "Muses Accessories" on 2. "Single-vendor
    catalog: MUSES. holds 95.3% of products" hid that there is a second brand."""
    from agent.render.text import render_skill

    table = _vendors(["MUSES."] * 19 + ["Muses Accessories"])
    md = render_skill(SKILLS["brand_coverage"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX)))
    assert "Mostly one vendor: MUSES. holds 95.0% of products (2 brands in all)." in md, md
    assert "Single-vendor" not in md  # two brands are not one (a held-out denim shop: 12 of 13 samarhaus)
    table = _vendors(["Solo"] * 3)
    md = render_skill(SKILLS["brand_coverage"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX)))
    assert "Single-vendor catalog: Solo holds 100.0% of products." in md


def test_brands_tied_for_largest_are_named_together():
    """A held-out pet feed had AGATAR and Pets Store at 16 products each: the overview said "The largest
    brand is AGATAR" and brand coverage "the largest is AGATAR with 4.2%", a tie broken by the name and
    said as a fact. Brands tied with the first are named with it; one largest brand reads as before."""
    from agent.render.text import render_skill
    from tests.helpers import bullets

    def said(skill: str, table) -> list[str]:
        result = SKILLS[skill].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
        return bullets(render_skill(result))

    tied = _vendors(["Pets Store"] * 2 + ["AGATAR"] * 2 + ["Zootec"])
    assert "The largest brands are AGATAR and Pets Store, with 2 products each (40.0% each)." in said(
        "catalog_overview", tied
    )
    assert "3 brands across 5 products; the largest are AGATAR and Pets Store with 40.0% each." in said(
        "brand_coverage", tied
    )
    one = _vendors(["Pets Store"] * 3 + ["AGATAR"] * 2 + ["Zootec"])
    assert "The largest brand is Pets Store, with 3 products (50.0%)." in said("catalog_overview", one)
    assert "3 brands across 6 products; the largest is Pets Store with 50.0%." in said("brand_coverage", one)


def test_one_brand_on_some_products_is_not_every_product():
    """A held-out WooCommerce synthesizer shop states a brand (an attribute) on 2 of its 370 products:
    the overview said "Every product carries one brand, roland: a single-vendor catalog" and brand
    coverage "the largest is roland with 0.5%". One brand on some products says on how many; one brand
    on every product reads as before."""
    from agent.render.text import render_skill
    from tests.helpers import bullets

    def said(skill: str, table) -> list[str]:
        result = SKILLS[skill].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
        return bullets(render_skill(result))

    some = _vendors(["roland", "", "", ""])
    overview = said("catalog_overview", some)
    assert "One brand is stated, roland, on 1 product (25.0%); the other products name none." in overview
    assert not any("Every product carries one brand" in b for b in overview), overview
    assert "1 brand across 4 products: roland, on 25.0% of them." in said("brand_coverage", some)
    every = _vendors(["Solo"] * 3)
    assert "Every product carries one brand, Solo: a single-vendor catalog." in said("catalog_overview", every)


def test_one_brand_in_a_scope_is_no_single_vendor_catalog():
    """A corpus boot maker has 19 vendors; asked "How many socks do I have?", its 23 socks all carry one
    of them, and the overview called that "a single-vendor catalog". In a scope the sentence says the
    scope's one brand and nothing of the catalog's."""
    from agent.render.text import render_skill
    from tests.helpers import bullets

    table = _vendors(["Solo"] * 3 + ["Other"] * 2)
    own = table["product_key"].to_pylist()[:3]
    scope = Scope(label="Swim", title_terms=("swimsuit",), own_paths=())
    result_table = table.filter(pc.is_in(table["product_key"], pa.array(own)))
    result = SKILLS["catalog_overview"].run(SkillInput(own=result_table, reference=None, scope=scope, taxonomy=TAX))
    said = bullets(render_skill(result))
    assert "Every product in this scope carries one brand, Solo." in said, said
    assert not any("single-vendor" in b for b in said), said
    brands = SKILLS["brand_coverage"].run(SkillInput(own=result_table, reference=None, scope=scope, taxonomy=TAX))
    said = bullets(render_skill(brands))
    assert "One brand in this scope: Solo holds 100.0% of its products." in said, said
    assert not any("Single-vendor" in b for b in said), said


def test_price_ladder_says_how_many_variants_have_no_price():
    """A held-out WooCommerce synthesizer shop: 368 products in scope, 2 with a price. "How are my prices
    spread in synthesizers?" answered over the 2 and never said the other 366 have no price (the
    overview counts them; the ladder left them out unsaid). They are counted on the first row and said."""
    from agent.render.text import render_skill
    from tests.helpers import bullets

    header = ["ID", "Type", "SKU", "Name", "Published", "Regular price", "Categories", "Images"]
    rows = [[str(i), "simple", f"S{i}", f"Synth {i}", "1", "", "Synthesizers", "https://e.com/a.jpg"] for i in range(5)]
    rows += [["9", "simple", "S9", "Synth 9", "1", "1695", "Synthesizers", "https://e.com/a.jpg"]]
    rows += [["10", "simple", "S10", "Synth 10", "1", "1895", "Synthesizers", "https://e.com/a.jpg"]]
    table, _ = read_table_bytes(csv_bytes(header, rows), "wc-product-export.csv", "attached file")
    result = SKILLS["price_ladder"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    assert result.table.to_pylist()[0]["No price (left out)"] == 5
    assert "5 variants have no price and are left out of the ladder." in bullets(render_skill(result))


def test_out_of_stock_examples_name_fully_out_products_first():
    """The examples sentence names the categories where a product is fully out before one where a
    product is only partly out, whatever their out-of-stock rates."""
    from agent.render.text import render_skill
    from tests.helpers import bullets

    header = ["Handle", "Title", "Vendor", "Type", "Option1 Name", "Option1 Value", "Variant SKU", "Variant Price"]
    header += ["Variant Inventory Tracker", "Variant Inventory Qty", "Variant Inventory Policy", "Status"]
    rows = []

    def product(handle: str, title: str, typ: str, qtys: list[int]) -> None:
        for j, q in enumerate(qtys):
            first = j == 0
            rows.append(
                [handle, title if first else "", "Muse" if first else "", typ if first else "", "Size", f"S{j}"]
                + [f"{handle}-{j}", "20.00", "shopify", str(q), "deny", "active" if first else ""]
            )

    product("bag", "Lara Handbag", "Handbags", [0, 5])  # half out: the highest rate, nothing fully out
    for k in range(4):
        product(f"ring{k}", f"Ring {k}", "Rings", [0 if k == 0 else 3])
    for k in range(5):
        product(f"ear{k}", f"Earring {k}", "Earrings", [0 if k == 0 else 3])
    table, _ = read_table_bytes(csv_bytes(header, rows), "products_export_1.csv", "attached file")
    result = SKILLS["availability"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    line = next(b for b in bullets(render_skill(result)) if b.startswith("Out of stock (every variant out"))
    assert "Ring 0" in line and "Earring 0" in line and "Lara Handbag" not in line, line


def test_fully_out_sentence_names_the_categories_holding_most_and_says_when_it_names_not_all():
    """A held-out print-on-demand export: 58 products fully out, 28 of them in Shirts & Tops, were said
    to be "in" the three categories with the highest out-of-stock rates (1, 27 and 1 of them), Shirts &
    Tops unnamed. The sentence names the categories holding most of them first, and ends "and others"
    when the ones it names do not hold them all."""
    from agent.render.text import render_skill
    from tests.helpers import bullets

    header = ["Handle", "Title", "Vendor", "Type", "Option1 Name", "Option1 Value", "Variant SKU", "Variant Price"]
    header += ["Variant Inventory Tracker", "Variant Inventory Qty", "Variant Inventory Policy", "Status"]
    rows = []

    def product(handle: str, title: str, typ: str, qty: int) -> None:
        rows.append([handle, title, "Muse", typ, "Size", "M", handle, "20.00", "shopify", str(qty), "deny", "active"])

    product("mug0", "Mug 0", "Mugs", 0)  # 100% out: the highest rate, one product fully out
    product("cap0", "Cap 0", "Caps", 0)
    product("cap1", "Cap 1", "Caps", 4)
    product("sock0", "Sock 0", "Socks", 0)
    for k in range(1, 3):
        product(f"sock{k}", f"Sock {k}", "Socks", 4)
    for k in range(20):  # 5 of 20 out: the lowest rate, the most products fully out
        product(f"shirt{k}", f"Shirt {k}", "Shirts", 0 if k < 5 else 4)
    table, _ = read_table_bytes(csv_bytes(header, rows), "products_export_1.csv", "attached file")
    result = SKILLS["availability"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    line = next(b for b in bullets(render_skill(result)) if "every variant out of stock" in b)
    assert line.startswith("8 products have every variant out of stock, in "), line
    assert re.findall(r"\((\d+)\)", line)[0] == "5", line  # the category of 5 comes first
    assert line.endswith(" and others."), line  # 5 + 1 + 1 named of 8


def test_a_value_holding_a_comma_is_kept_whole_in_cell_and_sentence():
    """A held-out WooCommerce export stores a product's colours as one attribute value ("Matte Black,
    Space Gray, Arctic Silver"). The sentence split the top-values cell at ", " and wrote "Matte Black,
    Space Gray and Arctic Silver (1), of 1 distinct"; the cell joined two such values with ", " too."""
    from agent.render.text import render_skill

    header = ["ID", "Type", "SKU", "Name", "Published", "Regular price", "Categories", "Images"]
    header += ["Attribute 1 name", "Attribute 1 value(s)", "Attribute 1 visible", "Attribute 1 global"]
    colours = ("Matte Black, Space Gray, Arctic Silver", "Teal Green, Navy Indigo")
    rows = [
        [str(i), "simple", f"S{i}", f"Speaker {i}", "1", "20", "Speakers", "https://e.com/a.jpg", "Colors", c, "1", "0"]
        for i, c in enumerate(colours)
    ]
    table, _ = read_table_bytes(csv_bytes(header, rows), "wc-product-export.csv", "attached file")
    result = SKILLS["attribute_coverage"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX))
    colour = next(r for r in result.table.to_pylist() if r["Attribute"] == "Colour")
    assert colour["Top values (rows)"] == "Matte Black, Space Gray, Arctic Silver (1); Teal Green, Navy Indigo (1)"
    md = render_skill(result)
    assert "Matte Black, Space Gray, Arctic Silver (1) and Teal Green, Navy Indigo (1), of 2 distinct" in md, md


def test_nothing_out_of_stock_is_said_once():
    """With nothing out, the answer read "0 variants are out of stock out of 4 (0.0% …)" and then, two
    lines down, "Nothing with known stock is out of stock.": one fact twice. It is said once, plainly."""
    from agent.render.text import render_skill
    from tests.helpers import bullets

    header = ["Handle", "Title", "Option1 Name", "Option1 Value", "Variant SKU", "Variant Price"]
    header += ["Variant Inventory Tracker", "Variant Inventory Qty", "Status"]
    rows = [
        ["tee", "Tee" if i == 0 else "", "Size", size, f"T-{size}", "20.00", "shopify", "4", "active" if i == 0 else ""]
        for i, size in enumerate(("S", "M", "L", "XL"))
    ]
    table, _ = read_table_bytes(csv_bytes(header, rows), "products_export_1.csv", "attached file")
    md = render_skill(SKILLS["availability"].run(SkillInput(own=table, reference=None, scope=Scope(), taxonomy=TAX)))
    said = [b for b in bullets(md) if "out of stock" in b]
    assert said == ["None of the 4 variants is out of stock."], md
