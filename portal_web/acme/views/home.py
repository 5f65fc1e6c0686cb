"""Home: the dashboard a user lands on after log-in (shortcuts, recent requests, messages).

Messages are what Acme told the office about its requests: decisions, requests for more
information and rejections of the last 30 days, newest first.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import func, select
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.acme import decisions
from portal_web.acme.casefacts import STATUS_LABELS
from portal_web.acme.site import area_view, site_of, user_of
from sandbox.stores.acme import Member, PaCase

RECENT = 8
MESSAGE_DAYS = 30
MESSAGE_TITLES = {
    "approved": "Approved", "partially_approved": "Partially approved", "denied": "Denied",
    "pended": "Information requested", "rejected": "Submission rejected",
}


@dataclass(frozen=True)
class Message:
    at: dt.datetime
    title: str
    text: str
    url: str


def case_messages(rows, now: dt.datetime) -> list[Message]:  # noqa: ANN001
    since = now - dt.timedelta(days=MESSAGE_DAYS)
    found = []
    for case, member, decision in rows:
        if decision.status not in MESSAGE_TITLES or decision.decision_at is None \
                or decision.decision_at < since or decision.decision_at > now:
            continue
        detail = {"approved": f"Authorization {decision.auth_number or ''}.",
                  "partially_approved": f"Authorization {decision.auth_number or ''}.",
                  "denied": decision.denial_reason or "",
                  "pended": decision.pend_reason or "",
                  "rejected": decision.rejection_reason or ""}[decision.status]
        found.append(Message(
            at=decision.decision_at,
            title=f"{MESSAGE_TITLES[decision.status]}: {case.reference_number}",
            text=f"{member.last_name}, {member.first_name} - "
                 f"{case.service_code or case.drug_name or ''}. {detail}",
            url=f"/auth/cases/{case.id}"))
    return sorted(found, key=lambda m: m.at, reverse=True)


@area_view("home")
async def home(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    now = site.now()
    recent: list = []
    messages: list[Message] = []
    drafts = 0
    if user.may_open("authorizations"):
        with site.reader() as db:
            rules = decisions.load_rules(db)
            rows = db.execute(select(PaCase, Member).join(Member, Member.id == PaCase.member_id)
                              .where(PaCase.status != "draft")
                              .order_by(PaCase.submitted_at.desc(), PaCase.id.desc())).all()
            drafts = db.scalar(select(func.count()).select_from(PaCase).where(
                PaCase.status == "draft", PaCase.created_by == user.username)) or 0
        decided = [(c, m, decisions.decision_of(c, rules, now)) for c, m in rows]
        recent = decided[:RECENT]
        messages = case_messages(decided, now)
    return site.render(request, "home.html", {
        "page_title": f"Welcome, {user.display_name}", "recent_cases": recent,
        "messages": messages, "drafts_count": drafts, "labels": STATUS_LABELS}, area="home")


routes = [
    Route("/home", home, name="home"),
]
