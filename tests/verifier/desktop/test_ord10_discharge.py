"""ord-10 (Hyperspace Discharge Navigator) graded on runs written like the client.

Split from the seed: 40% med reconciliation (a seventh per medication, more shares for
medications added beyond the plan); 25% follow-ups (half each, two equal parts each); 15%
instructions (a fifth per section); 20% discharge order signed (forfeited by an AVS print).
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests.verifier.desktop.runs import NOW, DesktopRun, flagged, seeded, sign_orders
from verifier import OTHER_PATIENT, OUTSIDE_SCOPE

IVY, IVY_B = 3, 4  # MRN E1006577 (the task's) and E1006575 (same name)
REC, DISCHARGE = 1001, 1001
MEDS, FOLLOW, INSTRUCTIONS, ORDER = 0.40, 0.25, 0.15, 0.20
PLAN = {147: {"action": "change", "new_dose": 40}, 150: {"action": "stop"},
        143: {"action": "continue"}, 148: {"action": "continue"}, 142: {"action": "continue"},
        151: {"action": "new", "new_dose": 25}, 152: {"action": "new", "new_dose": 10}}
SECTIONS = {
    "Why You Were in the Hospital": "Your heart was not pumping strongly enough.",
    "Your Medicines": "New: spironolactone 25 mg and empagliflozin 10 mg daily. Stop "
                      "diltiazem. Furosemide is now 40 mg daily.",
    "Diet and Daily Weights": "Less than 2,000 mg sodium, 2 liters of fluid a day.",
    "Activity": "Walk every day; no lifting over 10 pounds for 2 weeks.",
    "When to Call Your Doctor": "Weight up more than 1 kg in a day or 2 kg in a week.",
}
PCP = {"orderable_id": 304, "order_name": "Follow-up appointment request",
       "order_type": "appointment", "department_id": 10, "timeframe_value": 7,
       "timeframe_unit": "days", "start_at": None}
CARDIOLOGY = {**PCP, "department_id": 11, "timeframe_value": 4, "timeframe_unit": "weeks"}
DISCHARGE_ORDER = {"orderable_id": 303, "order_name": "Discharge patient",
                   "order_type": "discharge", "details": {"Disposition": "Home or Self Care"}}


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return seeded("ord-10", tmp_path_factory)


def complete_section(run: DesktopRun, s, section: str) -> None:
    m = run.m
    row = s.scalars(select(m.DischargeSection).where(
        m.DischargeSection.discharge_id == DISCHARGE,
        m.DischargeSection.section == section)).one()
    row.status, row.completed_at, row.completed_by_user_id = "complete", NOW, \
        run.user_row(s).id


def reconcile(run: DesktopRun, changes: dict[int, dict] | None = None, **write) -> None:
    """The client's discharge sign_med_rec: items, discharge prescriptions, signature."""
    plan = {k: dict(v) for k, v in PLAN.items()}
    for orderable, change in (changes or {}).items():
        plan[orderable].update(change)
    m = run.m
    with run.write(**write) as s:
        user = run.user_row(s)
        rec = s.get(m.MedRec, REC)
        rec.status, rec.started_at, rec.started_by_user_id = "in_progress", NOW, user.id
        for item in s.scalars(select(m.MedRecItem).where(m.MedRecItem.med_rec_id == REC)):
            decision = plan[item.orderable_id]
            home = s.get(m.HomeMedication, item.home_medication_id) \
                if item.home_medication_id else None
            source = s.get(m.Order, item.source_order_id) if item.source_order_id else None
            basis = home or source
            item.action = decision["action"]
            changed = item.action in ("change", "new")
            item.new_dose = decision.get("new_dose") if changed else None
            item.new_dose_unit = basis.dose_unit if changed else None
            item.new_route = decision.get("new_route", basis.route) if changed else None
            item.new_frequency = basis.frequency if changed else None
            s.flush()
            if changed:
                order, = sign_orders(run, s, IVY, 3, [{
                    "orderable_id": item.orderable_id, "order_type": "medication",
                    "order_name": s.get(m.Orderable, item.orderable_id).name,
                    "order_mode": "discharge", "dose": item.new_dose,
                    "dose_unit": item.new_dose_unit, "route": item.new_route,
                    "frequency": item.new_frequency, "admission_order_id": None}])
                item.generated_order_id = order.id
        rec.status, rec.signed_at, rec.signed_by_user_id = "complete", NOW, user.id
        s.get(m.Discharge, DISCHARGE).med_rec_id = REC
        complete_section(run, s, "Discharge Med Rec")


def follow_up(run: DesktopRun, orders: list[dict], patient: int = IVY, **write) -> None:
    with run.write(**write) as s:
        sign_orders(run, s, patient, patient, orders)
        if patient == IVY:
            complete_section(run, s, "Follow-up")


def write_instructions(run: DesktopRun, sections: dict[str, str] | None = None,
                       **write) -> None:
    m = run.m
    with run.write(**write) as s:
        user = run.user_row(s)
        instr = m.PatientInstruction(patient_id=IVY, encounter_id=3, template_id=1,
                                     status="signed", author_user_id=user.id,
                                     created_at=NOW, signed_at=NOW)
        s.add(instr)
        s.flush()
        for sort, (heading, text) in enumerate((sections or SECTIONS).items(), start=1):
            s.add(m.PatientInstructionSection(instruction_id=instr.id, heading=heading,
                                              text=text, sort=sort))
        s.get(m.Discharge, DISCHARGE).patient_instructions_id = instr.id
        complete_section(run, s, "Patient Instructions")


def sign_discharge(run: DesktopRun, **write) -> None:
    with run.write(**write) as s:
        order, = sign_orders(run, s, IVY, 3, [DISCHARGE_ORDER])
        discharge = s.get(run.m.Discharge, DISCHARGE)
        discharge.discharge_order_id = order.id
        discharge.expected_discharge_at = NOW
        complete_section(run, s, "Discharge Order")


def print_avs(run: DesktopRun, patient: int = IVY) -> None:
    with run.write() as s:
        s.add(run.m.AvsEvent(patient_id=patient, encounter_id=patient, action="print", at=NOW,
                             user_id=run.user_row(s).id, printer="4W-NURSE-01"))
        if patient == IVY:
            complete_section(run, s, "After Visit Summary")


def discharge_all(run: DesktopRun, **write) -> None:
    reconcile(run, **write)
    follow_up(run, [PCP, CARDIOLOGY], **write)
    write_instructions(run, **write)
    sign_discharge(run, **write)


def test_planned_discharge_scores_one(task):
    run = task.run()
    discharge_all(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"]["stray"] == 0


def test_untouched_run_scores_zero(task):
    assert task.run().grade().score == pytest.approx(0.0)


@pytest.mark.parametrize("changes, lost", [
    ({147: {"new_dose": 20}}, MEDS / 7),                       # dose change missed
    ({150: {"action": "continue"}}, MEDS / 7),                 # diltiazem not stopped
    ({151: {"new_dose": 12.5}}, MEDS / 7),
    ({152: {"new_route": "IV"}}, MEDS / 7),
    ({143: {"action": "stop"}, 148: {"action": "stop"}}, 2 * MEDS / 7),
], ids=["furosemide-20mg", "diltiazem-continued", "spironolactone-12.5mg", "empagliflozin-iv",
        "two-stopped"])
def test_each_wrong_medication_costs_a_seventh(task, changes, lost):
    run = task.run()
    reconcile(run, changes)
    follow_up(run, [PCP, CARDIOLOGY])
    write_instructions(run)
    sign_discharge(run)
    assert run.grade().score == pytest.approx(1.0 - lost)


def test_a_medication_added_beyond_the_plan_is_one_more_failed_share(task):
    run = task.run()
    reconcile(run)
    with run.write() as s:
        s.add(run.m.MedRecItem(med_rec_id=REC, orderable_id=154, action="new", new_dose=20,
                               new_dose_unit="mEq", new_route="PO", new_frequency="DAILY",
                               medication="potassium chloride ER tablet", sort=8))
    follow_up(run, [PCP, CARDIOLOGY])
    write_instructions(run)
    sign_discharge(run)
    assert run.grade().score == pytest.approx(1.0 - MEDS / 8)


@pytest.mark.parametrize("orders, lost", [
    ([PCP, {**CARDIOLOGY, "timeframe_value": 28, "timeframe_unit": "days"}], 0.0),
    ([{**PCP, "timeframe_value": 1, "timeframe_unit": "weeks"}, CARDIOLOGY], 0.0),
    ([PCP, {**CARDIOLOGY, "timeframe_value": 1, "timeframe_unit": "months"}], FOLLOW / 4),
    ([PCP, {**CARDIOLOGY, "department_id": 12}], FOLLOW / 4),   # Heart Failure Clinic
    ([{**PCP, "timeframe_value": 14}, CARDIOLOGY], FOLLOW / 4),
    ([PCP], FOLLOW / 2),
    ([CARDIOLOGY], FOLLOW / 2),  # the one order is not taken from the follow-up it serves
], ids=["28-days", "1-week", "1-month", "hf-clinic", "pcp-14-days", "no-cardiology",
        "no-pcp"])
def test_follow_ups(task, orders, lost):
    run = task.run()
    reconcile(run)
    follow_up(run, orders)
    write_instructions(run)
    sign_discharge(run)
    assert run.grade().score == pytest.approx(1.0 - lost)


@pytest.mark.parametrize("sections, lost", [
    ({**SECTIONS, "Activity": "***"}, INSTRUCTIONS / 5),
    ({k: v for k, v in SECTIONS.items() if k != "Your Medicines"}, INSTRUCTIONS / 5),
    ({**SECTIONS, "When to Call Your Doctor": "  "}, INSTRUCTIONS / 5),
], ids=["placeholder-left", "section-missing", "section-empty"])
def test_instructions(task, sections, lost):
    run = task.run()
    reconcile(run)
    follow_up(run, [PCP, CARDIOLOGY])
    write_instructions(run, sections)
    sign_discharge(run)
    assert run.grade().score == pytest.approx(1.0 - lost)


def test_printing_the_avs_forfeits_the_discharge_order_item(task):
    run = task.run()
    discharge_all(run)
    print_avs(run)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 1.0, 0.0]
    assert report.score == pytest.approx(1.0 - ORDER)
    assert flagged(report, OUTSIDE_SCOPE) == ["hyperspace.avs_events#3"]


def test_unsigned_reconciliation_earns_nothing_for_the_med_list(task):
    run = task.run()
    reconcile(run)
    with run.write() as s:
        s.get(run.m.MedRec, REC).status = "in_progress"
    follow_up(run, [PCP, CARDIOLOGY])
    write_instructions(run)
    sign_discharge(run)
    assert run.grade().score == pytest.approx(1.0 - MEDS)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}],
                         ids=["api", "other-episode"])
def test_gold_rows_from_another_channel_or_episode_do_not_count(task, write):
    run = task.run()
    discharge_all(run, **write)
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert {e["table"] for e in report.channel["exclusions"]} >= {
        "med_recs", "med_rec_items", "orders", "patient_instructions"}


def test_follow_ups_for_the_other_ivy_earn_nothing_and_are_flagged(task):
    run = task.run()
    reconcile(run)
    follow_up(run, [PCP, CARDIOLOGY], patient=IVY_B)
    write_instructions(run)
    sign_discharge(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0 - FOLLOW)
    assert len(flagged(report, OTHER_PATIENT)) == 2


def test_the_clients_own_navigator_work_scores_one(task):
    """Contract with desktop_ehr: its med rec, Sign and instructions grade as above."""
    run = task.run()
    with run.client() as (ctx, ref):
        from desktop_ehr.services import discharge, medrec, orders, signing

        state = medrec.load_med_rec(ctx, IVY, 3, "discharge", ref)
        for row in state.rows:
            for key, value in PLAN[row.orderable_id].items():
                setattr(row, key, value)
            if row.action == "new":
                row.new_route, row.new_frequency = "PO", "DAILY"
        medrec.sign_med_rec(ctx, state, ref)
        drafts = []
        for spec in (PCP, CARDIOLOGY, DISCHARGE_ORDER):
            draft = orders.draft_for(ref.orderables[spec["orderable_id"]], ctx.now(), ref)
            draft.department_id = spec.get("department_id")
            draft.timeframe_value = spec.get("timeframe_value")
            draft.timeframe_unit = spec.get("timeframe_unit")
            draft.details.update(spec.get("details", {}))
            drafts.append(draft)
        signing.sign_orders(ctx, IVY, 3, drafts, ref)
        template, = [t for t in discharge.instruction_templates(ctx)
                     if t.name == "Heart Failure Discharge Instructions"]
        discharge.sign_instructions(ctx, IVY, 3, template.id, list(SECTIONS.items()))
    assert run.grade().score == pytest.approx(1.0)


@pytest.mark.parametrize("change", [{"patient_id": IVY_B}, {"rec_type": "admission"}],
                         ids=["moved-to-the-other-ivy", "made-an-admission-rec"])
def test_a_reconciliation_the_run_moved_or_retyped_fails_the_med_list(task, change):
    """Issue 14: this gave 'could not grade' (score None); the seed has her discharge
    reconciliation, the run changed it, so the med list earns nothing and the rest is
    graded as usual. (Through the audited writer: the navigator cannot do it.)"""
    run = task.run()
    discharge_all(run)
    with run.write() as s:
        rec = s.get(run.m.MedRec, REC)
        for key, value in change.items():
            setattr(rec, key, value)
    report = run.grade()  # asserts every item is graded
    assert [c.fraction for c in report.checks] == [0.0, 1.0, 1.0, 1.0]
    assert report.score == pytest.approx(1.0 - MEDS)  # 0.6
