"""Sensitivity: every value a task's checks grade moves the score when it is wrong.

A task's ``verify.py`` declares what its checks grade, and what they deliberately do not::

    GRADED = [
        # store.table, row selector, column, a wrong value, the credit item it moves and
        # the share of that item it costs (``also``: other items the same change moves)
        Graded("hyperspace.orders", {"orderable_id": 101}, "frequency", "Q12H",
               "antibiotic and VTE orders", 1 / 12),
    ]
    UNGRADED = [
        Ungraded("hyperspace.orders", "entered_at signed_at", "times the client stamps"),
    ]

The engine validates both lists against the task (credit item names, shares, tables and
columns of the store) when it loads the checks (:mod:`verifier.declarations`).
:func:`run_sensitivity` then takes a 1.0 extract (a gold run) and

- for every ``Graded`` entry: copies the extract, changes the one selected row's column to
  the wrong value through the audited writer — with the channel, episode and actor of the
  row's last write in the run, so the channel rule still counts it — grades the copy and
  requires each credit item to drop by exactly its declared share (all others unchanged);
- sweeps every row the run inserted or updated: each of its non-null columns must be changed
  by some ``Graded`` entry or named by an ``Ungraded`` entry with the reason the seed does
  not grade it. A value the run wrote that neither list covers fails: that is how a value
  the seed names but no check grades is found.

Copies are graded, never the extract itself; nothing here starts an episode.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from sqlalchemy import Table, and_, inspect, select
from sqlalchemy.exc import SQLAlchemyError

from sandbox.catalog import TaskSpec
from sandbox.clock import SandboxClock
from sandbox.stores import Store, WriteContext, metadata_for, model_for
from sandbox.stores.audit import AUDIT_TABLE, canonical_json, json_value, pk_image, stored_form
from verifier.declarations import Graded, Ungraded

TOLERANCE = 1e-6


# -- the run ---------------------------------------------------------------------------
@dataclass
class Mutation:
    """One graded value changed in a copy of the extract, and what the grade did."""

    entry: Graded
    row: str
    before: Any
    expected: dict[str, float]
    found: dict[str, float | None]
    score: float | None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        moved = ", ".join(f"{item} -{_fraction(share)}" for item, share in
                          self.entry.moves().items())
        head = f"{self.row} {self.entry.column}: {self.before!r} -> {self.entry.wrong!r}"
        if self.ok:
            return f"ok    {head}: {moved} (score {self.score:.4f})"
        return f"FAIL  {head}: {self.problem}"


@dataclass
class SensitivityReport:
    """What :func:`run_sensitivity` found for one extract."""

    task: str
    variant: str
    declared: bool
    baseline: float | None = None
    mutations: list[Mutation] = field(default_factory=list)
    uncovered: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.declared and not self.uncovered and not self.problems and all(
            m.ok for m in self.mutations)

    def summary(self) -> str:
        if not self.declared:
            return f"{self.task} {self.variant}: no GRADED list in verify.py yet"
        moved = sum(1 for m in self.mutations if m.ok)
        return (f"{self.task} {self.variant}: {moved}/{len(self.mutations)} graded values "
                f"moved the score by their share; {len(self.uncovered)} written values "
                f"neither graded nor declared ungraded; {len(self.problems)} other problems")

    def render(self, everything: bool = False) -> str:
        lines = [self.summary()]
        lines += [f"  {m.line()}" for m in self.mutations if everything or not m.ok]
        lines += [f"  UNCOVERED  {u}" for u in self.uncovered]
        lines += [f"  PROBLEM    {p}" for p in self.problems]
        return "\n".join(lines)


def _fraction(share: float) -> str:
    approx = Fraction(share).limit_denominator(720)
    return str(approx) if abs(float(approx) - share) < TOLERANCE else f"{share:.4f}"


def _canon(table: Table, column: str, value: Any) -> Any:
    return json_value(stored_form(table.c[column], value))


def _matching(session: Any, table: Table, where: Mapping[str, Any] | None
              ) -> list[dict[str, Any]]:
    clauses = [table.c[k].is_(None) if v is None else table.c[k] == v
               for k, v in (where or {}).items()]
    query = select(table).where(and_(*clauses)) if clauses else select(table)
    return [dict(r) for r in session.execute(query).mappings()]


def _pk_key(table: Table, row: dict[str, Any]) -> str:
    return canonical_json(pk_image(table, row))


def _ref(system: str, table: Table, row: dict[str, Any]) -> str:
    return f"{system}.{table.name}#{','.join(str(v) for v in pk_image(table, row).values())}"


def _writer_of(db: Path, table: str, pk: str, episode: str, default: WriteContext
               ) -> WriteContext:
    """The context of the run's last write to the row (else the run's usual one)."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = conn.execute(
            f'SELECT channel, episode_id, actor FROM "{AUDIT_TABLE}" WHERE table_name = ? '
            "AND row_pk = ? AND episode_id = ? AND channel != 'seed' ORDER BY id DESC "
            "LIMIT 1", (table, pk, episode)).fetchone()
    finally:
        conn.close()
    return WriteContext(*row) if row else default


def _usual_writer(db: Path, episode: str, spec: TaskSpec) -> WriteContext:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = conn.execute(
            f'SELECT channel, actor, count(*) AS n FROM "{AUDIT_TABLE}" WHERE episode_id = ? '
            "AND channel != 'seed' GROUP BY channel, actor ORDER BY n DESC LIMIT 1",
            (episode,)).fetchone()
    finally:
        conn.close()
    if row:
        return WriteContext(row[0], episode, row[1])
    return WriteContext(spec.channel if spec.channel in ("browser", "desktop", "api")
                        else "browser", episode, "sensitivity")


def _item_fractions(report: Any) -> dict[str, float | None]:
    return {c.name: c.fraction if c.status == "graded" else None for c in report.checks}


Cell = tuple[str, str, str]  # (system, table, canonical primary key) of one row


class _Stores:
    """The extract's stores, opened read-only on first use."""

    def __init__(self, extract_dir: Path):
        self.extract_dir = extract_dir
        self._open: dict[str, Store] = {}

    def rows(self, system: str, table: Table, where: Mapping[str, Any] | None
             ) -> list[dict[str, Any]]:
        if system not in self._open:
            self._open[system] = Store(system, self.extract_dir / "stores" /
                                       f"{system}.sqlite", readonly=True)
        with self._open[system].reader() as session:
            return _matching(session, table, where)

    def close(self) -> None:
        for store in self._open.values():
            store.dispose()


def _targets(graded: list[Graded], stores: _Stores, run_rows: set[Cell],
             problems: list[str]) -> list[tuple[Graded, Table, dict[str, Any]]]:
    """Each entry with the one gold row it changes (problems for those it cannot)."""
    targets = []
    for entry in graded:
        table = metadata_for(entry.system).tables[entry.table_name]
        rows = stores.rows(entry.system, table, entry.where)
        if len(rows) > 1:
            rows = [r for r in rows if (entry.system, table.name, _pk_key(table, r)) in run_rows]
        if len(rows) != 1:
            problems.append(f"{entry.describe()}: the selector matches {len(rows)} rows of the "
                            "gold extract (it must select one, or one the run wrote)")
            continue
        row = rows[0]
        if _canon(table, entry.column, entry.wrong) == _canon(table, entry.column,
                                                              row[entry.column]):
            problems.append(f"{entry.describe()}: the 'wrong' value is the gold value")
            continue
        targets.append((entry, table, row))
    return targets


def _ungraded_cover(ungraded: tuple[Ungraded, ...], stores: _Stores
                    ) -> dict[Cell, dict[str, str]]:
    """Row → column → the reason it is not graded."""
    cover: dict[Cell, dict[str, str]] = {}
    for entry in ungraded:
        table = metadata_for(entry.system).tables[entry.table_name]
        for row in stores.rows(entry.system, table, entry.where):
            reasons = cover.setdefault((entry.system, table.name, _pk_key(table, row)), {})
            for name in entry.names:
                reasons[name] = entry.reason
    return cover


def run_sensitivity(spec: TaskSpec, extract_dir: Path | str, workdir: Path | str, *,
                    variant: str | None = None) -> SensitivityReport:
    """Change every declared graded value of a 1.0 extract in turn and grade each copy.

    ``workdir`` receives the copies (each removed once graded). The extract is not changed.
    """
    from verifier.engine import grade
    from verifier.extract import Extract
    from verifier.run import RunInfo
    from verifier.taskmodule import load_checks

    extract_dir = Path(extract_dir)
    run = RunInfo.load(extract_dir / "run.json")
    variant = variant or run.variant
    checks = load_checks(spec)
    result = SensitivityReport(spec.alias, variant, declared=checks.graded is not None)
    if checks.graded is None:
        return result
    baseline_report = grade(spec, extract_dir, variant, judge="rubric")
    baseline = _item_fractions(baseline_report)
    result.baseline = baseline_report.score
    if baseline_report.score is None:
        result.problems.append(f"the extract itself is not fully graded: {baseline}")
        return result
    with Extract.open(extract_dir, spec, variant=variant) as ex:
        written = [c for c in ex.footprint.changes if c.action in ("insert", "update")]
    run_rows = {(c.system, c.table, canonical_json(c.pk)) for c in written}

    stores = _Stores(extract_dir)
    try:
        targets = _targets([g for g in checks.graded if g.applies_to(variant)], stores,
                           run_rows, result.problems)
        covered: dict[Cell, set[str]] = {}
        for entry, table, row in targets:
            covered.setdefault((entry.system, table.name, _pk_key(table, row)),
                               set()).add(entry.column)
        ungraded = _ungraded_cover(
            tuple(u for u in checks.ungraded if u.applies_to(variant)), stores)
        # the sweep: every non-null value of every row the run inserted or updated
        for change in written:
            table = metadata_for(change.system).tables[change.table]
            now = stores.rows(change.system, table, change.pk)
            if now:
                result.uncovered += _unaccounted(change.ref, table, now[0], covered, ungraded,
                                                 result.problems)
    finally:
        stores.close()

    clock = SandboxClock.load(extract_dir / "clock.json")
    Path(workdir).mkdir(parents=True, exist_ok=True)
    for n, (entry, table, row) in enumerate(targets, start=1):
        copy = Path(workdir) / f"{spec.alias}-{variant}-{n:03d}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(extract_dir, copy)
        try:
            result.mutations.append(_mutate_and_grade(
                spec, variant, run.episode_id, copy, clock, entry, table, row, baseline))
        finally:
            shutil.rmtree(copy, ignore_errors=True)
    return result


def _unaccounted(ref: str, table: Table, row: dict[str, Any], covered: dict[Cell, set[str]],
                 ungraded: dict[Cell, dict[str, str]], problems: list[str]) -> list[str]:
    """The row's non-null values that no Graded entry changes and no Ungraded one explains."""
    key = (ref.split(".", 1)[0], table.name, _pk_key(table, row))
    pks = {c.name for c in table.primary_key.columns}
    found = []
    for column, value in row.items():
        if column in pks or value is None:
            continue
        is_graded = column in covered.get(key, set())
        why = ungraded.get(key, {}).get(column)
        if is_graded and why:
            problems.append(f"{ref} {column}: declared both graded and not graded ({why})")
        elif not is_graded and not why:
            found.append(f"{ref} {column} = {_canon(table, column, value)!r}: the run wrote "
                         "it, no GRADED entry changes it and no UNGRADED entry says why the "
                         "seed does not grade it")
    return found


def _mutate_and_grade(spec: TaskSpec, variant: str, episode: str, copy: Path,
                      clock: SandboxClock, entry: Graded, table: Table, row: dict[str, Any],
                      baseline: dict[str, float | None]) -> Mutation:
    from verifier.engine import grade

    db = copy / "stores" / f"{entry.system}.sqlite"
    pk = _pk_key(table, row)
    ref = _ref(entry.system, table, row)
    ctx = _writer_of(db, table.name, pk, episode, _usual_writer(db, episode, spec))
    before = _canon(table, entry.column, row[entry.column])
    model = model_for(entry.system, table.name)
    store = Store(entry.system, db, clock)
    try:
        with store.writer(ctx) as session:
            obj = session.get(model, tuple(row[c.name] for c in table.primary_key.columns))
            if obj is None:
                raise ValueError(f"{ref} is not in the copy")
            key = inspect(model).get_property_by_column(table.c[entry.column]).key
            setattr(obj, key, entry.wrong)
    except (SQLAlchemyError, ValueError, TypeError) as exc:  # a constraint or a model's check
        return Mutation(entry=entry, row=ref, before=before, expected={}, found={}, score=None,
                        problem=f"the wrong value cannot be stored ({type(exc).__name__}: "
                                f"{str(exc.orig if hasattr(exc, 'orig') else exc)[:120]})")
    finally:
        store.dispose()
    expected = {}
    for item, fraction in baseline.items():
        expected[item] = (fraction or 0.0) - entry.moves().get(item, 0.0)
    report = grade(spec, copy, variant, judge="rubric")
    found = _item_fractions(report)
    wrong_items = [f"{item}: {found.get(item)} (expected {expected[item]:.6g})"
                   for item in expected
                   if found.get(item) is None or abs(found[item] - expected[item]) > TOLERANCE]
    problem = None
    if report.veto:
        problem = f"vetoed: {report.veto}"
    elif wrong_items:
        problem = "; ".join(wrong_items)
    return Mutation(entry=entry, row=ref, before=before, expected=expected, found=found,
                    score=report.score, problem=problem)
