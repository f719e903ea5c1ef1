"""Format readers: one module per export format, all ending in `common.finish` (the canonical table)."""
