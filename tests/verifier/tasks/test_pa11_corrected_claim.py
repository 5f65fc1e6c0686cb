"""pa-11: claim status and a corrected claim (20% status checked; 30% original claim
referenced, two parts; 40% corrected units; 10% no other changes)."""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.acme import Claim, ClaimCorrection, ClaimCorrectionLine, ClaimInquiry
from sandbox.stores.ehr import Pnote
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-11")
STATUS, CITED, UNITS, CLEAN = 0.20, 0.30, 0.40, 0.10
DOS = dt.date(2026, 9, 3)
LINES = [  # the replacement claim as the correction form submits it
    {"line_no": 1, "procedure_code": "99214", "modifiers": "25", "units": 1,
     "charge_cents": 18500},
    {"line_no": 2, "procedure_code": "96372", "modifiers": "", "units": 1,
     "charge_cents": 4500},
    {"line_no": 3, "procedure_code": "J0897", "modifiers": "JZ", "ndc": "55513071001",
     "units": 60, "charge_cents": 186000},
]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa11"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def inquire(run: Run, results: str = "26249001873", **write) -> None:
    with run.write("acme", actor="riverside.billing", **write) as s:
        s.add(ClaimInquiry(member_number="ACM892003416", patient_last_name="Diaz",
                           dos_from=DOS, dos_to=DOS, result_claim_numbers=results,
                           inquired_at=NOW))


def correct(run: Run, *, number: str = "26249001873", reference: str = "CC26-000871", claim_id: int | None = 1000,
            frequency: str = "7", lines: list[dict] | None = None, status: str = "submitted",
            **write) -> None:
    with run.write("acme", actor="riverside.billing", **write) as s:
        row = ClaimCorrection(reference_number=reference, original_claim_id=claim_id,
                              original_claim_number=number, frequency_code=frequency,
                              correction_reason="J0897 billed 6 units; 60 mg given (60 units)",
                              status=status, created_by="riverside.billing", created_at=NOW,
                              submitted_at=NOW)
        s.add(row)
        s.flush()
        for line in lines or LINES:
            s.add(ClaimCorrectionLine(correction_id=row.id, dos=DOS, **line))


def with_line(index: int, **change) -> list[dict]:
    return [({**line, **change} if i == index else line) for i, line in enumerate(LINES)]


def test_gold_correction_scores_one(run):
    inquire(run)
    correct(run)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_untouched_keeps_only_no_other_changes(run):
    assert run.fractions() == [0.0, 0.0, 0.0, 1.0]
    assert run.score() == pytest.approx(CLEAN)


def test_inquiry_that_found_only_the_lookalikes_claim(run):
    inquire(run, results="26249002610")
    correct(run)
    assert run.score() == pytest.approx(CITED + UNITS + CLEAN)


def test_void_instead_of_replacement_loses_half_the_reference(run):
    inquire(run)
    correct(run, frequency="8")
    assert run.score() == pytest.approx(STATUS + CITED / 2 + UNITS + CLEAN)


def test_correction_of_a_mistyped_claim_number_is_not_the_correction(run):
    inquire(run)
    correct(run, number="26249001837", claim_id=None)
    assert run.fractions() == [1.0, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("number, claim_id", [
    ("26249002610", 1000),   # the look-alike's number on his claim's form
    ("26249001873", 1002),   # his number, filed against the look-alike's claim
])
def test_a_correction_naming_another_claim_is_not_the_correction(run, number, claim_id):
    """The number and the claim it is filed against must both be his: either one of the
    look-alike's makes it a correction of another claim."""
    inquire(run)
    correct(run, number=number, claim_id=claim_id)
    assert run.fractions() == [1.0, 0.0, 0.0, 0.0]


def test_wrong_units_lose_the_units(run):
    inquire(run)
    correct(run, lines=with_line(2, units=6))
    assert run.fractions() == [1.0, 1.0, 0.0, 1.0]


@pytest.mark.parametrize("lines", [with_line(0, modifiers=""), LINES[1:]])
def test_other_lines_must_stay_as_billed(run, lines):
    inquire(run)
    correct(run, lines=lines)
    report = run.grade()
    assert report.checks[3].fraction == 0.0
    assert report.score == pytest.approx(STATUS + CITED + UNITS * report.checks[2].fraction)


@pytest.mark.parametrize("collateral", ["claim edited", "lookalike corrected"])
def test_collateral_writes_lose_no_other_changes(run, collateral):
    inquire(run)
    correct(run)
    if collateral == "claim edited":
        with run.write("acme") as s:
            s.get(Claim, 1000).status = "adjusted"
    elif collateral == "lookalike corrected":
        correct(run, number="26249002610", claim_id=1002, lines=[LINES[0]],
                reference="CC26-000872")
    else:
        with run.write("ehr") as s:
            s.add(Pnote(date=NOW, body="corrected claim sent", pid=111, user="pa.coord"))
    assert run.fractions() == [1.0, 1.0, 1.0, 0.0]


def test_draft_correction_is_not_submitted(run):
    inquire(run)
    correct(run, status="draft")
    assert run.score() == pytest.approx(STATUS + CLEAN)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(run, write):
    inquire(run, **write)
    correct(run, **write)
    report = run.grade()
    assert report.score == pytest.approx(CLEAN)
    assert {e["table"] for e in report.channel["exclusions"]} == {
        "claim_inquiries", "claim_corrections", "claim_correction_lines"}


def test_correcting_the_lookalikes_claim_earns_nothing(run):
    inquire(run, results="26249002610")
    correct(run, number="26249002610", claim_id=1002,
            lines=[{**LINES[0], "procedure_code": "99213", "modifiers": ""}])
    assert run.score() == 0.0


def test_harmless_reads_are_not_other_changes(run):
    """Rule lookups and repeated claim-status searches are read records (the footprint's
    ``read``), never charged to "no other changes"."""
    from sandbox.stores.acme import RuleLookup

    inquire(run)
    inquire(run)
    with run.write("acme", actor="riverside.billing") as s:
        s.add(RuleLookup(portal_user_id=2, plan_id=1, code="J0897", place_of_service="11",
                         matched_rule_id=None, requires_pa=None, looked_up_at=NOW))
    correct(run)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 1.0, 1.0]
    assert len(report.footprint["reads"]) == 3 and not report.footprint["duplicates"]

