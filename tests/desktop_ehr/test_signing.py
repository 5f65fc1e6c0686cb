"""Order drafts, required fields, CDS and Sign: exactly the expected rows, channel desktop."""

from __future__ import annotations

import json
from datetime import datetime

import pytest
from sqlalchemy import select

from desktop_ehr.services import cds
from desktop_ehr.services.orders import (
    ScaleBand,
    describe,
    draft_for,
    invalid_fields,
    missing_fields,
    scale_problems,
)
from desktop_ehr.services.signing import OrderAction, SignRefused, sign_orders
from tests.desktop_ehr.conftest import audit_rows, table_counts
from tests.desktop_ehr.rundirs import EPISODE

WALTER, WALT, FRANK, FRANKLIN = 1, 2, 7, 8


def orders_of(ctx, patient_id):
    m = ctx.models
    with ctx.reader() as s:
        return s.scalars(select(m.Order).where(m.Order.patient_id == patient_id,
                                               m.Order.id > 5001)).all()  # after the seeded orders


def test_draft_defaults_come_from_the_catalog(hs_ctx, hs_ref):
    draft = draft_for(hs_ref.orderables[101], hs_ctx.now(), hs_ref)
    assert (draft.dose, draft.dose_unit, draft.route, draft.frequency) == (1, "g", "IV", "Q24H")
    assert draft.start_at == datetime(2026, 10, 19, 9, 0)
    assert describe(draft, hs_ref).startswith("1 g, intravenous, every 24 hours")
    assert missing_fields(draft, hs_ref.orderables[101], hs_ref) == []


def test_required_fields_are_named(hs_ctx, hs_ref):
    now = hs_ctx.now()
    admit = draft_for(hs_ref.orderables[300], now, hs_ref)
    assert missing_fields(admit, hs_ref.orderables[300], hs_ref) == ["Admit to (department)"]
    prn = draft_for(hs_ref.orderables[146], now, hs_ref)  # ibuprofen q8h PRN
    assert prn.prn
    assert "PRN reason" in missing_fields(prn, hs_ref.orderables[146], hs_ref)
    scale = draft_for(hs_ref.orderables[120], now, hs_ref)  # lispro: dose by scale
    assert missing_fields(scale, hs_ref.orderables[120], hs_ref) == \
        ["Dose or sliding scale ranges"]
    scale.scale = [ScaleBand(150, 199, 2)]
    assert missing_fields(scale, hs_ref.orderables[120], hs_ref) == []
    follow = draft_for(hs_ref.orderables[304], now, hs_ref)
    assert missing_fields(follow, hs_ref.orderables[304], hs_ref) == \
        ["Department", "Follow-up timeframe"]
    code = draft_for(hs_ref.orderables[302], now, hs_ref)
    assert missing_fields(code, hs_ref.orderables[302], hs_ref) == ["Code status"]


def test_invalid_combinations(hs_ctx, hs_ref):
    draft = draft_for(hs_ref.orderables[110], hs_ctx.now(), hs_ref)
    draft.stop_at = datetime(2026, 10, 18, 9, 0)
    draft.frequency = "Q13H"
    problems = invalid_fields(draft, hs_ref)
    assert any("must be after start" in p for p in problems)
    assert any("Q13H" in p for p in problems)


def test_sign_writes_exactly_the_orders_with_channel_desktop(hs_ctx, hs_ref, hs_run):
    now = hs_ctx.now()
    admit = draft_for(hs_ref.orderables[300], now, hs_ref)
    admit.department_id = 2
    ceftriaxone = draft_for(hs_ref.orderables[101], now, hs_ref)
    cultures = draft_for(hs_ref.orderables[203], now, hs_ref)
    cultures.occurrences = 2
    ids = sign_orders(hs_ctx, WALTER, 1, [ceftriaxone, admit, cultures], hs_ref)
    assert len(ids) == 3
    rows = orders_of(hs_ctx, WALTER)
    by_name = {o.order_name: o for o in rows}
    admission = by_name["Admit to Inpatient"]
    assert admission.department_id == 2 and admission.admission_order_id is None
    for name in ("cefTRIAXone (ROCEPHIN) injection", "Blood culture"):
        order = by_name[name]
        assert order.status == "signed" and order.signed_by_user_id == 1
        assert order.admission_order_id == admission.id
        assert order.encounter_id == 1 and order.ordering_provider_id == 9
    assert by_name["Blood culture"].occurrences == 2
    entries = audit_rows(hs_run, "hyperspace", channel=None)
    assert table_counts(entries) == {("insert", "orders"): 3}
    assert {(e["channel"], e["actor"], e["episode_id"]) for e in entries} == \
        {("desktop", "EPICTRN01", EPISODE)}
    assert hs_ctx.store.verify_audit().ok


def test_later_orders_link_to_the_signed_admission(hs_ctx, hs_ref):
    admit = draft_for(hs_ref.orderables[300], hs_ctx.now(), hs_ref)
    admit.department_id = 2
    (admit_id,) = sign_orders(hs_ctx, WALTER, 1, [admit], hs_ref)
    (later,) = sign_orders(hs_ctx, WALTER, 1,
                           [draft_for(hs_ref.orderables[200], hs_ctx.now(), hs_ref)], hs_ref)
    m = hs_ctx.models
    with hs_ctx.reader() as s:
        assert s.get(m.Order, later).admission_order_id == admit_id


def test_refused_sign_writes_nothing_and_names_the_gaps(hs_ctx, hs_ref, hs_run):
    ok = draft_for(hs_ref.orderables[101], hs_ctx.now(), hs_ref)
    bad = draft_for(hs_ref.orderables[146], hs_ctx.now(), hs_ref)  # q8h PRN, no reason
    with pytest.raises(SignRefused) as refused:
        sign_orders(hs_ctx, WALTER, 1, [ok, bad], hs_ref)
    assert refused.value.problems == ["ibuprofen (ADVIL) tablet: missing PRN reason"]
    assert audit_rows(hs_run, "hyperspace", channel=None) == []


def test_scale_ranges_and_details_are_child_rows(pc_ctx, pc_ref, pc_run):
    lispro = draft_for(pc_ref.orderables[120], pc_ctx.now(), pc_ref)
    lispro.scale = [ScaleBand(150, 199, 2), ScaleBand(200, 249, 4),
                    ScaleBand(250, None, 6, "and call provider")]
    lispro.hold_parameters = "hold if NPO and BG<150"
    discharge = draft_for(pc_ref.orderables[303], pc_ctx.now(), pc_ref)
    discharge.details = {"Disposition": "Home or Self Care"}
    sign_orders(pc_ctx, 3, 3, [lispro, discharge], pc_ref)
    m = pc_ctx.models
    with pc_ctx.reader() as s:
        order = s.scalars(select(m.Order).where(m.Order.orderable_id == 120)).one()
        bands = s.scalars(select(m.OrderScaleRange).where(m.OrderScaleRange.order_id ==
                                                          order.id)
                          .order_by(m.OrderScaleRange.sort)).all()
        assert [(b.low, b.high, b.units, b.instruction) for b in bands] == [
            (150, 199, 2, None), (200, 249, 4, None), (250, None, 6, "and call provider")]
        assert order.hold_parameters == "hold if NPO and BG<150" and order.dose is None
        discharge_row = s.scalars(select(m.Discharge)).one()
        assert discharge_row.disposition == "Home or Self Care"
    counts = table_counts(audit_rows(pc_run, "powerchart"))
    assert counts == {("insert", "orders"): 2, ("insert", "order_scale_ranges"): 3,
                      ("insert", "order_details"): 1, ("insert", "discharges"): 1,
                      ("update", "discharges"): 1, ("insert", "discharge_sections"): 1}


def test_hold_and_discontinue_are_updates_at_sign(hs_ctx, hs_ref, hs_run):
    hold = OrderAction("hold", 5001, "warfarin", hold_from=datetime(2026, 10, 21, 0, 0),
                       hold_until=datetime(2026, 10, 26, 18, 0), reason="colonoscopy")
    sign_orders(hs_ctx, FRANK, 8, [], hs_ref, [hold])
    m = hs_ctx.models
    with hs_ctx.reader() as s:
        order = s.get(m.Order, 5001)
        assert (order.status, order.hold_start_at, order.hold_end_at, order.hold_reason) == \
            ("held", datetime(2026, 10, 21), datetime(2026, 10, 26, 18), "colonoscopy")
    assert table_counts(audit_rows(hs_run, "hyperspace")) == {("update", "orders"): 1}
    with pytest.raises(SignRefused):
        sign_orders(hs_ctx, FRANKLIN, 9, [], hs_ref,
                    [OrderAction("discontinue", 5001, "warfarin")])


def test_duplicate_orders_are_found(hs_ctx, hs_ref):
    warfarin = draft_for(hs_ref.orderables[112], hs_ctx.now(), hs_ref)
    hits = cds.duplicate_orders(hs_ctx, FRANK, warfarin, hs_ref)
    assert [h.reason for h in hits] == ["same order"]
    assert cds.duplicate_orders(hs_ctx, FRANKLIN, warfarin, hs_ref) == []
    azithro_po = draft_for(hs_ref.orderables[103], hs_ctx.now(), hs_ref)
    azithro_iv = draft_for(hs_ref.orderables[102], hs_ctx.now(), hs_ref)
    hits = cds.duplicate_orders(hs_ctx, WALTER, azithro_iv, hs_ref, [azithro_po])
    assert [h.reason for h in hits] == ["same drug (azithromycin)"]


def test_weight_based_dose_and_helper_text(hs_ref):
    assert cds.weight_based_dose(1, 92.0) == 92.0
    text = cds.weight_helper_text(hs_ref.orderables[110], 92.0,
                                  datetime(2026, 10, 14, 10, 8))
    assert text == "Dosing weight 92 kg (10/14/2026) · 1 mg/kg = 92 mg"
    assert "No dosing weight" in cds.weight_helper_text(hs_ref.orderables[110], None)


@pytest.mark.parametrize("bands, fragment", [
    ([], "at least one range"),
    ([ScaleBand(150, 199, 2), ScaleBand(190, 249, 4)], "overlap"),
    ([ScaleBand(150, 199, 2), ScaleBand(210, 249, 4)], "gap: 200-209"),
    ([ScaleBand(250, 200, 2)], "above high"),
    ([ScaleBand(150, 199, 80)], "outside 0-50"),
    ([ScaleBand(150, None, 2), ScaleBand(200, 249, 4)], "only the last"),
])
def test_scale_problems(bands, fragment):
    assert any(fragment in p for p in scale_problems(bands))


def test_a_good_scale_has_no_problems():
    bands = [ScaleBand(150, 199, 2), ScaleBand(200, 249, 4), ScaleBand(250, 299, 6),
             ScaleBand(300, 349, 8), ScaleBand(350, 400, 10), ScaleBand(401, None, 12)]
    assert scale_problems(bands) == []


def test_a_wrong_patient_order_is_visible_as_such(hs_ctx, hs_ref, hs_run, tmp_path):
    """Ordering for the look-alike lands on the look-alike's chart; the footprint flags it."""
    from sandbox.catalog import load_catalog
    from verifier.extract import Extract

    enox = draft_for(hs_ref.orderables[110], hs_ctx.now(), hs_ref)
    sign_orders(hs_ctx, FRANKLIN, 9, [enox], hs_ref)
    (order,) = orders_of(hs_ctx, FRANKLIN)
    assert orders_of(hs_ctx, FRANK) == []
    m = hs_ctx.models
    with hs_ctx.reader() as s:
        assert s.get(m.Patient, order.patient_id).mrn == "E1006939"
    spec = load_catalog().get("ord-20")
    (hs_run / "run.json").write_text(json.dumps({
        "task": spec.id, "alias": spec.alias, "variant": "default", "episode_id": EPISODE,
        "engine_version": "test"}))
    hs_ctx.close()
    with Extract.open(hs_run, spec) as extract:
        flagged = [c for c in extract.footprint.changes
                   if c.table == "orders" and "other patient" in c.flags]
        assert [c.value("patient_id") for c in flagged] == [FRANKLIN]
