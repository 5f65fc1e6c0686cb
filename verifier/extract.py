"""An extract (or a run directory: same layout), opened read-only for grading.

::

    run.json   clock.json   stores/<system>.sqlite   seed/<system>.sqlite
    input/     output/      downloads/               fax_sink/        [extract.json]

Opening checks everything a grade depends on and stops with one message naming the file:
the run is of this task and variant, the clock is readable, every store of the task's systems
is there with its seeded snapshot and the schema of this version, and each store's audit
continues its snapshot's chain. Then checks get:

- :meth:`Extract.rows` — rows that count under the channel rule (see :mod:`verifier.channel`),
  :meth:`Extract.all_rows` — every row as stored, :meth:`Extract.seed_rows` — as seeded;
- :attr:`Extract.footprint` — every changed row with its flags;
- Workspace outputs, downloads, received faxes (PDF fields/pages/text/sha256), input hashes;
- :meth:`Extract.judge` — the configured judge, with results cached and recorded.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import inspect, select
from sqlalchemy.orm import Session

from sandbox.catalog import TaskSpec
from sandbox.clock import ClockError, SandboxClock
from sandbox.stores import SYSTEMS
from sandbox.stores.audit import canonical_json, pk_image
from verifier.channel import ChannelRule, Exclusion, accepted_channels, exclusions, tainted_rows
from verifier.documents import PdfDocument, file_hashes, read_csv, read_pdf, read_text
from verifier.errors import CouldNotGrade, VerifyError
from verifier.footprint import Footprint, RowChange, diff_store
from verifier.history import AuditEntry, run_entries, unexplained_rows
from verifier.judges import Judge, Rubric, RubricJudge, Verdict
from verifier.patients import CONVENTIONS, patient_scope, roster_mrns
from verifier.run import RunInfo
from verifier.storepair import SystemStores, open_system, open_task_stores
from verifier.values import sha256_bytes

__all__ = ["Extract", "RunInfo"]


def _system_of(model: Any) -> str:
    table = getattr(model, "__table__", None)
    system = None if table is None else table.metadata.info.get("system")
    if system is None:
        raise TypeError(f"{model!r} is not a model of a sandbox store")
    return system


def _row_key(obj: Any) -> tuple[str, str]:
    state = inspect(obj)
    table = state.mapper.local_table
    values = {col.name: getattr(obj, state.mapper.get_property_by_column(col).key)
              for col in table.primary_key.columns}
    return (table.name, canonical_json(pk_image(table, values)))


class Extract:
    """A graded run's data, read-only. Use :meth:`open` (a context manager)."""

    def __init__(self, path: Path, spec: TaskSpec, run: RunInfo, clock: SandboxClock,
                 stores: dict[str, SystemStores], judge: Judge, patients: dict[str, list[str]]):
        self.path = path
        self.spec = spec
        self.run = run
        self.clock = clock
        self._stores = stores
        self._judge = judge
        self.rule = ChannelRule(accepted_channels(spec), run.episode_id, spec.alias)
        self.patient_mrns = patients
        self.judgements: list[dict[str, Any]] = []
        self._verdicts: dict[tuple[Rubric, str], Verdict] = {}
        self._seen_exclusions: list[dict[str, str]] = []
        self._footprint: Footprint | None = None
        self.timings: dict[str, float] = {}

    # -- opening -------------------------------------------------------------------------
    @classmethod
    @contextmanager
    def open(cls, path: Path | str, spec: TaskSpec, *, variant: str | None = None,
             judge: Judge | None = None, patients: dict[str, list[str]] | None = None
             ) -> Iterator[Extract]:
        """Open and validate an extract; raises VerifyError naming the offending file."""
        started = time.perf_counter()
        path = Path(path)
        if not path.is_dir():
            raise VerifyError(f"{path}: no extract here (expected a directory made by "
                              "'ehr-sandbox extract' or 'ehr-sandbox seed')")
        run = RunInfo.load(path / "run.json")
        if run.task != spec.id:
            raise VerifyError(
                f"{path / 'run.json'}: this extract is of task {run.task}"
                f"{f' ({run.alias})' if run.alias else ''}, not {spec.id} ({spec.alias}); "
                f"grade it as {run.alias or run.task}")
        if variant is not None and variant != run.variant:
            raise VerifyError(f"{path / 'run.json'}: the extract was seeded as variant "
                              f"{run.variant!r}, not {variant!r}; omit --variant or seed again")
        if run.variant not in spec.variant_names:
            raise VerifyError(f"{path / 'run.json'}: variant {run.variant!r} is not a variant "
                              f"of {spec.alias} ({', '.join(spec.variant_names)})")
        try:
            clock = SandboxClock.load(path / "clock.json")
        except (ClockError, TypeError, ValueError, AttributeError) as exc:
            raise VerifyError(f"{path / 'clock.json'}: not a sandbox clock ({exc})") from exc
        stores = open_task_stores(path, spec)
        try:
            mrns = {**roster_mrns(spec.alias), **(patients or {})}
            ex = cls(path, spec, run, clock, stores, judge or RubricJudge(), mrns)
            for pair in stores.values():
                if not pair.identical:
                    pair.entries = run_entries(pair.conn, pair.live.path, pair.seed.path)
                    pair.tainted = tainted_rows(ex.rule, pair.entries)
            ex.timings["open_s"] = time.perf_counter() - started
            started = time.perf_counter()
            _ = ex.footprint
            ex.timings["footprint_s"] = time.perf_counter() - started
        except BaseException:
            for pair in stores.values():
                pair.close()
            raise
        try:
            yield ex
        finally:
            ex.close()

    @classmethod
    @contextmanager
    def open_untouched(cls, path: Path | str, spec: TaskSpec, *,
                       patients: dict[str, list[str]] | None = None) -> Iterator[Extract]:
        """The extract as if the run had written nothing: every store is its seeded snapshot.

        The engine grades a check here when it could not grade the run's data, to tell a
        seed that lacks what the check needs (it cannot grade here either) from seeded data
        the run changed or removed (it grades here: the run's change is a failure). The
        files (``input/`` …) are the extract's own; the judge is the deterministic one.
        """
        path = Path(path)
        run = RunInfo.load(path / "run.json")
        try:
            clock = SandboxClock.load(path / "clock.json")
        except (ClockError, TypeError, ValueError, AttributeError) as exc:
            raise VerifyError(f"{path / 'clock.json'}: not a sandbox clock ({exc})") from exc
        stores: dict[str, SystemStores] = {}
        try:
            for system in (s for s in SYSTEMS if s in spec.systems):
                seed = path / "seed" / f"{system}.sqlite"
                stores[system] = open_system(system, seed, seed)
            mrns = {**roster_mrns(spec.alias), **(patients or {})}
            ex = cls(path, spec, run, clock, stores, RubricJudge(), mrns)
        except BaseException:
            for pair in stores.values():
                pair.close()
            raise
        try:
            yield ex
        finally:
            ex.close()

    def close(self) -> None:
        for pair in self._stores.values():
            pair.close()
        self._stores = {}

    # -- facts of the run ----------------------------------------------------------------
    @property
    def variant(self) -> str:
        return self.run.variant

    @property
    def systems(self) -> list[str]:
        return list(self._stores)

    @property
    def now(self) -> dt.datetime:
        """Sandbox-local time at the clock's last explicit advance (deterministic)."""
        moment = self.clock.start + dt.timedelta(seconds=self.clock.offset_s)
        return moment.replace(tzinfo=None)

    @property
    def today(self) -> dt.date:
        return self.now.date()

    def _pair(self, system: str) -> SystemStores:
        try:
            return self._stores[system]
        except KeyError:
            raise KeyError(f"{self.spec.alias} has no {system} store (its systems: "
                           f"{', '.join(self._stores)})") from None

    # -- rows ----------------------------------------------------------------------------
    def session(self, system: str) -> Session:
        """A read-only session on the store as the run left it (no channel rule)."""
        return self._pair(system).session

    def seed_session(self, system: str) -> Session:
        """A read-only session on the seeded snapshot."""
        return self._pair(system).seed_session

    def all_rows(self, model: type, *where: Any) -> list[Any]:
        """Every row matching ``where`` as stored, whoever wrote it."""
        return list(self.session(_system_of(model)).scalars(select(model).where(*where)))

    def seed_rows(self, model: type, *where: Any) -> list[Any]:
        """Rows matching ``where`` as seeded."""
        return list(self.seed_session(_system_of(model)).scalars(select(model).where(*where)))

    def seeded(self, model: type, *where: Any, what: str, exactly: int | None = None
               ) -> list[Any]:
        """The seed's rows a check needs (as seeded), or CouldNotGrade naming ``what``.

        This is the one place a check may stop short of a grade for data: when the seed
        lacks what the check needs (none, or not ``exactly`` that many), the fixture is
        wrong, not the agent. What the run then did to these rows — changed, moved to
        another patient, deleted — is read with :meth:`rows` and graded as a failure of the
        part it touches.
        """
        rows = self.seed_rows(model, *where)
        if not rows or (exactly is not None and len(rows) != exactly):
            wanted = "" if exactly is None else f" (expected {exactly})"
            raise CouldNotGrade(f"the seed has {len(rows)} {what}{wanted}")
        return rows

    def rows(self, model: type, *where: Any) -> list[Any]:
        """Rows matching ``where`` under the channel rule.

        Rows only accepted writers touched are returned as stored. A row any other channel
        or episode wrote is returned as seeded (if it was seeded and matches ``where`` then),
        as if the forbidden writes had not happened; each such row is noted for the report.
        """
        system = _system_of(model)
        pair = self._pair(system)
        table = model.__table__.name  # type: ignore[attr-defined]
        tainted = {pk for (t, pk) in pair.tainted if t == table}
        live: list[Any] = list(pair.session.scalars(select(model).where(*where)))
        if not tainted:
            return live
        kept = []
        for obj in live:
            key = _row_key(obj)
            if key[1] in tainted:
                self._note_exclusion(system, key, pair.tainted[key])
            else:
                kept.append(obj)
        for obj in pair.seed_session.scalars(select(model).where(*where)):
            if _row_key(obj)[1] in tainted:
                kept.append(obj)
        return kept

    def created(self, model: type, *where: Any) -> list[Any]:
        """Rows under the channel rule that the seed did not have."""
        seeded = {_row_key(obj) for obj in self.seed_rows(model, *where)}
        return [o for o in self.rows(model, *where) if _row_key(o) not in seeded]

    def provenance(self, obj: Any) -> list[AuditEntry]:
        """The run's audit entries for one row (empty for rows untouched since seeding)."""
        system = _system_of(type(obj))
        key = _row_key(obj)
        return [e for e in self._pair(system).entries if e.key == key]

    def _note_exclusion(self, system: str, key: tuple[str, str], reason: str) -> None:
        note = {"row": f"{system}.{key[0]}#{','.join(str(v) for v in json.loads(key[1]).values())}",
                "reason": reason}
        if note not in self._seen_exclusions:
            self._seen_exclusions.append(note)

    def take_seen_exclusions(self) -> list[dict[str, str]]:
        """Tainted rows checks have asked for since the last call (per-check evidence)."""
        seen, self._seen_exclusions = self._seen_exclusions, []
        return seen

    def exclusions(self) -> list[Exclusion]:
        """Every write in the extract that does not count, grouped by table and reason."""
        found: list[Exclusion] = []
        for system, pair in self._stores.items():
            found.extend(exclusions(system, self.rule, pair.entries))
        return found

    def patient_key(self, system: str, mrn: str) -> Any:
        """The seeded key of the patient with this MRN (``patient_data.pid`` in the EHR).

        Raises CouldNotGrade when the seed has no such patient: the fixture, not the agent,
        is wrong then.
        """
        convention = CONVENTIONS.get(system)
        if convention is None:
            raise KeyError(f"no patient convention for the {system} store")
        table = self._pair(system).seed.metadata.tables[convention.table]
        found = self.seed_session(system).execute(
            select(table.c[convention.key_column]).where(
                table.c[convention.mrn_column] == mrn)).scalars().all()
        if len(found) != 1:
            raise CouldNotGrade(f"the seeded {system} store has {len(found)} patients with "
                                f"MRN {mrn} in {convention.table} (expected exactly one)")
        return found[0]

    # -- footprint -----------------------------------------------------------------------
    @property
    def footprint(self) -> Footprint:
        """Every row changed since seeding, flagged against ``may_touch`` and patients."""
        if self._footprint is None:
            changes: list[RowChange] = []
            notes: list[str] = []
            for system, pair in self._stores.items():
                scope, note = patient_scope(system, pair.live.metadata, pair.seed_session,
                                            self.patient_mrns.get(system, []))
                if note:
                    notes.append(note)
                if pair.identical:
                    continue
                found, current, seeded = diff_store(
                    system, pair.conn, pair.live.metadata, pair.session, pair.seed_session,
                    pair.entries, pair.tainted, self.spec.may_touch.get(system), scope)
                unexplained_rows(pair.live.path, pair.entries, current, seeded)
                changes.extend(found)
            self._footprint = Footprint(changes, self.spec.may_touch, notes)
        return self._footprint

    # -- files ---------------------------------------------------------------------------
    def _file(self, folder: str, name: str) -> Path | None:
        base = (self.path / folder).resolve()
        path = (base / name).resolve()
        if base not in path.parents or not path.is_file():
            return None
        return path

    def output_files(self) -> list[str]:
        """Relative paths of every file the agent saved through the Workspace."""
        return sorted(file_hashes(self.path / "output"))

    def output_path(self, name: str) -> Path | None:
        return self._file("output", name)

    def output_text(self, name: str) -> str | None:
        """A Workspace output file's text, or ``None`` when it was not saved."""
        path = self.output_path(name)
        return None if path is None else read_text(path)

    def output_csv(self, name: str) -> list[dict[str, str]] | None:
        path = self.output_path(name)
        return None if path is None else read_csv(path)

    def download_files(self) -> list[str]:
        return sorted(file_hashes(self.path / "downloads"))

    def fax_documents(self) -> list[PdfDocument]:
        """Every PDF the fax sink received, by file name."""
        folder = self.path / "fax_sink"
        if not folder.is_dir():
            return []
        return [read_pdf(p) for p in sorted(folder.iterdir()) if p.is_file()]

    def fax_document(self, name: str) -> PdfDocument | None:
        path = self._file("fax_sink", name)
        return None if path is None else read_pdf(path)

    def pdf(self, data: bytes, name: str = "blob") -> PdfDocument:
        """A PDF kept in a store column (an uploaded attachment), for fields/pages/text."""
        return PdfDocument(name, bytes(data))

    @property
    def input_hashes(self) -> dict[str, str]:
        """``input/`` relative path → sha256, to recognise attachments by content."""
        return file_hashes(self.path / "input")

    def input_sha256(self, name: str) -> str | None:
        return self.input_hashes.get(name)

    @staticmethod
    def sha256(data: bytes) -> str:
        return sha256_bytes(bytes(data))

    # -- judging -------------------------------------------------------------------------
    @property
    def judge_name(self) -> str:
        return self._judge.name

    def judge(self, text: str, rubric: Rubric) -> Verdict:
        """The configured judge's verdict on ``text`` (cached; recorded for the report)."""
        key = (rubric, sha256_bytes((text or "").encode()))
        if key not in self._verdicts:
            try:
                verdict = self._judge.evaluate(text or "", rubric)
            except CouldNotGrade as exc:
                self.judgements.append({"judge": self._judge.name, "rubric": rubric.name,
                                        "could_not_grade": exc.reason, **exc.evidence})
                raise
            self._verdicts[key] = verdict
            self.judgements.append(verdict.to_json())
        return self._verdicts[key]

    def describe_judge(self) -> dict[str, Any]:
        return self._judge.describe()
