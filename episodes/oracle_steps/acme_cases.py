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
    page,
    put,
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


def open_menu(o, acme, area, entry):
    """Open ``entry`` of the main menu's ``area`` drop-down (Authorizations & Referrals …)."""
    menu = acme.get_by_role("navigation", name="Main menu")
    tap(o, menu.get_by_text(area, exact=True))
    tap(o, menu.get_by_role("link", name=entry, exact=True))


# -- PA requirement lookup ---------------------------------------------------------------------
def open_lookup(o, acme):
    """The 'Check Prior Authorization Requirements' page."""
    open_menu(o, acme, "Authorizations & Referrals", LOOKUP)
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


# -- the status list and a case's decision -------------------------------------------------------
DECISION_FIELDS = {"status": "#decision-status", "auth number": "#auth-number",
                   "approved units": "#approved-units", "approved from": "#approved-from",
                   "approved to": "#approved-to"}


def open_case(o, acme, reference):
    """Authorizations & Referrals > status list, searched for ``reference`` (a tracking
    reference, auth number, member name or ID), then the request ``reference`` itself."""
    open_menu(o, acme, "Authorizations & Referrals", STATUS_LIST)
    search = acme.get_by_role("search", name="Filter requests")
    page(o, search)
    put(o, search.get_by_label("Search", exact=True), reference)
    before = acme.url
    tap(o, search.get_by_role("button", name="Search"))
    found = acme.locator("#case-list").get_by_role("link", name=reference, exact=True)
    until(o, lambda: acme.url != before and found.count() == 1,
          f"{reference} in the status list")
    tap(o, found)
    page(o, acme.get_by_role("heading", name=f"Request {reference}"))


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
