"""WooCommerce exports as shops really write them (issue 11): the header in the admin's language (Russian
labels from a real export; German, Spanish, French as WooCommerce writes them), import files with blank IDs (parents named by SKU), attribute axes named in
the shop's language. Generated from a seed; expected numbers are counted from the generated products."""

from __future__ import annotations

import csv
import io
import random

import pyarrow.compute as pc
import pytest

from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.headers import WOO_LABELS
from agent.catalog.sources import read_table_bytes

ENGLISH = [
    "ID",
    "Type",
    "SKU",
    "Name",
    "Published",
    "In stock?",
    "Stock",
    "Sale price",
    "Regular price",
    "Categories",
    "Images",
    "Parent",
]
ATTRS = {
    "en": ("Attribute 1 name", "Attribute 1 value(s)", "Size", "Attribute 2 name", "Attribute 2 value(s)", "Color"),
    "ru": (
        "Название атрибута 1",
        "Значения атрибутов 1",
        "Размер",
        "Название атрибута 2",
        "Значения атрибутов 2",
        "Цвет",
    ),
    "de": ("Attribut 1 Name", "Attribut 1 Wert(e)", "Größe", "Attribut 2 Name", "Attribut 2 Wert(e)", "Farbe"),
    "es": (
        "Nombre del atributo 1",
        "Valor(es) del atributo 1",
        "Talla",
        "Nombre del atributo 2",
        "Valor(es) del atributo 2",
        "Color",
    ),
    "fr": (
        "Nom de l’attribut 1",
        "Valeur(s) de l’attribut 1",
        "Taille",
        "Nom de l’attribut 2",
        "Valeur(s) de l’attribut 2",
        "Couleur",
    ),
}


def export(lang: str, seed: int, blank_ids: bool):
    rng = random.Random(seed)
    labels = WOO_LABELS.get(lang, {})
    header = [labels.get(h, h) for h in ENGLISH] + [ATTRS[lang][0], ATTRS[lang][1], ATTRS[lang][3], ATTRS[lang][4]]
    rows, expect = [header], {"products": 0, "variants": 0, "drafts": 0, "out": 0, "sizes": set()}
    next_id = 100
    for p in range(rng.randint(10, 20)):
        pid, next_id = next_id, next_id + 1
        published = rng.choice(["1", "1", "0"])
        expect["products"] += 1
        ident = "" if blank_ids else str(pid)
        if rng.random() < 0.6:
            rows.append(
                [
                    ident,
                    "variable",
                    f"P{p}",
                    f"Кроссовки {p}",
                    published,
                    "1",
                    "",
                    "",
                    "",
                    "Обувь",
                    "",
                    "",
                    ATTRS[lang][2],
                    "8, 9",
                    ATTRS[lang][5],
                    "черный",
                ]
            )
            for _v, size in enumerate(rng.sample(["8", "9", "9.5", "10"], rng.randint(1, 4))):
                stock = rng.choice([0, 3])
                vid, next_id = next_id, next_id + 1
                parent = f"P{p}" if blank_ids else f"id:{pid}"
                rows.append(
                    [
                        "" if blank_ids else str(vid),
                        "variation",
                        f"P{p}_{size}",
                        f"Кроссовки {p} - {size}",
                        published,
                        "1" if stock else "0",
                        str(stock),
                        "",
                        "140",
                        "",
                        "",
                        parent,
                        ATTRS[lang][2],
                        size,
                        ATTRS[lang][5],
                        "черный",
                    ]
                )
                expect["variants"] += 1
                expect["drafts"] += published == "0"
                expect["out"] += stock == 0
                expect["sizes"].add(size)
        else:
            rows.append(
                [
                    ident,
                    "simple",
                    f"S{p}",
                    f"Носки {p}",
                    published,
                    "1",
                    "5",
                    "",
                    "9",
                    "Носки",
                    "",
                    "",
                    ATTRS[lang][2],
                    "M",
                    ATTRS[lang][5],
                    "белый",
                ]
            )
            expect["variants"] += 1
            expect["drafts"] += published == "0"
            expect["sizes"].add("M")
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue().encode(), expect, len(rows) - 1


@pytest.mark.parametrize(
    "lang,seed,blank_ids",
    [
        ("ru", 1, False),
        ("ru", 2, True),
        ("en", 3, True),
        ("en", 4, False),
        ("de", 5, False),
        ("es", 6, True),
        ("fr", 7, False),
        ("de", 8, True),
    ],
)
def test_localised_and_id_less_exports(lang, seed, blank_ids):
    data, expect, n = export(lang, seed, blank_ids)
    table, ev = read_table_bytes(data, "wc-product-export.csv", KIND_ATTACHED)
    assert ev.format == "WooCommerce product export" and (ev.rows_read, ev.rows_skipped) == (n, 0)
    assert pc.count_distinct(table["product_key"]).as_py() == expect["products"]
    assert table.num_rows == expect["variants"]
    assert (pc.sum(pc.equal(table["status"].cast("string"), "draft")).as_py() or 0) == expect["drafts"]
    assert (pc.sum(pc.equal(table["availability"].cast("string"), "out_of_stock")).as_py() or 0) == expect["out"]
    assert set(table["size"].cast("string").to_pylist()) == expect["sizes"]
    assert set(table["color"].cast("string").to_pylist()) <= {"черный", "белый"}
    assert ev.format_missing == [] and ev.format_score == 1.0


def test_a_variable_naming_itself_as_parent_stays_one_product():
    """A real French import file repeats a variable's own SKU in its `Parent`: it is no container of itself."""
    data = (
        b"ID,Type,SKU,Name,Published,Regular price,Categories,Parent\n"
        b",variable,BX-1,Boxers,1,10,Underwear,BX-1\n"
        b",simple,S-1,Socks,1,5,Underwear,\n"
    )
    table, ev = read_table_bytes(data, "wc-product-export.csv", KIND_ATTACHED)
    assert ev.rows_read == 2 and table.num_rows == 2
    assert pc.count_distinct(table["product_key"]).as_py() == 2


def test_without_a_type_header_a_parent_named_by_variations_is_a_container():
    """A real export whose `Type` header cell is blank ("ID,  ,UGS,Nom,…"): the rows variations name as
    their parent are still the variable products, not variants of their own."""
    data = (
        "ID,  ,UGS,Nom,Publié,Tarif régulier,Catégories,Parent\n"
        ",variable,EV-1,Ensemble,1,15000,Enfants,0\n"
        ",variation,,Ensemble - 4 ans,1,15000,,EV-1\n"
        ",variation,,Ensemble - 6 ans,1,15000,,EV-1\n"
        ",variable,EV-2,Robe,1,20000,Enfants,0\n"  # no variations in the file: one row
    ).encode()
    table, ev = read_table_bytes(data, "produits.csv", KIND_ATTACHED)
    assert ev.format == "WooCommerce product export" and ev.rows_read == 4
    assert table.num_rows == 3  # two variations and the childless variable
    assert pc.count_distinct(table["product_key"]).as_py() == 2


def test_the_brand_is_read_from_an_attribute_named_for_it_in_any_pair():
    """Real shops keep the brand as an attribute: an Argentine sneaker shop's third attribute `Marca`, a
    Persian shop's `برند`, a Serbian wine shop's `Vinarija` (winery). Each answered "0 brands"."""
    head = (
        "ID,Type,SKU,Name,Published,Regular price,Categories,Parent,"
        "Attribute 1 name,Attribute 1 value(s),Attribute 2 name,Attribute 2 value(s),"
        "Attribute 3 name,Attribute 3 value(s),Attribute 4 name,Attribute 4 value(s)\n"
    )
    data = (
        head + ",variable,J-1,Jordan 4,1,,Zapatillas,,Talle,40 | 41,Género,Hombre,Condición,Nuevo,Marca,Jordan\n"
        ",variation,J-1-40,Jordan 4 - 40,1,100,,J-1,Talle,40,,,,,,\n"
        ",variation,J-1-41,Jordan 4 - 41,1,100,,J-1,Talle,41,,,,,,\n"
        ",simple,V-1,Vaso,1,10,Hogar,,Marca,Stanley,,,,,,\n"
        ",simple,W-1,Harizma,1,20,Crveno vino,,Vinarija,Aleksandrović,Region,Šumadija,,,,\n"
        ",simple,N-1,Sin marca,1,5,Hogar,,Talle,S,,,,,,\n"
    ).encode()
    table, _ = read_table_bytes(data, "wc-product-export.csv", KIND_ATTACHED)
    brands = dict(zip(table["sku"].to_pylist(), table["brand"].cast("string").to_pylist()))
    assert brands == {
        "J-1-40": "Jordan",  # a variation takes its parent's brand
        "J-1-41": "Jordan",
        "V-1": "Stanley",  # in the first pair as well
        "W-1": "Aleksandrović",
        "N-1": None,  # a size is no brand
    }
