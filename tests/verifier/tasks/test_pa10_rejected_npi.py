"""pa-10: the rejected case corrected in place (40% NPI and taxonomy; 30% status; 30% no
duplicate and no collateral change)."""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.acme import ClaimInquiry, PaAnswer, PaCase, PaDraft, RuleLookup
from sandbox.stores.ehr import Log, Pnote
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-10")
CODES, STATUS, CLEAN = 0.40, 0.30, 0.30
FIX = {"rendering_npi": "1938475625", "rendering_taxonomy": "2085R0202X",
       "status": "in_review", "revision": 1, "updated_at": NOW, "submitted_at": NOW,
       "decision_at": None, "rejection_code": None, "rejection_reason": None,
       "decision_due_at": NOW + dt.timedelta(days=7)}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa10"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def edit(run: Run, case_id: int = 1000, **changes) -> None:
    """The portal's edit-and-resubmit of a rejected case."""
    with run.write("acme", actor="riverside.pa",
                   **{k: changes.pop(k) for k in ("channel", "episode") if k in changes}) as s:
        case = s.get(PaCase, case_id)
        for key, value in {**FIX, **changes}.items():
            setattr(case, key, value)


def resubmit_as_new_case(run: Run, member_id: int = 9) -> None:
    """A second case copied from the rejected one (what the task forbids)."""
    with run.write("acme", actor="riverside.pa") as s:
        old = s.get(PaCase, 1000)
        values = {c.key: getattr(old, c.key) for c in PaCase.__mapper__.column_attrs
                  if c.key not in ("id", "reference_number")}
        s.add(PaCase(**{**values, **FIX, "reference_number": "PA26-042001",
                        "member_id": member_id, "revision": 0}))


def test_corrected_in_place_scores_one(run):
    edit(run)
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_untouched_keeps_only_the_no_damage_item(run):
    assert run.fractions() == [0.0, 0.0, 1.0]
    assert run.score() == pytest.approx(CLEAN)


@pytest.mark.parametrize("wrong", [{"rendering_npi": "1049583721"},
                                   {"rendering_taxonomy": "207R00000X"}])
def test_one_identifier_wrong_loses_half_the_identifiers(run, wrong):
    edit(run, **wrong)
    assert run.score() == pytest.approx(CODES / 2 + STATUS + CLEAN)


def test_not_resubmitted_loses_status(run):
    edit(run, status="rejected")
    assert run.score() == pytest.approx(CODES + CLEAN)


@pytest.mark.parametrize("collateral", ["service code", "answers", "ehr note"])
def test_collateral_change_loses_the_last_item(run, collateral):
    if collateral == "service code":
        edit(run, service_code="70551")
    else:
        edit(run)
        if collateral == "answers":
            with run.write("acme") as s:
                s.get(PaAnswer, 1003).answer = "ct"
        else:
            with run.write("ehr") as s:
                s.add(Pnote(date=NOW, body="PA26-041950 fixed", pid=110, user="pa.coord"))
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 0.0]
    assert report.checks[2].evidence["problems"]


def test_reading_the_chart_and_the_portal_autosave_are_not_changes(run):
    with run.write("ehr") as s:   # the web EHR logs the visit note being opened
        s.add(Log(date=NOW, event="document-view", category="Documents", user="pa.coord",
                  patient_id=110, document_id=1001, comments="document 1001"))
    with run.write("acme") as s:
        s.add(PaDraft(case_id=1000, portal_user_id=1, wizard_step="providers", saved_at=NOW))
    edit(run)
    assert run.score() == pytest.approx(1.0)


def test_portal_lookups_and_claim_searches_are_reads_not_changes(run):
    """The footprint's read records, whatever the task declares: not collateral changes."""
    with run.write("acme") as s:
        s.add(RuleLookup(portal_user_id=1, plan_id=1, code="72148", place_of_service="22",
                         matched_rule_id="R-GP-1001", requires_pa=True, looked_up_at=NOW))
        s.add(ClaimInquiry(portal_user_id=1, member_number="ACM145590023",
                           result_claim_numbers="", inquired_at=NOW))
    edit(run)
    assert run.score() == pytest.approx(1.0)


def test_resubmitted_as_a_new_case_is_a_duplicate(run):
    resubmit_as_new_case(run)
    assert run.fractions() == [0.0, 0.0, 0.0]


def test_fixed_and_duplicated_loses_the_last_item(run):
    edit(run)
    resubmit_as_new_case(run)
    assert run.score() == pytest.approx(CODES + STATUS)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_fix_of_another_channel_or_episode_does_not_count(run, write):
    edit(run, **write)
    report = run.grade()
    assert report.score == pytest.approx(CLEAN)
    assert report.channel["exclusions"][0]["table"] == "pa_cases"


def test_case_for_another_member_earns_nothing(run):
    resubmit_as_new_case(run, member_id=6)
    assert run.score() == 0.0
