"""pa-16: the network gap exception (30% provider identifiers, two parts; 25% distance
evidence, two parts; 25% clinical fields, three parts; 20% EHR update)."""

from __future__ import annotations

import pytest

from sandbox.stores.acme import Attachment, NetworkException, PaCase
from sandbox.stores.ehr import Document, LbtData
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-16")
IDS, DISTANCE, CLINICAL, EHR = 0.30, 0.25, 0.25, 0.20
SILVA = 15
REFERENCE = "PA26-042611"


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa16"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def request(run: Run, *, note: int | None = 1001, search: bool = True, member: int = SILVA,
            detail: dict | None = None, write: dict | None = None, **case) -> None:
    """The portal's network gap exception form, submitted."""
    files = [("network_search.pdf", run.input_bytes("network_search.pdf"))] if search else []
    if note is not None:
        doc = run.seeded("ehr", Document, note)
        files.append((doc.name, doc.document_data))
    with run.write("acme", actor="riverside.pa", **(write or {})) as s:
        row = PaCase(**{"reference_number": REFERENCE, "case_type": "network_exception",
                        "status": "in_review", "member_id": member, "plan_id": 2,
                        "rendering_npi": "1382947566", "rendering_tin": "74-3302918",
                        "rendering_name": "Dr. Elena Whitcomb", "service_code_type": "CPT",
                        "service_code": "33475", "icd10_codes": "Q21.3,I37.1",
                        "submitted_via": "portal", "created_by": "riverside.pa",
                        "created_at": NOW, "submitted_at": NOW, **case})
        s.add(row)
        s.flush()
        s.add(NetworkException(**{"case_id": row.id,
                                  "specialty_needed": "Pediatric Cardiothoracic Surgery",
                                  "nearest_in_network_miles": 187.0,
                                  "nearest_in_network_provider": "Dr. Priya Venkataraman",
                                  "requested_provider_miles": 142.0,
                                  "clinical_urgency": "urgent", **(detail or {})}))
        for name, data in files:
            s.add(Attachment(case_id=row.id, filename=name, content=data,
                             document_type="network_search", uploaded_at=NOW))


def update_referral(run: Run, text: str = REFERENCE, field: str = "refer_payer_case",
                    **write) -> None:
    with run.write("ehr", **write) as s:
        row = s.get(LbtData, (1001, field))
        row.field_value = text if field == "refer_payer_case" else f"{row.field_value} {text}"


def test_gold_request_scores_one(run):
    request(run)
    update_referral(run)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_case_id_in_the_referral_reason_counts(run):
    request(run)
    update_referral(run, field="body")
    assert run.score() == pytest.approx(1.0)


def test_untouched_scores_zero(run):
    assert run.score() == 0.0


@pytest.mark.parametrize("case", [{"rendering_npi": "1482039173"},   # the in-network surgeon
                                  {"rendering_tin": "35-2210947"}])
def test_each_identifier_is_half(run, case):
    request(run, **case)
    update_referral(run)
    assert run.score() == pytest.approx(IDS / 2 + DISTANCE + CLINICAL + EHR)


@pytest.mark.parametrize("kwargs", [{"detail": {"nearest_in_network_miles": 142.0}},
                                    {"search": False}])
def test_each_distance_part_is_half(run, kwargs):
    request(run, **kwargs)
    update_referral(run)
    assert run.score() == pytest.approx(IDS + DISTANCE / 2 + CLINICAL + EHR)


@pytest.mark.parametrize("kwargs", [{"detail": {"clinical_urgency": "routine"}},
                                    {"icd10_codes": "I37.1,Q21.3"},
                                    {"note": 1002}])            # the 2025 routine note
def test_each_clinical_part_is_a_third(run, kwargs):
    request(run, **kwargs)
    update_referral(run)
    assert run.score() == pytest.approx(IDS + DISTANCE + CLINICAL * 2 / 3 + EHR)


def test_wrong_case_id_in_the_referral(run):
    request(run)
    update_referral(run, text="PA26-042116")
    assert run.fractions() == [1.0, 1.0, 1.0, 0.0]


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(run, write):
    request(run, write=write)
    update_referral(run, **write)
    report = run.grade()
    assert report.score == 0.0
    assert {e["table"] for e in report.channel["exclusions"]} == {
        "pa_cases", "network_exceptions", "attachments", "lbt_data"}


def test_request_for_another_member_earns_nothing(run):
    request(run, member=14)
    assert run.score() == 0.0


def test_an_ordinary_request_is_not_the_exception(run):
    """An outpatient request with the right surgeon, codes and files is no gap exception."""
    request(run, case_type="outpatient")
    update_referral(run)
    assert run.fractions() == [0.0, 0.0, 0.0, 0.0]


def test_the_exception_is_graded_beside_an_ordinary_request(run):
    request(run, case_type="outpatient", reference_number="PA26-042610")
    request(run)
    update_referral(run)
    assert run.score() == pytest.approx(1.0)
