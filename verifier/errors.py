"""The two ways grading can stop short of a number.

:class:`VerifyError` — the input cannot be graded at all (missing or corrupt extract, a store
of another task or system, a schema mismatch, a broken ``verify.py``): the command prints the
message, which names the file, and exits 2.

:class:`CouldNotGrade` — one check cannot be decided (an LLM judge is unavailable, a rubric
fact has no deterministic pattern): that check is reported as "could not grade", which is
distinct from a fraction of 0 or 1.
"""

from __future__ import annotations


class VerifyError(ValueError):
    """The extract, the task or its checks cannot be graded; the message names the file."""


class CouldNotGrade(RuntimeError):
    """Raised inside a check when it cannot be decided (never a silent 0 or 1)."""

    def __init__(self, reason: str, evidence: dict | None = None):
        super().__init__(reason)
        self.reason = reason
        self.evidence = evidence or {}
