"""The prior-authorization tasks seed completely, and their systems tell one story.

Every PA task (and pa-04's twin) is seeded once through :func:`sandbox.seeding.seed_task`
into a module-wide temporary folder; the tests then read the stores and input files of those
runs and check the facts a verifier will compare across systems: the EHR chart against the
payer seeds, the input files against both, and the log-ins in ``creds.txt`` against the
stored credentials.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from icalendar import Calendar
from pypdf import PdfReader
from sqlalchemy import select

from sandbox.catalog import load_catalog
from sandbox.clock import SandboxClock
from sandbox.paths import TASKS_DIR, WORLD_DIR
from sandbox.seeding import seed_task, task_inputs, task_store_systems
from sandbox.stores import Store, acme, ehr, epa, fax, regulator

CATALOG = load_catalog()
PA = CATALOG.select("pa")
RUNS = [(spec.alias, variant) for spec in PA for variant in spec.variant_names]
TODAY = date(2026, 10, 19)
ROSTER = yaml.safe_load((WORLD_DIR / "roster.yaml").read_text())


def folder(alias: str) -> Path:
    return CATALOG.get(alias).folder


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Iterator[Callable[..., Path]]:
    """The seeded run folder of a task variant (seeded on first use, then reused).

    The runs are scratch data; where a RAM-backed /dev/shm exists they go there, because
    seeding 21 runs on a disk mostly waits on SQLite's fsyncs (about 4 s in RAM vs 45 s).
    """
    shm = Path("/dev/shm")
    in_ram = shm.is_dir() and os.access(shm, os.W_OK)
    base = Path(tempfile.mkdtemp(prefix="pa-runs-", dir=shm)) if in_ram \
        else tmp_path_factory.mktemp("pa-runs")
    done: dict[tuple[str, str], Path] = {}

    def get(alias: str, variant: str = "default") -> Path:
        if (alias, variant) not in done:
            done[alias, variant] = seed_task(CATALOG.get(alias), variant, base / f"{alias}-{variant}")
        return done[alias, variant]

    yield get
    if in_ram:
        shutil.rmtree(base, ignore_errors=True)


@contextmanager
def db(run_dir: Path, system: str) -> Iterator:
    store = Store(system, run_dir / "stores" / f"{system}.sqlite", SandboxClock())
    try:
        with store.reader() as session:
            yield session
    finally:
        store.dispose()


def pdf_text(data: bytes) -> str:
    """The text of a PDF with line breaks and runs of spaces folded to single spaces."""
    pages = PdfReader(io.BytesIO(data)).pages
    return " ".join(" ".join((page.extract_text() or "").split()) for page in pages)


def docs(s, pid: int) -> dict[int, ehr.Document]:
    return {d.id: d for d in s.scalars(select(ehr.Document).where(ehr.Document.foreign_id == pid))}


def text_of(s, pid: int) -> str:
    return " ".join(pdf_text(d.document_data) for d in docs(s, pid).values())


def pid_of(s, mrn: str) -> int:
    return s.scalar(select(ehr.PatientData.pid).where(ehr.PatientData.pubpid == mrn))


def member_of(s, pid: int) -> str:
    return s.scalar(select(ehr.InsuranceData.policy_number).where(ehr.InsuranceData.pid == pid))


# -- every task seeds ----------------------------------------------------------------------
@pytest.mark.parametrize("alias, variant", RUNS, ids=[f"{a}:{v}" for a, v in RUNS])
def test_task_seeds_with_every_store_and_input(run, alias, variant):
    spec = CATALOG.get(alias)
    out = run(alias, variant)
    for system in task_store_systems(spec):
        store = Store(system, out / "stores" / f"{system}.sqlite", SandboxClock())
        try:
            report = store.verify_audit()
        finally:
            store.dispose()
        assert report.ok, [str(p) for p in report.problems]
        assert (out / "seed" / f"{system}.sqlite").exists()
    for item in task_inputs(spec, variant):
        assert (out / "input" / item.path).stat().st_size > 0, item.path
    if "ehr" in spec.systems:
        assert "ehr" in spec.seed, f"{alias}: every PA task with the EHR has a chart seed"


EHR_SEEDS = sorted(TASKS_DIR.glob("R09.03.01.04-T*/seed/ehr*.yaml"))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the library's resource loading
@pytest.mark.parametrize("seed", EHR_SEEDS, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_ehr_seed_codes_ids_and_documents(seed):
    import simple_icd_10_cm as icd

    rows = yaml.safe_load(seed.read_text())
    codes = set(re.findall(r"ICD10:([A-Z]\d\d(?:\.\w+)?)", seed.read_text()))
    codes |= {item["diagnosis"] for item in rows.get("pa_worklist_items", []) if item["diagnosis"]}
    assert codes
    for code in codes:
        assert icd.is_valid_item(code) and icd.is_leaf(code), f"{seed}: {code} is not billable"
    for table, table_rows in rows.items():
        for row in table_rows:
            key = row.get("id", row.get("procedure_order_id", row.get("procedure_report_id")))
            if isinstance(key, int):
                assert 1000 <= key < 9000, f"{seed}: {table} id {key}"
    linked = {link["document_id"] for link in rows.get("categories_to_documents", [])}
    for doc in rows.get("documents", []):
        assert doc["document_data"]["generate"] == "pdf" and doc["id"] in linked, doc["id"]


# -- creds.txt ------------------------------------------------------------------------------
def _logins(text: str) -> list[tuple[str, str, str]]:
    return re.findall(r"URL:\s+(\S+)\n\s+Username: (\S+)\n\s+Password: (\S+)", text)


@pytest.mark.parametrize("alias", [s.alias for s in PA])
def test_creds_open_every_system_the_task_uses(run, alias):
    spec = CATALOG.get(alias)
    out = run(alias)
    if alias == "pa-18":  # the API control pair: its instruction names only the API files
        assert not (out / "input" / "creds.txt").exists()
        return
    logins = _logins((out / "input" / "creds.txt").read_text())
    assert logins
    for url, _user, _password in logins:
        assert url in spec.instruction, f"{alias}: {url} is not where the instruction points"
    hosts = {url: (user, password) for url, user, password in logins}
    sha = lambda p: hashlib.sha256(p.encode()).hexdigest()  # noqa: E731
    checks = {
        "ehr": ("http://emr.clinic.test", lambda s, u, p: ehr.check_password(
            s.get(ehr.UserSecure, s.scalar(select(ehr.User.id).where(ehr.User.username == u)))
            .password, p)),
        "acme": ("acmehealth.test", lambda s, u, p: s.scalar(select(acme.PortalUser).where(
            acme.PortalUser.username == u)).password_sha256 == sha(p)),
        "fax": ("http://fax.betacare.test", lambda s, u, p: s.scalar(select(fax.FaxAccount).where(
            fax.FaxAccount.username == u)).password_sha256 == sha(p)),
        "epa": ("http://epa.covermymeds.test", lambda s, u, p: s.scalar(select(epa.EpaUser).where(
            epa.EpaUser.username == u)).password_sha256 == sha(p)),
        "regulator": ("http://review.insurance.state.test", lambda s, u, p: s.scalar(
            select(regulator.RegulatorUser).where(regulator.RegulatorUser.username == u))
            .password_sha256 == sha(p)),
    }
    for system in task_store_systems(spec):
        marker, check = checks[system]
        mine = [(u, p) for url, (u, p) in hosts.items() if marker in url]
        assert mine, f"{alias}: creds.txt has no log-in for {system}"
        with db(out, system) as s:
            for user, password in mine:
                assert check(s, user, password), f"{alias}: {system} log-in {user} fails"


# -- pa-01 / pa-18 ------------------------------------------------------------------------
CHART_TABLES = ("form_encounter", "forms", "form_soap", "lists", "documents",
                "categories_to_documents")


def test_pa01_and_pa18_share_one_chart_and_the_gold_facts(run):
    one = yaml.safe_load((folder("pa-01") / "seed" / "ehr.yaml").read_text())
    eighteen = yaml.safe_load((folder("pa-18") / "seed" / "ehr.yaml").read_text())
    for table in CHART_TABLES:
        assert one[table] == eighteen[table], table
    with db(run("pa-01"), "ehr") as s1, db(run("pa-18"), "ehr") as s18:
        assert {i: d.hash for i, d in docs(s1, 101).items()} == {
            i: d.hash for i, d in docs(s18, 101).items()}
        ortho, pt = pdf_text(s1.get(ehr.Document, 1003).document_data), pdf_text(
            s1.get(ehr.Document, 1002).document_data)
        task = s1.get(ehr.EhrTask, 1001)
        lookalike_task = s1.get(ehr.EhrTask, 1002)
    for fact in ("M51.16", "10 weeks", "naproxen 500 mg twice daily", "Red flags: none",
                 "radiographs"):
        assert fact in ortho, fact
    assert "6 weeks of physical therapy, 12 visits" in pt
    assert (task.pid, task.reference, task.status) == (101, None, "Open") and "72148" in task.subject
    assert lookalike_task.pid == 102


def test_pa18_credentials_match_the_stores(run):
    inputs = {i.path: i.data for i in CATALOG.get("pa-18").inputs}
    out = run("pa-18")
    with db(out, "acme") as s:
        client = s.scalar(select(acme.ApiClient).where(
            acme.ApiClient.client_id == inputs["api.json"]["client_id"]))
        assert client.secret_sha256 == hashlib.sha256(
            inputs["api.json"]["client_secret"].encode()).hexdigest()
    with db(out, "ehr") as s:
        fhir_client = s.get(ehr.OAuthClient, inputs["fhir_client.json"]["client_id"])
        assert ehr.check_password(fhir_client.client_secret,
                                inputs["fhir_client.json"]["client_secret"])
        assert s.get(ehr.Global, ("rest_fhir_api", 0)).gl_value == "1"
        assert ".write" not in fhir_client.scope


# -- pa-02 --------------------------------------------------------------------------------
def test_pa02_worklist_records_match_acme_cases(run):
    out = run("pa-02")
    with db(out, "acme") as s:
        members = {m.id: m.member_number for m in s.scalars(select(acme.Member))}
        by_ref = {c.reference_number: (members[c.member_id], c)
                  for c in s.scalars(select(acme.PaCase))}
    with db(out, "ehr") as s:
        pending = s.scalar(select(ehr.PaWorklist).where(ehr.PaWorklist.name == "PA Pending"))
        items = s.scalars(select(ehr.PaWorklistItem).where(
            ehr.PaWorklistItem.worklist_id == pending.id).order_by(ehr.PaWorklistItem.seq)).all()
        assert [s.get(ehr.PatientData, i.pid).pubpid for i in items] == [
            "510501", "510502", "510503", "510504", "510505"]
        for item in items:
            record = s.get(ehr.PriorAuthorization, item.authorization_id)
            member, case = by_ref[record.portal_reference]
            assert member == member_of(s, item.pid) and record.pid == item.pid
            assert (record.cpt, record.init_units) == (case.service_code, case.units)
            assert case.status in ("approved", "denied", "pended")
            assert (record.status, record.auth_num, record.units_approved,
                    record.start_date) == ("Submitted", None, None, None)
            assert (item.outcome, item.reference) == (None, None)
        old = s.get(ehr.PriorAuthorization, 1006)
    assert old.auth_num == by_ref[old.portal_reference][1].auth_number
    assert {by_ref[r][1].status for r in by_ref if r != old.portal_reference} == {
        "approved", "denied", "pended"}


# -- pa-03 --------------------------------------------------------------------------------
def test_pa03_chart_holds_the_four_appeal_facts(run):
    with db(run("pa-03"), "ehr") as s:
        vitals = s.scalars(select(ehr.FormVitals).where(ehr.FormVitals.pid == 103)
                           .order_by(ehr.FormVitals.date)).all()
        text = text_of(s, 103)
        gold = [d for i, d in docs(s, 103).items() if i in (1001, 1002, 1003)]
    assert vitals[-1].BMI == 36.8
    assert abs(vitals[-1].weight / vitals[-1].height ** 2 * 703 - 36.8) < 0.05
    for fact in ("Epworth Sleepiness Scale: 14", "BMI 36.8", "witnessed apneas", "hypertension",
                 "type 2 diabetes"):
        assert fact in text, fact
    assert len(gold) == 3 and all(d.document_data.startswith(b"%PDF") for d in gold)


# -- pa-04 --------------------------------------------------------------------------------
def _home_assessments(s, pid: int) -> list[ehr.Document]:
    return [d for d in docs(s, pid).values() if "home" in (d.name + d.description).lower()]


def test_pa04_default_lacks_the_home_assessment_and_the_twin_has_it(run):
    with db(run("pa-04"), "ehr") as s:
        assert _home_assessments(s, 104) == []
        assert len(_home_assessments(s, 105)) == 1  # the look-alike's, a decoy
        f2f, mobility = s.get(ehr.Document, 1001), s.get(ehr.Document, 1002)
        assert f2f.foreign_id == mobility.foreign_id == 104
        assert TODAY - timedelta(days=183) <= f2f.docdate <= TODAY
        assert s.get(ehr.Document, 1004).docdate < TODAY - timedelta(days=183)
    with db(run("pa-04", "complete-docs"), "ehr") as s:
        (home,) = _home_assessments(s, 104)
        assert str(home.docdate) == "2026-10-09"
    with db(run("pa-04"), "acme") as s:
        assert s.scalars(select(acme.PaCase)).all() == []
    default = yaml.safe_load((folder("pa-04") / "seed" / "ehr.yaml").read_text())
    twin = yaml.safe_load((folder("pa-04") / "seed" / "ehr-complete-docs.yaml").read_text())
    assert [d for d in twin["documents"] if d["id"] != 1006] == default["documents"]
    assert {k: v for k, v in twin.items() if k not in ("documents", "categories_to_documents")} \
        == {k: v for k, v in default.items() if k not in ("documents", "categories_to_documents")}


# -- pa-05 --------------------------------------------------------------------------------
def _acme_comment_busy(text: str) -> set[tuple[datetime, datetime]]:
    busy = set()
    for match in re.finditer(r"^#\s+(?:Mon|Tue|Wed|Thu|Fri) (\d{4}-\d\d-\d\d) (.*)$", text,
                             re.MULTILINE):
        day, rest = match.groups()
        for start, end in re.findall(r"(\d\d:\d\d)-(\d\d:\d\d)", rest):
            busy.add((datetime.fromisoformat(f"{day} {start}"),
                      datetime.fromisoformat(f"{day} {end}")))
    return busy


def test_pa05_calendar_file_ehr_calendar_and_slots_agree(run):
    out = run("pa-05")
    cal = Calendar.from_ical((out / "input" / "provider_calendar.ics").read_bytes())
    ics = {(ev.decoded("dtstart").replace(tzinfo=None), ev.decoded("dtend").replace(tzinfo=None))
           for ev in cal.walk("VEVENT") if str(ev.get("transp")) == "OPAQUE"}
    assert len(ics) == 16
    assert ics == _acme_comment_busy((folder("pa-05") / "seed" / "acme.yaml").read_text())
    with db(out, "ehr") as s:
        events = s.scalars(select(ehr.CalendarEvent).where(ehr.CalendarEvent.pc_aid == 20)).all()
        charted = {(datetime.combine(e.pc_eventDate, e.pc_startTime),
                    datetime.combine(e.pc_eventDate, e.pc_endTime)) for e in events}
    assert charted == ics
    with db(out, "acme") as s:
        case = s.scalars(select(acme.PaCase)).one()
        window_end = case.decision_at.date() + timedelta(days=14)
        slots = s.scalars(select(acme.P2pSlot).where(acme.P2pSlot.status == "open")).all()
    valid = [sl.id for sl in slots if sl.start_at.date() <= window_end
             and not any(sl.start_at < end and start < sl.end_at for start, end in ics)]
    assert valid == [1004, 1006]


# -- pa-06 --------------------------------------------------------------------------------
PA06_GOLD = {("72148", "22"): ("yes", "R-GP-1001"), ("70450", "22"): ("no", "R-GP-1010"),
             ("29881", "24"): ("no", "R-GP-3002"), ("95810", "11"): ("yes", "R-GP-2001"),
             ("45378", "24"): ("no", "R-GP-3006"), ("J1745", "22"): ("yes", "R-GP-4001"),
             ("E0601", "12"): ("yes", "R-GP-6001"), ("97161", "11"): ("no", "R-GP-5002")}


def test_pa06_procedures_answer_from_the_rules_with_two_place_dependent(run):
    out = run("pa-06")
    rows = list(csv.DictReader((out / "input" / "scheduled_procedures.csv").open()))
    with db(out, "acme") as s:
        plan = s.scalar(select(acme.Plan).where(acme.Plan.name == "Acme Gold PPO"))
        rules = s.scalars(select(acme.PaRule).where(acme.PaRule.plan_id == plan.id)).all()
    answers = {}
    for row in rows:
        rule = acme.match_rule(rules, row["code"], row["place_of_service"])
        answers[row["code"], row["place_of_service"]] = ("yes" if rule.requires_pa else "no",
                                                        rule.rule_id)
    assert answers == PA06_GOLD
    place_specific = {r.code for r in rules if r.place_of_service} & {r["code"] for r in rows}
    assert place_specific == {"29881", "J1745"}


# -- pa-07 and pa-14's Beta Care forms ----------------------------------------------------
FORM_FIELDS = ["patient_name", "patient_dob", "member_id", "ordering_provider", "ordering_npi",
               "provider_phone", "provider_fax", "cpt_code", "icd10_code", "service_date",
               "facility_name", "facility_npi", "symptom_onset", "prior_imaging_date"]
BETA_GOLD = {
    ("pa-07", 107): ["Ross, Hannah", "1983-06-25", "BTC55120987", "Kwame Osei, MD",
                     "1234567893", "217-555-0100", "217-555-0199", "74160", "R93.2",
                     "2026-10-27", "Springfield Imaging Center", "1468205731", "2026-09-07",
                     "2026-10-02"],
    ("pa-14", 126): ["Baxter, Noel", "1962-07-04", "BTC60220302", "Kwame Osei, MD",
                     "1234567893", "217-555-0100", "217-555-0199", "71250", "R91.1",
                     "2026-10-26", "Springfield Imaging Center", "1468205731", "2026-09-28",
                     "2026-10-05"],
    ("pa-14", 133): ["Ives, Clara", "1982-04-14", "BTC60220309", "Test Grant, MD",
                     "1546827399", "217-555-0100", "217-555-0199", "72148", "M54.16",
                     "2026-10-29", "Springfield Imaging Center", "1468205731", "2026-08-03",
                     "2026-08-20"],
}


@pytest.mark.parametrize("alias, pid", sorted(BETA_GOLD))
def test_beta_form_has_fourteen_fields_and_the_chart_holds_their_values(run, alias, pid):
    out = run(alias)
    form = PdfReader(out / "input" / "beta_pa_form.pdf")
    assert list(form.get_fields()) == FORM_FIELDS
    beta = next(p for p in ROSTER["payers"] if p["key"] == "beta")
    assert beta["pa_fax"] in form.pages[0].extract_text()
    with db(out, "ehr") as s:
        patient = s.get(ehr.PatientData, pid)
        facility = s.get(ehr.Facility, 1)
        chart = " ".join([text_of(s, pid), str(patient.DOB), member_of(s, pid), facility.phone,
                          facility.fax])
    for name, value in zip(FORM_FIELDS, BETA_GOLD[alias, pid], strict=True):
        assert value in chart, f"{alias} {name}: {value} is not in the chart"


# -- pa-08 --------------------------------------------------------------------------------
def test_pa08_admission_codes_attending_and_history_and_physical(run):
    out = run("pa-08")
    with db(out, "ehr") as s:
        admission = s.scalars(select(ehr.FormEncounter).where(
            ehr.FormEncounter.pid == 108, ehr.FormEncounter.class_code == "IMP")).one()
        links = s.scalars(select(ehr.IssueEncounter).where(
            ehr.IssueEncounter.encounter == admission.encounter)).all()
        codes = [s.get(ehr.Lists, link.list_id).diagnosis for link in links]
        hp = s.get(ehr.Document, 1002)
        hp_text = pdf_text(hp.document_data)
        attending = s.get(ehr.User, admission.provider_id)
    assert admission.date == datetime(2026, 10, 17, 22, 47) and admission.date.weekday() == 5
    assert codes == ["ICD10:A41.9", "ICD10:N39.0", "ICD10:R65.20"]
    assert (hp.foreign_id, hp.owner, str(hp.docdate)) == (108, attending.id, "2026-10-18")
    assert all(c in hp_text for c in ("A41.9", "N39.0", "R65.20", "22:47"))
    with db(out, "acme") as s:
        directory = s.scalar(select(acme.Provider).where(acme.Provider.roster_key == "haddad"))
    assert attending.npi == directory.npi == "1765234988"


# -- pa-09 --------------------------------------------------------------------------------
def test_pa09_step_therapy_history_stale_list_and_latest_tb_test(run):
    with db(run("pa-09"), "ehr") as s:
        mtx_list = s.scalars(select(ehr.Lists).where(ehr.Lists.pid == 109,
                                                   ehr.Lists.title.like("methotrexate%"))).one()
        rx = s.scalars(select(ehr.Prescription).where(ehr.Prescription.patient_id == 109)
                       .order_by(ehr.Prescription.id)).all()
        tb = s.execute(select(ehr.ProcedureReport.date_collected, ehr.ProcedureResult.result)
                       .join(ehr.ProcedureResult, ehr.ProcedureResult.procedure_report_id
                             == ehr.ProcedureReport.procedure_report_id)
                       .where(ehr.ProcedureResult.result_code == "71774-4")
                       .order_by(ehr.ProcedureReport.date_collected)).all()
        note = pdf_text(s.get(ehr.Document, 1001).document_data)
        latest_tb_doc = s.get(ehr.Document, 1002)
    assert mtx_list.enddate is None and mtx_list.activity == 1  # stale on purpose
    mtx = [r for r in rx if r.drug.startswith("methotrexate")]
    lef = next(r for r in rx if r.drug.startswith("leflunomide"))
    assert (mtx[0].start_date, mtx[-1].end_date) == (date(2026, 1, 12), date(2026, 5, 4))
    assert (mtx[-1].end_date - mtx[0].start_date).days // 7 == 16
    assert max(int(r.dosage) for r in mtx) == 20
    assert (lef.start_date, lef.end_date, lef.dosage) == (date(2026, 5, 11), date(2026, 8, 17), "20")
    assert [(d.date(), r) for d, r in tb] == [(date(2025, 1, 6), "Negative"),
                                             (date(2026, 9, 22), "Negative")]
    assert str(latest_tb_doc.docdate) == "2026-09-22"
    assert all(f in note for f in ("M05.79", "2026-01-12", "2026-05-04", "2026-05-11",
                                   "2026-08-17", "inadequate response", "intolerance"))


# -- pa-10 --------------------------------------------------------------------------------
def test_pa10_ehr_note_is_the_attached_one_and_the_directory_has_both_lindgrens(run):
    out = run("pa-10")
    with db(out, "acme") as s:
        attachment = s.scalars(select(acme.Attachment)).one()
        case = s.scalars(select(acme.PaCase)).one()
    with db(out, "ehr") as s:
        note = s.get(ehr.Document, 1001)
        sofia, sofie = s.get(ehr.User, 21), s.get(ehr.User, 22)
    assert note.hash == attachment.sha256
    assert (sofia.npi, sofia.taxonomy) == ("1938475625", "2085R0202X")
    assert (sofie.npi, sofie.taxonomy) == (case.rendering_npi, case.rendering_taxonomy)


# -- pa-11 --------------------------------------------------------------------------------
def test_pa11_mar_units_differ_from_the_paid_claim(run):
    out = run("pa-11")
    with db(out, "ehr") as s:
        mar = s.scalars(select(ehr.MedicationAdministration).where(
            ehr.MedicationAdministration.hcpcs_code == "J0897")).all()
        member = member_of(s, 111)
    given = [m for m in mar if m.administered_at.date() == date(2026, 9, 3)]
    assert [(m.pid, m.dose, m.billing_units) for m in given] == [(111, 60.0, 60)]
    assert {m.pid for m in mar} == {111}  # the look-alike Marcos had no injection
    with db(out, "acme") as s:
        claim = s.scalar(select(acme.Claim).join(acme.Member).where(
            acme.Member.member_number == member, acme.Claim.dos_from == date(2026, 9, 3)))
        line = s.scalar(select(acme.ClaimLine).where(acme.ClaimLine.claim_id == claim.id,
                                                      acme.ClaimLine.procedure_code == "J0897"))
    assert claim.claim_number == "26249001873" and line.units == 6


# -- pa-12 --------------------------------------------------------------------------------
def test_pa12_chart_carries_every_external_review_field(run):
    out = run("pa-12")
    with db(out, "acme") as s:
        appeal = s.scalars(select(acme.Appeal)).one()
        case = s.get(acme.PaCase, appeal.case_id)
    with db(out, "ehr") as s:
        record = s.get(ehr.PriorAuthorization, 1001)
        text = text_of(s, 113)
        ortiz = s.get(ehr.User, record.provider_id)
    assert record.portal_reference == case.reference_number
    assert ortiz.npi == case.requesting_npi == "1617283944"
    for value in (appeal.reference_number, str(appeal.decision_at.date()), "ACM360118275",
                  "Acme Gold PPO", "77525", "C50.412", "Rafael Ortiz", "1961-01-29"):
        assert value in text, value
    for name in ("dosimetry_plan.pdf", "proton_literature.pdf"):
        assert (out / "input" / name).read_bytes().startswith(b"%PDF")


# -- pa-13 --------------------------------------------------------------------------------
def test_pa13_authorization_record_matches_acme_and_latest_scores(run):
    out = run("pa-13")
    with db(out, "acme") as s:
        case = s.scalars(select(acme.PaCase)).one()
    with db(out, "ehr") as s:
        record = s.get(ehr.PriorAuthorization, 1001)
        visits = s.scalars(select(ehr.FormEncounter).where(ehr.FormEncounter.pid == 114)).all()
        notes = sorted((d for d in docs(s, 114).values() if "progress note" in d.name),
                       key=lambda d: d.docdate)
        latest, older = pdf_text(notes[-1].document_data), pdf_text(notes[0].document_data)
    assert (record.auth_num, record.start_date, record.end_date, record.units_approved) == (
        case.auth_number, case.approved_from, case.approved_to, case.approved_units)
    assert record.remaining_units == case.approved_units - case.units_used == 1
    assert len(visits) == case.units_used == 11
    assert all(f in latest for f in ("LEFS", "51/80", "baseline 32", "goal 65", "3/10"))
    assert "LEFS 41/80" in older and notes[-1].id == 1003


# -- pa-14 --------------------------------------------------------------------------------
def test_pa14_worklist_order_payers_and_missing_evidence(run):
    out = run("pa-14")
    acme_table = (folder("pa-14") / "seed" / "acme.yaml").read_text()
    order = re.findall(r"^#\s+\d+\s+(\w+), \w+ \(", acme_table, re.MULTILINE)
    assert len(order) == 10
    with db(out, "ehr") as s:
        today = s.scalar(select(ehr.PaWorklist).where(ehr.PaWorklist.name == "PA Today"))
        items = s.scalars(select(ehr.PaWorklistItem).where(
            ehr.PaWorklistItem.worklist_id == today.id).order_by(ehr.PaWorklistItem.seq)).all()
        names = [s.get(ehr.PatientData, i.pid).lname for i in items]
        coverage = {i.pid: s.scalar(select(ehr.InsuranceData.provider).where(
            ehr.InsuranceData.pid == i.pid)) for i in items}
        dunn, hale = docs(s, 128), docs(s, 132)
        hale_meds = s.scalars(select(ehr.Lists).where(ehr.Lists.pid == 132,
                                                    ehr.Lists.type == "medication")).all()
        dunn_text = text_of(s, 128)
    assert names == order
    assert [i.seq for i in items] == list(range(1, 11))
    assert all(i.payer_id == coverage[i.pid] for i in items)
    assert all((i.status, i.outcome, i.reference) == ("New", None, None) for i in items)
    assert not [d for d in dunn.values() if "sleep study" in (d.name + d.description).lower()]
    assert "not been received" in dunn_text and not re.search(r"AHI \d", dunn_text)
    assert not [d for d in hale.values() if d.name.startswith("XR")] and not hale_meds


# -- pa-15 --------------------------------------------------------------------------------
def test_pa15_only_five_weeks_of_pt_and_no_mri_report(run):
    out = run("pa-15")
    with db(out, "ehr") as s:
        chart = docs(s, 115)
        item = s.scalars(select(ehr.PaWorklistItem).where(ehr.PaWorklistItem.pid == 115)).one()
        fenwick = s.get(ehr.User, item.provider_id)
        pt = pdf_text(chart[1002].document_data)
        results = s.scalars(select(ehr.ProcedureOrder).where(
            ehr.ProcedureOrder.patient_id == 115)).all()
    assert not [d for d in chart.values() if "mri" in (d.name + d.description).lower()]
    assert results == []
    assert "5 weeks" in pt and "2026-09-08 to 2026-10-13" in pt
    assert (item.cpt, item.status) == ("29881", "New") and fenwick.username == "dr.fenwick"
    with db(out, "acme") as s:
        assert s.scalars(select(acme.PaCase)).all() == []


# -- pa-16 --------------------------------------------------------------------------------
def test_pa16_referral_network_search_and_directory_agree(run):
    out = run("pa-16")
    with db(out, "ehr") as s:
        fields = {f.field_id: f.field_value for f in s.scalars(select(ehr.LbtData).where(
            ehr.LbtData.form_id == 1001))}
        surgeon = s.get(ehr.User, int(fields["refer_to"]))
        cardiology = pdf_text(s.get(ehr.Document, int(fields["refer_document"])).document_data)
    with db(out, "acme") as s:
        listed = s.scalar(select(acme.Provider).where(acme.Provider.npi == surgeon.npi))
        nearest = s.scalars(select(acme.Provider).where(
            acme.Provider.specialty == "Pediatric Cardiothoracic Surgery",
            acme.Provider.network_status == "in_network")).one()
    assert (surgeon.npi, surgeon.federaltaxid) == ("1382947566", "74-3302918")
    assert (listed.tin, listed.network_status) == (surgeon.federaltaxid, "out_of_network")
    search = pdf_text((out / "input" / "network_search.pdf").read_bytes())
    assert f"{nearest.first_name} {nearest.last_name}, MD - 187 miles" in search
    assert fields["refer_payer_case"] == "" and fields["refer_urgency"] == "urgent"
    assert "URGENT" in cardiology and "Q21.3" in cardiology


# -- pa-17 --------------------------------------------------------------------------------
def test_pa17_denials_file_lists_exactly_the_seeded_denied_claims(run):
    out = run("pa-17")
    rows = {r["claim_number"]: r for r in csv.DictReader(
        (out / "input" / "denials.csv").open())}
    seeded = {}
    with db(out, "acme") as s:
        members = {m.id: m.member_number for m in s.scalars(select(acme.Member))}
        for c in s.scalars(select(acme.Claim).where(acme.Claim.status == "denied")):
            seeded[c.claim_number] = ("Acme Health", members[c.member_id], c.dos_from,
                                      c.processed_date, c.total_charge_cents)
    with db(out, "fax") as s:
        for c in s.scalars(select(fax.BetaClaim)):
            seeded[c.claim_number] = ("Beta Care", c.member_number, c.dos, c.denial_date,
                                      c.billed_cents)
    assert set(rows) == set(seeded) and len(rows) == 9
    for number, (payer, member, dos, denied, cents) in seeded.items():
        row = rows[number]
        assert (row["payer"], row["member_id"], row["date_of_service"], row["denial_date"]) == (
            payer, member, str(dos), str(denied)), number
        assert round(float(row["billed"]) * 100) == cents, number
    assert "reason text" in (out / "input" / "appeal_template.txt").read_text()


# -- pa-19 --------------------------------------------------------------------------------
def test_pa19_task_echo_and_latest_egfr(run):
    with db(run("pa-19"), "ehr") as s:
        task = s.get(ehr.EhrTask, 1001)
        egfr = s.execute(select(ehr.ProcedureResult.result).where(
            ehr.ProcedureResult.result_code == "98979-8").order_by(ehr.ProcedureResult.date)).all()
        echo = pdf_text(s.get(ehr.Document, 1002).document_data)
        cardio = s.get(ehr.User, 40)
    assert task.pid == 117 and "75561" in task.subject and task.reference is None
    assert [r for (r,) in egfr] == ["71", "78"]
    assert "LVEF 35%" in echo and "good" in echo
    assert cardio.npi == "1673492017"


# -- pa-20 --------------------------------------------------------------------------------
def test_pa20_a1c_bmi_metformin_and_family_history(run):
    with db(run("pa-20"), "ehr") as s:
        a1c = s.execute(select(ehr.ProcedureResult.date, ehr.ProcedureResult.result).join(
            ehr.ProcedureReport, ehr.ProcedureReport.procedure_report_id
            == ehr.ProcedureResult.procedure_report_id).join(
            ehr.ProcedureOrder, ehr.ProcedureOrder.procedure_order_id
            == ehr.ProcedureReport.procedure_order_id).where(
            ehr.ProcedureOrder.patient_id == 118, ehr.ProcedureResult.result_code == "4548-4")
            .order_by(ehr.ProcedureResult.date)).all()
        bmi = s.scalars(select(ehr.FormVitals.BMI).where(ehr.FormVitals.pid == 118)
                        .order_by(ehr.FormVitals.date)).all()
        metformin = s.scalars(select(ehr.Lists).where(ehr.Lists.pid == 118,
                                                    ehr.Lists.title.like("metformin%"))).one()
        history = s.scalars(select(ehr.HistoryData).where(ehr.HistoryData.pid == 118)).one()
    assert [(d.date().isoformat(), r) for d, r in a1c] == [
        ("2025-08-04", "9.2"), ("2026-03-10", "8.1"), ("2026-09-15", "8.4")]
    assert bmi == [35.1, 34.2]
    assert metformin.begdate == date(2025, 8, 11) and metformin.enddate is None
    months = (TODAY.year - 2025) * 12 + TODAY.month - 8 - (TODAY.day < 11)
    assert months == 14
    assert "papillary" in history.relatives_cancer
    assert "medullary thyroid carcinoma" not in history.relatives_cancer.replace(
        "not medullary", "")
