"""Checks: one small decorated function per partial-credit item of a task.

A task's ``verify.py`` declares, in the order of the seed's partial-credit list::

    @check("correct encounter")
    def correct_encounter(ex: Extract) -> Result:
        ...
        return Result.passed(expected=..., found=...)

A check returns a :class:`Result` (a fraction in [0, 1] plus evidence), or simply a bool or
a number. Items graded "proportionally" or "equal share per case" are built from parts with
:func:`equal_share`; :func:`expect` compares one value and records both sides.
A check that cannot be decided raises :class:`~verifier.errors.CouldNotGrade`.

Weights are never written here: they come from the percents of ``task.yaml``'s ``credit``,
and the engine refuses a ``verify.py`` whose check names or order differ from that list.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import inspect

from verifier.errors import CouldNotGrade
from verifier.values import jsonable, same_value

if TYPE_CHECKING:
    from verifier.extract import Extract

# The status of a grade, one vocabulary from a check's result up to a bench row and the hub:
# "graded" (a fraction or score), "could not grade" (the extract cannot be read, the seed
# lacks what a check needs, or the judge is unavailable; never a 0 — and never what the run
# did to seeded data, which is graded), "error" (the check or the engine failed).
GradeStatus = Literal["graded", "could not grade", "error"]
GRADED: GradeStatus = "graded"
NOT_GRADED: GradeStatus = "could not grade"
ERROR: GradeStatus = "error"
GRADE_STATUSES: tuple[GradeStatus, ...] = (GRADED, NOT_GRADED, ERROR)


@dataclass(frozen=True)
class Result:
    """What one check (or one part of it) earned, and why.

    ``fraction`` is ``None`` exactly when the status is not "graded". ``veto`` names a hard
    failure that zeroes the whole task (a seed's "hard fail"), with the reason.
    """

    fraction: float | None
    evidence: dict[str, Any] = field(default_factory=dict)
    status: GradeStatus = GRADED
    veto: str | None = None

    def __post_init__(self) -> None:
        if self.status == GRADED:
            if self.fraction is None or isinstance(self.fraction, bool):
                raise ValueError("a graded result needs a numeric fraction")
            if math.isnan(self.fraction) or not 0.0 <= self.fraction <= 1.0:
                raise ValueError(f"a fraction must lie in [0, 1], not {self.fraction}")
        elif self.status in (NOT_GRADED, ERROR):
            if self.fraction is not None:
                raise ValueError(f"a result that is '{self.status}' has no fraction")
        else:
            raise ValueError(f"unknown result status {self.status!r}")

    @property
    def graded(self) -> bool:
        return self.status == GRADED

    @classmethod
    def passed(cls, **evidence: Any) -> Result:
        return cls(1.0, evidence)

    @classmethod
    def failed(cls, **evidence: Any) -> Result:
        return cls(0.0, evidence)

    @classmethod
    def could_not_grade(cls, reason: str, **evidence: Any) -> Result:
        return cls(None, {"reason": reason, **evidence}, NOT_GRADED)

    @classmethod
    def of(cls, value: Result | bool | float | int, **evidence: Any) -> Result:
        """A result from what a check returned: a Result, a bool (1/0) or a fraction."""
        if isinstance(value, Result):
            if evidence:
                return cls(value.fraction, {**value.evidence, **evidence}, value.status,
                           value.veto)
            return value
        if isinstance(value, bool):
            return cls(1.0 if value else 0.0, evidence)
        if isinstance(value, (int, float)):
            return cls(float(value), evidence)
        raise TypeError(f"a check must return a Result, a bool or a fraction, not "
                        f"{type(value).__name__}")

    def with_veto(self, reason: str) -> Result:
        return Result(self.fraction, self.evidence, self.status, reason)


def expect(found: Any, expected: Any, *, tol: float | None = None, unit: str | None = None,
           **evidence: Any) -> Result:
    """1 when ``found`` equals ``expected`` (numbers within ``tol``), else 0; both recorded."""
    ok = same_value(found, expected, tol)
    record: dict[str, Any] = {"expected": jsonable(expected), "found": jsonable(found)}
    if tol is not None:
        record["tolerance"] = tol
    if unit:
        record["unit"] = unit
    record.update(evidence)
    return Result(1.0 if ok else 0.0, record)


def equal_share(parts: Mapping[str, Result | bool | float] | Iterable[tuple[str, Any]],
                **evidence: Any) -> Result:
    """The mean of labelled parts: "proportional" values, "equal share per case".

    Any part that could not be graded makes the whole item "could not grade" (its graded
    parts are still listed); a vetoed part vetoes the item.
    """
    items = list(parts.items()) if isinstance(parts, Mapping) else list(parts)
    if not items:
        raise ValueError("equal_share needs at least one part")
    results = [(str(label), Result.of(value)) for label, value in items]
    listed = [{"part": label, "fraction": r.fraction, "status": r.status, **r.evidence}
              for label, r in results]
    record = {"share": f"equal, {len(results)} parts", "parts": listed, **evidence}
    veto = next((r.veto for _, r in results if r.veto), None)
    ungraded = [label for label, r in results if not r.graded]
    if ungraded:
        status = ERROR if any(r.status == ERROR for _, r in results) else NOT_GRADED
        record["reason"] = f"parts not graded: {', '.join(ungraded)}"
        return Result(None, record, status, veto)
    fraction = sum(r.fraction or 0.0 for _, r in results) / len(results)
    return Result(min(1.0, max(0.0, fraction)), record, GRADED, veto)


proportional = equal_share  # the seeds say both; the arithmetic is the same


def row_ref(obj: Any) -> str:
    """``system.table#pk`` of an ORM row, for evidence that names the rows it looked at."""
    state = inspect(obj)
    table = state.mapper.local_table
    system = table.metadata.info.get("system", "?")
    keys = [state.mapper.get_property_by_column(col).key for col in table.primary_key.columns]
    values = [getattr(obj, key) for key in keys]
    pk = ",".join(str(v) for v in values)
    return f"{system}.{table.name}#{pk}"


@dataclass(frozen=True)
class Check:
    """One named partial-credit item: a function of the extract."""

    name: str
    func: Callable[[Extract], Result | bool | float]

    @property
    def where(self) -> str:
        code = getattr(self.func, "__code__", None)
        if code is None:
            return getattr(self.func, "__qualname__", repr(self.func))
        return f"{code.co_filename}:{code.co_firstlineno}"

    @property
    def description(self) -> str:
        return (self.func.__doc__ or "").strip().splitlines()[0] if self.func.__doc__ else ""

    def __call__(self, ex: Extract) -> Result:
        """Run the check; CouldNotGrade becomes a "could not grade" result."""
        try:
            return Result.of(self.func(ex))
        except CouldNotGrade as exc:
            return Result(None, {"reason": exc.reason, **exc.evidence}, NOT_GRADED)


def check(name: str) -> Callable[[Callable[[Extract], Any]], Check]:
    """Declare a check under the seed's name for its partial-credit item."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError("a check needs the seed's name for its partial-credit item")

    def decorate(func: Callable[[Extract], Any]) -> Check:
        return Check(name=name, func=func)

    return decorate
