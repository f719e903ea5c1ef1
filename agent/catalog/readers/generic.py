"""Any other table, through the header alias map: one row per variant, columns taken as named.

Without a product id column every row is its own product (we do not guess groupings from titles).
Without a status column the status is "unknown" — the data did not say.
"""

from __future__ import annotations

import pyarrow as pa

from agent.catalog.readers.common import Draft, attributes_from_options


def build(table: pa.Table, roles: dict[str, str]) -> Draft:
    cols = {role: table[col] for role, col in roles.items() if col in table.column_names}
    attributes_from_options(cols)
    return Draft(n=table.num_rows, cols=cols, used=set(roles.values()), currency_column="currency" in cols)
