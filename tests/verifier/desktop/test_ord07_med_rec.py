"""ord-07 (PowerChart admission med rec of 8 home medications) graded on client-like runs.

Split from the seed: 60% actions per med (one eighth each; the held drug's eighth split
between the action and its reason); 20% modified doses (half each); 20% signed and orders
generated (half each).
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests.verifier.desktop.runs import NOW, DesktopRun, flagged, seeded, sign_orders
from verifier import OTHER_PATIENT

ROSA, ROSE = 1, 2
REC, ROSE_REC = 1001, 1002
ACTIONS, DOSES, SIGNED = 0.60, 0.20, 0.20
PLAN = {1001: {"action": "continue"}, 1002: {"action": "continue"},
        1003: {"action": "continue"}, 1004: {"action": "modify", "new_dose": 10},
        1005: {"action": "modify", "new_dose": 25}, 1006: {"action": "discontinue"},
        1007: {"action": "discontinue"},
        1008: {"action": "hold", "hold_reason": "Hold until surgery (bleeding risk)"}}


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return seeded("ord-07", tmp_path_factory)


def reconcile(run: DesktopRun, changes: dict[int, dict] | None = None, *, rec_id: int = REC,
              sign: bool = True, **write) -> None:
    """What the client's sign_med_rec writes: items, generated orders, the signature."""
    plan = {k: dict(v) for k, v in PLAN.items()}
    for home_id, change in (changes or {}).items():
        plan[home_id].update(change)
    m = run.m
    with run.write(**write) as s:
        user = run.user_row(s)
        rec = s.get(m.MedRec, rec_id)
        rec.started_at, rec.started_by_user_id = NOW, user.id
        for item in s.scalars(select(m.MedRecItem).where(m.MedRecItem.med_rec_id == rec_id)):
            decision = plan[item.home_medication_id]
            home = s.get(m.HomeMedication, item.home_medication_id)
            item.action = decision["action"]
            modified = item.action == "modify"
            item.new_dose = decision.get("new_dose") if modified else None
            item.new_dose_unit = home.dose_unit if modified else None
            item.new_route = home.route if modified else None
            item.new_frequency = decision.get("new_frequency", home.frequency) \
                if modified else None
            item.hold_reason = decision.get("hold_reason") if item.action == "hold" else None
            s.flush()
            if item.action in ("continue", "modify"):
                order, = sign_orders(run, s, rec.patient_id, rec.encounter_id, [{
                    "orderable_id": item.orderable_id,
                    "order_name": s.get(m.Orderable, item.orderable_id).name,
                    "order_type": "medication",
                    "dose": item.new_dose if modified else home.dose,
                    "dose_unit": home.dose_unit, "route": home.route,
                    "frequency": item.new_frequency if modified else home.frequency,
                    "prn": home.prn, "prn_reason": home.prn_reason}])
                item.generated_order_id = order.id
        if sign:
            rec.status, rec.signed_at, rec.signed_by_user_id = "complete", NOW, user.id
        else:
            rec.status = "in_progress"


def test_planned_reconciliation_scores_one(task):
    run = task.run()
    reconcile(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"] == {"insert": 5, "update": 9, "delete": 0, "stray": 0}


def test_untouched_run_scores_zero(task):
    report = task.run().grade()
    assert report.score == pytest.approx(0.0)


@pytest.mark.parametrize("changes, lost", [
    ({1006: {"action": "hold", "hold_reason": "until surgery"}}, ACTIONS / 8),
    ({1008: {"hold_reason": "bleeding risk"}}, ACTIONS / 16),
    ({1004: {"new_dose": 5}}, DOSES / 2),
    ({1005: {"new_frequency": "DAILY"}}, DOSES / 2),
    # an order for a drug that should not have one: the action and the orders part
    ({1007: {"action": "continue"}}, ACTIONS / 8 + SIGNED / 2),
    # continued instead of modified: the action, the dose, and the generated order is fine
    ({1004: {"action": "continue"}}, ACTIONS / 8 + DOSES / 2),
    # held instead of continued: no order generated for it
    ({1003: {"action": "hold", "hold_reason": "NPO for surgery"}}, ACTIONS / 8 + SIGNED / 2),
], ids=["ibuprofen-held", "hold-reason-without-surgery", "lisinopril-5mg", "metoprolol-daily",
        "zolpidem-continued", "lisinopril-continued", "omeprazole-held"])
def test_each_wrong_decision_costs_its_share(task, changes, lost):
    run = task.run()
    reconcile(run, changes)
    assert run.grade().score == pytest.approx(1.0 - lost)


def test_unsigned_reconciliation_loses_the_signature_half(task):
    run = task.run()
    reconcile(run, sign=False)
    assert run.grade().score == pytest.approx(1.0 - SIGNED / 2)


def test_an_extra_medication_order_loses_the_orders_half(task):
    run = task.run()
    reconcile(run)
    with run.write() as s:
        sign_orders(run, s, ROSA, 1, [{"orderable_id": 115, "order_type": "medication",
                                       "order_name": "clopidogrel (PLAVIX) tablet", "dose": 75,
                                       "dose_unit": "mg", "route": "PO", "frequency": "DAILY"}])
    assert run.grade().score == pytest.approx(1.0 - SIGNED / 2)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}],
                         ids=["api", "other-episode"])
def test_gold_rows_from_another_channel_or_episode_do_not_count(task, write):
    run = task.run()
    reconcile(run, **write)
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert {e["table"] for e in report.channel["exclusions"]} == {
        "med_recs", "med_rec_items", "orders"}


def test_orders_for_the_look_alike_earn_nothing_and_are_flagged(task):
    """Rose's completed rec generated orders for her: a look-alike's chart written to."""
    run = task.run()
    with run.write() as s:
        sign_orders(run, s, ROSE, 2, [{"orderable_id": 143, "order_type": "medication",
                                       "order_name": "atorvastatin (LIPITOR) tablet",
                                       "dose": 40, "dose_unit": "mg", "route": "PO",
                                       "frequency": "QHS"}])
        s.get(run.m.MedRec, ROSE_REC).signed_by_user_id = run.user_row(s).id
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert sorted(flagged(report, OTHER_PATIENT)) == [
        f"powerchart.med_recs#{ROSE_REC}", "powerchart.orders#1022"]


def test_the_clients_own_reconciliation_scores_one(task):
    """Contract with desktop_ehr: its sign_med_rec grades as the rows above."""
    run = task.run()
    with run.client() as (ctx, ref):
        from desktop_ehr.services import medrec

        state = medrec.load_med_rec(ctx, ROSA, 1, "admission", ref)
        for row in state.rows:
            for key, value in PLAN[row.home_medication_id].items():
                setattr(row, key, value)
        medrec.sign_med_rec(ctx, state, ref)
    assert run.grade().score == pytest.approx(1.0)


@pytest.mark.parametrize("change", [{"patient_id": ROSE}, {"rec_type": "discharge"}],
                         ids=["moved-to-rose", "made-a-discharge-rec"])
def test_a_reconciliation_the_run_moved_or_retyped_fails_every_item(task, change):
    """Issue 14: this gave 'could not grade' (score None). The seed has her admission
    reconciliation and the run changed it: no longer hers, or no longer the admission's,
    it earns nothing. (Through the audited writer: the client cannot do it.)"""
    run = task.run()
    reconcile(run)
    with run.write() as s:
        rec = s.get(run.m.MedRec, REC)
        for key, value in change.items():
            setattr(rec, key, value)
    report = run.grade()  # asserts every item is graded
    assert [c.fraction for c in report.checks] == [0.0, 0.0, 0.0]
    assert report.score == pytest.approx(0.0)
    assert "moved the seeded reconciliation" in report.checks[0].evidence["found"]
