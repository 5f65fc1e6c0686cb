"""pa-06: PA requirement lookup for eight procedures (80% yes/no per code; 20% rule IDs;
each an equal share over the eight rows)."""

from __future__ import annotations

import pytest

from sandbox.stores.acme import RuleLookup
from tests.verifier.tasks.pa_support import NOW, Run, seed_once, spec_of

SPEC = spec_of("pa-06")
YES_NO, RULES = 0.80, 0.20
GOLD = [("72148", "22", "yes", "R-GP-1001"), ("70450", "22", "no", "R-GP-1010"),
        ("29881", "24", "no", "R-GP-3002"), ("95810", "11", "yes", "R-GP-2001"),
        ("45378", "24", "no", "R-GP-3006"), ("J1745", "22", "yes", "R-GP-4001"),
        ("E0601", "12", "yes", "R-GP-6001"), ("97161", "11", "no", "R-GP-5002")]


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seed_once(SPEC, tmp_path_factory.mktemp("pa06"))


@pytest.fixture
def run(seeded, tmp_path):
    return Run(SPEC, seeded, tmp_path / "run")


def answer(run: Run, rows=GOLD, header: str = "code,place_of_service,pa_required,rule_id",
           lookups: bool = True) -> None:
    if lookups:
        with run.write("acme", actor="riverside.pa") as s:
            for code, place, required, rule in rows:
                s.add(RuleLookup(portal_user_id=1, plan_id=1, code=code, place_of_service=place,
                                 matched_rule_id=rule, requires_pa=required == "yes",
                                 looked_up_at=NOW))
    run.output("pa_required.csv", "\n".join([header] + [",".join(r) for r in rows]) + "\n")


def test_gold_answers_score_one(run):
    answer(run)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 1.0]
    assert len(report.checks[0].evidence["lookups"]) == 8


def test_header_and_answer_case_do_not_matter(run):
    answer(run, [(c.lower(), p, r.upper(), i.lower()) for c, p, r, i in GOLD],
           header="Code,Place_of_Service,PA_Required,Rule_ID")
    assert run.score() == pytest.approx(1.0)


def test_untouched_scores_zero(run):
    assert run.score() == 0.0


def test_place_dependent_rule_read_for_the_wrong_place(run):
    rows = [r if r[0] != "29881" else ("29881", "24", "yes", "R-GP-3001") for r in GOLD]
    answer(run, rows)
    assert run.score() == pytest.approx(YES_NO * 7 / 8 + RULES * 7 / 8)


def test_wrong_rule_id_only_costs_a_rule_share(run):
    rows = [r if r[0] != "J1745" else ("J1745", "22", "yes", "R-GP-4002") for r in GOLD]
    answer(run, rows)
    assert run.score() == pytest.approx(YES_NO + RULES * 7 / 8)


def test_missing_row_costs_both_shares(run):
    answer(run, GOLD[:-1])
    assert run.score() == pytest.approx((YES_NO + RULES) * 7 / 8)
