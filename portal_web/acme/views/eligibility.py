"""Eligibility & Benefits: member search and the member's coverage and benefits page.

Searching only reads (a GET form), so it writes nothing and can be repeated freely.
"""

from __future__ import annotations

from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.acme import members
from portal_web.acme.casefacts import STATUS_LABELS
from portal_web.acme.site import area_view, site_of, user_of
from portal_web.common.forms import FieldReader
from sandbox.stores.acme import Member, PaCase, Plan

# What each plan type pays, as an eligibility response lists it (synthetic figures).
BENEFITS = {
    "PPO": [("Deductible (individual, in network)", "$1,500.00", "$1,118.40 met"),
            ("Out-of-pocket maximum (individual)", "$6,000.00", "$2,215.75 met"),
            ("Office visit (primary care)", "$25 copay", ""),
            ("Specialist visit", "$50 copay", ""),
            ("Advanced imaging (MRI, CT, PET)", "20% after deductible", "Prior authorization"),
            ("Outpatient surgery", "20% after deductible", "Prior authorization for some codes"),
            ("Physical therapy", "$40 copay, 30 visits/year", "Authorization after evaluation"),
            ("Inpatient admission", "20% after deductible", "Notify within 2 business days")],
    "HMO": [("Deductible (individual)", "$0.00", ""),
            ("Out-of-pocket maximum (individual)", "$4,500.00", "$610.00 met"),
            ("Office visit (primary care)", "$20 copay", "PCP referral for specialists"),
            ("Specialist visit", "$45 copay", "Referral required"),
            ("Advanced imaging (MRI, CT, PET)", "$150 copay", "Prior authorization"),
            ("Out-of-network services", "Not covered", "Network gap exception"),
            ("Inpatient admission", "$500 per admission", "Notify within 2 business days")],
    "PBM": [("Tier 1 generic", "$10 copay", "30-day supply"),
            ("Tier 2 preferred brand", "$40 copay", ""),
            ("Tier 3 non-preferred brand", "$80 copay", ""),
            ("Specialty (tier 4)", "20% up to $250", "Prior authorization, specialty pharmacy")],
}


@area_view("eligibility")
async def eligibility(request: Request) -> Response:
    site = site_of(request)
    params = request.query_params
    r = FieldReader(params)
    searched = any(params.get(k) for k in ("member_id", "last_name", "first_name", "dob"))
    results: list[members.MemberRow] | None = None
    if searched:
        search = members.read_search(r)
        if search is not None:
            with site.reader() as db:
                results = members.find(db, search, site.today())
    return site.render(request, "eligibility.html", {
        "page_title": "Eligibility & Benefits Inquiry", "values": r.raw, "errors": r.errors,
        "results": results, "mode": params.get("mode", ""), "today": site.today(),
        "breadcrumbs": [("Eligibility & Benefits", None)],
    }, area="eligibility")


@area_view("eligibility")
async def member_page(request: Request) -> Response:
    site = site_of(request)
    member_id = request.path_params["member_id"]
    with site.reader() as db:
        row = db.execute(select(Member, Plan).join(Plan, Plan.id == Member.plan_id)
                         .where(Member.id == member_id)).first()
        if row is None:
            raise HTTPException(404, "There is no Acme member with that record number; "
                                     "search for the member again.")
        member, plan = row
        cases = list(db.scalars(select(PaCase).where(
            PaCase.member_id == member_id, PaCase.status != "draft")
            .order_by(PaCase.submitted_at.desc()).limit(10)))
    today = site.today()
    return site.render(request, "member.html", {
        "page_title": f"{member.last_name}, {member.first_name}", "member": member,
        "plan": plan, "active": members.coverage_active(member, today),
        "age": members.age_on(member.dob, today), "benefits": BENEFITS.get(plan.plan_type, []),
        "cases": cases, "labels": STATUS_LABELS, "today": today,
        "can_request": user_of(request).may_open("authorizations"),
        "breadcrumbs": [("Eligibility & Benefits", "/eligibility"),
                        (f"{member.last_name}, {member.first_name}", None)],
    }, area="eligibility")


routes = [
    Route("/eligibility", eligibility, name="eligibility"),
    Route("/eligibility/member/{member_id:id}", member_page, name="member"),
]
