"""What a task's checks grade, declared in its ``verify.py``: ``GRADED`` and ``UNGRADED``.

``Graded`` names one value a check grades (where it is, a wrong value, the credit item and
the share of it a wrong value costs); ``Ungraded`` names columns the run writes that no
check grades, with the reason. The engine validates both lists against the task when it
loads the checks (:func:`validate_declarations`); :mod:`verifier.sensitivity` exercises them
on a 1.0 extract.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Table

from sandbox.catalog import TaskSpec
from sandbox.stores import SYSTEMS, metadata_for
from sandbox.stores.audit import AUDIT_TABLE
from verifier.errors import VerifyError


@dataclass(frozen=True)
class Graded:
    """One value a check grades: where it is, a wrong value, and the credit it moves.

    ``where`` selects exactly one row of ``store.table`` in the gold extract (column →
    value, compared as stored); when it matches several, the one the run inserted or
    updated is taken (a new order among the patient's seeded ones of the same kind).
    ``share`` is the fraction of ``item`` a wrong value costs; ``also`` lists other items
    the same change moves, with their shares. ``variants`` limits the entry to the
    variants whose gold has the row (default: every variant).
    """

    table: str
    where: Mapping[str, Any]
    column: str
    wrong: Any
    item: str
    share: float
    also: Mapping[str, float] = field(default_factory=dict)
    variants: tuple[str, ...] | None = None

    @property
    def system(self) -> str:
        return self.table.split(".", 1)[0]

    @property
    def table_name(self) -> str:
        return self.table.split(".", 1)[-1]

    def moves(self) -> dict[str, float]:
        """Credit item → share of it lost."""
        return {self.item: self.share, **self.also}

    def applies_to(self, variant: str) -> bool:
        return self.variants is None or variant in self.variants

    def describe(self) -> str:
        where = ", ".join(f"{k}={v!r}" for k, v in self.where.items())
        return f"{self.table}[{where}].{self.column} -> {self.wrong!r}"


@dataclass(frozen=True)
class Ungraded:
    """Columns of ``store.table`` the checks deliberately do not grade, and why.

    ``columns`` is one or more column names separated by spaces; ``where`` (optional)
    limits the entry to matching rows, and ``variants`` to some variants, as in
    :class:`Graded` (a row one variant's checks grade may be one of several that count in
    another, where no single change can move the score).
    """

    table: str
    columns: str
    reason: str
    where: Mapping[str, Any] | None = None
    variants: tuple[str, ...] | None = None

    def applies_to(self, variant: str) -> bool:
        return self.variants is None or variant in self.variants

    @property
    def system(self) -> str:
        return self.table.split(".", 1)[0]

    @property
    def table_name(self) -> str:
        return self.table.split(".", 1)[-1]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.columns.split())


# -- validation (the engine, when it loads a verify.py) ----------------------------------
def _table(spec: TaskSpec, path: Path, label: str, dotted: Any) -> Table:
    if not isinstance(dotted, str) or "." not in dotted:
        raise VerifyError(f"{path}: {label}: the table must be 'store.table', not {dotted!r}")
    system, name = dotted.split(".", 1)
    if system not in SYSTEMS or system not in spec.systems:
        raise VerifyError(f"{path}: {label}: {spec.alias} has no {system} store "
                          f"(its systems: {', '.join(spec.systems)})")
    table = metadata_for(system).tables.get(name)
    if table is None or name == AUDIT_TABLE:
        raise VerifyError(f"{path}: {label}: the {system} store has no table {name!r}")
    return table


def _columns(table: Table, names: Any, path: Path, label: str) -> None:
    unknown = [n for n in names if n not in table.c]
    if unknown:
        raise VerifyError(f"{path}: {label}: {table.name} has no column "
                          f"{', '.join(repr(n) for n in unknown)}")


def validate_declarations(spec: TaskSpec, path: Path, graded: Any, ungraded: Any
                          ) -> tuple[tuple[Graded, ...] | None, tuple[Ungraded, ...]]:
    """``GRADED`` and ``UNGRADED`` of a verify.py, checked against the task."""
    items = {c.name for c in spec.credit}
    graded_list: tuple[Graded, ...] | None = None
    if graded is not None:
        if not isinstance(graded, (list, tuple)) or not all(isinstance(g, Graded)
                                                            for g in graded):
            raise VerifyError(f"{path}: GRADED must be a list of Graded(...) entries")
        for n, entry in enumerate(graded):
            label = f"GRADED[{n}] ({entry.describe()})"
            table = _table(spec, path, label, entry.table)
            if not isinstance(entry.where, Mapping) or not entry.where:
                raise VerifyError(f"{path}: {label}: 'where' must select a row by column "
                                  "values, e.g. {'orderable_id': 101}")
            _columns(table, [*entry.where, entry.column], path, label)
            if entry.column in [c.name for c in table.primary_key.columns]:
                raise VerifyError(f"{path}: {label}: a primary key is not a graded value")
            for item, share in entry.moves().items():
                if item not in items:
                    raise VerifyError(f"{path}: {label}: {item!r} is not a credit item of "
                                      f"{spec.alias} ({', '.join(repr(i) for i in items)})")
                if isinstance(share, bool) or not isinstance(share, (int, float)) or \
                        math.isnan(share) or not 0 < share <= 1:
                    raise VerifyError(f"{path}: {label}: the share of {item!r} must be a "
                                      f"fraction in (0, 1], not {share!r}")
            unknown = [v for v in entry.variants or () if v not in spec.variant_names]
            if unknown:
                raise VerifyError(f"{path}: {label}: no variant {unknown[0]!r} "
                                  f"({', '.join(spec.variant_names)})")
        graded_list = tuple(graded)
    if ungraded is None:
        ungraded = []
    if not isinstance(ungraded, (list, tuple)) or not all(isinstance(u, Ungraded)
                                                          for u in ungraded):
        raise VerifyError(f"{path}: UNGRADED must be a list of Ungraded(...) entries")
    for n, entry in enumerate(ungraded):
        label = f"UNGRADED[{n}] ({entry.table}: {entry.columns})"
        table = _table(spec, path, label, entry.table)
        _columns(table, [*entry.names, *(entry.where or {})], path, label)
        if not entry.names or not entry.reason.strip():
            raise VerifyError(f"{path}: {label}: name the columns and say why the seed does "
                              "not grade them")
        unknown = [v for v in entry.variants or () if v not in spec.variant_names]
        if unknown:
            raise VerifyError(f"{path}: {label}: no variant {unknown[0]!r} "
                              f"({', '.join(spec.variant_names)})")
    return graded_list, tuple(ungraded)
