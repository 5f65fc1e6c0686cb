"""Acme Health DME portal steps (dme.acmehealth.test): log in, the sandbox date its pages
show, a member found by last name and date of birth, the order form (standard written
order, face-to-face encounter, power-mobility facts and Acme's form AMN-PMD-1), its
documents and its submission.

Elements are found by role and label; every click and key goes through the agent API (see
``web.py`` for the waiting rules). The portal's dates are MM/DD/YYYY.
"""

from __future__ import annotations

import datetime as dt
import re

from episodes.oracle_steps.acme_appeals import SAVED_SLACK_S, review_and_submit, saved
from episodes.oracle_steps.web import (
    choose,
    enter_suggested,
    field,
    page,
    put,
    sign_in,
    tap,
)

TAB = "dme"
MAIN_MENU = "Main menu"


def today(dme):
    """The sandbox date the portal shows (its log-in page's foot, or the menu's clock)."""
    text = dme.locator(".login-foot, .nav-clock").first.inner_text()
    return dt.datetime.strptime(re.search(r"\d\d/\d\d/\d{4}", text).group(0), "%m/%d/%Y").date()


def log_in(o, dme):
    """Log in with the DME portal's user from input/creds.txt, then rest a moment as after
    a saved form (see ``acme_appeals.saved``)."""
    sign_in(o, dme, tab=TAB, system="DME portal", user_label="User ID", menu=MAIN_MENU)
    o.wait(SAVED_SLACK_S)


def start_order(o, dme, *, last_name, dob, member_id):
    """New DME Order: the member search by last name and date of birth (MM/DD/YYYY), then
    'Start DME order' on the row of ``member_id`` (a look-alike shares the name)."""
    tap(o, dme.get_by_role("navigation", name=MAIN_MENU).get_by_role(
        "link", name="New DME Order"))
    search = dme.get_by_role("search", name="Member search")
    page(o, field(search, "Last name"))
    put(o, field(search, "Last name"), last_name)
    put(o, field(search, "Date of birth"), dob)
    tap(o, search.get_by_role("button", name="Search"))
    row = dme.locator("#member-results tbody tr").filter(has_text=member_id)
    page(o, row)
    tap(o, row.get_by_role("link", name="Start DME order"))
    page(o, dme.locator("#order-form"))


def supplier_npi(dme, name):
    """The NPI Acme's supplier directory (the Supplier NPI field's suggestions) gives for
    the supplier ``name``."""
    options = dme.locator("#supplier-list option")
    found = [options.nth(i).get_attribute("value") for i in range(options.count())
             if options.nth(i).inner_text().strip() == name]
    if len(found) != 1:
        raise RuntimeError(f"Acme's directory lists {len(found)} suppliers named {name!r}")
    return found[0]


def fill_order(o, dme, *, fields, choices, suggested, answers):
    """The order form: text ``fields`` and drop-down ``choices`` by label, ``suggested``
    fields (with a suggestion list) by label, and AMN-PMD-1's ``answers`` (``{question
    number: "yes"/"no"}``); then 'Save and continue' to the documents step."""
    form = dme.locator("#order-form")
    for label, option in choices.items():
        choose(o, field(form, label), option)
    for label, text in fields.items():
        put(o, field(form, label), text)
    for label, text in suggested.items():
        enter_suggested(o, dme, field(form, label), text)
    questions = form.locator("#amn-pmd-1 tr")
    for number, answer in answers.items():
        tap(o, questions.nth(number - 1).get_by_role("radio", name=answer.capitalize()))
    tap(o, form.get_by_role("button", name="Save and continue"))
    saved(o, dme.locator("#upload-form"))


def submit_order(o, dme):
    """'Continue to review', tick the attestation and 'Submit order to Acme'; returns the
    order's tracking reference (PA26-...)."""
    return review_and_submit(o, dme, "Submit order to Acme", "#order-reference")
