"""The web EHR store: OpenEMR names, the world fixture against the roster, and the task seeds.

The world is loaded once into a template store; seed tests copy that file and load one
task's seed on top, so the whole module stays a few seconds.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
import shutil
from pathlib import Path

import pytest
import yaml
from sqlalchemy import Integer, select
from stdnum import luhn

from sandbox.catalog import load_task
from sandbox.clock import DEFAULT_START, SandboxClock
from sandbox.paths import TASKS_DIR, WORLD_DIR
from sandbox.seeding import checkpoint, load_rows
from sandbox.stores import Store, metadata_for, model_for
from sandbox.stores.audit import AUDIT_TABLE
from sandbox.stores.ehr import (
    Document,
    Drug,
    Form,
    FormEncounter,
    FormVitals,
    Global,
    InsuranceCompany,
    InsuranceData,
    LayoutGroupProperties,
    LayoutOption,
    ListOption,
    Lists,
    OAuthClient,
    PatientData,
    Pharmacy,
    Prescription,
    ProcedureOrder,
    ProcedureReport,
    ProcedureResult,
    User,
    UserSecure,
    check_password,
    hash_password,
)

ROSTER = yaml.safe_load((WORLD_DIR / "roster.yaml").read_text())
WORLD = WORLD_DIR / "ehr.yaml"
WORLD_ROWS = yaml.safe_load(WORLD.read_text())
EHR_PATIENTS = [p for p in ROSTER["patients"] if "ehr_mrn" in p]

# the orders tasks whose ehr seeds live in this repository, and their seed files
ORDER_TASKS = ["01", "02", "03", "04", "05", "08", "09", "11", "13", "14", "16", "18", "19"]
SEED_FILES = sorted(
    path for n in ORDER_TASKS
    for path in (TASKS_DIR / f"R09.03.01.02-T{n}" / "seed").glob("ehr*.yaml"))

# OpenEMR table -> columns the domain notes name (the web app and verifiers rely on them)
OPENEMR_COLUMNS = {
    "patient_data": ["pid", "pubpid", "fname", "lname", "mname", "DOB", "sex", "street",
                     "city", "state", "postal_code", "phone_home", "email", "providerID",
                     "pharmacy_id"],
    "users": ["username", "fname", "lname", "npi", "taxonomy", "federaltaxid", "specialty",
              "abook_type", "authorized", "active"],
    "forms": ["encounter", "form_id", "formdir", "deleted", "form_name", "pid"],
    "form_encounter": ["encounter", "pid", "date", "reason", "facility_id", "provider_id"],
    "form_vitals": ["bps", "bpd", "weight", "height", "temperature", "pulse", "respiration",
                    "BMI", "oxygen_saturation", "waist_circ", "head_circ"],
    "lists": ["type", "title", "begdate", "enddate", "reaction", "severity_al", "comments",
              "activity", "pid", "diagnosis"],
    "prescriptions": ["drug", "dosage", "quantity", "refills", "route", "interval",
                      "drug_dosage_instructions", "diagnosis", "active", "erx_source",
                      "erx_uploaded", "pharmacy_id", "patient_id", "encounter"],
    "immunizations": ["cvx_code", "manufacturer", "lot_number", "expiration_date",
                      "amount_administered", "amount_administered_unit", "route",
                      "administration_site", "vis_date", "administered_by_id",
                      "administered_date", "encounter_id", "completion_status",
                      "consent_obtained"],
    "procedure_order": ["encounter_id", "lab_id", "date_ordered", "date_collected",
                        "scheduled_date", "order_priority", "order_status",
                        "order_diagnosis", "patient_instructions", "specimen_fasting"],
    "procedure_order_code": ["procedure_code", "procedure_name", "diagnoses"],
    "procedure_report": ["procedure_order_id", "date_collected", "date_report"],
    "procedure_result": ["result_code", "result", "units", "range", "abnormal"],
    "transactions": ["title", "pid", "date"],
    "lbt_data": ["form_id", "field_id", "field_value"],
    "layout_options": ["form_id", "field_id", "title", "data_type", "list_id", "seq"],
    "lbf_data": ["form_id", "field_id", "field_value"],
    "form_soap": ["subjective", "objective", "assessment", "plan"],
    "esign_signatures": ["tid", "table", "uid", "datetime", "is_lock"],
    "pnotes": ["title", "body", "assigned_to", "message_status", "pid"],
    "openemr_postcalendar_events": ["pc_eventDate", "pc_startTime", "pc_endTime", "pc_aid",
                                    "pc_pid", "pc_catid", "pc_hometext"],
    "documents": ["foreign_id", "mimetype", "hash", "docdate", "name", "document_data"],
    "categories_to_documents": ["category_id", "document_id"],
    "prior_authorizations": ["auth_num", "start_date", "end_date", "cpt", "init_units",
                             "remaining_units", "status", "portal_reference",
                             "decision_date", "units_approved"],
    "log": ["event", "user", "patient_id", "comments", "date"],
    "issue_encounter": ["pid", "list_id", "encounter", "resolved"],
    "history_data": ["pid", "date", "tobacco", "alcohol", "history_mother", "relatives_cancer"],
}

TODAY: dt.date = DEFAULT_START.date()
PASSWORDS = {"dr.osei": "Riverside!Osei26", "nurse.kelly": "Riverside!Kelly26",
             "pa.coord": "Riverside!Coord26"}


@pytest.fixture(scope="module")
def world_file(tmp_path_factory) -> Path:
    """A store holding only the world, built once for the module."""
    path = tmp_path_factory.mktemp("ehr") / "world.sqlite"
    store = Store("ehr", path, SandboxClock()).create()
    try:
        load_rows(store, WORLD)
    finally:
        store.dispose()
    checkpoint(path)
    return path


@pytest.fixture
def world(world_file, tmp_path) -> Store:
    path = tmp_path / "ehr.sqlite"
    shutil.copy(world_file, path)
    store = Store("ehr", path, SandboxClock())
    yield store
    store.dispose()


# -- schema ------------------------------------------------------------------------------
def test_every_table_has_a_primary_key():
    for table in metadata_for("ehr").sorted_tables:
        assert table.primary_key.columns, f"{table.name} has no primary key"


@pytest.mark.parametrize("table", sorted(OPENEMR_COLUMNS))
def test_openemr_names_exist(table):
    columns = set(model_for("ehr", table).__table__.columns.keys())
    missing = set(OPENEMR_COLUMNS[table]) - columns
    assert not missing, f"{table} lacks {sorted(missing)}"


def test_no_server_side_defaults():
    for table in metadata_for("ehr").sorted_tables:
        if table.name == AUDIT_TABLE:
            continue
        for column in table.columns:
            assert column.server_default is None, f"{table.name}.{column.name}"


def test_password_hashes_round_trip():
    stored = hash_password("someone", "secret", iterations=1000)
    assert check_password(stored, "secret")
    assert not check_password(stored, "Secret")
    assert not check_password("garbage", "secret")


# -- world -------------------------------------------------------------------------------
def test_world_loads_with_a_valid_audit_chain(world):
    report = world.verify_audit()
    assert report.ok, [str(p) for p in report.problems]
    assert report.entries == sum(len(rows) for rows in WORLD_ROWS.values())


def test_world_primary_keys_are_below_1000():
    for table_name, rows in WORLD_ROWS.items():
        pk = list(model_for("ehr", table_name).__table__.primary_key.columns)
        if len(pk) != 1 or not isinstance(pk[0].type, Integer):
            continue
        for row in rows:
            assert pk[0].name in row, f"{table_name} row without explicit {pk[0].name}: {row}"
            assert 0 < row[pk[0].name] < 1000, f"{table_name}.{pk[0].name} = {row[pk[0].name]}"


def test_every_roster_patient_is_in_the_chart(world):
    with world.reader() as s:
        by_mrn = {p.pubpid: p for p in s.scalars(select(PatientData))}
    assert len(by_mrn) == len(EHR_PATIENTS)
    for person in EHR_PATIENTS:
        row = by_mrn[person["ehr_mrn"]]
        assert (row.fname, row.lname, row.DOB, row.sex) == (
            person["fname"], person["lname"], person["dob"], person["sex"]), person["key"]


def test_inpatients_and_preferred_pharmacy_follow_the_roster(world):
    with world.reader() as s:
        by_mrn = {p.pubpid: p for p in s.scalars(select(PatientData))}
    for person in EHR_PATIENTS:
        row = by_mrn[person["ehr_mrn"]]
        if person.get("inpatient"):
            assert row.care_setting == "inpatient" and row.location, person["key"]
        if person.get("pharmacy") == "walgreens_like":
            assert row.pharmacy_id == 1, person["key"]


def test_coverage_matches_the_roster(world):
    plans = {pl["key"]: pl["name"] for payer in ROSTER["payers"] for pl in payer["plans"]}
    payer_names = {payer["key"]: payer["name"] for payer in ROSTER["payers"]}
    with world.reader() as s:
        rows = s.execute(
            select(PatientData.pubpid, InsuranceData, InsuranceCompany.name)
            .join(InsuranceData, InsuranceData.pid == PatientData.pid)
            .join(InsuranceCompany, InsuranceCompany.id == InsuranceData.provider)).all()
    coverage = {mrn: (ins.policy_number, ins.plan_name, payer) for mrn, ins, payer in rows}
    insured = [p for p in EHR_PATIENTS if "member_id" in p]
    assert len(coverage) == len(insured)
    for person in insured:
        assert coverage[person["ehr_mrn"]] == (
            person["member_id"], plans[person["plan"]], payer_names[person["payer"]])


def test_npis_are_luhn_valid(world):
    found = []
    for table in ("users", "facility", "pharmacies", "procedure_providers"):
        column = "facility_npi" if table == "facility" else "npi"
        model = model_for("ehr", table)
        with world.reader() as s:
            found += [v for v in s.scalars(select(getattr(model, column))) if v]
    assert len(found) >= 20
    for npi in found:
        assert len(npi) == 10 and npi[0] in "12" and luhn.is_valid("80840" + npi), npi


def test_providers_match_the_roster(world):
    with world.reader() as s:
        by_npi = {u.npi: u for u in s.scalars(select(User)) if u.npi}
    for prov in ROSTER["providers"]:
        user = by_npi[prov["npi"]]
        assert (user.fname, user.lname, user.taxonomy, user.federaltaxid) == (
            prov["fname"], prov["lname"], prov["taxonomy"], prov["tin"]), prov["key"]
        if prov.get("address_book"):
            assert user.username is None and user.abook_type == "spe", prov["key"]


def test_login_users_have_their_documented_passwords(world):
    with world.reader() as s:
        secure = {u.username: u.password for u in s.scalars(select(UserSecure))}
        usernames = {u.username for u in s.scalars(select(User)) if u.username}
    assert set(secure) == {u["username"] for u in ROSTER["users"]} <= usernames
    for username, password in PASSWORDS.items():
        assert check_password(secure[username], password), username
        assert not check_password(secure[username], password + "x"), username
    header = WORLD.read_text().split("\n\n", 1)[0]
    for username, password in PASSWORDS.items():
        assert f"{username}" in header and password in header


def test_layout_forms_have_their_fields(world):
    with world.reader() as s:
        fields = {}
        for opt in s.scalars(select(LayoutOption)):
            fields.setdefault(opt.form_id, []).append(opt)
        titles = {g.grp_form_id: g.grp_title for g in s.scalars(select(LayoutGroupProperties))
                  if g.grp_group_id == ""}
    assert titles["LBFjoint_inj"] == "Joint Injection Procedure"
    assert titles["LBFio"] == "I&O Flowsheet"
    assert len(fields["LBFjoint_inj"]) == 11
    cells = [f for f in fields["LBFio"] if f.field_id[3:7].isdigit()]
    assert len(cells) == 32
    assert {f.field_id[3:7] for f in cells} == {f"{h:02d}00" for h in range(8, 16)}
    assert "refer_urgency" in {f.field_id for f in fields["LBTref"]}


def test_world_vitals_are_stored_in_imperial_units(world):
    with world.reader() as s:
        vitals = list(s.scalars(select(FormVitals)))
    assert vitals
    for v in vitals:
        assert 90 <= v.temperature <= 105, v.id  # Fahrenheit
        bmi = v.weight / v.height ** 2 * 703
        assert abs(bmi - v.BMI) < 0.15, v.id


# -- task seeds --------------------------------------------------------------------------
def test_every_orders_task_has_an_ehr_seed():
    have = {p.parent.parent.name for p in SEED_FILES}
    assert have == {f"R09.03.01.02-T{n}" for n in ORDER_TASKS}


@pytest.mark.parametrize("seed", SEED_FILES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_seed_loads_on_the_world(world, seed):
    rows = yaml.safe_load(seed.read_text())
    for table_name, table_rows in rows.items():
        table = model_for("ehr", table_name).__table__
        pk = list(table.primary_key.columns)
        if len(pk) != 1 or not isinstance(pk[0].type, Integer):
            continue  # composite keys (list_options, lbf_data ...) carry no id range
        for row in table_rows:
            if pk[0].name in row:
                value = row[pk[0].name]
                assert 1000 <= value < 9000, f"{seed.name}: {table_name}.{pk[0].name}={value}"
    before = world.verify_audit().entries
    count = load_rows(world, seed, seed.parent.parent)
    report = world.verify_audit()
    assert report.ok, [str(p) for p in report.problems]
    assert report.entries == before + count > before


def test_seed_prescriptions_name_the_formulary_drug_they_point_to():
    drugs = {row["drug_id"]: row["name"] for row in WORLD_ROWS["drugs"]}
    for seed in SEED_FILES:
        for row in (yaml.safe_load(seed.read_text()).get("prescriptions") or []):
            if row.get("drug_id") is not None:
                assert drugs[row["drug_id"]] == row["drug"], f"{seed}: prescription {row['id']}"


# -- the facts each task's instruction and verifier rest on --------------------------------
def _seeded(world: Store, task: str, name: str = "ehr.yaml") -> Store:
    folder = TASKS_DIR / f"R09.03.01.02-T{task}"
    load_rows(world, folder / "seed" / name, folder)
    return world


def _pid(s, mrn: str) -> int:
    return s.scalar(select(PatientData.pid).where(PatientData.pubpid == mrn))


def _todays_encounters(s, mrn: str) -> list[FormEncounter]:
    return [e for e in s.scalars(select(FormEncounter).where(FormEncounter.pid == _pid(s, mrn)))
            if e.date.date() == TODAY]


@pytest.mark.parametrize("task, mrn", [("01", "402015"), ("18", "402015"), ("05", "402377"),
                                       ("08", "402480"), ("09", "402512"), ("11", "402600"),
                                       ("13", "402655"), ("14", "402711"), ("16", "402790"),
                                       ("19", "402844")])
def test_todays_encounter_exists(world, task, mrn):
    with _seeded(world, task).reader() as s:
        assert len(_todays_encounters(s, mrn)) == 1


@pytest.mark.parametrize("name, latest, older", [("ehr.yaml", 1.3, [1.9, 1.7]),
                                                 ("ehr-normal-mg.yaml", 2.0, [1.8, 1.4])])
def test_ord03_latest_magnesium(world, name, latest, older):
    with _seeded(world, "03", name).reader() as s:
        pid = _pid(s, "402233")
        rows = s.execute(
            select(ProcedureReport.date_collected, ProcedureResult.result)
            .join(ProcedureResult,
                  ProcedureResult.procedure_report_id == ProcedureReport.procedure_report_id)
            .join(ProcedureOrder, ProcedureOrder.procedure_order_id
                  == ProcedureReport.procedure_order_id)
            .where(ProcedureOrder.patient_id == pid, ProcedureResult.result_code == "19123-9")
            .order_by(ProcedureReport.date_collected)).all()
        inpatient = s.get(PatientData, pid).care_setting
    values = [float(r.result) for r in rows]
    assert values == [*older, latest]
    assert rows[-1].date_collected.date() == TODAY
    assert any((v < 1.6) != (latest < 1.6) for v in older)  # 'latest' is what decides
    assert inpatient == "inpatient"


def test_ord04_sulfa_is_active_and_unique(world):
    with _seeded(world, "04").reader() as s:
        allergies = s.scalars(select(Lists).where(Lists.pid == _pid(s, "402301"),
                                                  Lists.type == "allergy")).all()
    sulfa = [a for a in allergies if "sulfa" in a.title.lower()]
    assert len(sulfa) == 1 and sulfa[0].activity == 1 and sulfa[0].enddate is None
    assert not [a for a in allergies if "penicillin" in a.title.lower()]


def test_ord05_vitals_are_charted_in_todays_encounter(world):
    with _seeded(world, "05").reader() as s:
        (encounter,) = _todays_encounters(s, "402377")
        forms = s.scalars(select(Form).where(Form.encounter == encounter.encounter,
                                             Form.formdir == "vitals")).all()
        vitals = s.get(FormVitals, forms[0].form_id)
    assert (vitals.bps, vitals.bpd, vitals.BMI) == ("148", "92", 32.3)
    text = (TASKS_DIR / "R09.03.01.02-T05" / "files" / "visit_transcript.txt").read_text()
    assert 1500 <= len(text.split()) <= 1900
    assert "148 over 92" in text and "8.1 percent" in text


def test_ord08_simvastatin_is_active(world):
    with _seeded(world, "08").reader() as s:
        rx = s.scalars(select(Prescription).where(Prescription.patient_id == _pid(s, "402480"),
                                                  Prescription.active == 1)).all()
    assert [r.drug for r in rx] == ["simvastatin 40 mg tablet"]


def test_ord11_vis_picker_offers_the_current_flu_edition(world):
    with world.reader() as s:
        editions = s.scalars(select(ListOption).where(ListOption.list_id == "vis_edition",
                                                      ListOption.activity == 1)).all()
    flu = [e for e in editions if "CVX:140" in (e.codes or "")]
    assert [e.notes for e in flu] == ["2026-08-06"]


def test_ord14_preferred_pharmacy(world):
    with _seeded(world, "14").reader() as s:
        patient = s.get(PatientData, _pid(s, "402711"))
        pharmacy = s.get(Pharmacy, patient.pharmacy_id)
    assert (pharmacy.name, pharmacy.ncpdp) == ("Lakeview Pharmacy #2211", "1422117")


def test_ord16_todays_weight_is_the_roster_weight(world):
    with _seeded(world, "16").reader() as s:
        (encounter,) = _todays_encounters(s, "402790")
        form = s.scalars(select(Form).where(Form.encounter == encounter.encounter,
                                            Form.formdir == "vitals")).one()
        weight_lb = s.get(FormVitals, form.form_id).weight
        package = s.scalars(select(Drug.package_size).where(
            Drug.name == "amoxicillin 400 mg/5 mL oral suspension")).all()
    roster_kg = next(p["weight_kg"] for p in EHR_PATIENTS if p["ehr_mrn"] == "402790")
    assert weight_lb / 2.2046226218 == pytest.approx(roster_kg, abs=0.01)
    assert package == ["100 mL bottle"]


def test_ord18_client_matches_its_input_and_the_api_is_on(world):
    spec = load_task(TASKS_DIR / "R09.03.01.02-T18" / "task.yaml")
    client = next(i.data for i in spec.inputs if i.path == "fhir_client.json")
    with _seeded(world, "18").reader() as s:
        stored = s.get(OAuthClient, client["client_id"])
        api = s.get(Global, ("rest_fhir_api", 0))
    assert check_password(stored.client_secret, client["client_secret"])
    assert api.gl_value == "1"


def test_ord19_sheet_has_exactly_two_illegible_cells():
    spec = load_task(TASKS_DIR / "R09.03.01.02-T19" / "task.yaml")
    sheet = next(i for i in spec.inputs if i.path == "io_sheet.pdf")
    cells = [c for row in sheet.pages[0]["table"][1:] for c in row[1:]]
    assert cells.count("?") == 2
    assert len([c for c in cells if c not in ("", "?")]) == 30


def test_ord02_stress_test_document_and_recipient(world):
    with _seeded(world, "02").reader() as s:
        doc = s.get(Document, 1001)
        cardio = s.get(User, 40)
    assert doc.foreign_id == 3 and str(doc.docdate) == "2026-10-08"
    assert doc.document_data.startswith(b"%PDF")
    assert doc.hash == hashlib.sha256(doc.document_data).hexdigest()
    assert (cardio.lname, cardio.npi, cardio.abook_type) == ("Cardio", "1673492017", "spe")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the library's resource loading
def test_diagnosis_codes_are_billable_icd10_cm():
    import simple_icd_10_cm as cm

    for path in [WORLD, *SEED_FILES]:
        for row_text in re.findall(r"ICD10:([A-Z][0-9][0-9A-Z.]*)", path.read_text()):
            assert cm.is_valid_item(row_text) and cm.is_leaf(row_text), f"{path}: {row_text}"
