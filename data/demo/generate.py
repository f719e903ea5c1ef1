"""Generate the bundled demo catalog (Greenhaven Home & Garden) and a competitor catalog (Patio Plus).

Why a generator rather than a hand-made file: the deliberate gaps and content problems must be exact
and documented, and tests must be able to prove the committed CSVs are what this script produces.
Standard library only (csv, random.Random(seed), datetime) so it runs anywhere, byte-identically.

Usage:  python data/demo/generate.py [--out DIR]     (default DIR: this script's folder)
It writes catalog.csv and competitor.csv and prints the figures that data/demo/README.md documents.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import random
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

HEADER = [
    "snapshot_date",
    "product_id",
    "variant_id",
    "sku",
    "title",
    "description",
    "brand",
    "status",
    "category",
    "google_product_category",
    "product_type",
    "price",
    "compare_at_price",
    "currency",
    "inventory_qty",
    "availability",
    "inventory_policy",
    "gtin",
    "mpn",
    "color",
    "material",
    "size",
    "image_url",
    "link",
]

CATALOG_SEED = 20261127
COMPETITOR_SEED = 20261125
MERCHANT_SCALE = 1.5  # product counts outside Furniture > Outdoor Furniture are scaled by this
COMPETITOR_SCALE = 1.85  # competitor product counts outside Outdoor Furniture are scaled by this
CATALOG_DATE = dt.date(2026, 11, 27)
COMPETITOR_DATE = dt.date(2026, 11, 25)

OF = "Furniture > Outdoor Furniture"
SEAT = OF + " > Outdoor Seating"
LG = "Home & Garden > Lawn & Garden"
GT = LG + " > Gardening > Gardening Tools"
WI = LG + " > Watering & Irrigation"
LIGHT = "Home & Garden > Lighting"
DECOR = "Home & Garden > Decor"
GRILL_ACC = "Home & Garden > Kitchen & Dining > Kitchen Appliance Accessories > Outdoor Grill Accessories"

# Deliberate gap categories (merchant paths); tests and README refer to these.
CHAIRS = SEAT + " > Outdoor Chairs"
OTTOMANS = OF + " > Outdoor Ottomans"
STORAGE = OF + " > Outdoor Storage Boxes"
BEDS = OF + " > Outdoor Beds"
SUNLOUNGERS = SEAT + " > Sunloungers"
TEAK_LOUNGERS = SUNLOUNGERS + " > Teak Loungers"
UNMAPPED_CATEGORY = "Seasonal > Misc"

GREY_VARIANTS = ("gray",)  # non-standard spelling planted on a few rows (standard: "Grey")


@dataclass
class Spec:
    """One merchant category and how its products look."""

    path: str  # merchant category path
    google_id: int | None  # id of the deepest taxonomy node the path extends; None = maps nowhere
    product_type: str
    products: int
    nouns: list[str]
    price_bands: list[tuple[int, int, int]]  # (low, high, products) — products split across bands
    materials: list[str]
    colours: list[str]
    sizes: list[str] = field(default_factory=list)
    brands: list[tuple[str, int]] = field(default_factory=list)  # (brand, weight)
    max_variants: int = 6
    code: str = "GEN"
    no_draft: bool = False  # keep every product active (deliberate gap categories stay exact)


def _band(low: int, high: int, n: int) -> list[tuple[int, int, int]]:
    return [(low, high, n)]


# --------------------------------------------------------------------------------------------------
# Merchant: Greenhaven Home & Garden
# --------------------------------------------------------------------------------------------------

GH_BRANDS_FURN = [
    ("Oakhurst Outdoor", 4),
    ("Solaria Living", 3),
    ("Greenhaven", 3),
    ("Cedar & Stone", 2),
    ("Nordvik", 2),
    ("Marisol Home", 1),
]
GH_BRANDS_GARDEN = [("Rootwell Tools", 4), ("Terra Bloom", 3), ("Greenhaven", 3), ("Fernway", 2)]
GH_BRANDS_WATER = [("Aqualine", 5), ("Fernway", 2), ("Greenhaven", 2)]
GH_BRANDS_LIGHT = [("Luma Garden", 5), ("Brightfield", 3), ("Greenhaven", 1)]
GH_BRANDS_DECOR = [("Wrenfield", 3), ("Copper Creek", 3), ("Greenhaven", 2), ("Terra Bloom", 1), ("Marisol Home", 2)]
GH_BRANDS_GRILL = [("Ember Ridge", 17), ("Copper Creek", 1), ("Halden Forge", 2)]  # dominated by one brand
GH_BRANDS_INDOOR = [("Nordvik", 4), ("Cedar & Stone", 3), ("Marisol Home", 2)]

FURN_MATERIALS = ["Teak", "Acacia", "Aluminium", "Steel", "Wicker", "Rattan", "Resin", "Polypropylene"]
FURN_COLOURS = ["Natural", "Grey", "Charcoal", "White", "Black", "Sand", "Navy", "Taupe", "Olive"]
CUSHION_COLOURS = ["Grey", "Navy", "Terracotta", "Ivory", "Sand", "Charcoal", "Olive", "Mustard"]


def merchant_specs() -> list[Spec]:
    """The merchant's categories. Product counts here are what the README documents."""
    fm = FURN_MATERIALS
    fc = FURN_COLOURS
    return [
        # ---- Furniture > Outdoor Furniture (the analysed branch, with deliberate gaps) ----
        Spec(
            OF + " > Outdoor Furniture Sets",
            6367,
            "Patio Dining Set",
            30,
            ["Dining Set", "Bistro Set", "Conversation Set", "Lounge Set"],
            _band(299, 2499, 30),
            fm,
            fc,
            ["4-Piece", "6-Piece"],
            GH_BRANDS_FURN,
            code="SET",
        ),
        Spec(
            OTTOMANS,
            6822,
            "Outdoor Ottoman",
            2,
            ["Ottoman", "Footstool"],
            _band(89, 219, 2),
            ["Wicker", "Rattan"],
            ["Grey", "Natural"],
            [],
            GH_BRANDS_FURN,
            max_variants=2,
            code="OTT",
            no_draft=True,
        ),
        Spec(
            STORAGE,
            7310,
            "Deck Box",
            4,
            ["Deck Box", "Cushion Storage Box"],
            _band(79, 329, 4),
            ["Resin", "Acacia", "Polypropylene"],
            ["Grey", "Brown", "Black"],
            ["270 L", "450 L"],
            GH_BRANDS_FURN,
            max_variants=4,
            code="BOX",
            no_draft=True,
        ),
        Spec(
            OF + " > Outdoor Tables",
            2684,
            "Patio Table",
            22,
            ["Dining Table", "Side Table", "Coffee Table", "Bistro Table"],
            _band(59, 1299, 22),
            fm,
            fc,
            ["Round 90 cm", "Rectangular 160 cm", "Rectangular 220 cm"],
            GH_BRANDS_FURN,
            code="TBL",
        ),
        Spec(
            SEAT + " > Outdoor Benches",
            5044,
            "Garden Bench",
            14,
            ["Garden Bench", "Storage Bench", "Backless Bench"],
            _band(119, 899, 14),
            ["Teak", "Acacia", "Steel", "Aluminium", "Resin"],
            fc,
            ["2-Seater", "3-Seater"],
            GH_BRANDS_FURN,
            code="BEN",
        ),
        # Price ladder with a hole: many chairs 39–89, none 90–249, several 249–599.
        Spec(
            CHAIRS,
            6828,
            "Patio Chair",
            40,
            ["Dining Chair", "Armchair", "Folding Chair", "Stacking Chair", "Lounge Chair", "Rocking Chair"],
            [(39, 89, 30), (249, 599, 10)],
            fm,
            fc,
            [],
            GH_BRANDS_FURN,
            code="CHR",
        ),
        Spec(
            SEAT + " > Outdoor Sectional Sofa Units",
            500111,
            "Sectional Module",
            10,
            ["Corner Module", "Armless Module", "Sectional Unit"],
            _band(349, 1499, 10),
            ["Wicker", "Rattan", "Aluminium"],
            fc,
            [],
            GH_BRANDS_FURN,
            code="SEC",
        ),
        Spec(
            SEAT + " > Outdoor Sofas",
            4513,
            "Outdoor Sofa",
            12,
            ["Sofa", "Loveseat", "Daybed Sofa"],
            _band(449, 2199, 12),
            ["Teak", "Wicker", "Rattan", "Aluminium", "Acacia"],
            fc,
            ["2-Seater", "3-Seater"],
            GH_BRANDS_FURN,
            code="SOF",
        ),
        Spec(
            SUNLOUNGERS,
            4105,
            "Sun Lounger",
            7,
            ["Sunlounger", "Chaise Lounge", "Reclining Lounger"],
            _band(129, 899, 7),
            ["Aluminium", "Wicker", "Resin", "Polypropylene"],
            fc,
            [],
            GH_BRANDS_FURN,
            code="SUN",
        ),
        Spec(
            TEAK_LOUNGERS,
            4105,
            "Teak Sun Lounger",
            5,
            ["Teak Sunlounger", "Teak Steamer Lounger"],
            _band(549, 1199, 5),
            ["Teak"],
            ["Natural", "Grey"],
            [],
            [("Oakhurst Outdoor", 3), ("Cedar & Stone", 1)],
            code="TSL",
        ),
        Spec(
            "Furniture > Outdoor Furniture Accessories > Outdoor Furniture Covers",
            6964,
            "Furniture Cover",
            12,
            ["Chair Cover", "Table Cover", "Lounger Cover", "Sofa Cover"],
            _band(19, 129, 12),
            ["Polyester", "PVC"],
            ["Grey", "Black", "Green"],
            ["Small", "Medium", "Large", "XL"],
            [("Greenhaven", 3), ("Fernway", 1)],
            code="COV",
        ),
        # ---- some indoor furniture ----
        Spec(
            "Furniture > Chairs > Kitchen & Dining Room Chairs",
            5886,
            "Dining Chair",
            20,
            ["Dining Chair", "Café Chair", "Side Chair"],
            _band(69, 349, 20),
            ["Oak", "Beech", "Steel", "Velvet"],
            ["Natural", "Black", "Grey", "Green", "Walnut"],
            [],
            GH_BRANDS_INDOOR,
            code="IDC",
        ),
        Spec(
            "Furniture > Tables > Kitchen & Dining Room Tables",
            4355,
            "Dining Table",
            12,
            ["Dining Table", "Extending Table", "Farmhouse Table"],
            _band(299, 1599, 12),
            ["Oak", "Walnut", "Mango Wood"],
            ["Natural", "Walnut", "Black"],
            ["4-Seat", "6-Seat", "8-Seat"],
            GH_BRANDS_INDOOR,
            code="IDT",
        ),
        Spec(
            "Furniture > Tables > Accent Tables > Coffee Tables",
            1395,
            "Coffee Table",
            12,
            ["Coffee Table", "Nesting Tables"],
            _band(129, 749, 12),
            ["Oak", "Marble", "Mango Wood", "Glass"],
            ["Natural", "White", "Black"],
            [],
            GH_BRANDS_INDOOR,
            code="ICT",
        ),
        Spec(
            "Furniture > Shelving > Bookcases & Standing Shelves",
            465,
            "Bookcase",
            10,
            ["Bookcase", "Ladder Shelf", "Étagère"],
            _band(99, 699, 10),
            ["Oak", "Steel", "Bamboo"],
            ["Natural", "Black", "White"],
            [],
            GH_BRANDS_INDOOR,
            code="ISH",
        ),
        # ---- Home & Garden > Lawn & Garden ----
        Spec(
            GT + " > Pruning Shears",
            3841,
            "Pruners",
            20,
            ["Bypass Pruner", "Anvil Pruner", "Hedge Shears", "Loppers"],
            _band(14, 79, 20),
            ["Steel", "Carbon Steel"],
            ["Green", "Orange", "Black"],
            [],
            GH_BRANDS_GARDEN,
            max_variants=2,
            code="PRU",
        ),
        Spec(
            GT + " > Gardening Trowels",
            3644,
            "Trowel",
            14,
            ["Hand Trowel", "Transplanting Trowel", "Potting Trowel"],
            _band(8, 39, 14),
            ["Stainless Steel", "Ash Wood", "Carbon Steel"],
            ["Green", "Natural", "Copper"],
            [],
            GH_BRANDS_GARDEN,
            max_variants=2,
            code="TRW",
        ),
        Spec(
            GT + " > Rakes",
            3388,
            "Rake",
            12,
            ["Leaf Rake", "Bow Rake", "Shrub Rake"],
            _band(16, 69, 12),
            ["Steel", "Ash Wood", "Polypropylene"],
            ["Green", "Black"],
            [],
            GH_BRANDS_GARDEN,
            max_variants=2,
            code="RAK",
        ),
        Spec(
            GT + " > Shovels & Spades",
            2147,
            "Spade",
            14,
            ["Digging Spade", "Border Spade", "Round Point Shovel"],
            _band(24, 89, 14),
            ["Stainless Steel", "Carbon Steel", "Ash Wood"],
            ["Natural", "Black"],
            [],
            GH_BRANDS_GARDEN,
            max_variants=2,
            code="SPD",
        ),
        Spec(
            GT + " > Wheelbarrows",
            3616,
            "Wheelbarrow",
            8,
            ["Wheelbarrow", "Garden Cart"],
            _band(79, 299, 8),
            ["Steel", "Polypropylene"],
            ["Green", "Red", "Grey"],
            ["85 L", "100 L"],
            GH_BRANDS_GARDEN,
            code="WHB",
        ),
        Spec(
            LG + " > Gardening > Pots & Planters",
            721,
            "Planter",
            70,
            ["Planter", "Plant Pot", "Window Box", "Trough Planter", "Hanging Basket"],
            _band(9, 249, 70),
            ["Terracotta", "Ceramic", "Fibreclay", "Concrete", "Zinc", "Polypropylene", "Rattan"],
            ["Terracotta", "White", "Grey", "Black", "Olive", "Charcoal", "Cream"],
            ["Small", "Medium", "Large"],
            [("Terra Bloom", 5), ("Greenhaven", 3), ("Wrenfield", 1), ("Fernway", 2)],
            code="POT",
        ),
        Spec(
            LG + " > Gardening > Plant Stands",
            6428,
            "Plant Stand",
            12,
            ["Plant Stand", "Tiered Plant Stand", "Plant Ladder"],
            _band(24, 149, 12),
            ["Steel", "Bamboo", "Acacia"],
            ["Black", "Natural", "White"],
            [],
            GH_BRANDS_GARDEN,
            code="PST",
        ),
        Spec(
            LG + " > Gardening > Raised Garden Beds",
            2962,
            "Raised Bed",
            10,
            ["Raised Bed", "Elevated Planter Box"],
            _band(59, 329, 10),
            ["Cedar", "Galvanised Steel", "Acacia"],
            ["Natural", "Grey"],
            ["Small", "Large"],
            GH_BRANDS_GARDEN,
            code="RGB",
        ),
        Spec(
            LG + " > Gardening > Composting > Composters",
            6436,
            "Composter",
            8,
            ["Composter", "Tumbling Composter"],
            _band(49, 249, 8),
            ["Polypropylene", "Recycled Plastic"],
            ["Black", "Green"],
            ["220 L", "330 L"],
            GH_BRANDS_GARDEN,
            code="CMP",
        ),
        Spec(
            LG + " > Gardening > Rain Barrels",
            6834,
            "Rain Barrel",
            8,
            ["Rain Barrel", "Water Butt"],
            _band(39, 199, 8),
            ["Polypropylene", "Oak"],
            ["Green", "Grey", "Natural"],
            ["190 L", "300 L"],
            GH_BRANDS_WATER,
            code="RBR",
        ),
        Spec(
            WI + " > Watering Cans",
            6318,
            "Watering Can",
            16,
            ["Watering Can", "Indoor Watering Can"],
            _band(12, 69, 16),
            ["Galvanised Steel", "Copper", "Polypropylene"],
            ["Green", "Zinc", "Copper", "White"],
            ["2 L", "5 L", "9 L"],
            GH_BRANDS_WATER,
            code="WCN",
        ),
        Spec(
            WI + " > Garden Hoses",
            2313,
            "Garden Hose",
            14,
            ["Garden Hose", "Expandable Hose", "Hose Reel Cart"],
            _band(19, 149, 14),
            ["Rubber", "PVC"],
            ["Green", "Black", "Grey"],
            ["15 m", "25 m", "50 m"],
            GH_BRANDS_WATER,
            code="HOS",
        ),
        Spec(
            WI + " > Sprinklers & Sprinkler Heads",
            7561,
            "Sprinkler",
            10,
            ["Oscillating Sprinkler", "Impulse Sprinkler", "Sprinkler Head"],
            _band(9, 79, 10),
            ["Aluminium", "Polypropylene"],
            ["Green", "Grey"],
            [],
            GH_BRANDS_WATER,
            max_variants=2,
            code="SPR",
        ),
        Spec(
            WI + " > Garden Hose Spray Nozzles",
            4201,
            "Spray Nozzle",
            10,
            ["Spray Nozzle", "Watering Wand"],
            _band(7, 39, 10),
            ["Aluminium", "Brass", "Polypropylene"],
            ["Green", "Black"],
            [],
            GH_BRANDS_WATER,
            max_variants=2,
            code="NOZ",
        ),
        Spec(
            LG + " > Outdoor Living > Outdoor Umbrellas & Sunshades",
            719,
            "Parasol",
            18,
            ["Parasol", "Cantilever Parasol", "Shade Sail"],
            _band(59, 899, 18),
            ["Aluminium", "Steel", "Polyester"],
            ["Grey", "Taupe", "Navy", "Ivory", "Terracotta"],
            ["2.5 m", "3 m"],
            GH_BRANDS_FURN,
            code="UMB",
        ),
        Spec(
            LG + " > Outdoor Living > Hammocks",
            717,
            "Hammock",
            8,
            ["Hammock", "Hammock Chair"],
            _band(49, 349, 8),
            ["Cotton", "Polyester"],
            ["Natural", "Navy", "Grey"],
            [],
            [("Marisol Home", 2), ("Solaria Living", 1)],
            code="HAM",
        ),
        # ---- Home & Garden > Lighting (outdoor lighting) ----
        Spec(
            LIGHT + " > Landscape Pathway Lighting",
            7400,
            "Path Light",
            20,
            ["Solar Path Light", "Bollard Light", "Path Light Set"],
            _band(12, 189, 20),
            ["Stainless Steel", "Aluminium", "Copper"],
            ["Black", "Silver", "Bronze"],
            ["Pack of 4", "Pack of 8"],
            GH_BRANDS_LIGHT,
            code="PTH",
        ),
        Spec(
            LIGHT + " > Light Ropes & Strings",
            2608,
            "String Lights",
            20,
            ["Festoon String Lights", "Fairy Lights", "Solar String Lights"],
            _band(14, 129, 20),
            ["PVC", "Copper Wire"],
            ["Warm White", "Multicolour", "Cool White"],
            ["5 m", "10 m", "20 m"],
            GH_BRANDS_LIGHT,
            code="STR",
        ),
        Spec(
            LIGHT + " > Flood & Spot Lights",
            1546,
            "Floodlight",
            12,
            ["LED Floodlight", "Spike Spotlight", "Motion Sensor Floodlight"],
            _band(19, 159, 12),
            ["Aluminium", "Polycarbonate"],
            ["Black", "Grey", "White"],
            [],
            GH_BRANDS_LIGHT,
            code="FLD",
        ),
        Spec(
            LIGHT + " > Lighting Fixtures > Wall Light Fixtures > Outdoor Wall Lights",
            6073,
            "Outdoor Wall Light",
            16,
            ["Wall Lantern", "Up-Down Wall Light", "Porch Light"],
            _band(29, 249, 16),
            ["Aluminium", "Stainless Steel", "Brass"],
            ["Black", "Graphite", "Bronze", "Silver"],
            [],
            GH_BRANDS_LIGHT,
            code="WLL",
        ),
        Spec(
            LIGHT + " > Tiki Torches & Oil Lamps",
            7399,
            "Garden Torch",
            8,
            ["Garden Torch", "Oil Lamp"],
            _band(14, 69, 8),
            ["Bamboo", "Steel"],
            ["Natural", "Black"],
            ["Pack of 2", "Pack of 4"],
            GH_BRANDS_LIGHT,
            code="TIK",
        ),
        # ---- Home & Garden > Decor ----
        Spec(
            DECOR + " > Lawn Ornaments & Garden Sculptures",
            6547,
            "Garden Ornament",
            24,
            ["Garden Sculpture", "Gnome", "Sphere Ornament", "Animal Statue"],
            _band(15, 349, 24),
            ["Resin", "Cast Iron", "Stone", "Bronze"],
            ["Stone", "Bronze", "Verdigris", "White"],
            [],
            GH_BRANDS_DECOR,
            code="ORN",
        ),
        Spec(
            DECOR + " > Bird & Wildlife Feeders > Bird Feeders",
            698,
            "Bird Feeder",
            18,
            ["Seed Feeder", "Hanging Bird Feeder", "Bird Table"],
            _band(9, 129, 18),
            ["Steel", "Cedar", "Polycarbonate"],
            ["Green", "Natural", "Copper"],
            [],
            GH_BRANDS_DECOR,
            code="BFD",
        ),
        Spec(
            DECOR + " > Bird Baths",
            697,
            "Bird Bath",
            8,
            ["Bird Bath", "Pedestal Bird Bath"],
            _band(29, 249, 8),
            ["Stone", "Cast Iron", "Resin"],
            ["Stone", "Verdigris"],
            [],
            GH_BRANDS_DECOR,
            code="BBT",
        ),
        Spec(
            DECOR + " > Wind Chimes",
            714,
            "Wind Chime",
            12,
            ["Wind Chime", "Bamboo Chime"],
            _band(12, 89, 12),
            ["Aluminium", "Bamboo", "Copper"],
            ["Silver", "Natural", "Copper"],
            ["Small", "Large"],
            GH_BRANDS_DECOR,
            code="WCH",
        ),
        Spec(
            DECOR + " > Door Mats",
            2675,
            "Door Mat",
            14,
            ["Coir Door Mat", "Rubber Door Mat"],
            _band(12, 59, 14),
            ["Coir", "Rubber"],
            ["Natural", "Black", "Grey"],
            ["40 x 60 cm", "60 x 90 cm"],
            GH_BRANDS_DECOR,
            code="MAT",
        ),
        Spec(
            DECOR + " > Rugs > Outdoor Rugs",
            598,
            "Outdoor Rug",
            22,
            ["Outdoor Rug", "Reversible Outdoor Rug", "Runner"],
            _band(39, 399, 22),
            ["Polypropylene", "Recycled PET"],
            ["Grey", "Navy", "Terracotta", "Ivory", "Charcoal"],
            ["120 x 170 cm", "160 x 230 cm", "200 x 290 cm"],
            GH_BRANDS_DECOR,
            code="RUG",
        ),
        Spec(
            DECOR + " > Chair & Sofa Cushions",
            4453,
            "Seat Cushion",
            30,
            ["Seat Cushion", "Bench Cushion", "Lounger Cushion"],
            _band(19, 149, 30),
            ["Olefin", "Polyester", "Acrylic"],
            CUSHION_COLOURS,
            ["Standard", "Deep Seat"],
            GH_BRANDS_DECOR,
            code="CUS",
        ),
        Spec(
            DECOR + " > Throw Pillows",
            4454,
            "Outdoor Pillow",
            24,
            ["Outdoor Throw Pillow", "Lumbar Pillow"],
            _band(14, 69, 24),
            ["Olefin", "Polyester", "Acrylic"],
            CUSHION_COLOURS,
            ["45 x 45 cm", "30 x 50 cm"],
            GH_BRANDS_DECOR,
            code="PIL",
        ),
        Spec(
            DECOR + " > Home Fragrance Accessories > Candle Holders",
            2784,
            "Lantern",
            18,
            ["Lantern", "Hurricane Lantern", "Candle Holder"],
            _band(12, 149, 18),
            ["Glass", "Steel", "Rattan", "Zinc"],
            ["Black", "White", "Natural", "Brass"],
            ["Small", "Medium", "Large"],
            GH_BRANDS_DECOR,
            code="LNT",
        ),
        Spec(
            DECOR + " > Fountains & Ponds > Fountains & Waterfalls",
            6763,
            "Water Feature",
            10,
            ["Solar Fountain", "Cascade Water Feature", "Wall Fountain"],
            _band(49, 599, 10),
            ["Resin", "Stone", "Ceramic"],
            ["Stone", "Grey", "Slate"],
            [],
            GH_BRANDS_DECOR,
            code="FTN",
        ),
        # ---- Home & Garden > Kitchen & Dining > outdoor cooking ----
        Spec(
            "Home & Garden > Kitchen & Dining > Kitchen Appliances > Outdoor Grills",
            2985,
            "BBQ Grill",
            20,
            ["Gas Grill", "Charcoal Kettle Grill", "Pellet Grill", "Kamado Grill", "Portable Grill"],
            _band(99, 1899, 20),
            ["Stainless Steel", "Cast Iron", "Enamelled Steel"],
            ["Black", "Stainless", "Red"],
            ["2-Burner", "3-Burner", "4-Burner"],
            GH_BRANDS_GRILL,
            code="GRL",
        ),
        Spec(
            GRILL_ACC + " > Outdoor Grill Covers",
            3855,
            "Grill Cover",
            10,
            ["Grill Cover", "Kamado Cover"],
            _band(19, 79, 10),
            ["Polyester", "PVC"],
            ["Black", "Grey"],
            ["Small", "Medium", "Large"],
            [("Ember Ridge", 4), ("Greenhaven", 1)],
            code="GCV",
        ),
        Spec(
            GRILL_ACC + " > Outdoor Grill Racks & Toppers",
            3382,
            "Grill Rack",
            10,
            ["Rib Rack", "Pizza Stone", "Grill Grate"],
            _band(12, 89, 10),
            ["Cast Iron", "Stainless Steel", "Cordierite"],
            ["Black", "Stainless"],
            [],
            [("Ember Ridge", 4), ("Copper Creek", 1)],
            code="GRK",
        ),
        Spec(
            GRILL_ACC + " > Outdoor Grill Spits & Baskets",
            4560,
            "Grill Basket",
            8,
            ["Grill Basket", "Rotisserie Spit"],
            _band(14, 99, 8),
            ["Stainless Steel"],
            ["Stainless"],
            [],
            [("Ember Ridge", 3), ("Halden Forge", 1)],
            code="GSB",
        ),
        Spec(
            "Home & Garden > Household Appliances > Climate Control Appliances > Patio Heaters",
            2649,
            "Patio Heater",
            10,
            ["Patio Heater", "Fire Pit Heater", "Infrared Heater"],
            _band(89, 799, 10),
            ["Stainless Steel", "Steel", "Aluminium"],
            ["Black", "Stainless", "Bronze"],
            [],
            [("Ember Ridge", 2), ("Brightfield", 2), ("Halden Forge", 2)],
            code="HTR",
        ),
        # ---- maps nowhere: merchant path, product type and titles with no taxonomy word ----
        Spec(
            UNMAPPED_CATEGORY,
            None,
            "Curated Bundle",
            20,
            ["Voucher", "Surprise Parcel", "Harvest Bundle", "Sampler"],
            _band(10, 120, 20),
            [],
            [],
            [],
            [("Greenhaven", 1)],
            max_variants=3,
            code="MSC",
        ),
    ]


# Series names give titles a realistic look; some are non-ASCII on purpose (UTF-8 round trip).
SERIES = [
    "Halden",
    "Portofino",
    "Seabrook",
    "Marlow",
    "Kensington",
    "Aria",
    "Cove",
    "Willow",
    "Brisa",
    "Sorrento",
    "Nantucket",
    "Linden",
    "Solstice",
    "Avalon",
    "Café",
    "Provençal",
    "Måne",
    "Riviera",
    "Hartley",
    "Juniper",
    "Bexley",
    "Calloway",
    "Esme",
    "Fenwick",
    "Harlow",
    "Ingleby",
    "Kestrel",
    "Lowther",
    "Maple",
    "Ashby",
]
UNMAPPED_NAMES = [
    "Loyalty Voucher",
    "Mystery Surprise Parcel",
    "Autumn Harvest Bundle",
    "Solstice Sampler",
    "Midwinter Surprise Parcel",
    "Members Voucher",
]
# Words that appear nowhere in the Google taxonomy, so keyword mapping cannot place these products.
UNMAPPED_SERIES = ["Fenwick", "Ingleby", "Lowther", "Kestrel", "Calloway", "Bexley"]
LONG_TITLE_TAIL = (
    " – Weather-Resistant, UV-Protected, Quick-Dry, Easy Assembly, Ideal for Patio, Deck, Balcony, "
    "Poolside and Garden Use, Includes Free Protective Cover (Limited Edition)"
)

FEATURES = [
    "Built to stay outside from spring to autumn.",
    "Weather-resistant finish that shrugs off rain and sun.",
    "Ships flat-packed with all fittings and a hex key.",
    "Designed in-house and tested for everyday use.",
    "Pairs well with the rest of the collection.",
    "Backed by a two-year warranty.",
    "Lightweight enough to move around the garden.",
    "Made from responsibly sourced materials.",
]
CARE = [
    "Wipe clean with a damp cloth.",
    "Store indoors or cover over winter.",
    "Treat wood once a year with oil.",
    "Hand wash only.",
    "Avoid abrasive cleaners.",
]


# --------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------


def gtin13(body12: str) -> str:
    """GTIN-13 with its check digit (weights 1,3 from the left over the 12-digit body)."""
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(body12))
    return body12 + str((10 - total % 10) % 10)


def gtin_is_valid(code: str) -> bool:
    if not code.isdigit() or len(code) not in (8, 12, 13, 14):
        return False
    digits = [int(d) for d in code]
    check = digits.pop()
    total = sum(d * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return (10 - total % 10) % 10 == check


def slug(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def money(value: float) -> str:
    return f"{value:.2f}"


def price_in_band(rng: random.Random, low: int, high: int) -> float:
    """A shop-like price (.99 or .00 ending) inside [low, high)."""
    whole = rng.randint(low, high - 1)
    return whole + (0.99 if rng.random() < 0.8 else 0.0)


def weighted(rng: random.Random, choices: list[tuple[str, int]]) -> str:
    total = sum(w for _, w in choices)
    pick = rng.uniform(0, total)
    for value, weight in choices:
        pick -= weight
        if pick <= 0:
            return value
    return choices[-1][0]


@dataclass
class Product:
    product_id: str
    spec: Spec
    title: str
    description: str
    brand: str
    status: str
    google: str
    material: str
    policy: str
    base_price: float
    on_sale: bool
    variants: list[dict] = field(default_factory=list)


# --------------------------------------------------------------------------------------------------
# building
# --------------------------------------------------------------------------------------------------


@dataclass
class Merchant:
    name: str
    domain: str
    sku_prefix: str
    pid_base: int
    vid_base: int
    gtin_prefix: str
    snapshot: dt.date
    google_fill: float  # share of products with google_product_category filled


def build_products(rng: random.Random, specs: list[Spec], m: Merchant) -> list[Product]:
    """Products with their variants; prices, stock and identifiers still clean (problems come later)."""
    products: list[Product] = []
    gtin_counter = 0
    vid = m.vid_base
    for spec_index, spec in enumerate(specs):
        bands = [(lo, hi) for lo, hi, n in spec.price_bands for _ in range(n)]
        rng.shuffle(bands)
        for k in range(spec.products):
            pid = str(m.pid_base + len(products) * 7 + 3)
            brand = weighted(rng, spec.brands) if spec.brands else ""
            material = rng.choice(spec.materials) if spec.materials else ""
            if spec.google_id is None:
                title = f"{rng.choice(UNMAPPED_SERIES)} {UNMAPPED_NAMES[k % len(UNMAPPED_NAMES)]}"
                if k >= len(UNMAPPED_NAMES):
                    title += f" No. {k + 1}"
            else:
                noun = spec.nouns[k % len(spec.nouns)]
                title = f"{SERIES[(k * 7 + spec_index * 3) % len(SERIES)]} {material + ' ' if material and material not in noun else ''}{noun}"
                if rng.random() < 0.15:
                    title += (
                        f" {rng.choice(['Set of 2', 'with Cushion', 'XL', 'Deluxe', 'Compact'])}"
                        if "Set" not in noun
                        else ""
                    )
            description = f"The {title} from {brand or 'our range'}. {rng.choice(FEATURES)} {rng.choice(FEATURES)} {rng.choice(CARE)}"
            status = "active"
            if not spec.no_draft and spec.google_id is not None:
                r = rng.random()
                status = "draft" if r < 0.04 else ("archived" if r < 0.06 else "active")
            google = ""
            if spec.google_id is not None and rng.random() < m.google_fill:
                google = str(spec.google_id)
            policy = "continue" if (rng.random() < 0.08 and not spec.no_draft) else "deny"
            low, high = bands[k]
            base = price_in_band(rng, low, high)
            # variants: colour axis and/or size axis, 1..max_variants
            colours = list(spec.colours)
            sizes = list(spec.sizes)
            n_sizes = rng.randint(1, min(3, len(sizes))) if sizes and rng.random() < 0.7 else 0
            max_colours = max(1, spec.max_variants // max(1, n_sizes))
            n_colours = rng.randint(1, min(len(colours), max_colours)) if colours else 0
            if colours and rng.random() < 0.12 and n_sizes == 0:
                n_colours = 1
            picked_colours = rng.sample(colours, n_colours) if n_colours else [""]
            picked_sizes = sizes[:n_sizes] if n_sizes else [""]
            prod = Product(
                pid,
                spec,
                title,
                description,
                brand,
                status,
                google,
                material,
                policy,
                base,
                on_sale=rng.random() < 0.10,
            )
            for si, size in enumerate(picked_sizes):
                for colour in picked_colours:
                    vid += rng.randint(1, 9)
                    gtin_counter += 1
                    price = base if si == 0 else _bump(base, si)
                    qty = 0 if rng.random() < 0.07 else rng.randint(1, 120)
                    vcode = "-".join(p for p in (slug(colour).upper(), slug(size).upper()) if p)
                    sku = f"{m.sku_prefix}-{spec.code}-{len(products) + 1:04d}" + (f"-{vcode}" if vcode else "")
                    prod.variants.append(
                        {
                            "variant_id": str(vid),
                            "sku": sku,
                            "price": price,
                            "qty": qty,
                            "gtin": gtin13(f"{m.gtin_prefix}{gtin_counter:07d}"),
                            "mpn": f"{(brand or 'GH')[:3].upper()}-{spec.code}-{rng.randint(1000, 9999)}"
                            if rng.random() < 0.85
                            else "",
                            "color": colour,
                            "size": size,
                        }
                    )
            products.append(prod)
    return products


def _bump(base: float, size_index: int) -> float:
    """A larger size costs more; keep the shop-like ending."""
    raised = base * (1 + 0.2 * size_index)
    return int(raised) + 0.99


def availability(qty: int, policy: str) -> str:
    if qty > 0:
        return "in_stock"
    return "backorder" if policy == "continue" else "out_of_stock"


# --------------------------------------------------------------------------------------------------
# planting the documented problems (merchant only)
# --------------------------------------------------------------------------------------------------


def plant_problems(rng: random.Random, products: list[Product]) -> None:
    """Apply every deliberate problem in place. The README figures are recomputed from the written rows
    (readme_block), so nothing here needs to report what it did."""
    by_cat = lambda path: [p for p in products if p.spec.path == path]  # noqa: E731
    ordinary = [p for p in products if p.spec.google_id is not None and p.spec.path not in (OTTOMANS, STORAGE, CHAIRS)]

    # Storage boxes: every variant out of stock, policy deny.
    for p in by_cat(STORAGE):
        p.policy = "deny"
        p.on_sale = False
        for v in p.variants:
            v["qty"] = 0
    # Ottomans keep stock so the only problem there is thinness.
    for p in by_cat(OTTOMANS):
        for v in p.variants:
            v["qty"] = max(v["qty"], 5)
    # Every other category keeps at least one in-stock variant (so out_of_stock_only stays unique).
    for spec_path in sorted({p.spec.path for p in products} - {STORAGE}):
        items = by_cat(spec_path)
        if not any(v["qty"] > 0 for p in items for v in p.variants):
            items[0].variants[0]["qty"] = 12

    # Preorder: one new-season grill, all variants preorder (qty 0, policy continue).
    grills = [p for p in products if p.spec.code == "GRL" and p.status == "active"]
    pre = grills[-1]
    pre.policy = "continue"
    for v in pre.variants:
        v["qty"] = 0
        v["availability"] = "preorder"

    # Products without brand (~20), chosen outside the dominated grill category.
    candidates = [p for p in ordinary if p.brand and p.spec.code not in ("GRL",)]
    no_brand = rng.sample(candidates, 20)
    for p in no_brand:
        p.description = p.description.replace(f"from {p.brand}.", "from our range.", 1)
        p.brand = ""

    # Products without description.
    no_desc = rng.sample(ordinary, 35)
    for p in no_desc:
        p.description = ""

    # Titles over 150 characters.
    long_titles = rng.sample([p for p in ordinary if p.spec.path.startswith(OF)], 4)
    for p in long_titles:
        p.title = p.title + LONG_TITLE_TAIL

    # Non-standard "gray" spelling on a few rows that were "Grey".
    greys = [v for p in products for v in p.variants if v["color"] == "Grey"]
    for v in rng.sample(greys, 6):
        v["color"] = "gray"

    # Sale prices: ~10% of products on sale with compare_at > price.
    for p in products:
        for v in p.variants:
            v["compare_at"] = None
            if p.on_sale and p.spec.google_id is not None:
                v["compare_at"] = round(v["price"] * rng.choice([1.15, 1.2, 1.25, 1.3, 1.5]), 0) - 0.01
    # Invalid sales: compare_at_price <= price on a few rows (not in the chair ladder).
    invalid_sale_rows = []
    pool = [v for p in ordinary for v in p.variants if v["compare_at"] is None and p.status == "active"]
    for i, v in enumerate(rng.sample(pool, 12)):
        v["compare_at"] = v["price"] if i % 3 == 0 else round(v["price"] * 0.9, 2)
        invalid_sale_rows.append(v["variant_id"])

    # Three active rows with price 0 (three different products, garden/decor).
    zero_pool = [p for p in ordinary if p.status == "active" and p.spec.path.startswith("Home & Garden")]
    for p in rng.sample(zero_pool, 3):
        v = p.variants[0]
        v["price"] = 0.0
        v["compare_at"] = None

    # Invalid GTIN check digits on 15 rows.
    rows = [v for p in ordinary for v in p.variants]
    for v in rng.sample(rows, 15):
        good = v["gtin"]
        v["gtin"] = good[:-1] + str((int(good[-1]) + rng.randint(1, 9)) % 10)

    # Missing image on ~3% of rows.
    for p in products:
        for v in p.variants:
            v["no_image"] = rng.random() < 0.03

    # One duplicate SKU: a variant of one product carries another product's SKU.
    a, b = rng.sample([p for p in ordinary if p.status == "active"], 2)
    b.variants[-1]["sku"] = a.variants[0]["sku"]


# --------------------------------------------------------------------------------------------------
# rows, writing, figures
# --------------------------------------------------------------------------------------------------


def to_rows(products: list[Product], m: Merchant) -> list[dict]:
    rows = []
    for p in products:
        handle = f"{slug(p.title)[:60].strip('-')}-{p.product_id[-4:]}"
        for v in p.variants:
            avail = v.get("availability") or availability(v["qty"], p.policy)
            colour_slug = slug(v["color"]) or "default"
            rows.append(
                {
                    "snapshot_date": m.snapshot.isoformat(),
                    "product_id": p.product_id,
                    "variant_id": v["variant_id"],
                    "sku": v["sku"],
                    "title": p.title,
                    "description": p.description,
                    "brand": p.brand,
                    "status": p.status,
                    "category": p.spec.path,
                    "google_product_category": p.google,
                    "product_type": p.spec.product_type,
                    "price": money(v["price"]),
                    "compare_at_price": money(v["compare_at"]) if v.get("compare_at") is not None else "",
                    "currency": "USD",
                    "inventory_qty": str(v["qty"]),
                    "availability": avail,
                    "inventory_policy": p.policy,
                    "gtin": v["gtin"],
                    "mpn": v["mpn"],
                    "color": v["color"],
                    "material": p.material,
                    "size": v["size"],
                    "image_url": ""
                    if v.get("no_image")
                    else f"https://cdn.{m.domain}/images/{handle}-{colour_slug}.jpg",
                    "link": f"https://www.{m.domain}/products/{handle}?variant={v['variant_id']}",
                }
            )
    return rows


def write_csv(path: Path, rows: list[dict]) -> None:
    """UTF-8, comma, "\\n" line ends, minimal quoting: byte-identical on every platform."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=HEADER, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_bytes(buf.getvalue().encode("utf-8"))


def merchant_catalog() -> list[dict]:
    rng = random.Random(CATALOG_SEED)
    m = Merchant(
        "Greenhaven Home & Garden",
        "greenhaven-home.example",
        "GH",
        8_100_000_000,
        45_000_000_000,
        "50612",
        CATALOG_DATE,
        google_fill=0.5,
    )
    specs = merchant_specs()
    for s in specs:  # the merchant never stocks eucalyptus or sage (reference mode must find them)
        s.materials = [x for x in s.materials if x.lower() != "eucalyptus"]
    for s in specs:  # the analysed branch keeps its documented counts; the rest of the shop is fuller
        if not s.path.startswith(OF) and s.google_id is not None:
            s.products = round(s.products * MERCHANT_SCALE)
            s.price_bands = [(lo, hi, s.products) for lo, hi, _ in s.price_bands[:1]]
    products = build_products(rng, specs, m)
    plant_problems(rng, products)
    return to_rows(products, m)


# --------------------------------------------------------------------------------------------------
# Competitor: Patio Plus
# --------------------------------------------------------------------------------------------------

PP_ONLY_BRANDS = ["Coastline Casual", "Sundial Patio", "Verano Living"]
PP_FURN = [
    ("Coastline Casual", 4),
    ("Sundial Patio", 3),
    ("Verano Living", 3),
    ("Oakhurst Outdoor", 2),
    ("Solaria Living", 2),
]
PP_MATERIALS = ["Eucalyptus", "Teak", "Acacia", "Aluminium", "Wicker", "Resin", "Polypropylene"]
PP_COLOURS = ["Sage", "Natural", "Grey", "White", "Charcoal", "Navy", "Sand"]


def competitor_specs() -> list[Spec]:
    pm, pc = PP_MATERIALS, PP_COLOURS
    return [
        Spec(
            BEDS,
            6892,
            "Outdoor Daybed",
            12,
            ["Outdoor Daybed", "Canopy Daybed", "Platform Outdoor Bed"],
            _band(599, 2499, 12),
            pm,
            pc,
            [],
            PP_FURN,
            code="BED",
        ),
        Spec(
            OF + " > Outdoor Furniture Sets",
            6367,
            "Patio Set",
            25,
            ["Dining Set", "Bistro Set", "Conversation Set"],
            _band(349, 2999, 25),
            pm,
            pc,
            ["4-Piece", "6-Piece"],
            PP_FURN,
            code="SET",
        ),
        Spec(
            OTTOMANS,
            6822,
            "Outdoor Ottoman",
            8,
            ["Ottoman", "Pouf"],
            _band(69, 299, 8),
            pm,
            pc,
            [],
            PP_FURN,
            code="OTT",
        ),
        Spec(
            STORAGE,
            7310,
            "Deck Box",
            8,
            ["Deck Box"],
            _band(69, 399, 8),
            ["Resin", "Eucalyptus"],
            ["Grey", "Sage", "Natural"],
            ["270 L", "450 L"],
            PP_FURN,
            code="BOX",
        ),
        Spec(
            OF + " > Outdoor Tables",
            2684,
            "Patio Table",
            25,
            ["Dining Table", "Side Table", "Coffee Table"],
            _band(79, 1599, 25),
            pm,
            pc,
            ["Round 90 cm", "Rectangular 160 cm"],
            PP_FURN,
            code="TBL",
        ),
        Spec(
            SEAT + " > Outdoor Benches",
            5044,
            "Garden Bench",
            10,
            ["Garden Bench", "Storage Bench"],
            _band(149, 999, 10),
            pm,
            pc,
            [],
            PP_FURN,
            code="BEN",
        ),
        # Chairs fill the 90–249 band the merchant is missing.
        Spec(
            CHAIRS,
            6828,
            "Patio Chair",
            45,
            ["Dining Chair", "Armchair", "Folding Chair", "Lounge Chair", "Adirondack Chair"],
            [(39, 89, 10), (90, 249, 25), (249, 699, 10)],
            pm,
            pc,
            [],
            PP_FURN,
            code="CHR",
        ),
        Spec(
            SEAT + " > Outdoor Sectional Sofa Units",
            500111,
            "Sectional",
            12,
            ["Corner Module", "Sectional Unit"],
            _band(399, 1799, 12),
            ["Wicker", "Aluminium", "Eucalyptus"],
            pc,
            [],
            PP_FURN,
            code="SEC",
        ),
        Spec(
            SEAT + " > Outdoor Sofas",
            4513,
            "Outdoor Sofa",
            14,
            ["Sofa", "Loveseat"],
            _band(499, 2499, 14),
            pm,
            pc,
            ["2-Seater", "3-Seater"],
            PP_FURN,
            code="SOF",
        ),
        Spec(
            SUNLOUNGERS,
            4105,
            "Sun Lounger",
            60,
            ["Sunlounger", "Chaise Lounge", "Reclining Lounger", "Double Lounger"],
            _band(99, 1299, 60),
            pm,
            pc,
            [],
            PP_FURN,
            max_variants=4,
            code="SUN",
        ),
        Spec(
            "Furniture > Outdoor Furniture Accessories > Outdoor Furniture Covers",
            6964,
            "Furniture Cover",
            15,
            ["Chair Cover", "Lounger Cover"],
            _band(19, 149, 15),
            ["Polyester"],
            ["Grey", "Black", "Sage"],
            ["Medium", "Large"],
            PP_FURN,
            code="COV",
        ),
        Spec(
            LG + " > Outdoor Living > Outdoor Umbrellas & Sunshades",
            719,
            "Parasol",
            25,
            ["Parasol", "Cantilever Parasol"],
            _band(79, 999, 25),
            ["Aluminium", "Steel"],
            ["Sage", "Grey", "Taupe", "Navy"],
            ["2.5 m", "3 m"],
            PP_FURN,
            code="UMB",
        ),
        Spec(
            DECOR + " > Chair & Sofa Cushions",
            4453,
            "Seat Cushion",
            30,
            ["Seat Cushion", "Lounger Cushion"],
            _band(19, 169, 30),
            ["Olefin", "Acrylic"],
            ["Sage", "Grey", "Navy", "Ivory", "Terracotta"],
            ["Standard", "Deep Seat"],
            PP_FURN,
            code="CUS",
        ),
        Spec(
            "Home & Garden > Kitchen & Dining > Kitchen Appliances > Outdoor Grills",
            2985,
            "Grill",
            25,
            ["Gas Grill", "Charcoal Grill", "Pellet Grill"],
            _band(129, 1999, 25),
            ["Stainless Steel", "Cast Iron"],
            ["Black", "Stainless"],
            ["3-Burner", "4-Burner"],
            [("Ember Ridge", 2), ("Halden Forge", 2), ("Sundial Patio", 1)],
            code="GRL",
        ),
        Spec(
            LIGHT + " > Light Ropes & Strings",
            2608,
            "String Lights",
            20,
            ["Festoon String Lights", "Solar String Lights"],
            _band(14, 149, 20),
            ["PVC"],
            ["Warm White", "Multicolour"],
            ["10 m", "20 m"],
            [("Luma Garden", 2), ("Verano Living", 1)],
            code="STR",
        ),
        Spec(
            LG + " > Gardening > Pots & Planters",
            721,
            "Planter",
            40,
            ["Planter", "Plant Pot", "Trough Planter"],
            _band(12, 299, 40),
            ["Terracotta", "Fibreclay", "Eucalyptus", "Concrete"],
            ["Terracotta", "Sage", "White", "Grey"],
            ["Small", "Medium", "Large"],
            [("Terra Bloom", 2), ("Coastline Casual", 1)],
            code="POT",
        ),
        Spec(
            "Home & Garden > Household Appliances > Climate Control Appliances > Patio Heaters",
            2649,
            "Patio Heater",
            12,
            ["Patio Heater", "Fire Pit Heater"],
            _band(99, 899, 12),
            ["Stainless Steel", "Steel"],
            ["Black", "Bronze"],
            [],
            [("Sundial Patio", 2), ("Ember Ridge", 1)],
            code="HTR",
        ),
    ]


def competitor_catalog() -> list[dict]:
    rng = random.Random(COMPETITOR_SEED)
    m = Merchant(
        "Patio Plus",
        "patioplus.example",
        "PP",
        5_500_000_000,
        77_000_000_000,
        "40987",
        COMPETITOR_DATE,
        google_fill=0.8,
    )
    specs = competitor_specs()
    for s in specs:
        if not s.path.startswith(OF):
            s.products = round(s.products * COMPETITOR_SCALE)
            s.price_bands = [(lo, hi, s.products) for lo, hi, _ in s.price_bands[:1]]
    products = build_products(rng, specs, m)
    for p in products:
        for v in p.variants:
            v["compare_at"] = round(v["price"] * 1.2, 0) - 0.01 if p.on_sale else None
    return to_rows(products, m)


# --------------------------------------------------------------------------------------------------
# figures (what README documents; tests recompute them independently)
# --------------------------------------------------------------------------------------------------


def figures(rows: list[dict]) -> dict:
    products: dict[str, list[dict]] = {}
    for r in rows:
        products.setdefault(r["product_id"], []).append(r)
    skus: dict[str, int] = {}
    for r in rows:
        skus[r["sku"]] = skus.get(r["sku"], 0) + 1
    first = {pid: vs[0] for pid, vs in products.items()}
    f = {
        "rows": len(rows),
        "products": len(products),
        "status_products": {
            s: sum(1 for r in first.values() if r["status"] == s) for s in ("active", "draft", "archived")
        },
        "availability_rows": {
            a: sum(1 for r in rows if r["availability"] == a)
            for a in ("in_stock", "out_of_stock", "backorder", "preorder")
        },
        "google_filled_products": sum(1 for r in first.values() if r["google_product_category"]),
        "unmapped_products": sum(1 for r in first.values() if r["category"] == UNMAPPED_CATEGORY),
        "rows_without_image": sum(1 for r in rows if not r["image_url"]),
        "rows_without_description": sum(1 for r in rows if not r["description"]),
        "products_without_description": sum(1 for r in first.values() if not r["description"]),
        "products_without_brand": sum(1 for r in first.values() if not r["brand"]),
        "rows_invalid_gtin": sum(1 for r in rows if r["gtin"] and not gtin_is_valid(r["gtin"])),
        "products_title_over_150": sum(1 for r in first.values() if len(r["title"]) > 150),
        "rows_title_over_150": sum(1 for r in rows if len(r["title"]) > 150),
        "active_rows_price_zero": sum(1 for r in rows if r["status"] == "active" and float(r["price"]) == 0),
        "rows_invalid_sale": sum(
            1 for r in rows if r["compare_at_price"] and float(r["compare_at_price"]) <= float(r["price"])
        ),
        "rows_on_sale": sum(
            1 for r in rows if r["compare_at_price"] and float(r["compare_at_price"]) > float(r["price"])
        ),
        "duplicate_skus": {s: n for s, n in skus.items() if n > 1},
        "rows_colour_gray": sum(1 for r in rows if r["color"] == "gray"),
        "rows_colour_Grey": sum(1 for r in rows if r["color"] == "Grey"),
        "brands": sorted({r["brand"] for r in rows if r["brand"]}),
        "materials": sorted({r["material"] for r in rows if r["material"]}),
        "colours": sorted({r["color"] for r in rows if r["color"]}),
    }
    cats: dict[str, dict] = {}
    for _pid, vs in products.items():
        c = cats.setdefault(
            vs[0]["category"],
            {
                "products": 0,
                "active_products": 0,
                "variants": 0,
                "in_stock": 0,
                "prices": [],
                "all_out_products": 0,
                "brands": {},
            },
        )
        c["products"] += 1
        c["variants"] += len(vs)
        c["in_stock"] += sum(1 for v in vs if v["availability"] == "in_stock")
        c["prices"].extend(float(v["price"]) for v in vs)
        if vs[0]["status"] == "active":
            c["active_products"] += 1
        if all(v["availability"] == "out_of_stock" for v in vs):
            c["all_out_products"] += 1
        b = vs[0]["brand"] or "(none)"
        c["brands"][b] = c["brands"].get(b, 0) + 1
    f["categories"] = cats
    return f


def _products(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for r in rows:
        out.setdefault(r["product_id"], []).append(r)
    return out


def _in(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + " > ")


def _share(rows: list[dict], leaf: str, scope: str = OF) -> float:
    """Share (%) of scope products whose category is `leaf` or under it."""
    prods = [vs[0] for vs in _products(rows).values() if _in(vs[0]["category"], scope)]
    return 100 * sum(1 for p in prods if _in(p["category"], leaf)) / len(prods)


def readme_block(rows: list[dict], comp: list[dict]) -> str:
    """The Markdown tables data/demo/README.md embeds, computed from the generated rows themselves."""
    f, fc = figures(rows), figures(comp)
    cats = f["categories"]
    prods = _products(rows)

    def cat(path: str) -> dict:
        return cats.get(path, {"products": 0, "active_products": 0, "variants": 0, "in_stock": 0, "prices": [0.0]})

    chair_prices = sorted({float(r["price"]) for r in rows if r["category"] == CHAIRS})
    steps = [(a, b) for a, b in zip(chair_prices, chair_prices[1:]) if a > 0]
    big_a, big_b = max(steps, key=lambda ab: ab[1] / ab[0])
    chair_products = [vs for vs in prods.values() if vs[0]["category"] == CHAIRS]

    def chairs_in(lo: float, hi: float, data: dict[str, list[dict]]) -> int:
        return sum(
            1 for vs in data.values() if vs[0]["category"] == CHAIRS and any(lo <= float(v["price"]) < hi for v in vs)
        )

    grills = cats["Home & Garden > Kitchen & Dining > Kitchen Appliances > Outdoor Grills"]
    top_brand, top_n = max(grills["brands"].items(), key=lambda kv: kv[1])
    out = io.StringIO()
    w = out.write
    w("### catalog.csv: deliberate gaps and problems\n\n| # | what | where | count as generated |\n|---|---|---|---|\n")
    items = [
        ("missing subcategory", BEDS, f"{cat(BEDS)['products']} products"),
        (
            "thin subcategory (< 3 products)",
            OTTOMANS,
            f"{cat(OTTOMANS)['products']} products ({cat(OTTOMANS)['active_products']} active), {cat(OTTOMANS)['variants']} variants",
        ),
        (
            "every variant out of stock",
            STORAGE,
            f"{cat(STORAGE)['products']} products, {cat(STORAGE)['variants']} variants, {cat(STORAGE)['in_stock']} in stock",
        ),
        (
            "price ladder with a hole",
            CHAIRS,
            f"{len(chair_products)} products: {chairs_in(39, 90, prods)} priced 39–89.99, {chairs_in(90, 249, prods)} priced 90–248.99, "
            f"{chairs_in(249, 600, prods)} priced 249–599.99; largest adjacent step {big_a:.2f} → {big_b:.2f} (×{big_b / big_a:.2f})",
        ),
        (
            "merchant level under a taxonomy leaf",
            TEAK_LOUNGERS,
            f"{cat(TEAK_LOUNGERS)['products']} products (plus {cat(SUNLOUNGERS)['products']} directly in Sunloungers)",
        ),
        (
            "category that maps nowhere",
            UNMAPPED_CATEGORY,
            f'{f["unmapped_products"]} products ({cat(UNMAPPED_CATEGORY)["variants"]} rows); product type "Curated Bundle"; no taxonomy word in title or type',
        ),
        ("google_product_category filled", "all", f"{f['google_filled_products']} of {f['products']} products"),
        ("no image_url", "all", f"{f['rows_without_image']} rows"),
        (
            "no description",
            "all",
            f"{f['products_without_description']} products ({f['rows_without_description']} rows)",
        ),
        ("no brand", "all", f"{f['products_without_brand']} products"),
        ("invalid GTIN check digit", "all", f"{f['rows_invalid_gtin']} rows (every other row has a valid GTIN-13)"),
        (
            "title longer than 150 characters",
            "all",
            f"{f['products_title_over_150']} products ({f['rows_title_over_150']} rows)",
        ),
        ("active row with price 0", "all", f"{f['active_rows_price_zero']} rows"),
        ("invalid sale: compare_at_price ≤ price", "all", f"{f['rows_invalid_sale']} rows"),
        ("on sale: compare_at_price > price", "all", f"{f['rows_on_sale']} rows"),
        ("duplicate SKU", "all", ", ".join(f"{k} on {v} rows" for k, v in f["duplicate_skus"].items())),
        (
            'colour spelled "gray" (elsewhere "Grey")',
            "all",
            f'{f["rows_colour_gray"]} rows "gray", {f["rows_colour_Grey"]} rows "Grey"',
        ),
        (
            "one brand dominates a category",
            "Home & Garden > Kitchen & Dining > Kitchen Appliances > Outdoor Grills",
            f"{top_brand}: {top_n} of {grills['products']} products",
        ),
        ("preorder", "Outdoor Grills", f"{f['availability_rows']['preorder']} rows (inventory_qty 0, policy continue)"),
    ]
    for i, (what, where, count) in enumerate(items, 1):
        w(f"| {i} | {what} | {where} | {count} |\n")
    w(
        f"\nTotals: {f['rows']} rows, {f['products']} products, {len(f['brands'])} brands; products by status "
        + ", ".join(f"{k} {v}" for k, v in f["status_products"].items())
        + "; rows by availability "
        + ", ".join(f"{k} {v}" for k, v in f["availability_rows"].items())
        + ".\n"
    )

    w(
        "\n### catalog.csv: Furniture > Outdoor Furniture (and accessories), all statuses\n\n"
        "| merchant category | products | active | variants | in-stock variants | min price | max price |\n"
        "|---|---:|---:|---:|---:|---:|---:|\n"
    )
    for path in sorted(p for p in cats if p.startswith("Furniture > Outdoor Furniture")) + [BEDS]:
        c = cat(path)
        if path == BEDS:
            w(f"| {path} | 0 | 0 | 0 | 0 | – | – |\n")
            continue
        w(
            f"| {path} | {c['products']} | {c['active_products']} | {c['variants']} | {c['in_stock']} | "
            f"{min(c['prices']):.2f} | {max(c['prices']):.2f} |\n"
        )

    comp_prods = _products(comp)
    lacks_brands = sorted(set(fc["brands"]) - set(f["brands"]))
    low = lambda vals: {v.lower() for v in vals}  # noqa: E731
    lacks_mat = sorted(v for v in fc["materials"] if v.lower() not in low(f["materials"]))
    lacks_col = sorted(v for v in fc["colours"] if v.lower() not in low(f["colours"]))
    w(
        "\n### competitor.csv: known differences from catalog.csv\n\n| what | catalog.csv | competitor.csv |\n|---|---|---|\n"
    )
    w(
        f"| Outdoor Beds products | {cat(BEDS)['products']} | {fc['categories'].get(BEDS, {'products': 0})['products']} |\n"
    )
    w(
        f"| Sunloungers share of Outdoor Furniture products | {_share(rows, SUNLOUNGERS):.1f}% | {_share(comp, SUNLOUNGERS):.1f}% |\n"
    )
    w(
        f"| Outdoor Chairs products with a price in 90–248.99 | {chairs_in(90, 249, prods)} | {chairs_in(90, 249, comp_prods)} |\n"
    )
    w(f"| brands only the competitor carries | – | {', '.join(lacks_brands)} |\n")
    w(f"| materials only the competitor has | – | {', '.join(lacks_mat)} |\n")
    w(f"| colours only the competitor has | – | {', '.join(lacks_col)} |\n")
    w(f"| rows / products | {f['rows']} / {f['products']} | {fc['rows']} / {fc['products']} |\n")
    return out.getvalue()


def generate(out_dir: Path) -> tuple[list[dict], list[dict]]:
    """Write catalog.csv and competitor.csv into out_dir; return their rows."""
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = merchant_catalog()
    comp = competitor_catalog()
    write_csv(out_dir / "catalog.csv", rows)
    write_csv(out_dir / "competitor.csv", comp)
    return rows, comp


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    args = parser.parse_args(argv)
    rows, comp = generate(args.out)
    sys.stdout.write(readme_block(rows, comp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
