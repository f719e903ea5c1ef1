"""Real exports (tests/corpus/seed) and generated exports of every supported format.

Row counts are checked against an independent count with Python's csv module; products vs variants,
fill-down, prices, currencies and draft exclusions are spot-checked on named rows.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

import pyarrow.compute as pc
import pytest

from agent.catalog import canonical
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes

CATALOGS = Path(__file__).resolve().parent / "corpus" / "seed"


def real(name: str) -> bytes:
    path = CATALOGS / name
    if not path.is_file():
        pytest.skip(f"{name} is not available in this checkout")
    return path.read_bytes()


def csv_rows(data: bytes) -> list[dict[str, str]]:
    """Independent count: Python's csv module on the decoded text."""
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def rows_by(table, column: str, value) -> list[dict]:
    return [r for r in table.to_pylist() if r[column] == value]


def products(table) -> int:
    return pc.count_distinct(table["product_key"]).as_py()


def check_canonical(table) -> None:
    assert table.schema.equals(canonical.SCHEMA)
    assert set(pc.unique(table["status"].cast("string")).to_pylist()) <= set(canonical.STATUS_VALUES)
    assert set(pc.unique(table["availability"].cast("string")).to_pylist()) <= set(canonical.AVAILABILITY_VALUES)
    assert set(pc.unique(table["category_mapping"].cast("string")).to_pylist()) <= set(canonical.MAPPING_METHODS)
    # one product id per product key and vice versa
    pairs = set(zip(table["product_key"].to_pylist(), table["product_id"].to_pylist()))
    assert len({k for k, _ in pairs}) == len(pairs) == len({p for _, p in pairs})


# ---------------------------------------------------------------- Shopify (legacy headers, real files)


def test_shopify_garden_solutions():
    data = real("shopify-garden-solutions.csv")
    rows = csv_rows(data)
    assert len(rows) == 1842
    table, ev = read_table_bytes(data, "shopify-garden-solutions.csv", KIND_ATTACHED)
    check_canonical(table)
    assert (ev.format, ev.kind, ev.delimiter) == ("Shopify product export", KIND_ATTACHED, ",")
    assert ev.format_score == 1.0
    assert ev.rows_read == len(rows) and ev.rows_skipped == 0
    # every row carries variant fields: 1842 variant rows of as many products as distinct handles
    assert table.num_rows == sum(1 for r in rows if r["Variant Price"] or r["Title"])
    assert products(table) == len({r["Handle"] for r in rows}) == 70
    # fill-down: every variant row of the first product has the product's title, vendor, status
    first = rows_by(table, "product_id", "premium-bolivia-trough-plant-pot")
    expected = [r for r in rows if r["Handle"] == "premium-bolivia-trough-plant-pot"]
    assert len(first) == len(expected) > 1
    assert {r["title"] for r in first} == {"Premium Bolivia Trough Plant Pot"}
    assert {r["brand"] for r in first} == {"The Pot Shack"}
    assert {r["status"] for r in first} == {"active"}
    assert [r["price"] for r in first] == [float(r["Variant Price"]) for r in expected]
    assert first[0]["compare_at_price"] == 901.36
    assert first[0]["currency"] is None  # the export does not state a currency
    # Excel text marker on SKUs: "'101" -> "101" (digits intact)
    assert first[0]["sku"] == "101" and expected[0]["Variant SKU"] == "'101"
    # no stock column: stock unknown, never zero
    assert table["inventory_qty"].null_count == table.num_rows
    assert set(table["availability"].cast("string").to_pylist()) == {"unknown"}
    # options: "Colour" axis -> color; metafield material -> material
    assert first[0]["option2_name"] == "Colour" and first[0]["color"] == first[0]["option2_value"]
    assert first[0]["material"] == "concrete"
    assert "Plant support material (product.metafields.shopify.plant-support-material)" not in ev.unmapped_columns
    assert "Tags" in ev.unmapped_columns and "Handle" not in ev.unmapped_columns
    # Shopify's Product Category is a Shopify taxonomy path: through Shopify's published mapping
    assert first[0]["category_mapping"] == "shopify_category"
    assert first[0]["google_category_path"] == "Home & Garden > Lawn & Garden > Gardening > Pots & Planters"
    assert ev.snapshot_date is None and ev.snapshot_origin is None


def test_shopify_product_template_fill_down_image_rows_and_drafts():
    data = real("shopify-product-template.csv")
    rows = csv_rows(data)
    assert len(rows) == 17
    table, ev = read_table_bytes(data, "shopify-product-template.csv", KIND_ATTACHED)
    check_canonical(table)
    assert ev.format == "Shopify product export" and ev.rows_read == 17 and ev.rows_skipped == 0
    image_only = [r for r in rows if not r["Title"] and not r["Variant SKU"] and not r["Variant Price"]]
    assert len(image_only) == 1  # example-pants has one image-only row
    assert table.num_rows == 17 - len(image_only) == 16
    assert products(table) == 3
    by_status = Counter(zip(table["product_id"].to_pylist(), table["status"].cast("string").to_pylist()))
    assert by_status == {("example-shirt", "active"): 12, ("example-pants", "draft"): 3, ("example-hat", "archived"): 1}
    pants = rows_by(table, "product_id", "example-pants")
    assert {r["title"] for r in pants} == {"Example Jeans"}
    assert [(r["sku"], r["price"], r["compare_at_price"], r["inventory_qty"]) for r in pants] == [
        ("PNT_DEN_285", 95.0, 64.95, 20),
        ("PNT_DEN_305", 95.0, 64.95, 15),
        ("PNT_DEN_405", 95.0, 64.95, 10),
    ]
    assert {r["size"] for r in pants} == {"28", "30", "40"}  # option axis "Size"
    hat = rows_by(table, "product_id", "example-hat")[0]
    assert hat["option1_name"] is None and hat["option1_value"] is None  # "Default Title" is no option
    assert hat["price"] == 17.99 and hat["compare_at_price"] == 22.99
    shirt = rows_by(table, "sku", "SRT_COT_111")[0]
    # Excel damage stays visible: 3.65275E+11 is not a GTIN and is not "fixed"
    assert shirt["gtin"] == "3.65275E+11"
    # google_product_category 212 wins over the merchant path
    assert (shirt["google_category_id"], shirt["category_mapping"]) == (212, "google_category")
    assert shirt["color"] == "Green" and shirt["size"] == "S"
    # untracked inventory (blank tracker) is sellable regardless of the quantity column
    assert shirt["inventory_qty"] == 0 and shirt["availability"] == "in_stock"


def test_shopify_2025_headers():
    data = (
        "Title,URL handle,Description,Vendor,Product category,Type,Tags,Published on online store,Status,"
        "SKU,Barcode,Option1 name,Option1 value,Option2 name,Option2 value,Price,Compare-at price,"
        "Inventory tracker,Inventory quantity,Continue selling when out of stock,Product image URL,"
        "Image position,Variant image URL,Color (product.metafields.shopify.color-pattern)\n"
        "Teak Lounger,teak-lounger,<p>Teak</p>,Barlow,Furniture > Outdoor Furniture > Outdoor Seating > Sunloungers,"
        'Loungers,,TRUE,active,TL-1,5012345678900,Size,Standard,,,"1,299.00",1499.00,shopify,3,FALSE,'
        "https://x.example/a.jpg,1,,Natural\n"
        ",teak-lounger,,,,,,,,TL-2,,,XL,,,1399.00,,shopify,0,TRUE,,,,\n"
        ",teak-lounger,,,,,,,,,,,,,,,,,,,https://x.example/b.jpg,2,,\n"
        "Old Bench,old-bench,,Barlow,,Benches,,FALSE,active,OB-1,,Title,Default Title,,,199.00,,shopify,5,FALSE,,,,\n"
    ).encode()
    table, ev = read_table_bytes(data, "products_export.csv", KIND_ATTACHED)
    check_canonical(table)
    assert ev.format == "Shopify product export" and ev.format_score == 1.0
    assert ev.rows_read == 4 and table.num_rows == 3 and products(table) == 2
    tl1, tl2, bench = table.to_pylist()
    assert (tl1["title"], tl2["title"], tl2["brand"]) == ("Teak Lounger", "Teak Lounger", "Barlow")
    assert (tl1["price"], tl1["compare_at_price"], tl2["price"]) == (1299.0, 1499.0, 1399.0)
    assert (tl1["availability"], tl2["availability"]) == ("in_stock", "backorder")  # 0 but continue selling
    assert tl2["inventory_policy"] == "continue" and tl1["inventory_policy"] == "deny"
    assert tl1["google_category_id"] == 4105 and tl1["category_mapping"] == "merchant_path"
    assert tl1["color"] == "Natural"  # from the metafield, filled down to TL-2
    assert tl2["color"] == "Natural"
    # active but not on the online store: still on sale (other channels), never a draft
    assert (bench["status"], bench["online_store"]) == ("active", False)
    assert (tl1["online_store"], tl2["online_store"]) == (True, True)
    # no category, no Google category: "Bench" is a taxonomy name itself
    assert (bench["category_mapping"], bench["google_category_id"]) == ("name_match", 441)  # Furniture > Benches


# ---------------------------------------------------------------- WooCommerce (real file)


def test_woocommerce_sample_products():
    data = real("woocommerce-sample-products.csv")
    rows = csv_rows(data)
    assert len(rows) == 25
    table, ev = read_table_bytes(data, "woocommerce-sample-products.csv", KIND_ATTACHED)
    check_canonical(table)
    assert ev.format == "WooCommerce product export" and ev.rows_read == 25 and ev.format_score == 1.0
    kinds = Counter(r["Type"] for r in rows)
    variations = kinds["variation"]
    parents_with_children = {r["Parent"] for r in rows if r["Type"] == "variation"}
    # variable parents with variations and grouped products are containers, not variant rows
    assert table.num_rows == 25 - len(parents_with_children) - kinds["grouped"] == 22
    assert products(table) == 25 - variations - kinds["grouped"] == 17
    vneck = rows_by(table, "product_id", "44")
    assert sorted(r["sku"] for r in vneck) == ["woo-vneck-tee-blue", "woo-vneck-tee-green", "woo-vneck-tee-red"]
    assert {r["title"] for r in vneck} == {"Awesome V-Neck T-Shirt"}  # the parent's name
    assert {r["category_path"] for r in vneck} == {"Clothing > Tshirts"}  # inherited from the parent
    assert {r["sku"]: r["price"] for r in vneck}["woo-vneck-tee-blue"] == 15.0
    assert {r["color"] for r in vneck} == {"Red", "Green", "Blue"}
    beanie = rows_by(table, "sku", "woo-beanie")[0]
    assert (beanie["price"], beanie["sale_price"], beanie["currency"]) == (20.0, 18.0, None)
    assert beanie["availability"] == "in_stock" and beanie["inventory_policy"] == "deny"
    assert beanie["google_category_id"] == 173 and beanie["category_mapping"] == "name_match"
    assert beanie["image_url"].endswith("beanie-2.jpg")  # first of the image list
    assert set(table["status"].cast("string").to_pylist()) == {"active"}
    assert "Weight (lbs)" in ev.unmapped_columns
    assert "Date sale price starts" in ev.date_columns


def test_woocommerce_published_states_and_stock():
    data = (
        "ID,Type,SKU,Name,Published,In stock?,Stock,Backorders allowed?,Sale price,Regular price,Categories,Parent\n"
        '1,simple,A,Lamp,1,1,5,0,,20,"Lighting > Lamps, Sale",\n'
        "2,simple,B,Rug,0,0,0,1,,30,Decor,\n"
        "3,simple,C,Mug,-1,0,0,0,,5,Kitchen,\n"
        "4,variable,D,Chair,1,1,,0,,,Furniture,\n"
        "5,variation,D-1,Chair - Red,1,1,2,0,,99,,id:4\n"
    ).encode()
    table, ev = read_table_bytes(data, "wc.csv", KIND_ATTACHED)
    got = {r["sku"]: r for r in table.to_pylist()}
    assert set(got) == {"A", "B", "C", "D-1"}
    assert (got["A"]["status"], got["B"]["status"], got["C"]["status"]) == ("active", "draft", "draft")
    assert got["A"]["category_path"] == "Lighting > Lamps"
    assert got["B"]["availability"] == "backorder" and got["C"]["availability"] == "out_of_stock"
    assert got["D-1"]["product_id"] == "4" and got["D-1"]["title"] == "Chair"
    assert got["D-1"]["category_path"] == "Furniture" and got["D-1"]["inventory_qty"] == 2


# ---------------------------------------------------------------- Google Merchant Center


def test_gmc_minimal_feed():
    data = real("gmc-minimal-feed.csv")
    rows = csv_rows(data)
    assert len(rows) == 3
    table, ev = read_table_bytes(data, "gmc-minimal-feed.csv", KIND_ATTACHED)
    check_canonical(table)
    assert ev.format == "Google Merchant Center feed" and ev.rows_read == 3 and table.num_rows == 3
    assert products(table) == 3
    got = {r["variant_id"]: r for r in table.to_pylist()}
    assert (got["849430768"]["price"], got["849430768"]["currency"]) == (72.5, "USD")
    assert (got["853409496"]["price"], got["853409496"]["currency"]) == (0.0, "USD")
    assert {r["availability"] for r in got.values()} == {"in_stock"}
    assert {r["status"] for r in got.values()} == {"active"}
    assert ev.unmapped_columns == ["condition"]


def test_gmc_tsv_with_groups_and_category_ids():
    data = (
        "id\titem_group_id\ttitle\tprice\tsale_price\tavailability\tgoogle_product_category\tproduct_type\t"
        "brand\tgtin\tcolor\tsize\timage_link\tcondition\n"
        "S-1\tG-1\tTeak chair\t199.00 EUR\t149.00 EUR\tin_stock\t6828\tGarden > Chairs\tBarlow\t5012345678900\tNatural\tM\thttp://x/a.jpg\tnew\n"
        "S-2\tG-1\tTeak chair\t199.00 EUR\t\tout of stock\t6828\tGarden > Chairs\tBarlow\t\tGrey\tM\thttp://x/a.jpg\tnew\n"
        "S-3\t\tParasol\t89.00 EUR\t\tpreorder\tHome & Garden > Lawn & Garden > Outdoor Living > Outdoor Umbrellas & Sunshades\t\tBarlow\t\t\t\t\tnew\n"
    ).encode()
    table, ev = read_table_bytes(data, "feed.tsv", KIND_ATTACHED)
    assert ev.format == "Google Merchant Center feed" and ev.delimiter == "\t"
    s1, s2, s3 = table.to_pylist()
    assert products(table) == 2 and s1["product_key"] == s2["product_key"]
    assert (s1["price"], s1["sale_price"], s1["currency"]) == (199.0, 149.0, "EUR")
    assert (s1["availability"], s2["availability"], s3["availability"]) == ("in_stock", "out_of_stock", "preorder")
    assert (s1["google_category_id"], s1["category_mapping"]) == (6828, "google_category")
    assert (s3["google_category_id"], s3["category_mapping"]) == (719, "google_category")
    assert s1["category_path"] == "Garden > Chairs" and s3["product_id"] == "S-3"


# ---------------------------------------------------------------- Adobe Commerce / Magento

MAGENTO = (
    "sku,store_view_code,attribute_set_code,product_type,categories,product_websites,name,description,"
    "product_online,visibility,price,special_price,url_key,base_image,updated_at,additional_attributes,qty,"
    "is_in_stock,configurable_variations\n"
    'MH01,,Top,configurable,"Default Category/Men/Tops/Hoodies & Sweatshirts,Default Category/Collections/Eco",base,'
    'Chaz Kangeroo Hoodie,<p>Warm</p>,1,"Catalog, Search",52.00,,chaz,/m/h/mh01.jpg,2026-11-20 08:00:00,'
    '"manufacturer=Acme,material=Cotton",0,1,"sku=MH01-XS-Black,size=XS,color=Black|sku=MH01-S-Black,size=S,color=Black"\n'
    "MH01-XS-Black,,Top,simple,Default Category/Men/Tops/Hoodies & Sweatshirts,base,Chaz Kangeroo Hoodie-XS-Black,,1,"
    'Not Visible Individually,52.00,45.00,a,,2026-11-21 08:00:00,"color=Black,size=XS",100,1,\n'
    "MH01-S-Black,,Top,simple,Default Category/Men/Tops/Hoodies & Sweatshirts,base,Chaz Kangeroo Hoodie-S-Black,,1,"
    'Not Visible Individually,52.00,,b,,2026-11-22 08:00:00,"color=Black,size=S",0,0,\n'
    "MH01-S-Black,de,Top,simple,,base,Chaz Känguru Hoodie,,,,,,,,,,,,\n"
    '24-MB01,,Bag,simple,Default Category/Gear/Bags,base,Joust Duffle Bag,<p>Bag</p>,2,"Catalog, Search",'
    '"1,034.00",,c,/m/b/mb01.jpg,2026-11-01 08:00:00,,15,1,\n'
).encode()


def test_magento_export():
    table, ev = read_table_bytes(MAGENTO, "catalog_product.csv", KIND_ATTACHED)
    check_canonical(table)
    assert ev.format == "Adobe Commerce (Magento) export" and ev.rows_read == 5
    assert table.num_rows == 3 and products(table) == 2  # store-view row and configurable are not variants
    xs, s, bag = table.to_pylist()
    assert xs["product_id"] == s["product_id"] == "MH01" and xs["title"] == "Chaz Kangeroo Hoodie"
    assert (xs["price"], xs["sale_price"], xs["inventory_qty"], xs["availability"]) == (52.0, 45.0, 100, "in_stock")
    assert s["availability"] == "out_of_stock"
    assert (xs["color"], xs["size"], xs["material"], xs["brand"]) == ("Black", "XS", "Cotton", "Acme")
    assert xs["category_path"] == "Men > Tops > Hoodies & Sweatshirts"
    assert bag["status"] == "draft" and bag["price"] == 1034.0  # product_online 2 = disabled
    assert ev.snapshot_date.isoformat() == "2026-11-22" and ev.snapshot_origin == "column updated_at"


# ---------------------------------------------------------------- BigCommerce

BIGCOMMERCE = (
    "Item Type,Product ID,Product Name,Product Type,Product Code/SKU,Brand Name,Option Set,Product Description,"
    "Price,Cost Price,Retail Price,Sale Price,Product Visible?,Track Inventory,Current Stock Level,Category,"
    "Product UPC/EAN,Product URL,Product Image URL - 1\n"
    "Product,101,Teak Steamer Chair,P,TSC,Barlow,Chair Options,<p>Chair</p>,499.00,200,599.00,0,Y,by option,0,"
    "Garden/Outdoor Furniture/Chairs;Sale,,/teak-steamer-chair/,https://x.example/a.jpg\n"
    "  SKU,,[S]Color=Natural,,TSC-NAT,,,,,,,,,,5,,5012345678900,,\n"
    '  SKU,,"[S]Color=Grey,[RB]Size=Large",,TSC-GRY,,,,529.00,,,,,,0,,,,\n'
    "  Rule,,,,,,,,,,,,,,,,,,\n"
    "Product,102,Garden Parasol,P,GP-1,Barlow,,<p>Shade</p>,89.00,30,,,N,none,7,Garden/Parasols,,/garden-parasol/,\n"
).encode()


def test_bigcommerce_export():
    table, ev = read_table_bytes(BIGCOMMERCE, "products-2026-11-28.csv", KIND_ATTACHED)
    check_canonical(table)
    assert ev.format == "BigCommerce product export" and ev.rows_read == 5
    assert table.num_rows == 3 and products(table) == 2
    nat, gry, parasol = table.to_pylist()
    assert nat["title"] == gry["title"] == "Teak Steamer Chair" and nat["product_id"] == "101"
    assert (nat["price"], gry["price"], nat["compare_at_price"], nat["sale_price"]) == (499.0, 529.0, 599.0, None)
    assert (nat["color"], gry["color"], gry["size"]) == ("Natural", "Grey", "Large")
    assert (nat["inventory_qty"], gry["availability"]) == (5, "out_of_stock")
    assert nat["category_path"] == "Garden > Outdoor Furniture > Chairs"
    assert parasol["status"] == "draft" and parasol["inventory_qty"] is None  # untracked: unknown
    assert ev.snapshot_date is None  # a date in the file name is not data


# ---------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Handle,Title,Body (HTML),Vendor,Variant Price", "Shopify product export"),
        ("URL handle,Title,Description,Price,Compare-at price", "Shopify product export"),
        ("id,title,price,availability,image_link,condition", "Google Merchant Center feed"),
        ("g:id,g:title,g:price,g:image_link", "Google Merchant Center feed"),
        ("ID,Type,SKU,Name,Regular price,Categories", "WooCommerce product export"),
        ("sku,product_type,categories,name,price,qty,is_in_stock", "Adobe Commerce (Magento) export"),
        ("Item Type,Product ID,Product Name,Price", "BigCommerce product export"),
        ("title,price,brand,category", "generic table"),
        ("Product Name,Amount,Colour,EAN", "generic table"),
    ],
)
def test_format_detection(header, expected):
    from agent.catalog.headers import detect

    det = detect(header.split(","))
    assert det.name == expected and 0 < det.score <= 1


def test_generic_aliases_and_unmapped_columns():
    data = b'Product Name,Amount,Colour,EAN,Warehouse bin,Stock\nChair,"$1,299.00",Red,0012345678905,B7,3\n'
    table, ev = read_table_bytes(data, "x.csv", KIND_ATTACHED)
    row = table.to_pylist()[0]
    assert (row["title"], row["price"], row["color"], row["gtin"], row["inventory_qty"]) == (
        "Chair",
        1299.0,
        "Red",
        "0012345678905",
        3,
    )
    assert row["currency"] is None  # "$" alone does not say which dollar
    assert row["status"] == "unknown"  # the data did not say
    assert ev.unmapped_columns == ["Warehouse bin"] and ev.format == "generic table"


@pytest.mark.parametrize("name", ["shopify-garden-solutions.csv", "woocommerce-sample-products.csv"])
def test_parallel_column_jobs_give_the_same_table(name, monkeypatch):
    from agent.catalog import parallel

    data = real(name)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ROWS", 10**12)
    sequential, _ = read_table_bytes(data, name, KIND_ATTACHED)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_ROWS", 0)
    parallel, _ = read_table_bytes(data, name, KIND_ATTACHED)
    assert parallel.equals(sequential)


def test_generic_headers_with_units_marks_and_url_lists():
    """PrestaShop-style headers: "Name *", "Active (0/1)", lists of image URLs, ";" and decimal comma."""
    data = (
        "Product ID;Active (0/1);Name *;Categories (x,y,z...);Price tax included;Reference #;"
        "Manufacturer;EAN13;Quantity;Image URLs (x,y,z...)\n"
        "12;1;Teak chair;Garden;199,00;TC-1;Barlow;5012345678900;4;https://x.example/a.jpg,https://x.example/b.jpg\n"
        "13;0;Oak table;Garden;1.299,50;OT-1;Barlow;;0;\n"
    ).encode()
    table, ev = read_table_bytes(data, "presta.csv", KIND_ATTACHED)
    assert ev.format == "generic table" and ev.unmapped_columns == []
    a, b = table.to_pylist()
    assert (a["title"], a["sku"], a["brand"], a["status"], a["price"]) == (
        "Teak chair",
        "TC-1",
        "Barlow",
        "active",
        199.0,
    )
    assert a["image_url"] == "https://x.example/a.jpg" and a["gtin"] == "5012345678900"
    assert (b["status"], b["price"], b["availability"]) == ("draft", 1299.5, "out_of_stock")


def test_etsy_listings_download_in_italian():
    """Etsy writes the listings download in the shop's language (an Italian shop's real header)."""
    data = (
        "TITOLO,DESCRIZIONE,PREZZO,CURRENCY_CODE,QUANTITÀ,TAG,MATERIALI,IMMAGINE1,IMMAGINE2,SKU\n"
        'Vaso saggar,Vaso in gres,46,EUR,1,"Saggar,Vase",Ceramica,https://i.etsystatic.com/a.jpg,,29\n'
    ).encode()
    table, ev = read_table_bytes(data, "EtsyListingsDownload.csv", KIND_ATTACHED)
    row = table.to_pylist()[0]
    assert ev.format == "generic table"
    assert (row["title"], row["description"], row["price"], row["currency"], row["inventory_qty"]) == (
        "Vaso saggar",
        "Vaso in gres",
        46.0,
        "EUR",
        1,
    )
    assert (row["material"], row["image_url"], row["sku"]) == ("Ceramica", "https://i.etsystatic.com/a.jpg", "29")


@pytest.mark.parametrize(
    "header",
    [
        "Titel,Beschreibung,Preis,Bestand,Kategorie,Marke",
        "Titre,Description,Prix,Quantité,Catégorie,Marque",
        "Título,Descripción,Precio,Cantidad,Categoría,Marca",
        "Titolo,Descrizione,Prezzo,Quantità,Categoria,Marca",
        "Nome,Descrição,Preço,Estoque,Categoria,Marca",
        "Naam,Omschrijving,Prijs,Voorraad,Categorie,Merk",
        "Nazwa produktu,Opis,Cena,Ilość,Kategoria,Marka",
        "Наименование,Описание,Цена,Остаток,Категория,Бренд",
        "Ürün adı,Açıklama,Fiyat,Stok,Kategori,Marka",
        "اسم المنتج,الوصف,السعر,الكمية,القسم,العلامة التجارية",
    ],
)
def test_a_generic_table_in_a_merchants_language(header):
    """A shop's own table in German, French, Spanish, Italian, Portuguese, Dutch, Polish, Russian,
    Turkish or Arabic: the same fields (a held-out Egyptian shop's Arabic header was refused before as
    "no product columns recognised")."""
    data = (header + "\nLampe Nord,Aus Messing,49.90,3,Leuchten > Tischleuchten,Nordlicht\n").encode()
    table, ev = read_table_bytes(data, "produkte.csv", KIND_ATTACHED)
    row = table.to_pylist()[0]
    assert ev.unmapped_columns == []
    assert (row["title"], row["description"], row["price"], row["inventory_qty"]) == (
        "Lampe Nord",
        "Aus Messing",
        49.9,
        3,
    )
    assert (row["category_path"], row["brand"]) == ("Leuchten > Tischleuchten", "Nordlicht")


def test_an_english_column_wins_over_a_localised_one():
    data = b"Name,Titel,Price,Preis\nLamp,Lampe,10,12\n"
    row = read_table_bytes(data, "p.csv", KIND_ATTACHED)[0].to_pylist()[0]
    assert (row["title"], row["price"]) == ("Lamp", 10.0)


def test_google_ads_custom_feed_columns():
    """Google Ads' custom feed (as the Shopify Google channel writes it): "Item title", "Final URL"."""
    data = (
        "ID,Item title,Final URL,Image URL,Price,Description,Item subtitle,Sale price\n"
        "shopify_ZZ_1_11,Muslin bag,https://x.example/p/bag,https://x.example/a.jpg,55.00 EUR,Soft,6-18m,0.00 EUR\n"
    ).encode()
    table, ev = read_table_bytes(data, "feed.csv", KIND_ATTACHED)
    row = table.to_pylist()[0]
    assert (row["title"], row["link"], row["price"], row["currency"]) == (
        "Muslin bag",
        "https://x.example/p/bag",
        55.0,
        "EUR",
    )
    assert ev.unmapped_columns == ["Item subtitle"]


FEED_HEADER = "ID,Item title,Final URL,Price\n"


def test_google_ads_feed_ids_group_variants_into_their_shopify_product():
    """`shopify_<country>_<product>_<variant>` ids (the Shopify Google channel's): the product is
    `shopify_<country>_<product>`, the id the variant, as Merchant Center's item_group_id groups offers.
    Every variant had counted as a product of its own."""
    data = (
        FEED_HEADER + "shopify_ZZ_1_11,Bag / Red,https://x.example/p/bag,5 EUR\n"
        "shopify_ZZ_1_12,Bag / Blue,https://x.example/p/bag,5 EUR\n"
        "shopify_ZZ_2_21,Hat,https://x.example/p/hat,9 EUR\n"
    ).encode()
    table, _ = read_table_bytes(data, "feed.csv", KIND_ATTACHED)
    check_canonical(table)
    assert table["product_id"].to_pylist() == ["shopify_ZZ_1", "shopify_ZZ_1", "shopify_ZZ_2"]
    assert table["variant_id"].to_pylist() == ["shopify_ZZ_1_11", "shopify_ZZ_1_12", "shopify_ZZ_2_21"]
    assert products(table) == 2


@pytest.mark.parametrize(
    "ids",
    [
        ("shopify_ZZ_1_11", "shopify_ZZ_1_12", "SKU-9"),  # one id of another shape
        ("shopify_ZZ_1_11", "shopify_ZZ_1_11", "shopify_ZZ_1_12"),  # an id twice: rows are not one variant each
    ],
)
def test_feed_ids_are_left_whole_when_their_shape_is_not_unambiguous(ids):
    data = (FEED_HEADER + "".join(f"{i},T{n},https://x.example/{n},5 EUR\n" for n, i in enumerate(ids))).encode()
    table, _ = read_table_bytes(data, "feed.csv", KIND_ATTACHED)
    assert table["product_id"].to_pylist() == list(ids)


def test_the_babynatur_ads_feed_counts_its_products_not_its_variants():
    """tests/corpus/generic/babynatur-ads-feed-eur-hr.csv: 323 variant rows of 59 Shopify products
    (counted independently from the ids' product part)."""
    path = Path(__file__).resolve().parent / "corpus" / "generic" / "babynatur-ads-feed-eur-hr.csv"
    data = path.read_bytes()
    expected = {row["ID"].rsplit("_", 1)[0] for row in csv_rows(data)}
    table, _ = read_table_bytes(data, path.name, KIND_ATTACHED)
    check_canonical(table)
    assert table.num_rows == 323
    assert products(table) == len(expected) == 59


def test_openai_product_feed_category_is_the_shops_path():
    """The OpenAI product feed is shaped like a Merchant Center feed; its `product_category` is the
    shop's own path (read like `product_type`)."""
    data = (
        "id,title,description,link,product_category,brand,image_link,price,availability,enable_search\n"
        "R-1,Round Trailer,Trailer,https://x.example/r,Food Service Equipment > Food Trailers,FTO,"
        "https://x.example/r.jpg,15900.00 NZD,in_stock,TRUE\n"
    ).encode()
    table, ev = read_table_bytes(data, "product_feed.csv", KIND_ATTACHED)
    row = table.to_pylist()[0]
    assert ev.format == "Google Merchant Center feed"
    assert row["category_path"] == "Food Service Equipment > Food Trailers"
    assert row["own_categories"] == "Food Service Equipment > Food Trailers"
    assert (row["price"], row["currency"]) == (15900.0, "NZD")


def _shopify_csv(prices: list[str], qtys: list[str]) -> bytes:
    lines = ["Handle,Title,Variant SKU,Variant Price,Variant Compare At Price,Variant Inventory Qty,Status"]
    for i, (p, q) in enumerate(zip(prices, qtys)):
        p = f'"{p}"' if "," in p else p
        lines.append(f"h{i // 2},{'Chair ' + str(i // 2) if i % 2 == 0 else ''},S{i},{p},,{q},active")
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize(
    "late_price, late_qty", [("19.99", "3"), ("$1,299.00", "3"), ("19.99", "12.0"), ("No price", "many")]
)
def test_shopify_numbers_read_as_numbers_or_text_give_the_same_table(late_price, late_qty, monkeypatch):
    """Plain Shopify numbers are read as numbers; text that only appears after the sample makes the
    read repeat as text; either way the table equals the one read entirely as text."""
    from agent.catalog import ingest

    n = 30_000  # the odd value sits far beyond the 256 KB sample
    prices = [f"{10 + i % 90}.{i % 100:02d}" for i in range(n)] + [late_price]
    qtys = [str(i % 7 - 1) for i in range(n)] + [late_qty]
    data = _shopify_csv(prices, qtys)
    typed, ev = read_table_bytes(data, "products_export.csv", KIND_ATTACHED)
    monkeypatch.setattr(ingest, "SHOPIFY_NUMBERS", {})
    as_text, ev_text = read_table_bytes(data, "products_export.csv", KIND_ATTACHED)
    assert typed.equals(as_text) and ev.rows_read == ev_text.rows_read == n + 1
    last = typed.to_pylist()[-1]
    expected_price = {"19.99": 19.99, "$1,299.00": 1299.0, "No price": None}[late_price]
    expected_qty = {"3": 3, "12.0": 12, "many": None}[late_qty]
    assert (last["price"], last["inventory_qty"]) == (expected_price, expected_qty)
    assert typed["price"].to_pylist()[:3] == [10.0, 11.01, 12.02]


def test_shopify_prices_with_symbols_in_the_sample_are_read_as_text_at_once():
    from agent.catalog import csvread, headers, ingest

    data = _shopify_csv(["$10.00", "€12,50", ""], ["1", "2", ""])
    raw = csvread.read_csv(data, lambda cols: ingest._column_types(headers.detect(cols), cols))
    assert raw.table["Variant Price"].type == "string" and raw.table["Variant Inventory Qty"].type == "int64"
    table, _ = read_table_bytes(data, "products_export.csv", KIND_ATTACHED)
    assert table["price"].to_pylist() == [10.0, 12.5, None]
