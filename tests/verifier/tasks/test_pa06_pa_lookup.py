"""pa-06: PA requirement lookup for eight procedures (80% yes/no per code; 20% rule IDs;
each an equal share over the eight rows; a row's answer counts only when its code was
looked up in the portal through the browser in this episode)."""

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


def look_up(run: Run, rows=GOLD, **write) -> None:
    """What the portal's PA requirement lookup records, one row per search."""
    with run.write("acme", actor="riverside.pa", **write) as s:
        for code, place, required, rule in rows:
            s.add(RuleLookup(portal_user_id=1, plan_id=1, code=code, place_of_service=place,
                             matched_rule_id=rule, requires_pa=required == "yes",
                             looked_up_at=NOW))


def answer(run: Run, rows=GOLD, header: str = "code,place_of_service,pa_required,rule_id",
           lookups: bool = True) -> None:
    if lookups:
        look_up(run, rows)
    run.output("pa_required.csv", "\n".join([header] + [",".join(r) for r in rows]) + "\n")


def test_gold_answers_score_one(run):
    answer(run)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 1.0]
    assert all(len(part["lookup"]) == 1 for part in report.checks[0].evidence["parts"])
    assert report.footprint["reads"] and report.footprint["counts"]["stray"] == 0


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
    """The portal showed J1745's rule; the file names another."""
    look_up(run)
    rows = [r if r[0] != "J1745" else ("J1745", "22", "yes", "R-GP-4002") for r in GOLD]
    answer(run, rows, lookups=False)
    assert run.score() == pytest.approx(YES_NO + RULES * 7 / 8)


@pytest.mark.parametrize("code, wrong", [("E0601", "no"), ("70450", "yes"), ("45378", "")])
def test_wrong_yes_no_only_costs_a_yes_no_share(run, code, wrong):
    """The portal showed the row's rule and the file names it, but the answer is not the
    rule's (the output file's values are graded here: the sensitivity suite changes store
    columns only)."""
    look_up(run)
    rows = [r if r[0] != code else (r[0], r[1], wrong, r[3]) for r in GOLD]
    answer(run, rows, lookups=False)
    assert run.score() == pytest.approx(YES_NO * 7 / 8 + RULES)


def test_missing_row_costs_both_shares(run):
    answer(run, GOLD[:-1])
    assert run.score() == pytest.approx((YES_NO + RULES) * 7 / 8)


def test_answers_without_any_lookup_earn_nothing(run):
    """The right file typed from memory: the seed counts only browser-session lookups."""
    answer(run, lookups=False)
    report = run.grade()
    assert report.score == 0.0
    assert report.checks[0].evidence["parts"][0]["lookup"] == (
        "no browser lookup of this code in this episode")


def test_a_code_not_looked_up_loses_its_row(run):
    look_up(run, [r for r in GOLD if r[0] != "E0601"])
    answer(run, lookups=False)
    assert run.score() == pytest.approx((YES_NO + RULES) * 7 / 8)


def test_a_lookup_at_another_place_of_service_does_not_answer_the_row(run):
    """29881 looked up at POS 22 shows R-GP-3001: the right answer for POS 24 written
    anyway was not read from the portal."""
    look_up(run, [r if r[0] != "29881" else ("29881", "22", "yes", "R-GP-3001")
                  for r in GOLD])
    answer(run, lookups=False)
    assert run.score() == pytest.approx((YES_NO + RULES) * 7 / 8)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"},
                                   {"channel": "desktop"}])
def test_lookups_not_made_in_this_episodes_browser_do_not_count(run, write):
    look_up(run, **write)
    answer(run, lookups=False)
    assert run.score() == 0.0


def test_lookups_are_read_records_not_stray_writes(run):
    """pa-06 declares no Acme table it may write: its lookups, even repeated, are reads."""
    assert SPEC.may_touch.get("acme") == []
    look_up(run)
    look_up(run, GOLD[:2])   # the same searches again
    answer(run, lookups=False)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert len(report.footprint["reads"]) == 10
    assert report.footprint["counts"]["stray"] == 0
