"""The mapping measured on real merchant labels (issue 10 item 3): `bench/eval_mapping.py` over the
corpus in `tests/corpus`, labels hidden, compared per product.

The lines are the measured figures less a small margin (bench/README.md, "Mapping"): the issue's
targets (precision 95 % at level 2, 85 % at leaf, coverage 80 %) are not met yet, and the test keeps
what is reached from sliding back. Fewer than 3,000 labelled products is a failure, not a skip: the
evaluation would say nothing. MAPPING_CORPUS points it at another folder.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("MAPPING_CORPUS", ROOT / "tests" / "corpus"))
MIN_LABELLED = 3000
MIN_PRECISION_LEVEL2 = 0.92
MIN_PRECISION_LEAF = 0.79
MIN_COVERAGE = 0.60


def _eval_module():
    spec = importlib.util.spec_from_file_location("eval_mapping", ROOT / "bench" / "eval_mapping.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_mapping_precision_on_real_labels_stays_above_the_line():
    total, per_shop = _eval_module().evaluate(CORPUS)
    assert total.labelled >= MIN_LABELLED, f"only {total.labelled} labelled products in {CORPUS}"
    assert len(per_shop) >= 12
    assert total.precision2 >= MIN_PRECISION_LEVEL2, total.precision2
    assert total.precision_leaf >= MIN_PRECISION_LEAF, total.precision_leaf
    assert total.coverage >= MIN_COVERAGE, total.coverage


def test_the_dev_and_held_out_halves_are_fixed_and_both_hold_labelled_shops():
    mod = _eval_module()
    assert mod.split_of("shopify/vietjewelers-jewelry") == mod.split_of("shopify/vietjewelers-jewelry")
    halves = {mod.split_of(f"{p.parent.name}/{p.stem}") for p in mod.corpus_files(CORPUS)}
    assert halves == {mod.DEV, mod.HELD_OUT}


def test_the_trade_off_curve_ends_at_the_mapping_and_ranks_grades_on_dev_only():
    """The precision/coverage curve (bench/eval_mapping.py --curve): answering at every grade is the
    mapping itself; answering at fewer only unmaps; the dev-ranked order reads dev products only."""
    mod = _eval_module()
    from agent.catalog import categorise

    shirt, hoodie, pet = 212, 5322, 1  # two Clothing places and one elsewhere
    outcomes = [
        mod.Outcome("s", shirt, shirt, sure=categorise.SURE_TYPE, got_all=shirt),
        mod.Outcome("s", shirt, hoodie, sure=categorise.SURE_BRANCH, got_all=hoodie),
        mod.Outcome("s", shirt, pet, sure=categorise.SURE_TITLE, got_all=pet),
        mod.Outcome("s", shirt, None),
    ]
    steps = mod.curve(outcomes)
    last = steps[-1][2]
    assert (last.mapped, last.level2, last.leaf) == (3, 2, 1)
    assert [f.mapped for _, _, f in steps] == sorted(f.mapped for _, _, f in steps)
    order = mod.dev_ranked(outcomes)
    assert order.index(categorise.SURE_TITLE) > order.index(categorise.SURE_TYPE)  # 0 % right at L2
    assert mod.curve_in_order(outcomes, order)[-1][1].mapped == 3
    assert mod.wilson(0, 0) == (0.0, 1.0) and 0.0 < mod.wilson(5, 10)[0] < 0.5 < mod.wilson(5, 10)[1] < 1.0
