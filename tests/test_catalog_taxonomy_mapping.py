"""Taxonomy mapping in order of trust: Google column (id, path, localised) -> Shopify mapping -> merchant
path prefix -> name matcher (type, own category, title noun) -> unmapped when unsure."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pyarrow as pa
import pytest

from agent.catalog import categorise, namematch, nouns, taxonomy
from agent.catalog.canonical import MAPPING_METHODS
from agent.catalog.categorise import map_rows, name_match
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes

CORPUS = Path(__file__).parent / "corpus"


def _col(values):
    return pa.chunked_array([pa.array(values, pa.string())])


def _map(google=None, path=None, ptype=None, title=None):
    n = len(next(v for v in (google, path, ptype, title) if v is not None))
    gid, gpath, method = map_rows(
        n,
        _col(google) if google else None,
        _col(path) if path else None,
        _col(ptype) if ptype else None,
        _col(title) if title else None,
    )
    return list(zip(gid.to_pylist(), method.to_pylist()))


def test_methods_in_order_of_trust_through_the_readers():
    data = (
        "title,google_product_category,category,product_type\n"
        "Teak lounger,4105,Garden > Misc,\n"  # id
        "Teak lounger,Furniture > Outdoor Furniture > Outdoor Seating > Sunloungers,,\n"  # path
        "Teak lounger,212 - Apparel & Accessories > Clothing > Shirts & Tops,,\n"  # "id - path"
        "Teak lounger,,Furniture > Outdoor Furniture > Outdoor Seating > Sunloungers > Teak,\n"  # prefix
        "Thing,,Garden > Misc,Patio Umbrella\n"  # name on type
        "Cantilever lamp 3m,,Seasonal > Misc,\n"  # bare noun of many places: unsure
        "Mystery Surprise,,Seasonal > Misc,\n"  # nothing
        "Teak lounger,999999999,,\n"  # bad id: fall through
    ).encode()
    table, _ = read_table_bytes(data, "t.csv", KIND_ATTACHED)
    got = [(r["google_category_id"], r["category_mapping"]) for r in table.to_pylist()]
    assert got[:4] == [
        (4105, "google_category"),
        (4105, "google_category"),
        (212, "google_category"),
        (4105, "merchant_path"),
    ]
    assert got[4][1] == "name_match"
    assert got[5] == (None, "unmapped")  # "lamp" (many places) beside words that say nothing about it: not guessed
    assert taxonomy.load().node(got[4][0]).name in ("Outdoor Umbrellas & Sunshades", "Parasols & Rain Umbrellas")
    assert got[7] == (None, "unmapped")  # a bad id falls through; "Teak lounger" alone is a bare noun beside a material
    assert got[6] == (None, "unmapped")
    assert set(table["category_mapping"].cast(pa.string()).to_pylist()) <= set(MAPPING_METHODS)


def test_localised_google_category_paths_map_to_the_same_ids():
    for locale in ("ru-RU", "de-DE", "fr-FR", "pl-PL"):
        local = taxonomy.load_locale(locale)
        for cid in (6964, 4299, 212):
            if cid in local:
                assert _map(google=[local[cid]]) == [(cid, "google_category")], (locale, cid)
    assert _map(google=["Мебель"]) == [(436, "google_category")]
    ru = taxonomy.load_locale("ru-RU")[4299]
    assert _map(path=[ru + " > Что-то своё"]) == [(4299, "merchant_path")]  # localised prefix


def test_a_localised_path_in_newer_wording_is_read_below_its_exact_prefix():
    # tests/corpus/gmc/tehnoholod-aircon-kzt-russian.csv (81 air conditioners) writes Google's newer Russian
    # wording; the bundled ru-RU (2015) says "Дом и сад > Бытовые приборы > Климат-контроль > Кондиционеры
    # воздуха". Only "Дом и сад" is exact; "Кондиционеры" also begins "Кондиционеры для белья" (fabric
    # softener), which the other levels' words ("бытовая", "климатическое") tell apart.
    newer = "Дом и сад > Бытовая техника > Климатическое оборудование > Кондиционеры"
    assert _map(google=[newer]) == [(605, "google_category")]
    assert _map(path=[newer]) == [(605, "merchant_path")]
    data = (CORPUS / "gmc" / "tehnoholod-aircon-kzt-russian.csv").read_bytes()
    table, _ = read_table_bytes(data, "tehnoholod-aircon-kzt-russian.csv", KIND_ATTACHED)
    assert set(table["google_category_id"].to_pylist()) == {605}
    # nothing to tell the two apart: no guess, the prefix stands
    assert _map(google=["Дом и сад > Кондиционеры"]) == [(536, "google_category")]
    assert _map(google=["Дом и сад > Что-то своё > Кондиционеры"]) == [(536, "google_category")]
    # a whole name in another inflection ("Стол" of "Столы"); the words of a name's middle are no name
    assert _map(google=["Мебель > Стол"]) == [(6392, "google_category")]
    assert _map(google=["Спортивные товары > Товары для отдыха на открытом воздухе > Буксирный спорт"]) == [
        (1011, "google_category")
    ]  # "Буксирные тросы для водного спорта" holds both words, but not as its first ones
    assert _map(google=["Мебель > Столовые"]) == [(436, "google_category")]  # "стол" is no "столовой"


def test_shopify_product_category_goes_through_shopifys_mapping():
    # a Shopify path that is no Google path: T-Shirts sit under Clothing Tops in Shopify's taxonomy
    assert _map(path=["Apparel & Accessories > Clothing > Clothing Tops > T-Shirts"]) == [(212, "shopify_category")]
    assert _map(path=["Apparel & Accessories > Shoes > Sneakers"]) == [(187, "shopify_category")]
    assert _map(google=["gid://shopify/TaxonomyCategory/fr-15-4-2"]) == [(6828, "shopify_category")]
    # a Shopify path deeper than any published one: its longest Shopify prefix
    assert _map(path=["Apparel & Accessories > Clothing > Clothing Tops > T-Shirts > Band Tees"])[0][0] == 212


def test_shopify_reader_passes_product_category_to_the_mapping():
    data = (
        "Handle,Title,Product Category,Type,Variant Price\n"
        "tee,Logo Tee,Apparel & Accessories > Clothing > Clothing Tops > T-Shirts,Shirts,10\n"
    ).encode()
    table, ev = read_table_bytes(data, "products_export.csv", KIND_ATTACHED)
    row = table.to_pylist()[0]
    assert (row["google_category_id"], row["category_mapping"]) == (212, "shopify_category")


def test_longest_prefix_of_the_merchant_path():
    assert _map(path=["Furniture > Outdoor Furniture > Teak Stuff"]) == [(4299, "merchant_path")]
    # a shallow prefix is refined by the name matcher inside its branch: Outdoor Furniture Sets
    assert _map(path=["Furniture > Outdoor Furniture > Teak Sets"]) == [(6367, "name_match")]
    assert _map(path=["home & garden>lighting >  lamps"]) == [(4636, "merchant_path")]


def test_name_matcher_on_type_category_leaf_and_title():
    assert name_match("Concrete Pots", None, None) == 721
    assert name_match(None, "My Shop > Frying Pans", None) == 662
    assert name_match("frying-pans", None, None) == 662  # a slug
    assert name_match(None, None, "Pond Pump 3000") == 500098
    assert name_match("sets", None, "Stainless Cookware Set 10 pcs") == 4721
    # singular/plural and & / and are one name
    assert namematch.words("Hoodies & Sweatshirts") == namematch.words("hoodie and sweatshirt")
    assert namematch.words("Boxes") == namematch.words("box")


def test_title_noun_decides_not_the_decoration():
    assert nouns.title_head("Covers for Sofas and Chairs") == "Covers"
    assert nouns.title_head("Hoodie | New Taylor Swift Album") == "Hoodie"
    assert name_match(None, None, "Hoodie | New Taylor Swift Album") == 212  # not Music
    assert name_match(None, None, "Sticker - New Taylor Swift Album") is None  # the album never decides
    assert name_match(None, None, "Taylor Swift Album Hoodie") in (None, 212)  # never Music


@pytest.mark.parametrize(
    ("title", "head"),
    [
        ("Folklore Unisex Heavy Cotton Tee in 12 Colors in Sizes S-5XL", "Folklore Unisex Heavy Cotton Tee"),
        ("Unisex Heavy Blend Crewneck Sweatshirt in 15 Colors", "Unisex Heavy Blend Crewneck Sweatshirt"),
        ("Infant Fine Jersey Bodysuit Sizes Newborn - 24 Months", "Infant Fine Jersey Bodysuit"),
        ("Crewneck Sweatshirt Size LARGE", "Crewneck Sweatshirt"),
        ("Racerback Tank Available in Many Colours", "Racerback Tank"),
        # a size word before the noun is part of the product, not a list of its variants
        ("King Size Duvet Cover", "King Size Duvet Cover"),
        ("Plus Size Dress", "Plus Size Dress"),
        ("Travel Size Shampoo", "Travel Size Shampoo"),
        ("Made in Italy Leather Bag", "Made in Italy Leather Bag"),
    ],
)
def test_what_a_listing_is_offered_in_is_no_title_noun(title, head):
    """Print-on-demand titles list their variants after the noun ("... Sweatshirt in 15 Colors"): a
    held-out export's noun was "Colors" or "Size" for them, so "bodysuits" found 6 of its 9; the vectorised
    title heads (the scope's scan) cut the same way."""
    assert nouns.title_head(title) == head
    assert nouns.title_heads(pa.array([title])).to_pylist() == [head]


@pytest.mark.parametrize(
    ("title", "head"),
    [
        ("[W] Denim Trucker Jacket | Pitch Black", "Denim Trucker Jacket"),
        ("[S] Captain | Natural", "Captain"),
        ("(Italian Mix) NZ Lamb Leg", "NZ Lamb Leg"),
        ("(2 Pack) Socks", "Socks"),
        ("Denim Jacket [W]", "Denim Jacket"),  # a bracket after the noun still cuts
        ("[S]", ""),
    ],
)
def test_a_tag_in_brackets_before_the_title_is_no_separator(title, head):
    """A shop's marker before the title ("[S] Captain", "[W] …") is not the product's first segment: the
    bracket, a separator, cut the whole title away, so a corpus boot maker's "[W] Denim Trucker Jacket"
    was no jacket to "jackets" and its tagged titles named no product to the mapping."""
    assert nouns.title_head(title) == head
    assert nouns.title_heads(pa.array([title])).to_pylist() == [head]
    assert nouns.title_phrase(title) == head


def test_christmas_is_googles_holiday():
    """Google names Christmas things "Holiday": a held-out print shop's "Round Ceramic Christmas Ornament"
    and a "Christmas Ornaments" type went to Aquarium Decor (Shopify's bare "Ornaments" lives there)."""
    tax = taxonomy.load()
    ornaments = tax.id_for_path("Home & Garden > Decor > Seasonal & Holiday Decorations > Holiday Ornaments")
    assert name_match(None, "Christmas Ornaments", None) == ornaments
    assert name_match(None, None, "Round Ceramic Christmas Ornament") == ornaments
    assert name_match("Xmas Decorations", None, None) == tax.id_for_path(
        "Home & Garden > Decor > Seasonal & Holiday Decorations"
    )
    stockings = name_match(None, "Christmas Stockings", None)
    assert stockings is not None and tax.nodes[stockings].path.endswith("Holiday Stockings")


def test_the_animal_right_before_the_noun_sends_it_into_the_pet_branch():
    """The animal a thing is for decides its branch: "Dog Shampoo" is Pet Shampoo & Conditioner, not
    the human shampoo; a "Pet Toys" type is no Toys & Games toy (Dog, Cat and Bird Toys tie, and
    "pet" names their Pet Supplies). An animal further from the noun is a motif or a wearer, and an
    implied "pet" never outranks the merchant's own word (a "Bird Feeder" stays the garden's)."""
    tax = taxonomy.load()
    pet_supplies = tax.id_for_path("Animals & Pet Supplies > Pet Supplies")
    assert name_match(None, None, "Dog Shampoo") == tax.id_for_path(
        "Animals & Pet Supplies > Pet Supplies > Pet Grooming Supplies > Pet Shampoo & Conditioner"
    )
    assert name_match("Pet Toys", None, None) == pet_supplies
    assert name_match(None, None, "Pet Toys") == pet_supplies
    assert name_match(None, "Pet Food", None) == pet_supplies  # no two-animal name outranks the rest
    assert name_match(None, None, "Dog Leash") == tax.id_for_path("Animals & Pet Supplies > Pet Supplies > Pet Leashes")
    assert name_match(None, None, "Squeaky Dog Toy") == tax.id_for_path(
        "Animals & Pet Supplies > Pet Supplies > Dog Supplies > Dog Toys"
    )
    for title in ("Cat Eye Sunglasses", "Dog Mom Shirt", "Bird Print Dress"):
        got = name_match(None, None, title)
        assert got is None or not tax.is_within(got, pet_supplies), title
    feeder = name_match(None, None, "Bird Feeder")
    assert feeder is not None and tax.nodes[feeder].path.startswith("Home & Garden")


def test_an_animal_before_a_noun_the_pet_branch_lacks_leaves_it_unplaced():
    """ "Pet Clothing" and "Dog Clothing" types went to the people's Clothing: the pet branch calls it
    "Apparel", so the noun has no place there, and its bare place is for people. Unsure instead;
    the plain noun and the pet branch's own word still place ("Clothing", "Pet Apparel")."""
    tax = taxonomy.load()
    assert name_match("Pet Clothing", None, None) is None
    assert name_match("Dog Clothing", None, None) is None
    assert name_match("Clothing", None, None) == tax.id_for_path("Apparel & Accessories > Clothing")
    assert name_match("Pet Apparel", None, None) == tax.id_for_path("Animals & Pet Supplies > Pet Supplies")
    fish_sauce = name_match(None, None, "Fish Sauce")  # a name of its own is no bare noun
    assert fish_sauce is not None and tax.nodes[fish_sauce].path.endswith("Fish Sauce")


def test_a_localised_animal_or_pet_word_is_read_as_the_words_the_names_use():
    """Spanish names say "para mascotas" where a merchant writes "para perros" and "para perros"
    where one writes "para mascotas": "Champú para perros" is Pet Shampoo & Conditioner and
    "Juguetes para mascotas" (Dog, Cat and Bird Toys in Spanish) Pet Supplies, not Toys & Games;
    the words are each language's own (Portuguese "cães"), and a phrase the names already cover
    keeps its reading ("Juguete para perro" is Dog Toys)."""
    tax = taxonomy.load()
    assert name_match("Champú para perros", None, None) == tax.id_for_path(
        "Animals & Pet Supplies > Pet Supplies > Pet Grooming Supplies > Pet Shampoo & Conditioner"
    )
    assert name_match("Juguetes para mascotas", None, None) == tax.id_for_path("Animals & Pet Supplies > Pet Supplies")
    assert name_match("Correa para perro", None, None) == tax.id_for_path(
        "Animals & Pet Supplies > Pet Supplies > Pet Leashes"
    )
    assert name_match("Coleira para cães", None, None) == tax.id_for_path(
        "Animals & Pet Supplies > Pet Supplies > Pet Collars & Harnesses"
    )
    assert name_match("Juguete para perro", None, None) == tax.id_for_path(
        "Animals & Pet Supplies > Pet Supplies > Dog Supplies > Dog Toys"
    )
    assert namematch._local_pets()[0]["perro"] == (("mascota",),)
    assert name_match("Champú para gatos", None, None) == name_match(
        "Champú para perros", None, None
    )  # "gato" is Portuguese too


@pytest.mark.parametrize("locale", taxonomy.available_locales())
def test_the_pet_branch_read_from_its_own_lines_is_the_whole_files_branch(locale):
    """The localised pet words are read from the branch's block of lines only (a cold process paid
    0.12 s for finding each name's line, half a second for parsing the files); the block holds
    exactly what the whole file says of the branch."""
    tax = taxonomy.load()
    branch = {namematch.PET_SUPPLIES, *tax.descendants(namematch.PET_SUPPLIES)}
    whole = {
        cid: path.split(taxonomy.SEPARATOR)[-1] for cid, path in taxonomy.load_locale(locale).items() if cid in branch
    }
    assert namematch._local_branch_leaves(locale) == whole


def test_a_trailing_colourway_is_no_title_noun():
    """A sneaker's colourway ("Jordan 5 green", a real WooCommerce shop) is no salad green; the noun
    before a trailing colour still decides ("Honeycomb Blanket White" is a blanket)."""
    greens = name_match(None, None, "Mixed Greens")
    assert greens is not None  # the noun itself still names its place
    for title in ("Jordan 5 green", "Jordan 6 electric green"):
        assert name_match(None, "Zapatillas > Jordan", title) is None, title
    assert nouns.noun_phrase("Honeycomb Blanket White") == "Honeycomb Blanket"
    assert name_match(None, None, "Honeycomb Blanket White") == name_match(None, None, "Honeycomb Blanket")
    assert nouns.noun_phrase("Green") == "Green"  # a head that is only a colour keeps it


def test_patio_furniture_covers_stay_accessories():
    for title in ("Patio Table Cover - Grey | Waterproof", "Patio Chair Cover", "Outdoor Sofa Cover"):
        assert name_match(None, None, title) == 6964, title
    assert name_match("Outdoor Furniture Covers", None, "Heavy Duty Lounger") == 6964


def test_low_confidence_stays_unmapped():
    assert name_match(None, None, "Pump Filter Bag") is None  # no luggage
    assert name_match(None, None, "Covers") is None  # 130 places, nothing to choose by
    assert name_match(None, None, "2015 Vauxhall Vivaro") is None
    assert _map(title=["Pump Filter Bag", "Mystery Surprise"]) == [(None, "unmapped"), (None, "unmapped")]
    assert _map(title=["Gift Card"])[0][1] == "name_match"  # a taxonomy name itself is no guess


def test_the_three_bad_examples_of_issue_10():
    tax = taxonomy.load()
    rows = _map(title=["Hoodie | New Taylor Swift Album", "patio table cover", "Pump Filter Bag"])
    assert not tax.is_within(rows[0][0], 855) and tax.is_within(rows[0][0], 166)  # not Music, clothing
    assert rows[1][0] == 6964  # not Tables
    assert rows[2] == (None, "unmapped")  # not Luggage


def test_shallow_merchant_path_is_refined_inside_its_branch_only():
    got = _map(path=["Home & Garden", "Home & Garden"], ptype=["Concrete Pots", "Hoodie"])
    assert got[0] == (721, "name_match")  # inside Home & Garden
    assert got[1] == (536, "merchant_path")  # a hoodie is not in Home & Garden: the merchant's path stands


def test_a_shallow_google_category_is_refined_inside_its_branch_only():
    # shopify/bilal-swimwear.csv files its 48 swimsuits under Google's "Apparel & Accessories" (level 1):
    # the gaps answer said Swimwear was missing while every product was one. A shallow Google category is
    # refined like a shallow own path: by a name inside it, never moved out of it.
    got = _map(google=["Apparel & Accessories"] * 3, ptype=["Swimwear", "Garden Chair", None])
    assert got[0] == (211, "name_match")
    assert got[1] == (166, "google_category")  # a garden chair is no apparel: the merchant's category stands
    assert got[2] == (166, "google_category")
    assert _map(google=["Apparel & Accessories > Clothing > Shirts & Tops"], ptype=["Swimwear"]) == [
        (212, "google_category")
    ]  # level 3 is no shallow category


def test_mapping_is_computed_once_per_distinct_combination(monkeypatch):
    calls = []
    real = categorise._name_match

    def counting(*args, **kw):
        calls.append(args)
        return real(*args, **kw)

    monkeypatch.setattr(categorise, "_name_match", counting)
    n = 3000
    titles = ["Hoodie | Album A", "Hoodie | Album B", "Patio Chair Cover"] * (n // 3)
    gid, _, method = map_rows(n, None, None, _col(["Shirts", None, None] * (n // 3)), _col(titles))
    assert len(calls) == 3  # (Shirts, Hoodie), (-, Hoodie), (-, Patio Chair Cover)
    assert gid.to_pylist()[:3] == [212, 212, 6964]


@pytest.mark.parametrize("locale", ("en-US",) + taxonomy.available_locales())
def test_every_bundled_taxonomy_name_is_valid_text(locale):
    names = (
        [n.path for n in taxonomy.load().nodes.values()]
        if locale == "en-US"
        else list(taxonomy.load_locale(locale).values())
    )
    assert len(names) > 5000
    for name in names:
        assert "\ufffd" not in name, name
        assert unicodedata.is_normalized("NFC", name), name
        # mojibake: UTF-8 bytes read as cp1251/cp1252/latin-1 ("SautГ© Pans", "SautÃ© Pans")
        assert not any(m in name for m in ("Г©", "Г±", "Ã©", "Ã±", "Ã¨", "Ã¶", "Ã¼", "â€")), name
        for enc in ("cp1251", "cp1252", "latin-1"):
            try:
                fixed = name.encode(enc).decode("utf-8")
            except (UnicodeError, LookupError):
                continue
            assert fixed == name, (name, fixed)  # would decode to something else: mis-encoded


def test_shopify_names_are_valid_text_and_all_targets_exist():
    mapping = taxonomy.shopify_mapping()
    assert len(mapping.paths) == 14528
    tax = taxonomy.load()
    for path, cid in mapping.paths:
        assert "\ufffd" not in path and tax.node(cid) is not None


def test_a_shopify_name_mapped_to_a_bare_top_level_names_no_place():
    """Shopify maps Media > Printables > Wall Art (and Planners, Activity Sheets) to the top level
    "Media": a held-out shop's "Panchmashi Resin Spiritual Wall Art" went to Media. Such a name now
    decides nothing; the Google names do where they hold the word (Calendars, Organizers & Planners)."""
    tax = taxonomy.load()
    assert name_match(None, None, "Panchmashi Resin Spiritual Wall Art") is None
    assert name_match(None, None, "Wall Art") is None
    assert tax.nodes[name_match(None, None, "Planners")].path.endswith("Calendars, Organizers & Planners")
    lost = [
        (path, cid)
        for path, cid in taxonomy.shopify_mapping().paths
        if path.count(taxonomy.SEPARATOR) >= 2 and tax.nodes[cid].depth == 1
    ]
    assert lost  # the rule is about real entries of Shopify's mapping
    index = namematch.full_index()
    for path, cid in lost:
        leaf = tuple(namematch.words(path.split(taxonomy.SEPARATOR)[-1]))
        entries = index.entries(leaf[-1])
        assert not [e for e in entries if e.tokens == leaf and e.google_id == cid], path


def test_a_compound_written_apart_is_the_same_name():
    assert namematch.match("Key Chain").google_id == namematch.match("Keychains").google_id == 175
    assert namematch.match("T-Shirts").google_id == namematch.match("Tshirt").google_id == 212


def test_a_leading_brand_never_decides():
    assert nouns.title_head("LUMINIX's - Premium Streetwear Hoodie", "LUMINIX") == "Premium Streetwear Hoodie"
    assert nouns.title_head("Nikonos Camera Strap", "Nikon") == "Nikonos Camera Strap"  # not the brand
    assert nouns.title_head("ACME", "ACME") == "ACME"  # a title that is only the brand stays
    gid, _, method = map_rows(1, None, None, None, _col(["LUMINIX's - Hoodie"]), brand=_col(["LUMINIX"]))
    assert (gid.to_pylist(), method.to_pylist()) == ([212], ["name_match"])


def test_the_catalogs_own_branch_doubts_strays_and_places_the_unplaced():
    tax = taxonomy.load()
    n = 34
    types = ["Earrings"] * 30 + [None] * 4
    titles = [f"Style {i}" for i in range(30)] + ["Anchor", "Sailboat", "Patch Fence Silver Ring", "Anchor"]
    gid, _, method = map_rows(n, None, None, _col(types), _col(titles))
    got = gid.to_pylist()
    assert all(tax.is_within(g, 188) for g in got[:30])  # Jewelry
    assert got[30] is None and got[33] is None and got[31] is None  # motifs of an earring shop: not boat parts
    assert got[32] == 200  # a ring in a jewellery shop, though "patch fence silver" says nothing alone
    # the same rows without the shop around them: the ring is unsure, the anchor is read as an anchor
    alone = map_rows(2, None, None, None, _col(["Patch Fence Silver Ring", "Anchor"]))[0].to_pylist()
    assert alone[0] is None and alone[1] is not None


def test_product_types_in_the_merchants_language_map_to_the_same_ids():
    # Google's own localised names (de-DE 2021, es-ES and ru-RU 2015): a whole name, or its words
    assert name_match("Gartenmöbel", None, None) == 4299
    assert name_match("Gartenstühle", None, None) == 6828
    assert name_match("Floreros", None, None) == 602
    assert name_match("Sofás", None, None) == name_match("Диваны", None, None) == name_match("Sofas", None, None) == 460
    data = ("id,title,product_type,google_product_category,price\n1,Угловой диван,Диваны,,100 KZT\n").encode()
    table, _ = read_table_bytes(data, "feed.csv", KIND_ATTACHED)
    assert table["google_category_id"].to_pylist() == [460]


def test_an_f_singular_meets_its_ves_plural():
    assert namematch.stem("scarf") == namematch.stem("scarves")
    assert namematch.stem("shelf") == namematch.stem("shelves")
    assert namematch.stem("knife") == namematch.stem("knives")
    assert namematch.stem("cuff") == namematch.stem("cuffs") == "cuff"
    assert name_match("Scarf", None, None) == name_match("Scarves", None, None)


def test_a_title_noun_of_one_place_is_that_place_beside_plain_words():
    tax = taxonomy.load()
    # every place the taxonomy files "vase" under is Vases: plain words beside it change nothing
    assert name_match(None, None, "Rustic Vase") == 602
    # "table" also names Outdoor Tables, outside Furniture > Tables: beside words that say nothing, unsure
    assert name_match(None, None, "Honey Drift Table") is None
    assert tax.node(name_match(None, None, "Patio Table")).path.startswith("Furniture > Outdoor Furniture")


def test_ties_rank_on_the_words_written_not_on_words_a_modifier_implies():
    # "rose" mostly names gifts (Party & Celebration): that must not pull a hoodie to fan articles
    m = namematch.match("Old Rose Hoodie", namematch.context_words("Old Rose Hoodie"), strict=True)
    assert m is not None and taxonomy.load().node(m.google_id).path.startswith("Apparel & Accessories > Clothing")


def test_unplaced_products_follow_what_their_own_category_agrees_on():
    # six "Aurora" products: five are placed by their titles on one id, the sixth ("Sunset") says
    # nothing itself and follows them; a value whose placed products disagree leaves its rest unmapped
    titles = [
        "Round Wall Clock",
        "Square Wall Clock",
        "Oak Wall Clock",
        "Small Wall Clock",
        "Big Wall Clock",
        "Sunset",
        "Large Wall Clock",
        "Rustic Vase",
        "Tiny Wall Clock",
        "Dream Desk Lamp",
        "Dawn",
    ]
    types = ["Aurora"] * 6 + ["Mixed"] * 5
    gid, _, method = map_rows(len(titles), None, None, _col(types), _col(titles))
    got, how = gid.to_pylist(), method.to_pylist()
    assert len(set(got[:5])) == 1 and got[0] is not None
    assert (got[5], how[5]) == (got[0], "own_category")
    assert got[10] is None and how[10] == "unmapped"  # "Mixed": clock, vase and lamp do not agree
    # too few placed products of a value: nothing follows
    gid, _, method = map_rows(3, None, None, _col(["Aurora"] * 3), _col(["Round Wall Clock", "Sunset", "Dawn"]))
    assert gid.to_pylist()[1:] == [None, None]


def test_a_title_noun_outside_the_branch_the_type_points_at_is_unsure():
    # "Food & Beverage" points at Food, Beverages & Tobacco (unsurely: two parts); a "Jack" there is
    # cheese, not the toy the bare noun names
    assert name_match(None, None, "Shredded Marble Jack") is not None
    assert name_match("Food & Beverage", None, "Shredded Marble Jack") is None
    got = name_match("Food & Beverage", None, "Strawberry Milk")
    assert got is not None and taxonomy.load().node(got).path.startswith("Food, Beverages & Tobacco")


def _map_titles(titles, cats=None):
    import pyarrow as pa

    from agent.catalog import categorise

    col = lambda v: pa.chunked_array([pa.array(v, pa.string())]) if v is not None else None
    _, paths, methods = categorise.map_rows(len(titles), None, col(cats), None, col(titles))
    return paths.to_pylist(), methods.to_pylist()


def test_a_placeholder_category_is_no_category():
    """ "Uncategorized" is the platform's word for none: the title step runs as without a category,
    and the placeholder's rows form no own group that an unreadable title would follow."""
    titles = ["Wallet"] * 4 + ["Mystery Box"]
    with_placeholder = _map_titles(titles, ["Uncategorized"] * 5)
    assert with_placeholder == _map_titles(titles, [None] * 5)
    assert with_placeholder[0][-1] is None and with_placeholder[1][-1] == "unmapped"
    assert with_placeholder[0][0] is not None


def test_an_elided_article_does_not_hide_a_localised_word():
    from agent.catalog import namematch

    assert namematch.local_words("Plante d'intérieur") == namematch.local_words("Plante intérieur")
    assert "eau" in namematch.local_words("Bouteilles d'eau") or "eau" in namematch.local_words("l'eau")


def test_in_before_a_size_colour_or_metal_decorates_the_product_named_before_it():
    # a jewellery shop (held-out otwd-srb/olt-jewellery): "COCKTAIL RING IN 22CT GOLD …" had the noun "IN",
    # so "cocktail rings" found 1 of 3; a merch shop's "Crop Hoodie in White and Peach" was no hoodie
    import pyarrow as pa

    from agent.catalog import nouns

    titles = [
        "COCKTAIL RING IN 22CT GOLD WITH SYNTHETIC BLUE SAPPHIRE",
        "Bad Blood Crop Hoodie in White and Peach | 1989",
        "Unisex Heavy Cotton Tee in 12 Colors",
        "Walk In Shower Enclosure",
        "Natural Blue Topaz Round Cut Set in 925 Sterling Silver Jewelry",
    ]
    assert [nouns.head_noun(t) for t in titles] == ["RING", "Hoodie", "Tee", "Enclosure", "Jewelry"]
    assert nouns.title_heads(pa.array(titles)).to_pylist() == [nouns.title_head(t) for t in titles]


def test_danish_linking_words_are_no_part_of_a_name():
    """ "og" (and) and "til" (for), the da-DK names' most frequent short words, were read as words of
    the name, as "och" and "för" of Swedish names were not."""
    from agent.catalog import namematch

    assert namematch.local_words("Havemøbler og tilbehør til haven") == namematch.local_words(
        "Havemøbler tilbehør haven"
    )


def test_a_bare_localised_noun_does_not_take_a_more_specific_name():
    """ "escovas" (brushes) is only part of "Escovas de dentes" (Toothbrushes): it does not take it."""
    from agent.catalog import categorise

    assert categorise.name_match("escovas", None, None) != 527
    assert categorise.name_match("escova de dentes", None, None) == 527


def test_a_compound_garment_noun_is_not_its_bare_head():
    """ "Pajama Suit", "Night Suit for Girls" are sleepwear, not Clothing > Suits: a word before a noun
    whose compounds mostly name other products ("Flight Suit", "Hazmat Suit"), itself a product of the
    same branch, leaves the row unsure — also inside an apparel shop's own branch."""
    from agent.catalog import categorise

    suits = taxonomy.load().id_for_path("Apparel & Accessories > Clothing > Suits")
    apparel = taxonomy.load().id_for_path("Apparel & Accessories")
    for title in ("Pajama Suit", "Night Suit for Girls"):
        assert categorise.name_match(None, None, title) != suits
        assert categorise.name_match(None, None, title, within=(apparel,)) != suits
    assert categorise.name_match(None, None, "Pajama Suit") is None
    # a noun before a noun of another branch is what the thing holds or serves: "Plant Pot" stays a pot
    pot = categorise.name_match("Concrete Pots", None, "Premium Tulip Plant Pot")
    assert pot is not None and "Pots & Planters" in taxonomy.load().node(pot).path


def test_a_localised_modifier_of_a_joined_name_lets_the_specific_node_win():
    """fr-FR "Plantes d'extérieur et d'intérieur" (Indoor & Outdoor Plants) also names "Plantes
    d'intérieur": a Shopify Type "Plante d'intérieur" goes there, not to Plants; the distributed part
    names only a whole phrase, so a long title holding its words is not sent there."""
    from agent.catalog import categorise

    indoor = taxonomy.load().id_for_path("Home & Garden > Plants > Indoor & Outdoor Plants")
    plants = taxonomy.load().id_for_path("Home & Garden > Plants")
    assert categorise.name_match("Plante d'intérieur", None, None) == indoor
    assert categorise.name_match("Plantes", None, None) == plants


def test_inside_the_shops_branch_a_type_names_the_compound_its_modifier_begins():
    jewelry = 188
    # hoops and studs stand outside Jewelry; "ear" is no noun but begins "earring", the one such noun in Jewelry
    assert name_match("Ear hoop", None, None, within=(jewelry,)) == 194
    assert name_match("Ear stud", None, None, within=(jewelry,)) == 194
    # without the shop's branch it is unsure (an ear hoop is no hula hoop)
    assert name_match("Ear hoop", None, None) is None
    # a modifier that is itself a noun says what the thing is for, not its kind: a "Neck Pillow" is
    # no necklace, though "neck" begins "necklace"
    assert name_match("Neck Pillow", None, None, within=(jewelry,)) is None
    # a title is free text: the rule reads the merchant's type, never a title's words
    assert name_match(None, None, "Ear hoop", within=(jewelry,)) is None
    # through the whole mapping: an earring shop's "Ear stud" rows follow the shop's branch
    n = 34
    types = ["Earrings"] * 30 + ["Ear stud"] * 4
    gid, _, _ = map_rows(n, None, None, _col(types), _col([f"Style {i}" for i in range(n)]))
    assert gid.to_pylist()[30:] == [194] * 4
    alone = map_rows(1, None, None, _col(["Ear stud"]), _col(["Style 1"]))[0].to_pylist()
    assert alone == [None]


def test_a_stray_bare_noun_is_read_again_inside_the_shops_branch():
    # "Ear Cuff" alone reads as a handcuff (Law Enforcement > Cuffs); in an earring shop that reading
    # is doubted and the type is read inside the shop's branch: an earring. A stray with nothing in
    # the branch ("Anchor") stays unplaced.
    n = 34
    types = ["Earrings"] * 30 + ["Ear Cuff", "Ear Cuff", None, None]
    titles = [f"Style {i}" for i in range(32)] + ["Anchor", "Anchor"]
    got = map_rows(n, None, None, _col(types), _col(titles))[0].to_pylist()
    assert got[30:32] == [194, 194] and got[32:] == [None, None]
    assert map_rows(1, None, None, _col(["Ear Cuff"]), _col(["Style"]))[0].to_pylist() == [1906]


def test_a_vehicle_listing_is_a_motor_vehicle_whatever_its_title_names():
    """Merchant Center vehicle ads rows carry `mileage` and `year`: a make-and-model title names no
    product, the attributes say it is a vehicle (Cars, Trucks & Vans, where vehicle ads file their
    listings); a title noun is read only inside Motor Vehicles; a row without them is read as ever."""
    data = (
        "id\ttitle\tlink\timage_link\tcondition\tprice\tbrand\tmodel\tyear\tmileage\n"
        "1\t2012 Bessacarr E520 White\thttps://x/1\thttps://x/1.jpg\tused\t11995 GBP\tBessacarr\tE520\t2012\t41000\n"
        "2\t2016 Honda CB500X Motorcycle\thttps://x/2\thttps://x/2.jpg\tused\t4995 GBP\tHonda\tCB500X\t2016\t9000 miles\n"
        "3\t2008 Fiat Doblo Micro Camper Van 2 Berth\thttps://x/3\thttps://x/3.jpg\tused\t9995 GBP\tFiat\tDoblo\t2008\t80000\n"
        "4\tTowbar Bike Rack\thttps://x/4\thttps://x/4.jpg\tnew\t149 GBP\tThule\t\t\t\n"
        "5\t2019 Swift Escape 4 Berth Bed\thttps://x/5\thttps://x/5.jpg\tused\t39995 GBP\tSwift\tEscape\t2019\t12000\n"
    ).encode()
    table, ev = read_table_bytes(data, "feed.tsv", KIND_ATTACHED)
    got = [(r["google_category_id"], r["category_mapping"]) for r in table.to_pylist()]
    assert got[0] == (916, "vehicle_listing")  # make, model, colour: its mileage says what it is
    assert got[1] == (919, "vehicle_listing")  # a title noun inside Motor Vehicles still decides
    assert got[2] == (916, "vehicle_listing")  # "Van"
    assert got[3][1] != "vehicle_listing"  # no mileage, no year: no vehicle listing
    assert got[4] == (916, "vehicle_listing")  # "Bed" is no bed in a vehicle listing
    assert "mileage" not in ev.unmapped_columns and "year" not in ev.unmapped_columns


def test_a_feed_without_both_vehicle_attributes_has_no_vehicle_listings():
    data = (
        "id\ttitle\tlink\timage_link\tcondition\tprice\tyear\n"
        "1\t2012 Bessacarr E520 White\thttps://x/1\thttps://x/1.jpg\tused\t11995 GBP\t2012\n"
    ).encode()
    table, _ = read_table_bytes(data, "feed.tsv", KIND_ATTACHED)
    assert table["category_mapping"].cast(pa.string()).to_pylist() == ["unmapped"]


def test_placements_grade_how_sure_each_row_is():
    """The sureness grade per row (categorise.SURE_*): what the evaluation's precision/coverage curve
    and a stricter operating point cut on; unmapped rows are SURE_NONE."""
    ids, method, sure = categorise.placements(
        4,
        None,
        _col(["Furniture > Outdoor Furniture", None, None, None]),
        _col([None, None, "Hoodies", None]),
        _col(["Teak Lounger", "Outdoor Furniture Covers", "Thing", "Mystery Surprise"]),
    )
    assert sure.tolist()[0] == categorise.SURE_LABEL  # the merchant's own path
    assert sure.tolist()[1] == categorise.SURE_TITLE_NAME  # a taxonomy name of three words, whole, in the title
    assert sure.tolist()[2] == categorise.SURE_TYPE  # the type's bare noun
    assert (ids[3], sure[3]) == (-1, categorise.SURE_NONE)
    got, _, how = map_rows(
        4,
        None,
        _col(["Furniture > Outdoor Furniture", None, None, None]),
        _col([None, None, "Hoodies", None]),
        _col(["Teak Lounger", "Outdoor Furniture Covers", "Thing", "Mystery Surprise"]),
    )
    assert [g if g is not None else -1 for g in got.to_pylist()] == ids.tolist()


def test_an_own_path_below_the_google_category_refines_it_and_one_elsewhere_does_not():
    # A Shopify export whose Google column says only "Apparel & Accessories" (166) for a swimwear shop
    # while every Product Category says Swimwear (211): the two agree and the path says more.
    swim = "Apparel & Accessories > Clothing > Swimwear"
    assert _map(google=["166"], path=[swim]) == [(211, "merchant_path")]
    # Shopify's own taxonomy path, refined the same way through Shopify's mapping (T-Shirts -> 212)
    tee = "Apparel & Accessories > Clothing > Clothing Tops > T-Shirts"
    assert _map(google=["Apparel & Accessories > Clothing"], path=[tee]) == [(212, "shopify_category")]
    # A path in another branch is a disagreement, not a refinement: the Google column keeps the row,
    # and a path above the Google category says less.
    necklaces = "Apparel & Accessories > Jewelry > Necklaces"
    assert _map(google=["191"], path=[necklaces]) == [(191, "google_category")]  # Bracelets stays
    assert _map(google=["211"], path=["Apparel & Accessories"]) == [(211, "google_category")]


def test_unplaced_rows_follow_the_node_their_categorys_placed_rows_share():
    # a real wine shop's spirits category "Žestoko": nine gins and a whiskey placed by title; its
    # whisky, port and liqueurs named by brand alone followed the majority to Gin
    gins = [f"Brand{i} Gin 0.7L" for i in range(9)]
    titles = gins + ["Proper Twelve Whiskey 0.7L", "Chivas Regal 12YO 4.5L", "Tullamore Dew 0.7L"]
    got = _map(path=["Žestoko"] * len(titles), title=titles)
    assert [g for g, _ in got[:9]] == [1671] * 9 and got[9][0] == 1926  # Gin; Whiskey
    assert got[10:] == [(417, "own_category")] * 2  # Liquor & Spirits: what gin and whiskey share
    # placed rows that all agree still lead their unplaced rows to their own node
    got = _map(path=["Žestoko"] * 11, title=gins + ["Chivas Regal 12YO 4.5L", "Tullamore Dew 0.7L"])
    assert got[9:] == [(1671, "own_category")] * 2


def test_an_english_noun_is_never_read_as_its_false_friend_in_another_language():
    # a Cairo meal-prep shop's type "Dessert" on titles no name places ("Protein Jar", "Basbosa"):
    # English names desserts only with another word (Frozen Desserts), and the French "Dessertes" are
    # serving carts (Furniture > Carts & Islands > Kitchen & Dining Carts) — no reading, not furniture
    assert name_match("Dessert", None, "Protein Jar") is None
    assert name_match("Dessert", None, "Coconut Truffles") is None
    assert _map(ptype=["Dessert", "Dessert"], title=["Basbosa", "Chocolate Cupcake"]) == [
        (None, "unmapped"),
        (6195, "name_match"),  # the title still places a cupcake
    ]
    # the same letters in the same branch are a loanword, still read: "Snack" is the Dutch "Snacks"
    assert name_match("Snack", None, None) == 423  # Food Items > Snack Foods
    assert name_match("Dessertes", None, None) == 453  # the French word itself is still read


def _google_parts() -> dict[tuple[str, ...], set[int]]:
    """Each Google name part (of a joined name: "Jackets" of "Coats & Jackets") and the places it names."""
    parts: dict[tuple[str, ...], set[int]] = {}
    for cid in taxonomy.load().nodes:
        for entry in namematch._google_entries(cid):
            if entry.tier == namematch._TIER_PART:
                parts.setdefault(entry.tokens, set()).add(cid)
    return parts


def test_a_shopify_leaf_said_short_does_not_outrank_a_google_part():
    """A Shopify leaf that is its joined parent's part said short ("Activewear Vests & Jackets > Jackets")
    is no surer a reading of the bare noun than a Google name's part of the same words ("Coats &
    Jackets"): a held-out boot maker's type "Jackets" went to Activewear. Over every such leaf of
    Shopify's taxonomy: the bare noun is never read, confidently, as the short leaf's place."""
    parts = _google_parts()
    tax = taxonomy.load()
    checked = 0
    for path, cid in taxonomy.shopify_mapping().paths:
        levels = path.split(taxonomy.SEPARATOR)
        toks = tuple(namematch.words(levels[-1]))
        if len(levels) < 2 or not toks or toks not in parts or cid in parts[toks]:
            continue
        if not namematch._elliptical(toks, levels[-2]):
            continue
        checked += 1
        got = namematch.match(levels[-1], namematch.context_words(levels[-1], None, None))
        assert got is None or not (got.confident and got.google_id == cid), (path, tax.nodes[cid].path)
    assert checked >= 5  # Jackets, Brushes, Combs, Conditioners, Shampoo, Eye Lubricants in the 2024 file
    assert name_match("Jackets", None, "Ranger Jacket | Khaki") != tax.id_for_path(
        "Apparel & Accessories > Clothing > Activewear"
    )


def test_a_bare_noun_is_where_google_names_it_not_where_shopify_filed_a_narrower_kind():
    # Shopify's hydroponics leaf "Nutrients & Supplements > Supplements" is mapped to Gardening, whose
    # Google name says nothing of supplements; Google names them in "Vitamins & Supplements"
    assert name_match("Supplements", None, None) == 525
    assert name_match(None, None, "Supplements") == 525
    assert name_match("Supplement", None, "Magnesium Glycinate") == 525
    # a Shopify name at a place Google names by the same noun keeps it
    assert name_match("Wallets", None, None) == 2668  # Wallets & Money Clips
    assert name_match("Plant Pots", None, None) == 721
    # the property, over every noun: read alone, a noun Google names somewhere by itself never lands
    # on a place only a Shopify name of it stands at, where Google's own name lacks it
    idx = namematch.index()
    tax = taxonomy.load()
    for head in idx.sorted_heads():
        bare = [e for e in idx.entries(head) if len(e.tokens) == 1]
        named = {e.google_id for e in bare if namematch._names_noun(e)}
        filed = {e.google_id for e in bare if not namematch._names_noun(e)} - named
        if not named or not filed:
            continue
        got = namematch.match(head)
        if got is not None and got.confident:
            assert got.google_id not in filed, (head, tax.nodes[got.google_id].path)


def test_a_noun_whose_places_split_evenly_between_top_levels_implies_none():
    # "Vitamins" stand once under pets, once under health, once under horses: the word implies no top
    # level, so "Vitamin D3 Supplements" is no Pet Vitamins & Supplements and "Shampoo + Intensive
    # Repair" no pet shampoo
    assert namematch.index().implied_by("vitamin") == frozenset()
    assert name_match(None, None, "Vitamin D3 Supplements") == 525
    assert name_match(None, None, "Vitamin C Serum") != 5081
    # a top level most places share still implies its words ("chair" brings "furniture")
    assert "furniture" in namematch.index().implied_by("chair")


_KITCHEN = ["Non-Stick Frying Pan 28cm", "Cast Iron Skillet", "Saucepan 18cm", "Chef Knife", "Cutting Board"]
_KITCHEN += ["Wok 32cm", "Dutch Oven", "Colander", "Baking Sheet", "Roasting Pan", "Whisk", "Ladle"]


def test_a_kitchen_pot_is_no_planter_and_no_yogurt_maker_part():
    # "steel" is mostly a kitchen word, and "pot" has kitchen places (Stock Pots): a steel pot is not
    # Pots & Planters, though "steel" shares "home" with its path
    assert name_match(None, None, "Stainless Steel Pot 24cm") != 721
    # in a kitchen shop the title is read inside Kitchen & Dining, where the only bare "Pots" is
    # Shopify's "Yogurt Maker Accessories > Pots": a narrower kind, no reading of a cooking pot
    pots = ["Cooking Pot", "Sauce Pot", "Stainless Steel Pot 24cm", "Ceramic Pot", "Soup Pot with Lid"]
    titles = _KITCHEN + pots
    got = map_rows(len(titles), None, None, None, _col(titles))[0].to_pylist()
    assert all(cid not in (721, 5570) for cid in got[len(_KITCHEN) :]), got
    assert got[len(_KITCHEN) - 1] == 3620  # the rest of the shop is read as before (Ladles)
    # a planter shop's pots stay pots and planters
    garden = ["Terracotta Plant Pot", "Concrete Pot", "Hanging Planter", "Glazed Pot", "Window Box Planter"]
    types = ["Pots"] * len(garden)
    assert map_rows(len(garden), None, None, _col(types), _col(garden))[0].to_pylist() == [721] * len(garden)
    assert name_match(None, None, "Plant Pot") == 721


def test_a_noun_is_not_one_narrow_use_of_it_shopify_filed_under_another_product():
    # Shopify's only bare "Chargers" is "Soda Maker Accessories > Chargers", "Straps" a pressure washer's,
    # "Lids" a coffee maker's part: each place holds a sliver of the noun's names (Power Adapters &
    # Chargers, Camera Battery Chargers, …), so the noun alone places nothing surely
    for noun, narrow in (("Chargers", 502989), ("Straps", 6328), ("Lids", 503736)):
        assert name_match(noun, None, None) != narrow, noun
    # a Shopify name at a broad place keeps it ("Boots" are Shoes) and so does one holding much of
    # the noun's names ("Hoodies" are Shirts & Tops)
    assert name_match("Boots", None, None) == 187
    assert name_match("Hoodies", None, None) == 212
    # the property: no noun read alone lands confidently on such a narrow Shopify filing
    idx = namematch.index()
    tax = taxonomy.load()
    for head in idx.sorted_heads():
        got = namematch.match(head)
        if got is None or not got.confident:
            continue
        es = idx.entries(head)
        bare = [e for e in es if e.google_id == got.google_id and len(e.tokens) == 1]
        if bare and all(e.tier == 1 and not namematch._names_noun(e) for e in bare):
            inside = sum(namematch._inside(e.google_id, got.google_id) for e in es)
            assert tax.nodes[got.google_id].depth <= 2 or inside * 6 >= len(es), head


def test_a_phrase_in_another_script_is_not_read_in_english_word_order():
    # a Russian title names its noun first; a Latin word in it is a model name or a material, so
    # "Диван Velvet" is a sofa, not the fabric its last word names in English word order
    for title in ("Диван Velvet", "Velvet диван", "Linen диван"):
        assert name_match(None, None, title) == 460, title  # Furniture > Sofas
    assert name_match(None, None, "Кресло Velvet") != 47  # never Fabric
    # Latin letters with accents are still Latin: English word order stands
    assert not namematch._other_script("Crème Brûlée Mug") and namematch._other_script("Диван Velvet")
    # a Russian "and" joins a type's parts as "&" does: "Стол-и-стулья" (table and chairs) is no
    # Tables, and its chairs are not put there
    assert namematch._local_parts("стол-и-стулья") == ("стол", "стулья")
    assert namematch._local_parts("Столы и стулья") == ("Столы", "стулья")
    assert name_match("стол-и-стулья", None, "Стул Венеция") != 6392
    assert name_match("Столы и стулья", None, "Стулья Венеция 4 шт") != 6392
    # the soft sign after a plural ending: singular and plural meet
    assert namematch.local_words("Стулья") == namematch.local_words("Стул")
    assert namematch.local_words("Платья") == namematch.local_words("Платье")


def test_a_title_noun_no_taxonomy_names_follows_the_shops_own_typed_products():
    # no taxonomy names bangles; a jeweller types some "Gold Bangle" products "Bracelets" and leaves
    # the rest untyped: the untyped bangles follow the typed ones (counted per product, not per row)
    titles = ["22ct Gold Bangle", "9ct Gold Bangle", "Silver Bangle", "Rose Gold Bangles", "22CT GOLD BANGLE 1121"]
    titles += ["9ct Yellow Gold Bangle", "Two 21ct solid gold bangles", "Diamond Ring", "Gold Ring", "Pearl Ring"]
    types = ["Bracelets"] * 4 + [None, None, None] + ["Rings"] * 3
    got = _map(ptype=types, title=titles)
    assert [cid for cid, _ in got[4:7]] == [191, 191, 191], got
    assert got[4][1] == "own_category"
    # a motif word typed for a minority of its products is no product noun: nothing follows
    titles = ["Sweet Love", "Endless Love", "Royal Love", "Pot of Love", "Roses Love", "Lilies Love", "Orchid Love"]
    types = ["Black Forest Cake"] * 3 + [None] * 4
    got = _map(ptype=types, title=titles)
    assert all(cid is None for cid, _ in got[3:]), got


def test_a_british_spelling_is_the_taxonomys_american_word():
    # an Indian or Australian shop types "Jewellery": the taxonomies write "Jewelry"
    assert name_match("Jewellery", None, None) == 188
    assert name_match("Jewellery", None, None) == name_match("Jewelry", None, None)
    assert namematch.words("Colour Pyjamas Tyre Centre") == namematch.words("Color Pajamas Tire Center")
    # every US form is a word of the taxonomies' names, so the table maps to words that can match
    idx = namematch.index()
    vocabulary = {w for head in idx.sorted_heads() for e in idx.entries(head) for w in e.tokens}
    assert all(namematch.stem(us) in vocabulary for us in namematch._US_SPELLING.values())


def test_an_english_compound_is_not_read_as_its_modifiers_name_in_another_language():
    # a motorcycle-helmet shop (held-out Shopify export, ashw1n-init/Mile-27-) types "Sport-Touring
    # Helmets": English declines it (no helmet name holds "touring"), and the German/Danish "Sport"
    # alone is Sporting Goods > Athletics, where no English "sport" or "helmet" name stands
    for typed in ("Sport-Touring Helmets", "Sport Touring Helmets", "Sport Helmets"):
        assert name_match(typed, None, None) != 499713, typed
    assert name_match("Full Face Race Helmets", None, None) == 2110  # still a motorcycle helmet
    # a foreign reading stands where the word's English names stand, or when it reads the noun itself
    assert namematch.match("Vase Bone Gloss").google_id == 602  # Home & Garden > Decor > Vases
    assert namematch.match("Rice Pudding").google_id == 5743  # German "Pudding": Pudding & Gelatin Snacks
