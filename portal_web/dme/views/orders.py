"""DME orders: start one for a member, the order form (saved as a draft), documents through
the browser's file chooser, review and submit, the order page and the list of orders.

An order is a ``pa_cases`` row of type ``dme`` with its ``dme_orders`` row, a draft from
the first save on (so nothing typed is lost between steps and a half-done order can be
resumed); submitting gives it its tracking reference (PA26-NNNNNN) and the portal's
submitted status, like any request to Acme.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from portal_web.acme import wizard
from portal_web.acme.attachment_views import attachment_response, upload_context
from portal_web.acme.site import guard, site_of, user_of
from portal_web.acme.uploads import read_upload, store_attachment
from portal_web.common.params import parse_id
from portal_web.common.requests import PostedForm, form_post, posted_form
from portal_web.dme.catalog import (
    DME_ITEMS,
    MN_FORM,
    MN_QUESTIONS,
    MODIFIERS,
    is_power_mobility,
    length_of_need_label,
)
from portal_web.dme.drafts import STEP, commit_order, draft_row, order_of, save_draft
from portal_web.dme.orderform import apply, missing, read_order, stored_values, values_of, warnings
from sandbox.stores.acme import (
    STATUS_LABELS,
    Attachment,
    DmeOrder,
    Member,
    PaCase,
    PaRule,
    Plan,
    Provider,
    match_rule,
)

STEPS = ("Order and medical necessity", "Documents", "Review and submit")
SUPPLIER_TAXONOMY = "332B00000X"


def _crumbs(*extra: tuple[str, str | None]) -> list[tuple[str, str | None]]:
    return [("Orders & drafts", "/orders"), *extra]


def _member(db, member_id: int) -> tuple[Member, Plan]:  # noqa: ANN001
    member = db.get(Member, member_id)
    if member is None:
        raise HTTPException(404, "That member was not found. Find the member in Member "
                                 "search and start the order from the result.")
    return member, db.get(Plan, member.plan_id)


def _order(db, case_id: int) -> tuple[PaCase, DmeOrder]:  # noqa: ANN001
    """The order and its facts (a draft's from its saved form state)."""
    case = db.get(PaCase, case_id)
    order = order_of(db, case) if case is not None and case.case_type == "dme" else None
    if case is None or order is None:
        raise HTTPException(404, f"DME order {case_id} was not found. Open it from Orders & "
                                 "drafts.")
    return case, order


def _draft(db, case_id: int) -> tuple[PaCase, DmeOrder]:  # noqa: ANN001
    case, order = _order(db, case_id)
    if case.status != "draft":
        raise HTTPException(409, f"Order {case.reference_number} was already submitted and "
                                 "can no longer be changed. Add documents by calling Acme "
                                 "with the reference.")
    return case, order


def _suppliers(db) -> list[Provider]:  # noqa: ANN001
    return list(db.scalars(select(Provider).where(Provider.taxonomy == SUPPLIER_TAXONOMY)
                           .order_by(Provider.organization)))


def _rule(db, plan_id: int, hcpcs: str | None) -> PaRule | None:  # noqa: ANN001
    if not hcpcs:
        return None
    rules = list(db.scalars(select(PaRule).where(PaRule.plan_id == plan_id)))
    return match_rule(rules, hcpcs, "12")


def _form_context(request: Request, db, member: Member, plan: Plan,  # noqa: ANN001
                  values: dict[str, Any], errors: dict[str, str],
                  case: PaCase | None = None) -> dict[str, Any]:
    return {
        "page_title": "DME order", "member": member, "plan": plan, "case": case,
        "values": values, "errors": errors, "steps": STEPS, "step": 1,
        "items": list(DME_ITEMS.items()), "modifiers": list(MODIFIERS.items()),
        "questions": MN_QUESTIONS, "mn_form": MN_FORM, "suppliers": _suppliers(db),
        "action": f"/orders/{case.id}/edit" if case else f"/orders/new?member={member.id}",
        "rule": _rule(db, plan.id, values.get("hcpcs") or None),
        "breadcrumbs": _crumbs(((case.reference_number or "Draft order") if case
                                else "New order", None)),
    }


def _directory(db, npi: str | None) -> Provider | None:  # noqa: ANN001
    return db.scalar(select(Provider).where(Provider.npi == npi)) if npi else None


def _names(db, v: dict[str, Any]) -> tuple[str | None, tuple[str | None, str | None]]:  # noqa: ANN001
    """The supplier's name (typed, else from Acme's directory) and the ordering
    practitioner's taxonomy and TIN from the directory."""
    supplier = _directory(db, v["supplier_npi"])
    name = v["supplier_name"] or (supplier.organization if supplier else None)
    ordering = _directory(db, v["ordering_npi"])
    return name, ((ordering.taxonomy, ordering.tin) if ordering else (None, None))


@dataclass(frozen=True)
class OrderEntry:
    """The order form as posted and checked: its values, whether the user pressed Continue
    (else Save draft), and what Acme's directory adds (the supplier's name, the ordering
    practitioner's taxonomy and TIN)."""

    values: dict[str, Any]
    complete: bool
    supplier_name: str | None
    ordering: tuple[str | None, str | None]


def _entry(request: Request, form: PostedForm, member: Member, plan: Plan,
           case: PaCase | None = None) -> OrderEntry | Response:
    """The posted order form, checked; the form again with its messages when it is not."""
    site = site_of(request)
    r = form.reader
    complete = r.raw.get("action") == "continue"
    values = read_order(r, site.today(), complete=complete)
    with site.reader() as db:
        if not r.ok:
            return site.render(request, "order_form.html", _form_context(
                request, db, member, plan, r.raw, r.errors, case), area="new")
        supplier_name, ordering = _names(db, values)
    return OrderEntry(values, complete, supplier_name, ordering)


def _saved(request: Request, form: PostedForm, case_id: int, entry: OrderEntry,
           draft_note: str) -> Response:
    """After a save: on to the documents (Continue), or back to the form (Save draft)."""
    site_of(request).flash(request, draft_note if not entry.complete else
                           "Order saved. Attach the documents Acme requires.")
    return form.redirect(f"/orders/{case_id}/documents" if entry.complete
                         else f"/orders/{case_id}/edit")


@guard
async def new_order(request: Request) -> Response:
    """The order form for a member (GET); the first save creates the draft (POST)."""
    site = site_of(request)
    user = user_of(request)
    member_id = parse_id(request.query_params.get("member", ""))
    if member_id is None:
        raise HTTPException(404, "Choose the member first (the address parameter “member” "
                                 "names none): find them in Member search and click Start "
                                 "DME order.")
    with site.reader() as db:
        member, plan = _member(db, member_id)
        if request.method == "GET":
            values = {"quantity": "1", "modifier": "NU"}
            return site.render(request, "order_form.html",
                               _form_context(request, db, member, plan, values, {}), area="new")
    async with posted_form(request) as form:
        if form.replay:
            return form.replay
        entry = _entry(request, form, member, plan)
        if isinstance(entry, Response):
            return entry
        now = site.now()
        with site.writer(request) as db:
            case = PaCase(case_type="dme", status="draft", member_id=member.id,
                          plan_id=plan.id, place_of_service="12", submitted_via=None,
                          wizard_step=STEP, created_by=user.username, created_at=now,
                          updated_at=now)
            db.add(case)
            db.flush()
            order = DmeOrder(product_description="")
            apply(case, order, entry.values, entry.supplier_name, entry.ordering)
            save_draft(db, case, order, user.user_id, now)
            case_id = case.id
        return _saved(request, form, case_id, entry, "Order saved as a draft.")


@guard
async def edit_order(request: Request) -> Response:
    site = site_of(request)
    case_id = int(request.path_params["case_id"])
    with site.reader() as db:
        case, order = _draft(db, case_id)
        member, plan = _member(db, case.member_id)
        if request.method == "GET":
            return site.render(request, "order_form.html", _form_context(
                request, db, member, plan, values_of(case, order), {}, case), area="new")
    async with posted_form(request) as form:
        if form.replay:
            return form.replay
        entry = _entry(request, form, member, plan, case)
        if isinstance(entry, Response):
            return entry
        now = site.now()
        with site.writer(request) as db:
            row, order_row = _draft(db, case_id)
            apply(row, order_row, entry.values, entry.supplier_name, entry.ordering)
            changed = save_draft(db, row, order_row, user_of(request).user_id, now)
            if changed or db.is_modified(row):
                row.updated_at = now
        return _saved(request, form, case_id, entry, "Draft saved.")


def _attachments(db, case_id: int) -> list[Attachment]:  # noqa: ANN001
    return list(db.scalars(select(Attachment).where(Attachment.case_id == case_id)
                           .order_by(Attachment.id)))


def _step_context(request: Request, db, case: PaCase, order: DmeOrder, step: int,  # noqa: ANN001
                  values: dict[str, Any], errors: dict[str, str]) -> dict[str, Any]:
    member, plan = _member(db, case.member_id)
    stored = stored_values(case, order)
    return {
        "page_title": "DME order", "case": case, "order": order, "member": member,
        "plan": plan, "attachments": _attachments(db, case.id), "steps": STEPS, "step": step,
        "values": values, "errors": errors, "rule": _rule(db, plan.id, case.service_code),
        "item": DME_ITEMS.get(case.service_code or ""), "missing": missing(stored),
        "warnings": warnings(case, order), "power_mobility": is_power_mobility(
            case.service_code), "questions": MN_QUESTIONS, "mn_form": MN_FORM,
        "labels": STATUS_LABELS, "length_of_need": length_of_need_label(
            order.length_of_need_months), "today": site_of(request).today(),
        **upload_context(),
        "breadcrumbs": _crumbs((case.reference_number or "Draft order", None)),
    }


@guard
async def documents(request: Request) -> Response:
    site = site_of(request)
    case_id = int(request.path_params["case_id"])
    with site.reader() as db:
        case, order = _draft(db, case_id)
        return site.render(request, "order_documents.html",
                           _step_context(request, db, case, order, 2, {}, {}), area="new")


@guard
@form_post
async def upload(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    user = user_of(request)
    case_id = int(request.path_params["case_id"])
    document = await read_upload(form.data, form.reader.errors)
    with site.reader() as db:
        case, order = _draft(db, case_id)
        if document is not None and len(_attachments(db, case_id)) >= 20:
            form.reader.fail("file", "An order can carry at most 20 documents; remove one "
                                     "before attaching another.")
        if not form.reader.ok:
            return site.render(request, "order_documents.html", _step_context(
                request, db, case, order, 2, form.reader.raw, form.reader.errors),
                area="new")
    assert document is not None
    with site.writer(request) as db:
        _draft(db, case_id)
        store_attachment(db, document, case_id=case_id, uploaded_by=user.username,
                         uploaded_at=site.now())
    site.flash(request, f"{document.filename} attached.")
    return form.redirect(f"/orders/{case_id}/documents")


@guard
@form_post
async def remove_document(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    case_id = int(request.path_params["case_id"])
    attachment_id = int(request.path_params["attachment_id"])
    with site.writer(request) as db:
        _draft(db, case_id)
        row = db.get(Attachment, attachment_id)
        if row is None or row.case_id != case_id:
            raise HTTPException(404, "That document is not attached to this order.")
        name = row.filename
        db.delete(row)
    site.flash(request, f"{name} removed.")
    return form.redirect(f"/orders/{case_id}/documents")


@guard
async def review(request: Request) -> Response:
    site = site_of(request)
    case_id = int(request.path_params["case_id"])
    with site.reader() as db:
        case, order = _draft(db, case_id)
        context = _step_context(request, db, case, order, 3, {}, {})
        context["duplicates"] = _duplicates(db, case)
        return site.render(request, "order_review.html", context, area="new")


def _duplicates(db, case: PaCase) -> list[PaCase]:  # noqa: ANN001
    if not case.service_code:
        return []
    return list(db.scalars(select(PaCase).where(
        PaCase.case_type == "dme", PaCase.member_id == case.member_id, PaCase.id != case.id,
        PaCase.service_code == case.service_code,
        PaCase.status.not_in(("draft", "cancelled", "rejected")))))


@guard
@form_post
async def submit(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    case_id = int(request.path_params["case_id"])
    r = form.reader
    with site.reader() as db:
        case, order = _draft(db, case_id)
        context = _step_context(request, db, case, order, 3, r.raw, r.errors)
        context["duplicates"] = duplicates = _duplicates(db, case)
        if context["missing"]:
            r.fail("_form", "The order is missing: " + ", ".join(context["missing"].values())
                   + ". Go back to the order form and complete it.")
        if not r.checkbox("attest"):
            r.fail("attest", "Confirm the supplier attestation to submit the order.")
        if duplicates and not r.checkbox("acknowledge_duplicate"):
            r.fail("acknowledge_duplicate", "A similar order exists ("
                   + ", ".join(c.reference_number or "" for c in duplicates)
                   + "). Tick the box to submit this one as well.")
        if not r.ok:
            return site.render(request, "order_review.html", context, area="new")
    now = site.now()
    status = site.setting("cases.submitted_status") or "in_review"
    with site.writer(request) as db:
        row, order = _draft(db, case_id)
        commit_order(db, row, order)
        # the same submission as the provider portal's wizard: reference, status,
        # times, decision due date; the draft state is kept, marked submitted
        wizard.submit(db, row, now=now, status=status if status in STATUS_LABELS
                      else "in_review")
    return form.redirect(f"/orders/{case_id}?submitted=1")


@guard
@form_post
async def delete_draft(request: Request, form: PostedForm) -> Response:
    site = site_of(request)
    case_id = int(request.path_params["case_id"])
    with site.writer(request) as db:
        case, _ = _draft(db, case_id)
        for row in _attachments(db, case_id):
            db.delete(row)
        draft = draft_row(db, case_id)
        if draft is not None:
            db.delete(draft)
        db.flush()
        db.delete(case)
    site.flash(request, "The draft order was deleted.")
    return form.redirect("/orders")


@guard
async def order_page(request: Request) -> Response:
    site = site_of(request)
    case_id = int(request.path_params["case_id"])
    with site.reader() as db:
        case, order = _order(db, case_id)
        context = _step_context(request, db, case, order, 0, {}, {})
        context.update(page_title=f"DME order {case.reference_number or '(draft)'}",
                       just_submitted=request.query_params.get("submitted") == "1")
        return site.render(request, "order_detail.html", context, area="orders")


@guard
async def download(request: Request) -> Response:
    site = site_of(request)
    case_id = int(request.path_params["case_id"])
    with site.reader() as db:
        _order(db, case_id)
        row = db.get(Attachment, int(request.path_params["attachment_id"]))
        if row is None or row.case_id != case_id:
            raise HTTPException(404, "That document is not attached to this order.")
        return attachment_response(row)


@guard
async def order_list(request: Request) -> Response:
    site = site_of(request)
    show = request.query_params.get("show", "")
    with site.reader() as db:
        query = (select(PaCase, Member).join(Member, Member.id == PaCase.member_id)
                 .where(PaCase.case_type == "dme"))
        if show == "drafts":
            query = query.where(PaCase.status == "draft")
        elif show == "submitted":
            query = query.where(PaCase.status != "draft")
        rows = [(case, member, order_of(db, case)) for case, member in db.execute(
            query.order_by(PaCase.updated_at.desc().nulls_last(), PaCase.id.desc()))]
    return site.render(request, "orders.html", {
        "page_title": "Orders & drafts", "rows": rows, "labels": STATUS_LABELS, "show": show,
        "items": DME_ITEMS, "breadcrumbs": [("Orders & drafts", None)]}, area="orders")


routes = [
    Route("/orders", order_list, methods=["GET"]),
    Route("/orders/new", new_order, methods=["GET", "POST"]),
    Route("/orders/{case_id:id}", order_page, methods=["GET"]),
    Route("/orders/{case_id:id}/edit", edit_order, methods=["GET", "POST"]),
    Route("/orders/{case_id:id}/documents", documents, methods=["GET"]),
    Route("/orders/{case_id:id}/documents", upload, methods=["POST"]),
    Route("/orders/{case_id:id}/documents/{attachment_id:id}", download, methods=["GET"]),
    Route("/orders/{case_id:id}/documents/{attachment_id:id}/remove", remove_document,
          methods=["POST"]),
    Route("/orders/{case_id:id}/review", review, methods=["GET"]),
    Route("/orders/{case_id:id}/submit", submit, methods=["POST"]),
    Route("/orders/{case_id:id}/delete", delete_draft, methods=["POST"]),
]
