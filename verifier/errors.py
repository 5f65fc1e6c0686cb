"""The two ways grading can stop short of a number.

:class:`VerifyError` — the input cannot be graded at all (missing or corrupt extract, a store
of another task or system, a schema mismatch, a broken ``verify.py``): the command prints the
message, which names the file, and exits 2.

:class:`CouldNotGrade` — one check cannot be decided: the extract cannot be read (an input
file is missing), the seed lacks what the check needs, or the judge is unavailable (an LLM
endpoint down, a rubric fact with no deterministic pattern). That check is reported as
"could not grade", which is distinct from a fraction of 0 or 1. A change the run made to
seeded data is never a reason: it is graded as a failure (the engine grades 0 a check that
could not grade the run's data but can grade the untouched seed).
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
