"""Pick the store back end from configuration: Cloud Storage with STATE_BUCKET, else in memory.

Either way, what the back end holds in this process is bounded by shares of MEMORY_BUDGET_BYTES
(agent.config): the context store's (or the Cloud Storage copy cache's) and the task store's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import ContextStore, TaskStore

if TYPE_CHECKING:
    from agent.config import Config


def build_stores(config: "Config") -> tuple[TaskStore, ContextStore]:
    if config.state_bucket:
        from .gcs import Bucket, GcsContextStore, GcsTaskStore  # kept catalogs: entries of TABLE_CACHE

        bucket = Bucket(config.state_bucket, config.state_ttl_days)
        return GcsTaskStore(bucket), GcsContextStore(bucket)
    from .memory import MemoryContextStore, MemoryTaskStore

    return (
        MemoryTaskStore(config.task_store_entries, config.task_store_bytes, config.state_ttl_days),
        MemoryContextStore(config.context_store_entries, config.memory_store_bytes, config.state_ttl_days),
    )
