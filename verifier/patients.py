"""Whose chart a task is about, per system, so writes to other patients can be flagged.

The roster (``fixtures/world/roster.yaml``) lists for each synthetic patient the tasks that
use them and their MRN in each system; a task's ``verify.py`` may override that with
``PATIENTS``. A system's *convention* says where its patients live and which columns of other
tables name one. Systems without a convention (or whose store lacks the patient table) get no
"other patient" flags, and the footprint says so rather than guessing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml
from sqlalchemy import MetaData, Table, select
from sqlalchemy.orm import Session

from sandbox import yamltext
from sandbox.paths import WORLD_DIR
from verifier.footprint import PatientScope


@dataclass(frozen=True)
class PatientConvention:
    """Where a system keeps its patients: the table, its MRN column and its key column.

    Every column with a foreign key to ``table.key_column`` names a patient; so does the key
    column of the patient table itself.
    """

    table: str
    mrn_column: str
    key_column: str


CONVENTIONS: dict[str, PatientConvention] = {
    # OpenEMR: the chart number is patient_data.pubpid; other tables refer to patient_data.pid
    "ehr": PatientConvention("patient_data", "pubpid", "pid"),
    "hyperspace": PatientConvention("patients", "mrn", "id"),
    "powerchart": PatientConvention("patients", "mrn", "id"),
    "acme": PatientConvention("members", "member_number", "id"),
}

ROSTER_FIELDS = {"ehr": "ehr_mrn", "hyperspace": "hyperspace_mrn",
                 "powerchart": "powerchart_mrn", "acme": "member_id"}


_columns_cache: dict[tuple[int, str], dict[str, list[str]]] = {}


def patient_columns(metadata: MetaData, convention: PatientConvention) -> dict[str, list[str]]:
    """Table → the columns that name a patient (by foreign key to the patient key)."""
    cache_key = (id(metadata), convention.table)
    if cache_key in _columns_cache:
        return _columns_cache[cache_key]
    found: dict[str, list[str]] = {convention.table: [convention.key_column]}
    for table in metadata.sorted_tables:
        for column in table.columns:
            for fk in column.foreign_keys:
                if (fk.column.table.name == convention.table
                        and fk.column.name == convention.key_column):
                    found.setdefault(table.name, []).append(column.name)
    _columns_cache[cache_key] = found
    return found


@lru_cache(maxsize=4)
def _roster(path: Path) -> tuple[dict, ...]:
    try:
        data = yamltext.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError):
        return ()
    return tuple(p for p in data.get("patients", []) if isinstance(p, dict))


def roster_mrns(alias: str, roster: Path | None = None) -> dict[str, list[str]]:
    """MRNs per system of the roster patients whose ``tasks`` include ``alias``."""
    found: dict[str, list[str]] = {}
    for patient in _roster(roster or WORLD_DIR / "roster.yaml"):
        if alias not in (patient.get("tasks") or []):
            continue
        for system, field in ROSTER_FIELDS.items():
            value = patient.get(field)
            if value and (system != "acme" or str(value).startswith("ACM")):
                found.setdefault(system, []).append(str(value))
    return found


def patient_scope(system: str, metadata: MetaData, session: Session,
                  mrns: list[str]) -> tuple[PatientScope | None, str | None]:
    """The task's patient keys in one store, or ``None`` with a note saying why not."""
    convention = CONVENTIONS.get(system)
    if convention is None:
        return None, f"{system}: no patient convention; other-patient writes are not flagged"
    table = metadata.tables.get(convention.table)
    if table is None or convention.mrn_column not in table.c or \
            convention.key_column not in table.c:
        return None, (f"{system}: no {convention.table}.{convention.mrn_column} in this "
                      "schema; other-patient writes are not flagged")
    if not mrns:
        return None, f"{system}: the task names no patient; other-patient writes are not flagged"
    rows = session.execute(select(table.c[convention.key_column]).where(
        table.c[convention.mrn_column].in_(mrns))).scalars().all()
    note = None
    if not rows:
        note = (f"{system}: task patient MRN {', '.join(mrns)} not found in "
                f"{convention.table}; every patient-linked write is flagged")
    columns = patient_columns(metadata, convention)
    return PatientScope(system, columns, frozenset(rows), tuple(mrns),
                        parent_links(metadata, columns)), note


def parent_links(metadata: MetaData, columns: dict[str, list[str]]
                 ) -> dict[str, list[tuple[str, Table, str, str]]]:
    """Tables without a patient column that point (one foreign-key hop) at a table with
    one: an addendum names its note, a scale range its order."""
    links: dict[str, list[tuple[str, Table, str, str]]] = {}
    for table in metadata.sorted_tables:
        if table.name in columns:
            continue
        for column in table.columns:
            for fk in column.foreign_keys:
                parent = fk.column.table
                patient_cols = columns.get(parent.name)
                if patient_cols and parent.name != table.name:
                    links.setdefault(table.name, []).append(
                        (column.name, parent, fk.column.name, patient_cols[0]))
    return links
