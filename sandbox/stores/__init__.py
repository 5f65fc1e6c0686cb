"""The stores of every system: SQLAlchemy models, one SQLite file each, audited writes."""

from sandbox.stores.audit import CHANNELS, SEED_CONTEXT, WriteContext
from sandbox.stores.base import (
    SYSTEMS,
    Store,
    StoreError,
    metadata_for,
    model_for,
    open_store,
    system_metadata,
)

__all__ = [
    "CHANNELS", "SEED_CONTEXT", "SYSTEMS", "Store", "StoreError", "WriteContext",
    "metadata_for", "model_for", "open_store", "system_metadata",
]
