"""ord-20 (Hyperspace warfarin / enoxaparin bridging) graded on runs written like the client.

Split from the seed: 20% warfarin hold; 35% enoxaparin dose and dates (four equal parts);
20% INR checks (half each); 25% resumption orders (half warfarin, half the enoxaparin
restart in four equal parts). Dates are graded by the doses they produce.
"""

from __future__ import annotations

import datetime as dt

import pytest

from tests.verifier.desktop.runs import DesktopRun, flagged, seeded, sign_orders
from verifier import OTHER_PATIENT, OUTSIDE_SCOPE

FRANK, FRANKLIN = 7, 8
FRANK_ENCOUNTER, FRANKLIN_ENCOUNTER = 1001, 9
HOME_WARFARIN, FRANKLIN_WARFARIN = 1001, 1020
HOLD, ENOX, INR, RESUME = 0.20, 0.35, 0.20, 0.25


def at(month: int, day: int, hour: int = 0, minute: int = 0) -> dt.datetime:
    return dt.datetime(2026, month, day, hour, minute)


ENOX_PRE = {"orderable_id": 110, "order_name": "enoxaparin (LOVENOX) injection",
            "order_type": "medication", "dose": 92, "dose_unit": "mg", "route": "SC",
            "frequency": "Q12H", "dose_per_kg": 1, "dosing_weight_kg": 92.0,
            "start_at": at(10, 23, 8), "stop_at": at(10, 25, 8)}
ENOX_POST = {**ENOX_PRE, "start_at": at(10, 28, 20), "stop_at": at(11, 2, 8)}
INR_DAY_MINUS_1 = {"orderable_id": 206, "order_name": "Protime-INR", "order_type": "lab",
                   "specimen": "Blood", "start_at": at(10, 25, 8)}
INR_DAY_PLUS_4 = {**INR_DAY_MINUS_1, "start_at": at(10, 30, 8)}
WARFARIN = {"orderable_id": 112, "order_name": "warfarin (COUMADIN) tablet",
            "order_type": "medication", "dose": 5, "dose_unit": "mg", "route": "PO",
            "frequency": "QPM", "start_at": at(10, 26, 18)}
HOLD_ACTION = {"status": "held", "hold_start_at": at(10, 21), "hold_end_at": at(10, 26, 18),
               "hold_reason": "Colonoscopy with polypectomy 10/26 (bridging protocol)"}
STOP_ACTION = {"status": "discontinued", "discontinued_at": at(10, 20, 18),
               "discontinue_reason": "Peri-procedural hold; resume 10/26 per protocol"}


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return seeded("ord-20", tmp_path_factory)


def bridge(run: DesktopRun, *, action: dict | None = None, orders: list[dict] | None = None,
           home: int = HOME_WARFARIN, patient: int = FRANK, encounter: int = FRANK_ENCOUNTER,
           **write) -> None:
    """One Sign: the action on the home warfarin order and the new orders."""
    with run.write(**write) as s:
        if action is not None:
            order = s.get(run.m.Order, home)
            for key, value in action.items():
                setattr(order, key, value)
            if order.status == "discontinued":
                order.discontinued_by_user_id = run.user_row(s).id
        if orders:
            sign_orders(run, s, patient, encounter, orders)


def held(**changes) -> dict:
    return {"action": {**HOLD_ACTION, **changes},
            "orders": [ENOX_PRE, INR_DAY_MINUS_1, INR_DAY_PLUS_4, ENOX_POST]}


def stopped(**changes) -> dict:
    return {"action": {**STOP_ACTION, **changes},
            "orders": [ENOX_PRE, INR_DAY_MINUS_1, INR_DAY_PLUS_4, WARFARIN, ENOX_POST]}


def replaced(plan: dict, old: dict, new: dict | None) -> dict:
    orders = [new if o is old else o for o in plan["orders"]]
    return {**plan, "orders": [o for o in orders if o is not None]}


@pytest.mark.parametrize("plan", [
    held(),
    stopped(),
    replaced(stopped(), WARFARIN, {**WARFARIN, "start_at": at(10, 26)}),
    held(hold_start_at=at(10, 21, 18), hold_end_at=at(10, 26)),
    held(hold_start_at=at(10, 20, 20)),                           # after the last dose
    {**held(hold_end_at=None), "orders": held()["orders"] + [WARFARIN]},
    replaced(held(), ENOX_PRE, {**ENOX_PRE, "start_at": at(10, 23, 7),
                                "stop_at": at(10, 25, 12)}),
], ids=["hold-with-end", "stop-and-new-order", "new-order-from-midnight", "hold-times-shifted",
        "hold-from-evening-before", "open-hold-and-new-order", "enoxaparin-times-shifted"])
def test_gold_plan_in_each_representation_scores_one(task, plan):
    run = task.run()
    bridge(run, **plan)
    report = run.grade()
    assert report.score == pytest.approx(1.0), report.render_text()
    # the engine's duplicate flag ignores date-times, so the gold's two INR orders and two
    # enoxaparin orders (which differ only in dates) are flagged 'duplicate'; no check of
    # this task reads that flag
    assert flagged(report, OTHER_PATIENT) == flagged(report, OUTSIDE_SCOPE) == []


def test_untouched_run_scores_zero(task):
    assert task.run().grade().score == pytest.approx(0.0)


@pytest.mark.parametrize("plan, lost", [
    (held(hold_start_at=at(10, 19, 9)), HOLD),                    # held from today
    (held(hold_start_at=at(10, 22)), HOLD),                       # one dose too many
    (stopped(discontinued_at=at(10, 19, 9)), HOLD),               # stopped now
    (replaced(held(), ENOX_PRE, {**ENOX_PRE, "dose": 88}), ENOX / 4),   # look-alike weight
    (replaced(held(), ENOX_PRE, {**ENOX_PRE, "dose": 94}), ENOX / 4),   # old weight
    (replaced(held(), ENOX_PRE, {**ENOX_PRE, "route": "IV"}), ENOX / 4),
    (replaced(held(), ENOX_PRE, {**ENOX_PRE, "start_at": at(10, 22, 20)}), ENOX / 4),
    (replaced(held(), ENOX_PRE, {**ENOX_PRE, "stop_at": at(10, 25, 20)}), ENOX / 4),
    (replaced(held(), ENOX_PRE, {**ENOX_PRE, "stop_at": None}), ENOX / 4),
    (replaced(held(), ENOX_PRE, None), ENOX),
    (replaced(held(), INR_DAY_PLUS_4, None), INR / 2),
    (replaced(held(), INR_DAY_MINUS_1, {**INR_DAY_MINUS_1, "start_at": at(10, 24, 8)}),
     INR / 2),
    (held(hold_end_at=at(10, 27, 18)), RESUME / 2),               # resumed a day late
    (held(hold_end_at=None), RESUME / 2),                         # never resumed
    ({**held(), "orders": held()["orders"] + [WARFARIN]}, RESUME / 2),  # two regimens
    (replaced(stopped(), WARFARIN, {**WARFARIN, "dose": 7.5}), RESUME / 2),
    (replaced(held(), ENOX_POST, {**ENOX_POST, "start_at": at(10, 28, 8)}), RESUME / 2 / 4),
    (replaced(held(), ENOX_POST, {**ENOX_POST, "dose": 88}), RESUME / 2 / 4),
    (replaced(held(), ENOX_POST, None), RESUME / 2),
], ids=["hold-from-today", "hold-from-10-22", "discontinued-now", "enox-88mg", "enox-94mg",
        "enox-iv", "enox-start-10-22-20h", "enox-stop-10-25-20h", "enox-no-stop", "no-enox",
        "no-day-plus-4-inr", "inr-day-minus-2", "warfarin-resumed-late", "never-resumed",
        "double-warfarin", "warfarin-7.5mg", "enox-restart-08h", "enox-restart-88mg",
        "no-enox-restart"])
def test_each_wrong_value_costs_its_share(task, plan, lost):
    run = task.run()
    bridge(run, **plan)
    assert run.grade().score == pytest.approx(1.0 - lost)


def test_one_order_through_the_procedure_is_the_pre_order_with_a_wrong_last_dose(task):
    run = task.run()
    bridge(run, **replaced(replaced(held(), ENOX_POST, None), ENOX_PRE,
                           {**ENOX_PRE, "stop_at": at(11, 2, 8)}))
    assert run.grade().score == pytest.approx(1.0 - ENOX / 4 - RESUME / 2)


def test_enoxaparin_daily_misses_the_route_frequency_and_both_dose_times(task):
    """Daily doses fall at 09:00: the frequency part and both dose-time parts are wrong."""
    run = task.run()
    bridge(run, **replaced(held(), ENOX_PRE, {**ENOX_PRE, "frequency": "DAILY"}))
    assert run.grade().score == pytest.approx(1.0 - 3 * ENOX / 4)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}],
                         ids=["api", "other-episode"])
def test_plan_from_another_channel_or_episode_does_not_count(task, write):
    run = task.run()
    bridge(run, **held(), **write)
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert [(e["table"], e["rows"]) for e in report.channel["exclusions"]] == [("orders", 5)]


def test_plan_entered_for_the_look_alike_earns_nothing_and_is_flagged(task):
    run = task.run()
    bridge(run, **held(), home=FRANKLIN_WARFARIN, patient=FRANKLIN,
           encounter=FRANKLIN_ENCOUNTER)
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    other = flagged(report, OTHER_PATIENT)
    assert f"hyperspace.orders#{FRANKLIN_WARFARIN}" in other and len(other) == 5


def test_the_clients_own_sign_with_a_hold_scores_one(task):
    """Contract with desktop_ehr: its drafts, hold action and Sign grade as above."""
    run = task.run()
    with run.client() as (ctx, ref):
        from desktop_ehr.services import orders, signing

        drafts = []
        for spec in (ENOX_PRE, INR_DAY_MINUS_1, INR_DAY_PLUS_4, ENOX_POST):
            draft = orders.draft_for(ref.orderables[spec["orderable_id"]], ctx.now(), ref)
            for key in ("dose", "frequency", "start_at", "stop_at", "dose_per_kg",
                        "dosing_weight_kg"):
                if key in spec:
                    setattr(draft, key, spec[key])
            drafts.append(draft)
        hold = signing.OrderAction("hold", HOME_WARFARIN, "warfarin",
                                   hold_from=HOLD_ACTION["hold_start_at"],
                                   hold_until=HOLD_ACTION["hold_end_at"],
                                   reason=HOLD_ACTION["hold_reason"])
        signing.sign_orders(ctx, FRANK, FRANK_ENCOUNTER, drafts, ref, actions=[hold])
    assert run.grade().score == pytest.approx(1.0)


# -- issue 14 ---------------------------------------------------------------------------------
def sign_through_the_client(run: DesktopRun, prn: bool) -> None:
    """The gold plan as the client drafts and signs it, both enoxaparin orders with the
    composer's PRN box ticked or not."""
    with run.client() as (ctx, ref):
        from desktop_ehr.services import orders, signing

        drafts = []
        for spec in (ENOX_PRE, INR_DAY_MINUS_1, INR_DAY_PLUS_4, ENOX_POST):
            draft = orders.draft_for(ref.orderables[spec["orderable_id"]], ctx.now(), ref)
            for key in ("dose", "frequency", "start_at", "stop_at", "dose_per_kg",
                        "dosing_weight_kg"):
                if key in spec:
                    setattr(draft, key, spec[key])
            if spec["orderable_id"] == 110 and prn:
                draft.prn, draft.prn_reason = True, "per protocol"
            drafts.append(draft)
        hold = signing.OrderAction("hold", HOME_WARFARIN, "warfarin",
                                   hold_from=HOLD_ACTION["hold_start_at"],
                                   hold_until=HOLD_ACTION["hold_end_at"],
                                   reason=HOLD_ACTION["hold_reason"])
        signing.sign_orders(ctx, FRANK, FRANK_ENCOUNTER, drafts, ref, actions=[hold])


def test_both_enoxaparin_orders_entered_as_prn_schedule_no_doses(task):
    """Issue 14: PRN enoxaparin (no scheduled doses) scored 1.0. Each order keeps its dose
    part; the scheduled q12h part and both dose-date parts fail."""
    run = task.run()
    sign_through_the_client(run, prn=True)
    report = run.grade()
    assert [c.fraction for c in report.checks] == pytest.approx([1.0, 1 / 4, 1.0, 1 - 3 / 8])
    assert report.score == pytest.approx(1.0 - ENOX * 3 / 4 - RESUME * 3 / 8)  # 0.64375
    pre = {p["part"]: p["fraction"] for p in report.checks[1].evidence["parts"]}
    assert pre == {"dose 92 mg": 1.0, "SC every 12 hours": 0.0,
                   "first dose 2026-10-23 08:00:00": 0.0, "last dose 2026-10-25 08:00:00": 0.0}


@pytest.mark.parametrize("fate", ["deleted", "moved to the look-alike", "turned into heparin"])
def test_a_home_warfarin_the_run_changed_is_graded_not_voided(task, fate):
    """Issue 14: the seeded home warfarin deleted, moved or changed gave 'could not grade'.
    It is the run's doing: the hold fails, and so does the resumption through that order.
    (The client cannot delete or move an order: these are written through the audited
    writer, as a wrong run's writes would be.)"""
    run = task.run()
    bridge(run, **held())
    with run.write() as s:
        home = s.get(run.m.Order, HOME_WARFARIN)
        if fate == "deleted":
            s.delete(home)
        elif fate == "moved to the look-alike":
            home.patient_id = FRANKLIN
        else:
            home.orderable_id, home.order_name = 111, "heparin injection (subcutaneous)"
    report = run.grade()  # asserts every item is graded
    assert [c.fraction for c in report.checks] == [0.0, 1.0, 1.0, 0.5]
    assert report.score == pytest.approx(1.0 - HOLD - RESUME / 2)  # 0.675
    assert report.checks[0].status == "graded"
