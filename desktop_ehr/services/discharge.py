"""The Discharge Navigator: sections worked top to bottom, instructions, discharge order, AVS.

Printing the After Visit Summary is its own action (:func:`print_avs`), never a side effect
of signing anything else: a task may require stopping before it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select

from desktop_ehr.session import EhrContext

NAVIGATOR_SECTIONS = ("Problem List", "Order Cleanup", "Discharge Med Rec", "Follow-up",
                      "Patient Instructions", "Discharge Order", "After Visit Summary")
TEMPLATE_PLACEHOLDER = "***"


class DischargeRefused(Exception):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class TemplateSection:
    heading: str
    prompt: str


@dataclass(frozen=True)
class InstructionTemplate:
    id: int
    name: str
    sections: tuple[TemplateSection, ...]


@dataclass
class NavigatorState:
    discharge_id: int | None = None
    status: str = "in_progress"
    disposition: str | None = None
    sections: dict[str, str] = field(default_factory=dict)
    instructions_id: int | None = None
    instructions_status: str | None = None
    instruction_texts: list[tuple[str, str]] = field(default_factory=list)
    discharge_order_id: int | None = None
    avs_prints: int = 0

    def section_status(self, name: str) -> str:
        return self.sections.get(name, "not_started")


def ensure_discharge(s, m, patient_id: int, encounter_id: int):
    """The encounter's navigator row, created on the first write that needs it."""
    row = s.scalars(select(m.Discharge).where(m.Discharge.encounter_id == encounter_id)
                    .order_by(m.Discharge.id.desc())).first()
    if row is None:
        row = m.Discharge(patient_id=patient_id, encounter_id=encounter_id,
                          status="in_progress")
        s.add(row)
        s.flush()
    return row


def mark_section_in(s, m, discharge, section: str, now: datetime, user_id: int) -> None:
    row = s.scalars(select(m.DischargeSection).where(
        m.DischargeSection.discharge_id == discharge.id,
        m.DischargeSection.section == section)).first()
    if row is None:
        sort = NAVIGATOR_SECTIONS.index(section) + 1 if section in NAVIGATOR_SECTIONS else 99
        row = m.DischargeSection(discharge_id=discharge.id, section=section, sort=sort)
        s.add(row)
    row.status = "complete"
    row.completed_at = now
    row.completed_by_user_id = user_id


def load_navigator(ctx: EhrContext, patient_id: int, encounter_id: int | None) -> NavigatorState:
    m = ctx.models
    state = NavigatorState()
    if encounter_id is None:
        return state
    with ctx.reader() as s:
        row = s.scalars(select(m.Discharge).where(m.Discharge.encounter_id == encounter_id)
                        .order_by(m.Discharge.id.desc())).first()
        if row is not None:
            state.discharge_id, state.status = row.id, row.status
            state.disposition = row.disposition
            state.discharge_order_id = row.discharge_order_id
            state.sections = {sec.section: sec.status for sec in s.scalars(
                select(m.DischargeSection).where(m.DischargeSection.discharge_id == row.id))}
        instr = s.scalars(select(m.PatientInstruction)
                          .where(m.PatientInstruction.encounter_id == encounter_id)
                          .order_by(m.PatientInstruction.id.desc())).first()
        if instr is not None:
            state.instructions_id, state.instructions_status = instr.id, instr.status
            state.instruction_texts = [(sec.heading, sec.text) for sec in s.scalars(
                select(m.PatientInstructionSection)
                .where(m.PatientInstructionSection.instruction_id == instr.id)
                .order_by(m.PatientInstructionSection.sort))]
        state.avs_prints = len(s.scalars(select(m.AvsEvent.id).where(
            m.AvsEvent.encounter_id == encounter_id, m.AvsEvent.action == "print")).all())
    return state


def instruction_templates(ctx: EhrContext) -> list[InstructionTemplate]:
    m = ctx.models
    with ctx.reader() as s:
        out = []
        for t in s.scalars(select(m.InstructionTemplate).order_by(m.InstructionTemplate.name)):
            sections = tuple(TemplateSection(sec.heading, sec.prompt or TEMPLATE_PLACEHOLDER)
                             for sec in s.scalars(
                                 select(m.InstructionTemplateSection)
                                 .where(m.InstructionTemplateSection.template_id == t.id)
                                 .order_by(m.InstructionTemplateSection.sort)))
            out.append(InstructionTemplate(t.id, t.name, sections))
        return out


def instruction_problems(texts: list[tuple[str, str]]) -> list[str]:
    problems = []
    if not texts:
        problems.append("Choose an instruction template first.")
    for heading, text in texts:
        body = (text or "").strip()
        if not body:
            problems.append(f"'{heading}' is empty.")
        elif TEMPLATE_PLACEHOLDER in body:
            problems.append(f"'{heading}' still has *** to replace with the patient's "
                            "instructions.")
    return problems


def sign_instructions(ctx: EhrContext, patient_id: int, encounter_id: int, template_id: int,
                      texts: list[tuple[str, str]]) -> int:
    """Write signed patient instructions, one row per template section (one transaction)."""
    problems = instruction_problems(texts)
    if problems:
        raise DischargeRefused(problems)
    m = ctx.models
    now = ctx.now()
    user = ctx.user
    with ctx.write() as s:
        instr = m.PatientInstruction(patient_id=patient_id, encounter_id=encounter_id,
                                     template_id=template_id, status="signed",
                                     author_user_id=user.id, created_at=now, signed_at=now)
        s.add(instr)
        s.flush()
        for sort, (heading, text) in enumerate(texts, start=1):
            s.add(m.PatientInstructionSection(instruction_id=instr.id, heading=heading,
                                              text=text.strip(), sort=sort))
        discharge = ensure_discharge(s, m, patient_id, encounter_id)
        discharge.patient_instructions_id = instr.id
        mark_section_in(s, m, discharge, "Patient Instructions", now, user.id)
        return instr.id


def mark_reviewed(ctx: EhrContext, patient_id: int, encounter_id: int, section: str) -> None:
    """Mark one navigator section reviewed (e.g. the problem list)."""
    if section not in NAVIGATOR_SECTIONS:
        raise DischargeRefused([f"Unknown navigator section '{section}'."])
    m = ctx.models
    with ctx.write() as s:
        discharge = ensure_discharge(s, m, patient_id, encounter_id)
        mark_section_in(s, m, discharge, section, ctx.now(), ctx.user.id)


def print_avs(ctx: EhrContext, patient_id: int, encounter_id: int | None,
              printer: str) -> int:
    """Print the After Visit Summary: one ``avs_events`` row (action 'print')."""
    m = ctx.models
    now = ctx.now()
    with ctx.write() as s:
        event = m.AvsEvent(patient_id=patient_id, encounter_id=encounter_id, action="print",
                           at=now, user_id=ctx.user.id, printer=printer)
        s.add(event)
        s.flush()
        if encounter_id is not None:
            discharge = ensure_discharge(s, m, patient_id, encounter_id)
            mark_section_in(s, m, discharge, "After Visit Summary", now, ctx.user.id)
        return event.id
