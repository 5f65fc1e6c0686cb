"""The declarative base of the web EHR store (kept apart so every model module can import it)."""

from sandbox.stores.base import system_base

Base = system_base("ehr")
