"""Decision letters as PDFs (reportlab), the same bytes every time for the same case.

A letter exists for a case with a decision: approval (with the authorization number and
the approved units and dates), partial approval, denial (reason and appeal rights from the
policy pages), pend (what is needed) and rejection at intake (what to correct).
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from reportlab import rl_config
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.lib.units import inch
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from portal_web.acme.decisions import Decision
from sandbox.stores.acme import Member, PaCase, Plan, Policy

rl_config.invariant = 1  # no creation date or random id in the file: same case, same bytes

LETTER_STATUSES = ("approved", "partially_approved", "denied", "pended", "rejected")
TITLES = {
    "approved": "Notice of Approval",
    "partially_approved": "Notice of Partial Approval",
    "denied": "Notice of Adverse Determination",
    "pended": "Request for Additional Information",
    "rejected": "Notice of Rejected Submission",
}


@dataclass(frozen=True)
class LetterFacts:
    case: PaCase
    decision: Decision
    member: Member
    plan: Plan | None
    organization: str
    appeal_policy: Policy | None
    p2p_policy: Policy | None


def _d(value) -> str:  # noqa: ANN001 - date or datetime
    return value.strftime("%m/%d/%Y") if value else ""


def decision_letter(facts: LetterFacts) -> bytes:
    case, decision, member = facts.case, facts.decision, facts.member
    styles = getSampleStyleSheet()
    body = ParagraphStyle("body", parent=styles["BodyText"], fontName="Helvetica",
                          fontSize=10, leading=13.5)
    head = ParagraphStyle("head", parent=styles["Heading1"], fontName="Helvetica-Bold",
                          fontSize=15, spaceAfter=4)
    small = ParagraphStyle("small", parent=body, fontSize=8.5, leading=11)
    out = io.BytesIO()
    doc = SimpleDocTemplate(out, pagesize=LETTER, leftMargin=0.9 * inch,
                            rightMargin=0.9 * inch, topMargin=0.8 * inch,
                            bottomMargin=0.8 * inch, title=f"{TITLES[decision.status]} "
                            f"{case.reference_number}", author="Acme Health",
                            subject="Prior authorization decision", creator="Acme Health")
    story = [
        Paragraph("<b>Acme Health</b> &middot; Utilization Management", body),
        Paragraph("PO Box 4410, Springfield, IL 62701 &middot; Provider Services "
                  "1-800-555-0199", small),
        Spacer(1, 14),
        Paragraph(TITLES[decision.status], head),
        Paragraph(f"Date of notice: {_d(decision.decision_at)}", body),
        Spacer(1, 8),
        Paragraph(f"To: {facts.organization}", body),
        Spacer(1, 8),
    ]
    rows = [
        ["Member", f"{member.last_name}, {member.first_name}"],
        ["Member ID", member.member_number],
        ["Date of birth", _d(member.dob)],
        ["Plan", facts.plan.name if facts.plan else ""],
        ["Tracking reference", case.reference_number or ""],
        ["Service", " ".join(p for p in (case.service_code, case.service_description
                                          or case.drug_name) if p)],
        ["Requesting provider", f"{case.requesting_name or ''} (NPI {case.requesting_npi or ''})"],
        ["Requested", f"{case.units or ''} {case.unit_type or ''}, {_d(case.service_from)} - "
                      f"{_d(case.service_to)}"],
    ]
    if decision.status in ("approved", "partially_approved"):
        rows += [["Authorization number", decision.auth_number or ""],
                 ["Approved", f"{decision.approved_units or ''} {case.unit_type or ''}, "
                              f"{_d(decision.approved_from)} - {_d(decision.approved_to)}"]]
    table = Table(rows, colWidths=[1.8 * inch, 4.8 * inch])
    table.setStyle(TableStyle([
        ("FONT", (0, 0), (-1, -1), "Helvetica", 9.5),
        ("FONT", (0, 0), (0, -1), "Helvetica-Bold", 9.5),
        ("GRID", (0, 0), (-1, -1), 0.4, "#9aa5b1"),
        ("BACKGROUND", (0, 0), (0, -1), "#eef1f5"),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
    ]))
    story += [table, Spacer(1, 12)]
    for paragraph in _wording(facts):
        story += [Paragraph(paragraph, body), Spacer(1, 6)]
    reviewer = decision.reviewer_name or "Acme Utilization Management"
    story += [Spacer(1, 10), Paragraph(f"Reviewed by: {reviewer}", body),
              Spacer(1, 16),
              Paragraph("This notice concerns a synthetic member in the Acme Health sandbox.",
                        small)]
    doc.build(story)
    return out.getvalue()


def _wording(facts: LetterFacts) -> list[str]:
    decision = facts.decision
    if decision.status == "approved":
        return ["Acme Health has approved the services listed above. This approval confirms "
                "medical necessity only; payment depends on the member's eligibility and "
                "benefits on the date of service. Quote the authorization number on the claim."]
    if decision.status == "partially_approved":
        return ["Acme Health has approved part of the services requested, as shown above. "
                "The remainder is not approved. You may appeal the part not approved."]
    if decision.status == "pended":
        return [f"Acme Health needs more information to decide this request: "
                f"{decision.pend_reason or ''}",
                "Add the documents to the case in the provider portal (Authorization status > "
                "case > Add documents). The decision time restarts when the information "
                "is received."]
    if decision.status == "rejected":
        return [f"The request could not be accepted: {decision.rejection_reason or ''} "
                f"(code {decision.rejection_code or ''}).",
                "A rejected submission was not received for review. Correct it from the case "
                "page in the provider portal (Edit and resubmit); the tracking reference stays "
                "the same."]
    paragraphs = [f"Acme Health has denied this request. Reason: {decision.denial_reason or ''} "
                  f"(code {decision.denial_code or ''})."]
    if facts.p2p_policy and facts.p2p_policy.deadline_days:
        paragraphs.append(
            f"The ordering physician may discuss this decision with an Acme medical director "
            f"(peer-to-peer review) within {facts.p2p_policy.deadline_days} calendar days of "
            "this notice. Book a time from the case page in the provider portal.")
    if facts.appeal_policy and facts.appeal_policy.deadline_days:
        paragraphs.append(
            f"You may file a first-level appeal within {facts.appeal_policy.deadline_days} "
            "calendar days of the date of this notice, in the provider portal (Appeal this "
            "decision). Include a letter addressing the reason above and supporting records.")
    return paragraphs
