"""pa-13: the PT extension (25% linked extension; 25% units and dates, three parts; 30%
functional scores, four parts; 20% attachments, exactly two)."""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.acme import Attachment, AuthExtension, PaCase
from sandbox.stores.ehr import Document
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-13")
LINKED, DATES, SCORES, ATTACH = 0.25, 0.25, 0.30, 0.20
OWENS = 13


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa13"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def extend(run: Run, *, docs=(1003, 1004), member: int = OWENS, detail: dict | None = None,
           write: dict | None = None, **case) -> None:
    """The portal's 'request more units' form on an approved case."""
    contents = [run.seeded("ehr", Document, d) for d in docs]
    with run.write("acme", actor="riverside.pa", **(write or {})) as s:
        row = PaCase(**{"reference_number": "PA26-042470", "case_type": "extension",
                        "status": "in_review", "member_id": member, "plan_id": 1,
                        "parent_case_id": 1000, "service_code_type": "CPT",
                        "service_code": "97110", "units": 8, "unit_type": "visits",
                        "service_from": dt.date(2026, 10, 24),
                        "service_to": dt.date(2026, 11, 20), "icd10_codes": "M17.11",
                        "submitted_via": "portal", "created_by": "riverside.pa",
                        "created_at": NOW, "submitted_at": NOW, **case})
        s.add(row)
        s.flush()
        s.add(AuthExtension(**{"case_id": row.id, "base_case_id": 1000,
                               "base_auth_number": "A260331207", "visits_used": 11,
                               "outcome_measure": "LEFS", "baseline_score": 32,
                               "current_score": 51, "goal_score": 65, "pain_score": 3,
                               **(detail or {})}))
        for doc in contents:
            s.add(Attachment(case_id=row.id, filename=doc.name, content=doc.document_data,
                             document_type="progress_note", uploaded_at=NOW))


def test_gold_extension_scores_one(run):
    extend(run)
    assert run.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_untouched_scores_zero(run):
    assert run.score() == 0.0


def test_new_outpatient_case_is_not_a_linked_extension(run):
    extend(run, case_type="outpatient", parent_case_id=None, detail={"base_case_id": 1000})
    assert run.fractions() == [0.0, 1.0, 1.0, 1.0]


def test_extension_linked_only_through_its_detail_row(run):
    extend(run, parent_case_id=None)
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("link", ["parent", "detail"])
def test_an_extension_also_linked_to_another_case_is_not_linked(run, link):
    """Either link to case 1000 will do, but not one link to 1000 and the other to another
    of her requests (here a draft the office left)."""
    with run.write("acme", actor="riverside.pa") as s:
        other = PaCase(reference_number=None, case_type="outpatient", status="draft",
                       member_id=OWENS, plan_id=1, submitted_via="portal",
                       created_by="riverside.pa", created_at=NOW)
        s.add(other)
        s.flush()
        other_id = other.id
    if link == "parent":
        extend(run, parent_case_id=other_id)
    else:
        extend(run, detail={"base_case_id": other_id})
    assert run.fractions() == [0.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize("change", [{"units": 12}, {"service_to": dt.date(2026, 11, 21)}])
def test_each_of_units_and_dates_is_a_third(run, change):
    extend(run, **change)
    assert run.score() == pytest.approx(LINKED + DATES * 2 / 3 + SCORES + ATTACH)


@pytest.mark.parametrize("change", [{"current_score": 41}, {"pain_score": 5}])  # old note
def test_each_score_is_a_quarter(run, change):
    extend(run, detail=change)
    assert run.score() == pytest.approx(LINKED + DATES + SCORES * 3 / 4 + ATTACH)


@pytest.mark.parametrize("docs, fraction", [((1002, 1004), 1 / 2),
                                            ((1001, 1003, 1004), 2 / 3)])
def test_attachments_are_the_latest_note_and_the_plan(run, docs, fraction):
    extend(run, docs=docs)
    assert run.score() == pytest.approx(LINKED + DATES + SCORES + ATTACH * fraction)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_rows_of_another_channel_or_episode_do_not_count(run, write):
    extend(run, write=write)
    report = run.grade()
    assert report.score == 0.0
    assert {e["table"] for e in report.channel["exclusions"]} == {
        "pa_cases", "auth_extensions", "attachments"}


def test_extension_for_another_member_earns_nothing(run):
    extend(run, member=14)
    assert run.score() == 0.0
