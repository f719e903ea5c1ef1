"""The root of the agent's own errors: one hierarchy, one base class per layer below it.

An `AgentError` is raised on purpose and carries a fixed human message or reason, never library text,
paths or bucket names; anything else that escapes is a bug and becomes an incident (-32603). Each layer
subclasses it once and its errors subclass that:

- `agent.config.ConfigError` (also a ValueError): a bad setting stops start-up;
- `agent.catalog.errors.CatalogError`: `UnreadableCatalog`, `SourceUnavailable`, `SourceFailed`, and the
  BigQuery source's `BytesCapExceeded`, `OverSizeLine`, `BigQueryUnavailable` (`agent.catalog.bigquery`);
  `agent.bqref.BadBqUri` (also a ValueError): a malformed bq:// location;
- `agent.store.base.StoreError`: `NotCancelable`, `StoreConflict`;
- `agent.protocol.errors.RpcError`: what the client is told (the JSON-RPC code and message of the wire
  contract); the service raises it, the transport frames it;
- `agent.service.runner.Canceled`: the task's cancel flag was seen between steps.
"""

from __future__ import annotations


class AgentError(Exception):
    """An error the agent raises on purpose, with a message fit to show or log as is."""
