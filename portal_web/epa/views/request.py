"""A request opened by its Key: the e-prescription's details, the plan's question set and
the answers, saved as they are entered.

``POST /request/{key}`` saves the whole question form (the page works without script);
``POST /request/{key}/autosave`` saves one question as it is entered and answers with the
questions now asked, so the page shows follow-ups without reloading. Both check the entry
the same way and write nothing when it is refused. An answer that a later change hides is
kept and listed as hidden until the office clears it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from portal_web.common.forms import FORM_ERROR
from portal_web.common.requests import (
    CsrfRejected,
    PostedForm,
    form_post,
    login_required,
    read_form,
    session_of,
)
from portal_web.common.sessions import csrf_matches
from portal_web.epa.answering import apply_form, apply_one, clear_answer, write_answers
from portal_web.epa.formatting import clock_time
from portal_web.epa.pa_request import PaRequestView, load_request
from portal_web.epa.questions import (
    Question,
    QuestionSet,
    condition_text,
    display_answer,
    field_value,
    parse_answer,
)
from portal_web.epa.site import LOGIN_PATH, EpaSite, site_of

guard = login_required(LOGIN_PATH)
LOCKED = {
    "new": "Send this request to the plan first: the plan replies with its questions.",
    "sent_to_plan": "This request was sent to the plan, so its answers can no longer be "
                    "changed. Wait for the plan's reply on the dashboard.",
    "pended": "The plan is reviewing this request; its answers can no longer be changed.",
    "approved": "The plan has made its determination; the answers can no longer be changed.",
    "denied": "The plan has made its determination; the answers can no longer be changed.",
    "cancelled": "This request was cancelled; its answers can no longer be changed.",
}
ARCHIVED = "This request is archived. Unarchive it to change or send it."


@dataclass(frozen=True)
class QuestionEntry:
    """One question as the page draws it."""

    question: Question
    number: int | None  # None when not asked under the current answers
    value: str | list[str]  # what its field holds
    display: str  # the stored answer in words
    stored: bool
    reason: str  # why a follow-up is asked

    @property
    def shown(self) -> bool:
        return self.number is not None


def not_found(key: str) -> HTTPException:
    return HTTPException(404, f"There is no request with Key {key} on your dashboard. "
                              "Check the Key, or use Enter Key on the Dashboard.")


def view_or_404(site: EpaSite, db, key: str) -> PaRequestView:  # noqa: ANN001
    view = load_request(db, key, site.now())
    if view is None:
        raise not_found(key)
    return view


def read_view(request: Request) -> PaRequestView:
    """The request of the page's ``{key}`` as it stands now (a 404 page for any other key),
    read in a transaction of its own."""
    site = site_of(request)
    with site.reader() as db:
        return view_or_404(site, db, request.path_params["key"])


def locked_reason(view: PaRequestView) -> str:
    if view.row.archived:
        return ARCHIVED
    return LOCKED.get(view.status, "This request cannot be changed now.")


def entries(qset: QuestionSet, answers: dict[str, str],
            values: dict[str, Any] | None = None) -> list[QuestionEntry]:
    """Every question of ``qset``: its number if asked, its field value, its answer."""
    numbers = qset.numbers(answers)
    out = []
    for q in qset.questions:
        stored = answers.get(q.key)
        value = values[q.field] if values is not None and q.field in values \
            else field_value(q, stored)
        out.append(QuestionEntry(question=q, number=numbers.get(q.key), value=value,
                                 display=display_answer(q, stored), stored=stored is not None,
                                 reason=condition_text(qset, q) if q.conditions else ""))
    return out


def hidden_entries(qset: QuestionSet, view: PaRequestView) -> list[dict[str, Any]]:
    answers = view.answers_of(qset)
    return [{"question": q, "display": display_answer(q, answers[q.key]),
             "answered_at": view.answer_rows[q.key].answered_at}
            for q in qset.hidden_answered(answers)]


def page_context(view: PaRequestView, *, values: dict[str, Any] | None = None,
                 preview: dict[str, str] | None = None,
                 errors: dict[str, str] | None = None) -> dict[str, Any]:
    """Everything request.html needs; ``values``/``preview`` re-draw a refused form."""
    current = view.current_set
    answers = dict(preview) if preview is not None else view.answers
    earlier = [{"set": s, "entries": [e for e in entries(s, view.answers_of(s)) if e.stored],
                "hidden": hidden_entries(s, view)} for s in view.earlier_sets]
    return {
        "view": view, "row": view.row, "plan": view.plan, "nav": "request",
        "qset": current,
        "entries": entries(current, answers, values) if current else [],
        "hidden": hidden_entries(current, view) if current else [],
        "earlier": earlier, "errors": errors or {}, "editable": view.editable,
        "locked_reason": "" if view.editable else locked_reason(view),
    }


def _posted_values(form, qset: QuestionSet) -> dict[str, Any]:  # noqa: ANN001 - FormData
    values: dict[str, Any] = {}
    for q in qset.questions:
        items = [v for v in form.getlist(q.field) if isinstance(v, str)]
        values[q.field] = items if q.answer_type == "multi_choice" else (items[0] if items
                                                                         else "")
    return values


@guard
async def show_request(request: Request) -> Response:
    return site_of(request).render(request, "request.html", page_context(read_view(request)))


@guard
@form_post
async def save_request(request: Request, posted: PostedForm) -> Response:
    """The whole question form: save the answers, then stay or go on to Send to Plan."""
    site = site_of(request)
    key = request.path_params["key"]
    form = posted.data
    going_on = form.get("action") == "send"
    view = read_view(request)
    qset = view.current_set
    if not view.editable or qset is None:
        return site.render(request, "request.html", page_context(
            view, errors={FORM_ERROR: locked_reason(view)}))
    if posted.reader.errors:  # a form from before the current log-in: show it again
        return site.render(request, "request.html", page_context(
            view, values=_posted_values(form, qset), errors=dict(posted.reader.errors)))
    asked = [a for a in form.getlist("asked") if isinstance(a, str)]
    outcome = apply_form(qset, view.answers_of(qset), asked,
                         lambda name: [v for v in form.getlist(name) if isinstance(v, str)],
                         site.today())
    if not outcome.ok:
        values = _posted_values(form, qset)
        preview = dict(view.answers)
        for q in qset.questions:
            if q.key in asked and q.field not in outcome.errors:
                parsed = parse_answer(q, form.getlist(q.field), site.today())
                if parsed.value is None:
                    preview.pop(q.key, None)
                else:
                    preview[q.key] = parsed.value
        return site.render(request, "request.html", page_context(
            view, values=values, preview=preview, errors=outcome.errors))
    now = site.now()
    with site.writer(request) as db:
        live = view_or_404(site, db, key)
        if not live.editable:  # sent from another tab meanwhile
            raise HTTPException(409, locked_reason(live))
        write_answers(db, live, outcome.changes, now)
    if going_on:
        return posted.redirect(f"/request/{key}/send")
    count = len(outcome.changes)
    site.flash(request, "Answers saved." if count else "No changes to save.")
    return posted.redirect(f"/request/{key}#questions")


def _json_error(message: str, field: str, status: int = 422) -> JSONResponse:
    return JSONResponse({"ok": False, "field": field, "error": message}, status_code=status)


@guard
async def autosave(request: Request) -> Response:
    """Save one question's entry; reply with the questions now asked (for the page script).

    The entry is idempotent (saving the same value twice writes once), so it needs no
    one-time form token; the session's CSRF token still guards it.
    """
    site = site_of(request)
    key = request.path_params["key"]
    form = await read_form(request)
    if not csrf_matches(session_of(request), form.get("csrf_token")):  # type: ignore[arg-type]
        raise CsrfRejected()
    question_key = form.get("question")
    question_key = question_key if isinstance(question_key, str) else ""
    view = read_view(request)
    qset = view.current_set
    if not view.editable or qset is None:
        return _json_error(locked_reason(view), FORM_ERROR, 409)
    q = qset.get(question_key)
    if q is None:
        return _json_error("That question is not part of this request's current question "
                           "set; reload the page.", FORM_ERROR)
    posted = [v for v in form.getlist(q.field) if isinstance(v, str)]
    outcome = apply_one(qset, view.answers_of(qset), question_key, posted, site.today())
    if not outcome.ok:
        field, message = next(iter(outcome.errors.items()))
        return _json_error(message, field)
    now = site.now()
    if outcome.changes:
        with site.writer(request) as db:
            live = view_or_404(site, db, key)
            if not live.editable:
                return _json_error(locked_reason(live), FORM_ERROR, 409)
            write_answers(db, live, outcome.changes, now)
    view = read_view(request)
    qset = view.current_set
    assert qset is not None
    answers = view.answers_of(qset)
    hidden = hidden_entries(qset, view)
    # One token for the panel's Clear buttons (each reloads the page, so one is used): a
    # token per button per save would crowd the page's other forms out of the session.
    token = session_of(request).issue_form_token() if hidden else ""
    hidden_html = site.templates.env.get_template("_hidden.html").render(
        request=request, view=view, hidden=hidden, editable=view.editable, form_token=token)
    return JSONResponse({
        "ok": True, "question": question_key, "changed": bool(outcome.changes),
        "shown": qset.shown(answers), "numbers": qset.numbers(answers),
        "display": display_answer(q, answers.get(question_key)),
        "hidden_html": hidden_html, "saved_at": clock_time(now),
        "status": view.badge.label,
    })


@guard
@form_post
async def clear_hidden(request: Request, posted: PostedForm) -> Response:
    """Clear an answer that the current answers no longer ask (the office's decision)."""
    site = site_of(request)
    key = request.path_params["key"]
    question_key = request.path_params["question"]
    view = read_view(request)
    qset = view.current_set
    errors = dict(posted.reader.errors)
    q = qset.get(question_key) if qset else None
    if not view.editable:
        errors.setdefault(FORM_ERROR, locked_reason(view))
    elif q is None or question_key not in view.answers:
        errors.setdefault(FORM_ERROR, "That answer is no longer stored; nothing was "
                                      "cleared.")
    elif question_key in qset.shown(view.answers_of(qset)):  # type: ignore[union-attr]
        errors.setdefault(FORM_ERROR, "That question is asked under your current answers; "
                                      "change its answer in the question form instead.")
    if errors:
        return site.render(request, "request.html", page_context(view, errors=errors))
    with site.writer(request) as db:
        live = view_or_404(site, db, key)
        clear_answer(db, live, question_key, site.now())
    site.flash(request, f"Cleared the hidden answer to \u201c{q.text}\u201d.")  # type: ignore[union-attr]
    return posted.redirect(f"/request/{key}#questions")


routes = [
    Route("/request/{key:epakey}", show_request, methods=["GET"], name="request"),
    Route("/request/{key:epakey}", save_request, methods=["POST"], name="save_request"),
    Route("/request/{key:epakey}/autosave", autosave, methods=["POST"], name="autosave"),
    Route("/request/{key:epakey}/answers/{question:str}/clear", clear_hidden,
          methods=["POST"], name="clear_hidden"),
]
