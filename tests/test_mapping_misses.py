"""The rules that sort the mapping's misses (`bench/classify_misses.py`, bench/README.md "Mapping"):
each class on a product built to fall in it, and the committed hand-reviewed sample is well formed."""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _module():
    sys.path.insert(0, str(ROOT / "bench"))
    spec = importlib.util.spec_from_file_location("classify_misses", ROOT / "bench" / "classify_misses.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_each_miss_class_on_a_product_built_for_it():
    mod = _module()
    from eval_mapping import Outcome

    earrings, jewelry, gift_cards, cakes = 194, 188, 53, 2194
    # predicted inside a coarser label: the merchant stopped higher
    assert mod.classify(Outcome("s", jewelry, earrings, "Gold Hoop Earrings")) == "coarse_label"
    # the merchant's own type says cake, the label says gift cards, nothing names a gift card
    assert (
        mod.classify(Outcome("s", gift_cards, cakes, "Pinkalious Chocolate Delight", "Black Forest Cake"))
        == "label_wrong"
    )
    # a title alone never judges a label (a model name may read as something)
    assert mod.classify(Outcome("s", gift_cards, None, "Chocolate Cake")) != "label_wrong"
    # a word of the title names a place in the label's branch: a mapper could reach it
    assert mod.classify(Outcome("s", earrings, None, "Silver Earrings Drop")) == "reachable"
    # no type, no category, no taxonomy noun in the title
    assert mod.classify(Outcome("s", earrings, None, "Octopus")) == "no_noun"
    # the merchant named a type the taxonomy has no name for
    assert mod.classify(Outcome("s", earrings, None, "EP THIN TWIST", "Ear hoop")) == "taxonomy_lacks"


def test_the_reviewed_sample_is_well_formed():
    mod = _module()
    with open(ROOT / "bench" / "mapping_miss_sample.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 300  # 200 reviewed in round 4, re-drawn and enlarged in round 5
    assert {r["rule_class"] for r in rows} <= set(mod.CLASSES)
    assert {r["reviewed_class"] for r in rows} <= set(mod.CLASSES)
    assert all(r["review_note"] for r in rows if r["rule_class"] != r["reviewed_class"])
