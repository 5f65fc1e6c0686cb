"""The declarative base of the web EHR store (kept apart so every model module can import it)."""

from sqlalchemy.orm import DeclarativeBase

from sandbox.stores.base import system_metadata


class Base(DeclarativeBase):
    metadata = system_metadata("ehr")
