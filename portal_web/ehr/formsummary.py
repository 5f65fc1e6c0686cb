"""What each form of an encounter shows on the encounter page, and its signed content.

The encounter page lists its forms inline (as OpenEMR does): each form type contributes
label/value rows, an edit link, and the text that a signature hashes.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from portal_web.ehr.esign import SignatureState, signature_state
from portal_web.ehr.layouts import load_layout
from sandbox.stores.ehr import (
    Form,
    FormEncounter,
    FormSoap,
    FormVitals,
    LayoutGroupProperties,
    LbfData,
    ProcedureOrder,
    ProcedureOrderCode,
    ProcedureProvider,
)


@dataclass
class FormBlock:
    form: Form
    title: str
    rows: list[tuple[str, str]]
    edit_url: str | None
    signatures: SignatureState
    note: str = ""


def _num(value: float | None, unit: str = "") -> str:
    if not value:
        return ""
    return f"{value:g}{(' ' + unit) if unit else ''}"


def vitals_rows(v: FormVitals) -> list[tuple[str, str]]:
    rows = [
        ("Blood pressure", f"{v.bps}/{v.bpd}" if v.bps or v.bpd else ""),
        ("Pulse", _num(v.pulse, "/min")),
        ("Respiration", _num(v.respiration, "/min")),
        ("Temperature", (_num(v.temperature, "°F") + (f" ({v.temp_method})"
                                                       if v.temp_method else ""))
         if v.temperature else ""),
        ("Oxygen saturation", _num(v.oxygen_saturation, "%")),
        ("Weight", f"{v.weight:g} lb ({v.weight * 0.45359237:.1f} kg)" if v.weight else ""),
        ("Height", f"{v.height:g} in ({v.height * 2.54:.1f} cm)" if v.height else ""),
        ("BMI", f"{v.BMI:g}{' (' + v.BMI_status + ')' if v.BMI_status else ''}"
         if v.BMI else ""),
        ("Waist", _num(v.waist_circ, "in")),
        ("Head circumference", _num(v.head_circ, "in")),
        ("O2 flow rate", _num(v.oxygen_flow_rate, "L/min")),
        ("Note", v.note or ""),
    ]
    return [(k, val) for k, val in rows if val]


def layout_forms(db: Session) -> list[tuple[str, str]]:
    """Active layout-based encounter forms: (LBF id, title)."""
    rows = db.scalars(select(LayoutGroupProperties).where(
        LayoutGroupProperties.grp_group_id == "", LayoutGroupProperties.grp_activity == 1,
        LayoutGroupProperties.grp_form_id.like("LBF%")).order_by(LayoutGroupProperties.grp_title))
    return [(r.grp_form_id, r.grp_title) for r in rows]


def _block(db: Session, form: Form) -> FormBlock:
    base = f"/patient/{form.pid}/encounter/{form.encounter}"
    rows: list[tuple[str, str]] = []
    edit: str | None = None
    note = ""
    if form.formdir == "newpatient":
        enc = db.get(FormEncounter, form.form_id)
        if enc is not None:
            rows = [("Reason", enc.reason or ""), ("Facility", enc.facility or ""),
                    ("Category", {"AMB": "Ambulatory", "IMP": "Inpatient",
                                  "EMER": "Emergency"}.get(enc.class_code, enc.class_code))]
    elif form.formdir == "vitals":
        vitals = db.get(FormVitals, form.form_id)
        rows = vitals_rows(vitals) if vitals else []
        edit = f"{base}/vitals/{form.form_id}"
    elif form.formdir == "soap":
        soap = db.get(FormSoap, form.form_id)
        if soap is not None:
            rows = [("Subjective", soap.subjective or ""), ("Objective", soap.objective or ""),
                    ("Assessment", soap.assessment or ""), ("Plan", soap.plan or "")]
        edit = f"{base}/soap/{form.form_id}"
    elif form.formdir == "procedure_order":
        order = db.get(ProcedureOrder, form.form_id)
        if order is not None:
            lab = db.get(ProcedureProvider, order.lab_id)
            codes = db.scalars(select(ProcedureOrderCode).where(
                ProcedureOrderCode.procedure_order_id == order.procedure_order_id)
                .order_by(ProcedureOrderCode.procedure_order_seq))
            rows = [("Lab", lab.name if lab else ""),
                    ("Scheduled", order.date_collected.strftime("%Y-%m-%d %H:%M")
                     if order.date_collected else ""),
                    ("Fasting", order.specimen_fasting or ""),
                    *[(f"Test {c.procedure_order_seq}",
                       f"{c.procedure_name} ({c.procedure_code}) — {c.diagnoses or ''}")
                      for c in codes],
                    ("Patient instructions", order.patient_instructions or "")]
        edit = f"/patient/{form.pid}/orders/{form.form_id}"
    elif form.formdir.startswith("LBF"):
        layout = load_layout(db, form.formdir, form.pid)
        values = {d.field_id: d.field_value or "" for d in db.scalars(
            select(LbfData).where(LbfData.form_id == form.form_id))}
        if layout is not None:
            if layout.grid is not None:
                hours = layout.grid.hours
                rows = [(f"{label} (mL)", "  ".join(
                    f"{hours[i]} {values.get(fid) or '—'}" for i, fid in enumerate(ids)))
                    for _row, label, _kind, ids in layout.grid.rows]
                grid_ids = {fid for _r, _l, _k, ids in layout.grid.rows for fid in ids}
                rows += [(f.title, f.display(values.get(f.id))) for f in layout.fields
                         if f.id not in grid_ids and values.get(f.id)]
            else:
                rows = [(f.title, f.display(values.get(f.id))) for f in layout.fields
                        if values.get(f.id)]
        edit = f"{base}/lbf/{form.formdir}/{form.form_id}"
    else:
        note = "This form type is shown in its own screen."
    return FormBlock(form=form, title=form.form_name, rows=[r for r in rows if r[1] != ""],
                     edit_url=edit, signatures=signature_state(db, form), note=note)


def form_summaries(db: Session, forms: list[Form]) -> list[FormBlock]:
    return [_block(db, f) for f in forms]


def summary_text(db: Session, form: Form) -> str:
    """The canonical text of a form's content, as hashed by a signature."""
    block = _block(db, form)
    return "\n".join(f"{k}: {v}" for k, v in block.rows)
