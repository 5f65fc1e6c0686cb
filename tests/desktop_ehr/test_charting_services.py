"""Med rec, discharge navigator, addenda, proxies, filing: one transaction each, exact rows."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from desktop_ehr.services import charting, discharge, medrec
from desktop_ehr.services.auth import LoginRefused, authenticate
from desktop_ehr.services.chart import patient_summary, search_patients
from tests.desktop_ehr.conftest import audit_rows, table_counts

ROSA, IVY, NORA, HELEN = 1, 3, 5, 5


def test_login_checks_the_store_users(hs_ctx):
    assert authenticate(hs_ctx, "epictrn01", "Hyperspace#2026").username == "EPICTRN01"
    with pytest.raises(LoginRefused, match="not correct"):
        authenticate(hs_ctx, "EPICTRN01", "hyperspace#2026")
    with pytest.raises(LoginRefused, match="user ID"):
        authenticate(hs_ctx, "", "x")


def test_search_finds_look_alikes_side_by_side(pc_ctx):
    rows = search_patients(pc_ctx, "zztest, helen")
    assert [(r.name, r.mrn, r.dob.isoformat()) for r in rows] == [
        ("Zztest, Helen", "7004639", "1938-05-05"), ("Zztest, Helena", "7004693", "1938-05-05")]
    assert [r.name for r in search_patients(pc_ctx, "90021533")] == ["Zztest, Ahmed"]


def test_summary_shows_banner_facts(pc_ctx):
    s = patient_summary(pc_ctx, ROSA)
    assert (s.mrn, s.fin, s.age, s.code_status, s.weight_kg) == \
        ("7004417", "90021457", 76, "Full Code", 71.2)
    assert s.allergies == ["Sulfonamide Antibiotics"]


def _decide(state, plan):
    for row in state.rows:
        action = plan[row.medication.split()[0]]
        row.action = action[0]
        if action[0] == "modify":
            row.new_dose = action[1]
        if action[0] == "hold":
            row.hold_reason = action[1]


ADMISSION_PLAN = {"amLODIPine": ("continue",), "atorvastatin": ("continue",),
                  "levothyroxine": ("continue",), "omeprazole": ("discontinue",),
                  "zolpidem": ("discontinue",), "ibuprofen": ("modify", 200),
                  "metoprolol": ("modify", 25), "clopidogrel": ("hold", "until surgery")}


def test_admission_rec_orders_only_continued_and_modified(pc_ctx, pc_ref, pc_run):
    state = medrec.load_med_rec(pc_ctx, ROSA, 1, "admission", pc_ref)
    assert len(state.rows) == 8 and state.status == "not_started"
    with pytest.raises(medrec.MedRecRefused) as refused:
        medrec.sign_med_rec(pc_ctx, state, pc_ref)
    assert "Choose an action for 8 medications" in refused.value.problems[0]
    assert audit_rows(pc_run, "powerchart", channel=None) == []
    _decide(state, ADMISSION_PLAN)
    rec_id = medrec.sign_med_rec(pc_ctx, state, pc_ref)
    m = pc_ctx.models
    with pc_ctx.reader() as s:
        rec = s.get(m.MedRec, rec_id)
        assert (rec.status, rec.rec_type, rec.signed_by_user_id) == ("complete", "admission", 1)
        items = s.scalars(select(m.MedRecItem).where(m.MedRecItem.med_rec_id == rec_id)
                          .order_by(m.MedRecItem.sort)).all()
        assert [i.action for i in items] == ["continue"] * 3 + ["discontinue"] * 2 + \
            ["modify", "modify", "hold"]
        assert [i.new_dose for i in items if i.action == "modify"] == [200, 25]
        assert items[-1].hold_reason == "until surgery"
        ordered = [i for i in items if i.generated_order_id]
        assert [i.action for i in ordered] == ["continue"] * 3 + ["modify"] * 2
        doses = {s.get(m.Order, i.generated_order_id).order_name:
                 s.get(m.Order, i.generated_order_id).dose for i in ordered}
        assert doses["metoprolol tartrate (LOPRESSOR) tablet"] == 25
        assert doses["amLODIPine (NORVASC) tablet"] == 5
    counts = table_counts(audit_rows(pc_run, "powerchart"))
    assert counts[("insert", "orders")] == 5
    assert counts[("insert", "med_rec_items")] == 8
    assert ("insert", "home_medications") not in counts
    assert ("update", "home_medications") not in counts
    again = medrec.load_med_rec(pc_ctx, ROSA, 1, "admission", pc_ref)
    assert again.complete and [r.action for r in again.rows][:3] == ["continue"] * 3


def test_modify_to_the_same_dose_and_hold_without_reason_are_refused(pc_ctx, pc_ref):
    state = medrec.load_med_rec(pc_ctx, ROSA, 1, "admission", pc_ref)
    _decide(state, ADMISSION_PLAN)
    state.rows[5].new_dose = state.rows[5].dose
    state.rows[7].hold_reason = " "
    problems = medrec.rec_problems(state, pc_ref)
    assert any("same as before" in p for p in problems)
    assert any("Hold needs a reason" in p for p in problems)


def test_discharge_rec_new_and_changed_become_discharge_prescriptions(hs_ctx, hs_ref, hs_run):
    state = medrec.load_med_rec(hs_ctx, IVY, 3, "discharge", hs_ref)
    actions = {"furosemide": ("change", 40), "metoprolol": ("continue",),
               "levothyroxine": ("continue",), "atorvastatin": ("stop",)}
    for row in state.rows:
        plan = actions[row.medication.split()[0]]
        row.action = plan[0]
        if plan[0] == "change":
            row.new_dose = plan[1]
    state.rows.append(medrec.RecRow(medication="spironolactone (ALDACTONE) tablet",
                                    orderable_id=151, action="new", new_dose=12.5,
                                    new_dose_unit="mg", new_route="PO", new_frequency="DAILY"))
    medrec.sign_med_rec(hs_ctx, state, hs_ref)
    m = hs_ctx.models
    with hs_ctx.reader() as s:
        new_orders = s.scalars(select(m.Order).where(m.Order.patient_id == IVY)).all()
        assert sorted((o.order_name, o.dose, o.order_mode) for o in new_orders) == [
            ("furosemide (LASIX) tablet", 40, "discharge"),
            ("spironolactone (ALDACTONE) tablet", 12.5, "discharge")]
        nav = s.scalars(select(m.Discharge)).one()
        assert nav.med_rec_id is not None
    state = discharge.load_navigator(hs_ctx, IVY, 3)
    assert state.section_status("Discharge Med Rec") == "complete"
    assert ("insert", "avs_events") not in table_counts(audit_rows(hs_run, "hyperspace"))


def test_instructions_need_every_template_section_filled(hs_ctx):
    (template,) = [t for t in discharge.instruction_templates(hs_ctx)
                   if t.name == "Heart Failure Discharge Instructions"]
    texts = [(s.heading, s.prompt) for s in template.sections]
    assert len(texts) == 5
    with pytest.raises(discharge.DischargeRefused) as refused:
        discharge.sign_instructions(hs_ctx, IVY, 3, template.id, texts)
    assert len(refused.value.problems) == 5
    texts = [(h, f"Text for {h}.") for h, _ in texts]
    instr_id = discharge.sign_instructions(hs_ctx, IVY, 3, template.id, texts)
    nav = discharge.load_navigator(hs_ctx, IVY, 3)
    assert nav.instructions_id == instr_id and nav.instructions_status == "signed"
    assert [h for h, _ in nav.instruction_texts] == [s.heading for s in template.sections]


def test_avs_print_is_its_own_action(hs_ctx, hs_run):
    discharge.print_avs(hs_ctx, IVY, 3, "4W-NURSE-STATION-01")
    counts = table_counts(audit_rows(hs_run, "hyperspace"))
    assert counts[("insert", "avs_events")] == 1
    assert discharge.load_navigator(hs_ctx, IVY, 3).avs_prints == 1


def test_addendum_leaves_the_signed_note_intact(hs_ctx, hs_run):
    m = hs_ctx.models
    with hs_ctx.reader() as s:
        before = s.get(m.Note, 5001).text_sha256
    with pytest.raises(charting.ChartingRefused, match="Reason for addendum is required"):
        charting.sign_addendum(hs_ctx, 5001, "", "Right knee, not left.")
    charting.sign_addendum(hs_ctx, 5001, "Laterality documented in error",
                           "Correction: the injection was into the RIGHT knee.")
    with hs_ctx.reader() as s:
        assert s.get(m.Note, 5001).text_sha256 == before
        (add,) = s.scalars(select(m.NoteAddendum)).all()
        assert (add.note_id, add.status, add.signed_by_user_id) == (5001, "signed", 1)
    assert table_counts(audit_rows(hs_run, "hyperspace")) == {("insert", "note_addenda"): 1}


def test_proxy_is_validated_and_saved(pc_ctx, pc_run):
    with pytest.raises(charting.ChartingRefused) as refused:
        charting.save_proxy(pc_ctx, HELEN, "", "Daughter", "555-0101")
    assert refused.value.problems == ["Proxy name is required.",
                                      "Phone '555-0101' is not a 10-digit phone number: type "
                                      "it as 217-555-0123."]
    charting.save_proxy(pc_ctx, HELEN, "Maria Zztest", "Daughter", "(217) 555-0144")
    m = pc_ctx.models
    with pc_ctx.reader() as s:
        (proxy,) = s.scalars(select(m.Proxy)).all()
        assert (proxy.name, proxy.relationship, proxy.phone, proxy.is_primary) == \
            ("Maria Zztest", "Daughter", "217-555-0144", True)
    assert table_counts(audit_rows(pc_run, "powerchart")) == {("insert", "proxies"): 1}


def test_filing_a_scan_sets_patient_type_and_status(pc_ctx, pc_run):
    with pytest.raises(charting.ChartingRefused, match="not a document type"):
        charting.file_document(pc_ctx, 5001, HELEN, 5, "Advanced Directive")
    charting.file_document(pc_ctx, 5001, HELEN, 5, "Advance Directive")
    m = pc_ctx.models
    with pc_ctx.reader() as s:
        doc = s.get(m.Document, 5001)
        assert (doc.patient_id, doc.document_type, doc.status, doc.filed_by_user_id) == \
            (HELEN, "Advance Directive", "filed", 1)
    with pytest.raises(charting.ChartingRefused, match="already filed"):
        charting.file_document(pc_ctx, 5001, HELEN, 5, "Advance Directive")
    assert table_counts(audit_rows(pc_run, "powerchart")) == {("update", "documents"): 1}
