"""PA requirement lookup: plan x code x place of service x units -> the rule that answers.

Each lookup is recorded in ``rule_lookups`` (who, what, the rule and the answer shown);
the answer page is a GET of that record, so refreshing it does not look up again.
"""

from __future__ import annotations

from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.acme.casefacts import (
    DETERMINATION_LABELS,
    PLACES_OF_SERVICE,
    code_type_of,
    read_code,
)
from portal_web.acme.site import area_view, site_of, user_of
from portal_web.common.requests import PostedForm, form_post
from sandbox.stores.acme import PaRule, Plan, RuleLookup, match_rule, rule_determination

RECENT = 20


def code_catalog(db) -> list[tuple[str, str]]:  # noqa: ANN001
    """(code, description) of every code Acme has a rule for: the code typeahead."""
    seen: dict[str, str] = {}
    for code, description in db.execute(select(PaRule.code, PaRule.description)
                                        .order_by(PaRule.code)):
        seen.setdefault(code, description)
    return sorted(seen.items())


def _context(db, user_id: int) -> dict:  # noqa: ANN001
    plans = list(db.scalars(select(Plan).order_by(Plan.id)))
    recent = db.execute(select(RuleLookup, Plan).join(Plan, Plan.id == RuleLookup.plan_id)
                        .where(RuleLookup.portal_user_id == user_id)
                        .order_by(RuleLookup.id.desc()).limit(RECENT)).all()
    return {"plans": [(str(p.id), p.name) for p in plans], "catalog": code_catalog(db),
            "places": list(PLACES_OF_SERVICE.items()), "recent": recent,
            "determinations": DETERMINATION_LABELS}


def _render(request: Request, context: dict, status: int = 200) -> Response:
    return site_of(request).render(request, "lookup.html", {
        "page_title": "Check Prior Authorization Requirements",
        "breadcrumbs": [("Authorizations & Referrals", "/auth/cases"),
                        ("PA requirement lookup", None)], **context},
        area="authorizations", status_code=status)


@area_view("authorizations")
async def lookup_page(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    values = {"plan_id": request.query_params.get("plan_id", "1"),
              "place_of_service": request.query_params.get("place_of_service", ""),
              "units": "1"}
    with site.reader() as db:
        context = _context(db, user.user_id)
    return _render(request, {**context, "values": values, "errors": {}, "result": None})


@area_view("authorizations")
@form_post
async def lookup_submit(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    user = user_of(request)
    r = form.reader
    with site.reader() as db:
        context = _context(db, user.user_id)
        plan_id = r.choice("plan_id", "Plan", [k for k, _ in context["plans"]],
                           required=True)
        code = read_code(r, "code", "Procedure code", required=True)
        place = r.choice("place_of_service", "Place of service", PLACES_OF_SERVICE,
                         required=True)
        units = r.integer("units", "Units", low=1, high=999, required=True)
        if not r.ok:
            return _render(request, {**context, "values": r.raw, "errors": r.errors,
                                     "result": None})
        rules = list(db.scalars(select(PaRule).where(PaRule.plan_id == int(plan_id))))
    rule = match_rule(rules, code, place)
    with site.writer(request) as db:
        lookup = RuleLookup(portal_user_id=user.user_id, plan_id=int(plan_id), code=code,
                            place_of_service=place, units=units,
                            matched_rule_id=rule.rule_id if rule else None,
                            requires_pa=rule.requires_pa if rule else None,
                            determination=rule_determination(rule, units) if rule
                            else "no_rule", looked_up_at=site.now())
        db.add(lookup)
        db.flush()
        lookup_id = lookup.id
    return form.redirect(f"/auth/lookup/{lookup_id}")


@area_view("authorizations")
async def lookup_result(request: Request) -> Response:
    site = site_of(request)
    user = user_of(request)
    with site.reader() as db:
        lookup = db.get(RuleLookup, request.path_params["lookup_id"])
        if lookup is None or lookup.portal_user_id != user.user_id:
            raise HTTPException(404, "That lookup is not in your history; look the code up "
                                     "again.")
        plan = db.get(Plan, lookup.plan_id)
        rule = db.scalar(select(PaRule).where(PaRule.rule_id == lookup.matched_rule_id)) \
            if lookup.matched_rule_id else None
        context = _context(db, user.user_id)
    values = {"plan_id": str(lookup.plan_id), "place_of_service": lookup.place_of_service or "",
              "units": str(lookup.units or 1)}
    return _render(request, {**context, "values": values, "errors": {}, "result": {
        "lookup": lookup, "plan": plan, "rule": rule,
        "determination": lookup.determination or ("no_rule" if rule is None else
                                                  rule_determination(rule, lookup.units)),
        "code_type": rule.code_type if rule else code_type_of(lookup.code),
        "place_label": PLACES_OF_SERVICE.get(lookup.place_of_service or "", "")}})


routes = [
    Route("/auth/lookup", lookup_page, methods=["GET"], name="lookup"),
    Route("/auth/lookup", lookup_submit, methods=["POST"], name="lookup_submit"),
    Route("/auth/lookup/{lookup_id:id}", lookup_result, name="lookup_result"),
]
