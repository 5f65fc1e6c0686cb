"""The payer-side stores (acme, epa, fax, regulator): schemas, world data and task seeds.

Each store is created in a temporary directory and loaded through the real seeder, so these
tests fail when a YAML row no longer fits its model, when world data drifts from the roster,
or when a task's seeded facts stop producing the gold outcome its comments promise.
"""

from __future__ import annotations

import hashlib
import re
import shutil
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from sqlalchemy import Boolean, Date, DateTime, Float, Integer, LargeBinary, String, Text, select
from sqlalchemy.exc import IntegrityError
from stdnum import luhn

from sandbox.clock import SandboxClock
from sandbox.paths import TASKS_DIR, WORLD_DIR
from sandbox.seeding import checkpoint, load_rows
from sandbox.stores import Store, acme, epa, fax, metadata_for, model_for, open_store, regulator
from sandbox.stores.audit import AUDIT_TABLE

PAYER_SYSTEMS = ("acme", "epa", "fax", "regulator")
ROSTER = yaml.safe_load((WORLD_DIR / "roster.yaml").read_text())
SANDBOX_TODAY = date(2026, 10, 19)


def seed_files(system: str) -> list[Path]:
    return sorted(TASKS_DIR.glob(f"R09.03.01.04-T*/seed/{system}.yaml"))


_WORLD_CACHE: dict[str, Path] = {}
_CACHE_DIR: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def _world_cache(tmp_path_factory):
    """World stores are built once per module run, in pytest's own temporary directory."""
    _CACHE_DIR.append(tmp_path_factory.mktemp("payer-world"))
    yield
    _WORLD_CACHE.clear()
    _CACHE_DIR.clear()


def build(tmp_path: Path, system: str, *task_seeds: Path) -> Store:
    """A store holding the world (built once per system, then copied) plus task seeds."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    target = tmp_path / f"{system}.sqlite"
    if system not in _WORLD_CACHE:
        world = Store(system, _CACHE_DIR[0] / f"{system}.sqlite", SandboxClock()).create()
        load_rows(world, WORLD_DIR / f"{system}.yaml")
        world.dispose()
        checkpoint(world.path)
        _WORLD_CACHE[system] = world.path
    shutil.copyfile(_WORLD_CACHE[system], target)
    store = open_store(system, target, SandboxClock())
    for seed in task_seeds:
        load_rows(store, seed, seed.parent.parent)
    return store


def task_seed(alias_number: str, system: str) -> Path:
    return TASKS_DIR / f"R09.03.01.04-T{alias_number}" / "seed" / f"{system}.yaml"


# -- schema ------------------------------------------------------------------------------
@pytest.mark.parametrize("system", PAYER_SYSTEMS)
def test_every_table_has_a_primary_key_and_no_server_defaults(system):
    for table in metadata_for(system).sorted_tables:
        assert table.primary_key.columns, f"{system}.{table.name} has no primary key"
        for column in table.columns:
            assert column.server_default is None, f"{system}.{table.name}.{column.name}"


@pytest.mark.parametrize("system", PAYER_SYSTEMS)
def test_world_loads_and_its_audit_verifies(tmp_path, system):
    store = build(tmp_path, system)
    report = store.verify_audit()
    assert report.ok, [str(p) for p in report.problems]
    assert report.entries > 0 and report.rows_checked == report.entries


@pytest.mark.parametrize("seed", [s for sys in PAYER_SYSTEMS for s in seed_files(sys)],
                         ids=lambda p: f"{p.parent.parent.name}:{p.stem}")
def test_task_seed_loads_on_the_world_and_audit_verifies(tmp_path, seed):
    store = build(tmp_path, seed.stem, seed)
    report = store.verify_audit()
    assert report.ok, [str(p) for p in report.problems]


_PY_TYPES = {String: str, Text: str, Integer: int, Boolean: bool, Float: (int, float),
             Date: date, LargeBinary: bytes}


@pytest.mark.parametrize("path", [WORLD_DIR / f"{s}.yaml" for s in PAYER_SYSTEMS]
                         + [s for sys in PAYER_SYSTEMS for s in seed_files(sys)],
                         ids=lambda p: f"{p.parent.name}:{p.stem}")
def test_yaml_values_have_their_column_types(path):
    """Catches YAML turning a code like 72148 into an int or 'no' into False."""
    system = path.stem
    data = yaml.safe_load(path.read_text()) or {}
    for table_name, rows in data.items():
        columns = model_for(system, table_name).__table__.columns
        for row in rows:
            for name, value in row.items():
                if value is None or isinstance(columns[name].type, (DateTime, LargeBinary)):
                    continue
                kind = next(py for sa, py in _PY_TYPES.items()
                            if isinstance(columns[name].type, sa))
                if kind is date:
                    ok = isinstance(value, (date, str))
                else:
                    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
                assert ok, f"{path.name}: {table_name}.{name} = {value!r} is not {kind}"


def test_task_seed_ids_stay_in_the_task_range():
    for system in PAYER_SYSTEMS:
        for seed in seed_files(system):
            for table, rows in (yaml.safe_load(seed.read_text()) or {}).items():
                for row in rows:
                    assert 1000 <= row["id"] <= 8999, f"{seed}: {table} id {row['id']}"
        world = yaml.safe_load((WORLD_DIR / f"{system}.yaml").read_text())
        for table, rows in world.items():
            assert all(row["id"] < 1000 for row in rows), f"world {system}.{table}"


# -- world agrees with the roster --------------------------------------------------------
def test_acme_members_are_exactly_the_roster_acme_patients(tmp_path):
    store = build(tmp_path, "acme")
    plan_keys = {p.id: p.plan_key for p in store.reader().scalars(select(acme.Plan))}
    members = {m.member_number: m for m in store.reader().scalars(select(acme.Member))}
    roster = {p["member_id"]: p for p in ROSTER["patients"] if p.get("payer") == "acme"}
    assert set(members) == set(roster)
    for number, person in roster.items():
        member = members[number]
        assert (member.last_name, member.first_name) == (person["lname"], person["fname"])
        assert member.dob == person["dob"]
        assert member.sex == person["sex"]
        assert plan_keys[member.plan_id] == person["plan"]


def test_acme_plans_are_the_roster_plans(tmp_path):
    store = build(tmp_path, "acme")
    plans = {p.plan_key: p.name for p in store.reader().scalars(select(acme.Plan))}
    roster = next(p for p in ROSTER["payers"] if p["key"] == "acme")["plans"]
    assert plans == {p["key"]: p["name"] for p in roster}


def test_directory_agrees_with_roster_providers(tmp_path):
    store = build(tmp_path, "acme")
    by_npi = {p.npi: p for p in store.reader().scalars(select(acme.Provider))}
    for person in ROSTER["providers"]:
        row = by_npi[person["npi"]]
        assert (row.taxonomy, row.tin, row.last_name) == (
            person["taxonomy"], person["tin"], person["lname"])
        want = "in_network" if person["network"] == "acme" else "out_of_network"
        assert row.network_status == want, person["key"]
    for org in (ROSTER["facility"], ROSTER["hospital"]):
        assert by_npi[org["npi"]].organization == org["name"]


def _npis_in(store: Store) -> list[str]:
    found = []
    for table in store.metadata.sorted_tables:
        if table.name == AUDIT_TABLE:
            continue
        npi_columns = [c for c in table.columns if c.name.endswith("npi")]
        with store.reader() as session:
            for row in session.execute(select(*npi_columns)) if npi_columns else []:
                found += [value for value in row if value]
    return found


@pytest.mark.parametrize("system", PAYER_SYSTEMS)
def test_every_stored_npi_is_luhn_valid(tmp_path, system):
    npis = _npis_in(build(tmp_path, system))
    for seed in seed_files(system):
        npis += _npis_in(build(tmp_path / seed.parent.parent.name, system, seed))
    for npi in npis:
        assert len(npi) == 10 and npi[0] in "12" and luhn.is_valid("80840" + npi), npi


def test_beta_fax_numbers_match_the_roster(tmp_path):
    store = build(tmp_path, "fax")
    numbers = {n.purpose: n for n in store.reader().scalars(select(fax.FaxNumber))}
    beta = next(p for p in ROSTER["payers"] if p["key"] == "beta")
    assert numbers["pa_medical"].number == beta["pa_fax"]
    assert numbers["pa_medical"].digits == fax.fax_digits(beta["pa_fax"])
    for row in numbers.values():
        assert row.digits == fax.fax_digits(row.number)


# -- rules, questionnaires, branching ----------------------------------------------------
PA06_GOLD = [("72148", "22", True, "R-GP-1001"), ("70450", "22", False, "R-GP-1010"),
             ("29881", "24", False, "R-GP-3002"), ("95810", "11", True, "R-GP-2001"),
             ("45378", "24", False, "R-GP-3006"), ("J1745", "22", True, "R-GP-4001"),
             ("E0601", "12", True, "R-GP-6001"), ("97161", "11", False, "R-GP-5002")]


def test_pa06_rule_lookup_gold_and_two_place_dependent_codes(tmp_path):
    store = build(tmp_path, "acme")
    rules = list(store.reader().scalars(select(acme.PaRule).where(acme.PaRule.plan_id == 1)))
    for code, pos, requires, rule_id in PA06_GOLD:
        rule = acme.match_rule(rules, code, pos)
        assert (rule.requires_pa, rule.rule_id) == (requires, rule_id), code
    dependent = [code for code, pos, _, _ in PA06_GOLD
                 if acme.match_rule(rules, code, pos).requires_pa
                 != acme.match_rule(rules, code, None).requires_pa
                 or acme.match_rule(rules, code, "11").requires_pa
                 != acme.match_rule(rules, code, "22").requires_pa]
    assert sorted(dependent) == ["29881", "J1745"]


@pytest.mark.parametrize("system,question_model", [("acme", acme.PaQuestion)])
def test_questionnaire_conditions_refer_to_earlier_questions(tmp_path, system, question_model):
    store = build(tmp_path, system)
    questions = list(store.reader().scalars(select(question_model)))
    by_set: dict[int, dict[str, int]] = {}
    for q in questions:
        by_set.setdefault(q.questionnaire_id, {})[q.question_key] = q.position
    for q in questions:
        if q.enable_question_key:
            positions = by_set[q.questionnaire_id]
            assert positions[q.enable_question_key] < q.position, q.question_key
            assert q.enable_operator in epa.OPERATORS


SEMAGLUTIDE_GOLD = {
    "diagnosis": "t2dm", "icd10_code": "E11.65", "a1c_recent": "8.4",
    "a1c_recent_date": "2026-09-15", "a1c_prior": "9.2", "a1c_prior_date": "2025-08-04",
    "metformin_trial": "yes", "metformin_current": "yes",
    "metformin_dose": "1000 mg twice daily", "metformin_months": "14", "bmi": "34.2",
    "mtc_men2": "no", "pancreatitis": "no", "other_glp1": "no",
}


def _semaglutide_items(store: Store):
    with store.reader() as session:
        questions = session.scalars(select(epa.EpaQuestion).where(
            epa.EpaQuestion.question_set_id == 1).order_by(epa.EpaQuestion.position))
        conditions = list(session.scalars(select(epa.EpaEnableWhen)))
        return [(q.question_key, q.enable_behavior,
                 [(c.depends_on_key, c.operator, c.answer_value)
                  for c in conditions if c.question_id == q.id]) for q in questions]


def test_semaglutide_gold_path_is_exactly_the_enabled_questions(tmp_path):
    store = build(tmp_path, "epa", task_seed("20", "epa"))
    items = _semaglutide_items(store)
    assert epa.enabled_keys(items, SEMAGLUTIDE_GOLD) == list(SEMAGLUTIDE_GOLD)


def test_semaglutide_branches_unlock_and_hide_follow_ups(tmp_path):
    items = _semaglutide_items(build(tmp_path, "epa"))
    no_metformin = dict(SEMAGLUTIDE_GOLD, metformin_trial="no")
    shown = epa.enabled_keys(items, no_metformin)
    assert "metformin_contraindication" in shown and "metformin_dose" not in shown
    weight = {"diagnosis": "weight", "metformin_trial": "yes", "mtc_men2": "yes"}
    shown = epa.enabled_keys(items, weight)
    assert "weight_comorbidity" in shown and "mtc_men2_details" in shown
    # a follow-up of a hidden question stays hidden even if an answer lingers
    assert "metformin_dose" not in shown and "a1c_recent" not in shown


def test_enable_when_operators():
    answers = {"a1c": "8.4", "seen": "yes", "empty": ""}
    assert epa.question_enabled([("a1c", ">=", "7")], "all", answers)
    assert not epa.question_enabled([("a1c", "<", "7")], "all", answers)
    assert epa.question_enabled([("seen", "=", "YES")], "all", answers)
    assert epa.question_enabled([("empty", "exists", "false")], "all", answers)
    assert epa.question_enabled([("a1c", "<", "7"), ("seen", "=", "yes")], "any", answers)
    with pytest.raises(ValueError, match="unknown enableWhen operator"):
        epa.question_enabled([("a1c", "~", "7")], "all", answers)


# -- task seeds produce their gold facts -------------------------------------------------
def _deadline(policy, denied: date) -> date:
    assert policy.deadline_unit == "calendar_days"
    return denied + timedelta(days=policy.deadline_days)


def test_pa17_exactly_five_denials_are_appealable_on_the_sandbox_date(tmp_path):
    acme_store = build(tmp_path, "acme", task_seed("17", "acme"))
    fax_store = build(tmp_path, "fax", task_seed("17", "fax"))
    with acme_store.reader() as session:
        acme_policy = session.scalars(select(acme.Policy).where(
            acme.Policy.category == "appeals", acme.Policy.appeal_level == 1)).one()
        acme_denials = [(c.claim_number, c.processed_date) for c in session.scalars(
            select(acme.Claim).where(acme.Claim.status == "denied"))]
    with fax_store.reader() as session:
        beta_policy = session.scalars(select(fax.Policy).where(
            fax.Policy.category == "appeals", fax.Policy.appeal_level == 1)).one()
        beta_denials = [(c.claim_number, c.denial_date)
                        for c in session.scalars(select(fax.BetaClaim))]
    assert (acme_policy.deadline_days, beta_policy.deadline_days) == (180, 90)
    deadlines = {n: _deadline(acme_policy, d) for n, d in acme_denials}
    deadlines |= {n: _deadline(beta_policy, d) for n, d in beta_denials}
    assert len(deadlines) == 9
    appealable = {n for n, d in deadlines.items() if SANDBOX_TODAY <= d}
    assert appealable == {"26196004102", "26120003377", "26105002254", "26230005519",
                          "BC-26071583"}
    expired_by = sorted((SANDBOX_TODAY - d).days for d in deadlines.values() if d < SANDBOX_TODAY)
    assert len(expired_by) == 4 and expired_by[0] == 1
    # a Beta denial that the Acme deadline would wrongly keep open
    assert any(_deadline(acme_policy, d) >= SANDBOX_TODAY > _deadline(beta_policy, d)
               for _, d in beta_denials)


def test_pa02_has_approved_denied_and_pended_cases(tmp_path):
    store = build(tmp_path, "acme", task_seed("02", "acme"))
    worklist = ["PA26-041187", "PA26-041352", "PA26-041690", "PA26-041775", "PA26-041802"]
    cases = {c.reference_number: c for c in store.reader().scalars(select(acme.PaCase))}
    assert {cases[r].status for r in worklist} == {"approved", "denied", "pended"}
    for ref in worklist:
        case = cases[ref]
        decided = (case.auth_number, case.approved_units, case.approved_from, case.approved_to)
        if case.status == "approved":
            assert all(v is not None for v in decided), ref
            assert case.approved_from <= case.approved_to
        else:
            assert all(v is None for v in decided), ref


def test_pa05_window_has_exactly_two_valid_open_slots(tmp_path):
    store = build(tmp_path, "acme", task_seed("05", "acme"))
    busy_text = task_seed("05", "acme").read_text()
    busy = _busy_times(busy_text)
    with store.reader() as session:
        case = session.scalars(select(acme.PaCase)).one()
        policy = session.scalars(select(acme.Policy).where(
            acme.Policy.policy_key == "peer-to-peer")).one()
        slots = list(session.scalars(select(acme.P2pSlot).where(acme.P2pSlot.status == "open")))
    window_end = case.decision_at.date() + timedelta(days=policy.deadline_days)
    assert window_end > SANDBOX_TODAY
    valid = [s.id for s in slots if s.start_at.date() <= window_end
             and not any(s.start_at < end and start < s.end_at for start, end in busy)]
    assert valid == [1004, 1006]
    free_outside = [s.id for s in slots if s.start_at.date() > window_end]
    assert free_outside == [1011, 1012]


def _busy_times(text: str) -> list[tuple[datetime, datetime]]:
    """Parse the '#   Mon 2026-10-19 08:00-16:30 clinic;  ...' lines of the pa-05 seed."""
    busy = []
    for match in re.finditer(r"^#\s+(?:Mon|Tue|Wed|Thu|Fri) (\d{4}-\d\d-\d\d) (.*)$", text,
                             re.MULTILINE):
        day, rest = match.groups()
        for start, end in re.findall(r"(\d\d:\d\d)-(\d\d:\d\d)", rest):
            busy.append((datetime.fromisoformat(f"{day} {start}"),
                         datetime.fromisoformat(f"{day} {end}")))
    assert len(busy) == 16
    return busy


def test_pa10_case_is_rejected_with_the_lookalike_rendering_provider(tmp_path):
    store = build(tmp_path, "acme", task_seed("10", "acme"))
    with store.reader() as session:
        case = session.scalars(select(acme.PaCase)).one()
        sofie = session.scalars(select(acme.Provider).where(
            acme.Provider.npi == case.rendering_npi)).one()
        attachment = session.scalars(select(acme.Attachment)).one()
    assert case.status == "rejected" and case.submitted_at.date() == date(2026, 10, 18)
    assert case.rejection_reason == "Rendering provider NPI/taxonomy invalid"
    assert (sofie.first_name, sofie.taxonomy) == ("Sofie", case.rendering_taxonomy)
    assert attachment.content.startswith(b"%PDF") and len(attachment.sha256) == 64


def test_pa11_claim_pays_j0897_at_the_wrong_units(tmp_path):
    store = build(tmp_path, "acme", task_seed("11", "acme"))
    with store.reader() as session:
        claim = session.scalars(select(acme.Claim).where(
            acme.Claim.claim_number == "26249001873")).one()
        lines = list(session.scalars(select(acme.ClaimLine).where(
            acme.ClaimLine.claim_id == claim.id).order_by(acme.ClaimLine.line_no)))
        same_dos = list(session.scalars(select(acme.Claim).where(
            acme.Claim.dos_from == date(2026, 9, 3))))
    assert claim.dos_from == date(2026, 9, 3) and claim.status == "paid"
    j0897 = [line for line in lines if line.procedure_code == "J0897"]
    assert len(j0897) == 1 and j0897[0].units == 6
    assert sum(line.charge_cents for line in lines) == claim.total_charge_cents
    assert sum(line.paid_cents for line in lines) == claim.total_paid_cents
    assert len(same_dos) == 2  # the look-alike's claim on the same day


def test_pa12_second_level_deadline_is_after_the_sandbox_date(tmp_path):
    store = build(tmp_path, "acme", task_seed("12", "acme"))
    with store.reader() as session:
        appeal = session.scalars(select(acme.Appeal)).one()
        policy = session.scalars(select(acme.Policy).where(
            acme.Policy.category == "appeals", acme.Policy.appeal_level == 2)).one()
    assert appeal.status == "upheld" and appeal.level == 1
    l2_deadline = appeal.decision_at.date() + timedelta(days=policy.deadline_days)
    assert l2_deadline == date(2026, 11, 2) and l2_deadline > SANDBOX_TODAY
    assert len(regulator.FORM_FIELDS) == 12
    columns = {c.name for c in regulator.ExternalReview.__table__.columns}
    assert set(regulator.FORM_FIELDS) <= columns


def test_pa13_authorization_has_one_visit_left(tmp_path):
    store = build(tmp_path, "acme", task_seed("13", "acme"))
    case = store.reader().scalars(select(acme.PaCase)).one()
    assert (case.approved_units, case.units_used) == (12, 11)
    assert case.approved_to == date(2026, 10, 23)


def test_pa19_session_expiry_applies_to_becker_only(tmp_path):
    store = build(tmp_path, "acme", task_seed("19", "acme"))
    with store.reader() as session:
        settings = {s.key: s.value for s in session.scalars(select(acme.PortalSetting))}
        becker = session.scalars(select(acme.Member).where(
            acme.Member.roster_key == "becker_tom")).one()
    assert settings["session.expire_at_step"] == "attachments"
    assert settings["session.expire_for_member"] == becker.member_number
    assert set(settings) <= set(acme.PORTAL_SETTING_DEFAULTS)


def test_pa20_dashboard_has_joy_request_and_lookalike(tmp_path):
    store = build(tmp_path, "epa", task_seed("20", "epa"))
    requests = list(store.reader().scalars(select(epa.EpaRequest)))
    open_joy = [r for r in requests if (r.patient_first, r.archived) == ("Joy", False)]
    assert len(open_joy) == 1 and open_joy[0].status == "questions_received"
    assert open_joy[0].member_number == "ACM458802731"
    assert any(r.patient_first == "Joyce" and r.patient_dob == open_joy[0].patient_dob
               for r in requests)


@pytest.mark.parametrize("model", [acme.Attachment, epa.EpaAttachment, fax.FaxDocument,
                                   fax.ReceivedFax, regulator.ReviewDocument])
def test_blob_digests_follow_content(model):
    doc = model(content=b"%PDF-x")
    assert (doc.size_bytes, doc.sha256) == (6, hashlib.sha256(b"%PDF-x").hexdigest())
    doc.content = b"other"
    assert (doc.size_bytes, doc.sha256) == (5, hashlib.sha256(b"other").hexdigest())


def test_an_attachment_needs_exactly_one_owner(tmp_path):
    store = build(tmp_path, "acme", task_seed("10", "acme"))
    with pytest.raises(IntegrityError, match="attachment_has_one_owner"):
        with store.writer() as session:
            session.add(acme.Attachment(filename="orphan.pdf", content=b"%PDF-"))
    with store.writer() as session:
        session.add(acme.Attachment(case_id=1000, filename="note.pdf", content=b"%PDF-"))
    assert store.verify_audit().ok
