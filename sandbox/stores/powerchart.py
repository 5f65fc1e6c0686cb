"""The powerchart store (models to come)."""

from sandbox.stores.base import system_base

Base = system_base("powerchart")
