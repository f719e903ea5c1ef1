"""A header is a known format's only when that format finds a product's name or price in it.

A Lightspeed (Vend) retail export (held-out leobrien2/mirour2 product-export.csv) shares `Track Inventory`,
`Brand Name` and `Retail Price` with BigCommerce; scored as BigCommerce it was read with no title and no
price on any row. Each case mixes, from a seed, a format's own column names that name neither its title nor
its price (one distinctive among them) with a store table's own `item_name` and `unit_price` columns.
"""

from __future__ import annotations

import random

import pytest

from agent.catalog import headers
from agent.catalog.evidence import KIND_ATTACHED
from agent.catalog.sources import read_table_bytes

STORE = ["handle", "sku", "item_name", "description", "unit_price", "supply_price", "tags"]


def borrowed(profile: headers.Profile, rng: random.Random) -> list[str]:
    """Column names `profile` knows, none of them its title or price, one of them distinctive."""
    roles = {alias for role in ("title", "price") for alias in profile.roles.get(role, ())}
    own = sorted(
        v for v in profile.vocabulary if v not in roles and headers.norm(v) not in {headers.norm(s) for s in STORE}
    )
    distinctive = sorted(d for d in profile.distinctive if d not in roles and d in own)
    picked = {rng.choice(distinctive), *rng.sample(own, min(len(own), rng.randint(3, 8)))}
    return [name.replace(" ", "_") for name in sorted(picked)]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("key", ["bigcommerce", "shopify", "magento", "woocommerce"])
def test_a_header_sharing_names_but_no_title_or_price_is_a_store_table(key, seed):
    rng = random.Random(seed)
    profile = next(p for p in headers.PROFILES if p.key == key)
    header = STORE + borrowed(profile, rng)
    rng.shuffle(header)
    det = headers.detect(header)
    if det.profile is not None:  # taken as a format only when that format reads a name or a price
        assert {"title", "price"} & set(det.roles), (header, det.name)
    rows = [header, [f"v{i}" for i in range(len(header))]]
    rows[1][header.index("item_name")] = "Bar Spoon"
    rows[1][header.index("unit_price")] = "15.00"
    data = "\n".join(",".join(r) for r in rows).encode()
    table, ev = read_table_bytes(data, "export.csv", KIND_ATTACHED)
    row = table.to_pylist()[0]
    assert (row["title"], row["price"]) == ("Bar Spoon", 15.0), (ev.format, header)


@pytest.mark.parametrize("profile", headers.PROFILES, ids=lambda p: p.key)
def test_each_format_s_own_required_header_is_still_that_format(profile):
    header = [group[0] for group in profile.required]
    assert headers.detect(header).profile is profile
