"""What the oracle raises."""

from __future__ import annotations


class OracleViolation(RuntimeError):
    """Gold code tried to act around the agent API (DOM, Qt, stores, files)."""


class OracleError(RuntimeError):
    """The oracle could not locate or reach what the gold solution asked for."""
