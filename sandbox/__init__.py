"""EHR Sandbox kernel: clock, stores and audit, task catalog, seeding, episodes, CLI."""

__version__ = "0.1.0"
