"""`bq://` locations: the one parser for BigQuery table names, pure string work (a base module like
agent.gsuri: config, trust and the catalog all use it).

Two forms, accepted wherever a gs:// location is:

* `bq://project.dataset.table` — that table;
* `bq://project.dataset` — a Merchant Center transfer dataset: the table is `Products_<merchant_id>`,
  with the merchant id of the trusted catalog_context (or the MERCHANT_CENTER_ID setting for
  CATALOG_URI). Without a merchant id a dataset location names no table and is refused.

Names follow BigQuery's rules, narrowed to what cannot smuggle anything into SQL or a resource path:
project ids are 6–30 lower-case letters, digits and hyphens (domain-scoped `example.com:p` ids are
not accepted); dataset and table names are ASCII letters, digits and underscores. Every name is
backquoted in SQL by `BqRef.sql_name`, so a valid name is also a safe one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.errors import AgentError

SCHEME = "bq://"
PRODUCTS_PREFIX = "Products_"
_PROJECT = re.compile(r"^[a-z][a-z0-9-]{4,28}[a-z0-9]$")
_DATASET = re.compile(r"^[A-Za-z0-9_]{1,1024}$")
_TABLE = re.compile(r"^[A-Za-z0-9_]{1,1024}$")


class BadBqUri(AgentError, ValueError):
    """Not a usable bq:// location; the message is for the operator (config) or the log."""


@dataclass(frozen=True)
class BqRef:
    project: str
    dataset: str
    table: str | None  # None: a transfer dataset, table chosen by merchant id

    @property
    def uri(self) -> str:
        return f"{SCHEME}{self.project}.{self.dataset}" + (f".{self.table}" if self.table else "")

    def for_merchant(self, merchant_id: str | None) -> "BqRef":
        """A dataset location resolved to the merchant's `Products_<merchant_id>` table."""
        if self.table is not None:
            return self
        if not merchant_id or not _TABLE.fullmatch(PRODUCTS_PREFIX + merchant_id):
            raise BadBqUri(f"{self.uri} names a dataset: a merchant id is needed to choose Products_<merchant_id>")
        return BqRef(self.project, self.dataset, PRODUCTS_PREFIX + merchant_id)

    @property
    def table_id(self) -> str:
        if self.table is None:
            raise BadBqUri(f"{self.uri} names no table")
        return f"{self.project}.{self.dataset}.{self.table}"

    @property
    def sql_name(self) -> str:
        return f"`{self.table_id}`"


def is_bq(uri: object) -> bool:
    return isinstance(uri, str) and uri.startswith(SCHEME)


def parse_bq_uri(uri: str) -> BqRef:
    """`bq://project.dataset[.table]` -> BqRef; BadBqUri for anything else (no I/O)."""
    if not is_bq(uri):
        raise BadBqUri("not a bq:// location")
    parts = uri[len(SCHEME) :].split(".")
    if len(parts) not in (2, 3):
        raise BadBqUri(f"must look like bq://project.dataset.table or bq://project.dataset, not {uri!r}")
    project, dataset = parts[0], parts[1]
    table = parts[2] if len(parts) == 3 else None
    if (
        not _PROJECT.fullmatch(project)
        or not _DATASET.fullmatch(dataset)
        or (table is not None and not _TABLE.fullmatch(table))
    ):
        raise BadBqUri(f"must look like bq://project.dataset.table or bq://project.dataset, not {uri!r}")
    return BqRef(project, dataset, table)
