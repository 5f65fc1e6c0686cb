"""pa-02: five pending authorizations recorded in the EHR (40% cases 1-2; 40% cases 3-4;
20% case 5; each case all-or-nothing, an equal share within its item)."""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.acme import PaCase
from sandbox.stores.ehr import PriorAuthorization
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-02")
D = dt.date
# record id -> what the coordinator records (Acme's seeded decisions)
GOLD = {
    1001: {"status": "Approved", "auth_num": "A260418832", "units_approved": 1,
           "start_date": D(2026, 10, 12), "end_date": D(2027, 1, 9)},
    1002: {"status": "Denied"},
    1003: {"status": "Pended"},
    1004: {"status": "Approved", "auth_num": "A260419907", "units_approved": 2,
           "start_date": D(2026, 10, 16), "end_date": D(2027, 1, 13)},
    1005: {"status": "Approved", "auth_num": "A260420113", "units_approved": 1,
           "start_date": D(2026, 10, 17), "end_date": D(2026, 11, 15)},
}
WEIGHT = {1001: 0.20, 1002: 0.20, 1003: 0.20, 1004: 0.20, 1005: 0.20}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa02"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def record(run: Run, gold: dict[int, dict], **write) -> None:
    """What the EHR's authorization screen saves."""
    with run.write("ehr", **write) as s:
        for record_id, values in gold.items():
            row = s.get(PriorAuthorization, record_id)
            for key, value in values.items():
                setattr(row, key, value)
            row.decision_date = D(2026, 10, 16)
            row.updated = NOW
            row.updated_by = 12


def test_gold_matches_the_portals_seeded_decisions(run):
    for record_id, values in GOLD.items():
        ref = run.seeded("ehr", PriorAuthorization, record_id).portal_reference
        case = run.seeded_where("acme", PaCase, PaCase.reference_number == ref)[0]
        assert case.status == values["status"].lower()
        assert case.auth_number == values.get("auth_num")
        assert case.approved_units == values.get("units_approved")
        assert (case.approved_from, case.approved_to) == (values.get("start_date"),
                                                          values.get("end_date"))


def test_all_five_recorded_score_one(run):
    record(run, GOLD)
    assert run.fractions() == [1.0, 1.0, 1.0]


def test_untouched_scores_zero(run):
    assert run.score() == 0.0


@pytest.mark.parametrize("record_id, wrong", [
    (1001, {"auth_num": "A260418823"}),
    (1002, {"auth_num": "PA26-041352"}),        # a denial has no auth number
    (1003, {"status": "Submitted"}),
    (1004, {"units_approved": 3}),               # the requested, not the approved units
    (1005, {"end_date": D(2026, 12, 31)}),       # the requested, not the approved range
])
def test_one_wrong_value_loses_that_case(run, record_id, wrong):
    record(run, {k: ({**v, **wrong} if k == record_id else v) for k, v in GOLD.items()})
    assert run.score() == pytest.approx(1.0 - WEIGHT[record_id])


def test_only_cases_three_to_five_recorded(run):
    record(run, {k: v for k, v in GOLD.items() if k >= 1003})
    assert run.fractions() == [0.0, 1.0, 1.0]
    assert run.score() == pytest.approx(0.6)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}])
def test_writes_of_another_channel_or_episode_do_not_count(run, write):
    record(run, GOLD, **write)
    report = run.grade()
    assert report.score == 0.0
    assert {e["table"] for e in report.channel["exclusions"]} == {"prior_authorizations"}


def test_a_record_not_on_the_worklist_earns_nothing(run):
    # Garner's earlier, exhausted PT authorization is not the worklist's record
    record(run, {1006: GOLD[1001]})
    assert run.score() == 0.0
