"""Acme Health provider portal steps around requirements and existing requests
(portal.acmehealth.test): the PA requirement lookup, the status list and a case's decision,
editing and resubmitting a rejected request, and an extension of an approved authorization.

Elements are found by role and label; every click and key goes through the agent API (see
``web.py`` for the waiting rules). Dates on the portal's pages read MM/DD/YYYY, its date
fields take YYYY-MM-DD.
"""

from __future__ import annotations

import datetime as dt
import re

from episodes.oracle_steps.web import (
    choose,
    enter_suggested,
    field,
    last_look,
    menu_entry,
    page,
    put,
    table_rows,
    tap,
    until,
)

LOOKUP = "Check PA Requirements"
STATUS_LIST = "Authorization & Referral Status"
REQUIRED = "Prior authorization required"


def us_date(text):
    """A date as the portal's pages show it (MM/DD/YYYY), or None for a dash or nothing."""
    text = text.strip()
    return dt.datetime.strptime(text, "%m/%d/%Y").date() if re.fullmatch(
        r"\d\d/\d\d/\d{4}", text) else None


# -- PA requirement lookup ---------------------------------------------------------------------
def open_lookup(o, acme):
    """The 'Check Prior Authorization Requirements' page."""
    menu_entry(o, acme, "Authorizations & Referrals", LOOKUP)
    page(o, acme.get_by_role("heading", name="Check Prior Authorization Requirements"))


def look_up(o, acme, plan, code, place, units=1):
    """One lookup on the open lookup page: plan (its name), code, place of service (its
    two-digit code) and units, then Check requirement. Returns what the result shows:
    ``(determination, rule ID)``, e.g. ``("Prior authorization required", "R-GP-1001")``."""
    choose(o, field(acme, "Plan"), plan)
    enter_suggested(o, acme, field(acme, "Procedure code (CPT/HCPCS)"), code)
    if field(acme, "Units").input_value() != str(units):
        put(o, field(acme, "Units"), str(units))
    choose(o, field(acme, "Place of service"), f"{place} - ")
    before = acme.url
    tap(o, acme.get_by_role("button", name="Check requirement"))
    shown = acme.locator("#lookup-result").get_by_role("status")
    until(o, lambda: acme.url != before and shown.count() and re.search(
        rf"\b{re.escape(code)}\b", shown.inner_text(), re.I), f"the result of {code}")
    page(o, shown)
    determination = shown.locator(".det-title").inner_text().strip()
    rule_id = acme.locator("#rule-id").inner_text().strip()
    return determination, rule_id


def requirement_shown(acme):
    """What the lookup's result shows besides the determination, as ``{term: text}``: Plan,
    Place of service, Rule ID, Documentation required, Where to submit, Notes ..."""
    result = acme.locator("#lookup-result dl").first
    terms = [t.strip() for t in result.locator("dt").all_inner_texts()]
    texts = [t.strip() for t in result.locator("dd").all_inner_texts()]
    return dict(zip(terms, texts, strict=True))


# -- the status list and a case's decision -------------------------------------------------------
DECISION_FIELDS = {"status": "#decision-status", "auth number": "#auth-number",
                   "approved units": "#approved-units", "approved from": "#approved-from",
                   "approved to": "#approved-to"}


def search_cases(o, acme, query):
    """Authorizations & Referrals > status list, searched for ``query`` (a tracking
    reference, auth number, member name or ID, code): the rows shown, as dicts of column ->
    text ('Tracking reference', 'Member', 'Status' …)."""
    menu_entry(o, acme, "Authorizations & Referrals", STATUS_LIST)
    search = acme.get_by_role("search", name="Filter requests")
    page(o, search)
    put(o, search.get_by_label("Search", exact=True), query)
    before = acme.url
    tap(o, search.get_by_role("button", name="Search"))
    until(o, lambda: acme.url != before, f"the status list's answer to {query!r}")
    table = acme.locator("#case-list")
    page(o, table)
    return table_rows(table)


def reference_of(row):
    """The tracking reference of a status-list row (without its 'rev N')."""
    return row["Tracking reference"].split()[0]


def open_listed_case(o, acme, reference):
    """Open the request ``reference`` from the status list on the screen."""
    tap(o, acme.locator("#case-list").get_by_role("link", name=reference, exact=True))
    page(o, acme.get_by_role("heading", name=f"Request {reference}"))


def open_case(o, acme, reference):
    """The status list searched for ``reference``, then that request's page."""
    search_cases(o, acme, reference)
    open_listed_case(o, acme, reference)


def case_decision(acme):
    """The open case's decision as its page shows it: status (its label before any dash:
    'Pended – information requested' reads 'Pended'), auth number ('' when not issued),
    approved units and dates ('' or a ``datetime.date``)."""
    shown = {key: acme.locator(css).inner_text().strip()
             for key, css in DECISION_FIELDS.items()}
    approved = shown["auth number"] != "Not issued"
    return {"status": shown["status"].split(" \u2013 ")[0],
            "auth number": shown["auth number"] if approved else "",
            "approved units": shown["approved units"] if approved else "",
            "approved from": us_date(shown["approved from"]) if approved else None,
            "approved to": us_date(shown["approved to"]) if approved else None}


def attest(o, acme):
    """Tick the form's attestation ('I attest that …'), required to (re)submit."""
    box = acme.get_by_role("checkbox", name=re.compile("^I attest"))
    tap(o, box)
    if not box.is_checked():
        raise RuntimeError("the attestation did not take the tick")


# -- edit and resubmit a rejected request ---------------------------------------------------------
def open_edit(o, acme, reference):
    """On the open rejected request: 'Edit and resubmit' (the correction form)."""
    tap(o, acme.get_by_role("link", name="Edit and resubmit"))
    page(o, acme.get_by_role("heading", name=f"Edit and Resubmit {reference}"))


def provider_block(acme, role):
    """The provider section of a request form: ``requesting``, ``rendering`` or
    ``facility`` (fields NPI, Name, Tax ID (TIN), Taxonomy code)."""
    return acme.locator(f"#provider-{role}")


def resubmit(o, acme, reference):
    """Tick the attestation and press 'Resubmit request'; the request's page then shows it
    in review (same reference, next revision)."""
    attest(o, acme)
    tap(o, acme.get_by_role("button", name="Resubmit request"))
    page(o, acme.get_by_role("heading", name=f"Request {reference}"))
    last_look(o, acme.locator("#decision-status").filter(has_text="In review"))


# -- extension of an approved authorization -------------------------------------------------------
def start_extension(o, acme):
    """On the open approved request: 'Request extension' (a draft extension linked to it)."""
    tap(o, acme.get_by_role("button", name="Request extension"))
    page(o, acme.get_by_role("heading", name="Additional units requested"))


def fill_form(o, acme, texts, choices=None):
    """Type each field of ``texts`` (label -> text; a field already holding the text is
    left alone) and pick each drop-down of ``choices`` (label -> option text)."""
    for label, option in (choices or {}).items():
        choose(o, field(acme, label), option)
    for label, text in texts.items():
        target = field(acme, label)
        if target.input_value() != text:
            put(o, target, text)


def continue_step(o, acme, next_heading):
    """The wizard's 'Continue' (the step is saved), then the next step's page."""
    tap(o, acme.get_by_role("button", name="Continue", exact=True))
    page(o, acme.get_by_role("heading", name=next_heading))


def submit_request(o, acme):
    """From the attachments step: 'Continue to review', tick the attestation, 'Submit
    request'; returns the tracking reference the confirmation page shows (it cannot be
    shown again)."""
    tap(o, acme.get_by_role("button", name="Continue to review"))
    page(o, acme.get_by_role("button", name="Submit request"))
    attest(o, acme)
    tap(o, acme.get_by_role("button", name="Submit request"))
    reference = acme.locator("#tracking-reference")
    last_look(o, reference)
    return reference.inner_text().strip()


def member_fact(acme, label):
    """A fact of the open request's Member card ('Name', 'Member ID', 'Date of birth',
    'Plan' …) as shown."""
    return acme.locator("#member-card").locator(
        f"xpath=.//dt[normalize-space()='{label}']/following-sibling::dd[1]").inner_text().strip()
