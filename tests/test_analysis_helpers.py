"""The shared answer checker (tests/helpers.py: every number in the bullets is a number in the rendered
table) can fail; and the per-group quantiles match numpy."""

from __future__ import annotations

# (assert_prose_numbers_in_table and bullets are re-exported for branches that import them from here)
from tests.helpers import assert_prose_numbers_in_table, bullets, prose_numbers_missing_from_table  # noqa: F401


def test_checker_finds_a_number_missing_from_the_table():
    md = "## T\n\n- 12 products and USD 3.50\n\n| a | b |\n|---|---:|\n| x | 12 |\n"
    assert prose_numbers_missing_from_table(md) == {"3.50"}


def test_checker_accepts_numbers_present_as_cells():
    md = "## T\n\n- 1,200 rows (12.5%)\n\n| a | b |\n|---|---:|\n| x | 1,200 |\n| y | 12.5% |\n"
    assert prose_numbers_missing_from_table(md) == set()


def test_quantiles_by_code_match_numpy_per_group_for_cents_and_other_values():
    import numpy as np

    from agent.analysis.common import quantiles_by_code

    rng = np.random.default_rng(7)
    n_groups = 40
    codes = rng.integers(0, n_groups - 3, 5000)  # the last three groups stay empty
    qs = (0.0, 0.25, 0.5, 0.75, 1.0)
    for values in (
        rng.integers(99, 250_000, 5000) / 100.0,  # whole cents: the integer composite path
        rng.random(5000) * 1000.0,
    ):  # arbitrary floats: the two-pass path
        values = values.copy()
        values[::97] = np.nan  # NaN rows are ignored
        got = quantiles_by_code(codes, n_groups, values, qs)
        for g in range(n_groups):
            mine = values[(codes == g) & ~np.isnan(values)]
            if len(mine) == 0:
                assert np.isnan(got[g]).all()
            else:
                assert np.allclose(got[g], np.quantile(mine, qs), rtol=0, atol=1e-9), g
