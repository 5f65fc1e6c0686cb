"""Acme Health provider portal steps after a denial (portal.acmehealth.test): a first-level
appeal of a denied authorization in its three steps (appeal details, documents, review and
submit), and a peer-to-peer review booked in one of the times Acme offers.

Elements are found by role and label; every click and key goes through the agent API (see
``web.py`` for the waiting rules). The portal's pages show dates as MM/DD/YYYY and times as
'12:15 PM'.
"""

from __future__ import annotations

import datetime as dt
import re

from episodes.oracle_steps.web import (
    attach_file,
    choose,
    field,
    last_look,
    menu_entry,
    page,
    put,
    put_long,
    tap,
)

SAVED_SLACK_S = 1.0
LETTER_SLACK_S = 0.5  # after a long letter is all in its box, for a slower replay


def saved(o, target):
    """Wait for the page that shows ``target`` after a form was sent (a save, an upload, a
    search), then rest a moment more than ``web.page`` does: the server writes before it
    answers and shows nothing meanwhile, and a loaded machine may take longer in a replay
    than when the trace was recorded (the wait is in the trace, see ``web.arrive``)."""
    page(o, target)
    o.wait(SAVED_SLACK_S)


def us_date(text):
    """A date as the portal shows it (MM/DD/YYYY)."""
    return dt.datetime.strptime(text.strip(), "%m/%d/%Y").date()


def subject_facts(acme):
    """The 'Decision being appealed' / 'Denied request' card as ``{term: text}``
    (Authorization, Service, Requesting provider, Decision date, Denial reason ...)."""
    card = acme.locator("#appeal-subject")
    terms = [t.strip() for t in card.locator("dt").all_inner_texts()]
    texts = [t.strip() for t in card.locator("dd").all_inner_texts()]
    return dict(zip(terms, texts, strict=True))


def deadline(acme):
    """The last day of the deadline box on the page (filing deadline, review window)."""
    return us_date(acme.locator("#filing-deadline .deadline-date b").inner_text())


# -- appeals -----------------------------------------------------------------------------------
def start_case_appeal(o, acme, *texts):
    """Appeals > Appeals Dashboard > File an appeal, then 'Appeal' on the one denied
    authorization whose row shows every one of ``texts`` (member name, service code, a
    PA26- reference ...): step 1, the appeal details form."""
    menu_entry(o, acme, "Appeals", "Appeals Dashboard")
    tap(o, acme.get_by_role("link", name="File an appeal"))
    row = acme.locator("#denied-cases tbody tr")
    page(o, row.first)
    for text in texts:
        row = row.filter(has_text=text)
    if row.count() != 1:
        raise RuntimeError(f"{row.count()} denied authorizations show {texts}")
    tap(o, row.get_by_role("link", name="Appeal", exact=True))
    page(o, acme.locator("#appeal-form"))


def appeal_details(o, acme, *, reason, outcome, letter, contact_name, contact_phone):
    """Step 1: the reason (as the list shows it), requested outcome, contact and letter;
    'Save and continue' keeps it as a draft and opens the documents step.

    The letter goes in last and Tab leaves it for the contact name: a long letter scrolls
    inside its box, and a mouse wheel over that box would scroll the letter, not the page,
    so nothing is reached by scrolling over it."""
    form = acme.locator("#appeal-form")
    choose(o, field(form, "Reason for the appeal"), reason)
    put(o, field(form, "Requested outcome"), outcome)
    if field(form, "Contact name").input_value() != contact_name:
        put(o, field(form, "Contact name"), contact_name)
    put(o, field(form, "Contact phone"), contact_phone)
    put_long(o, field(form, "Appeal letter"), letter, slack=LETTER_SLACK_S)
    o.key("Tab")
    tap(o, form.get_by_role("button", name="Save and continue"))
    saved(o, acme.locator("#upload-form"))


def upload_document(o, site, path, document_type, description=""):
    """Attach one file (``~/Downloads/...``) with the upload form of an appeal's or a DME
    order's documents step: the OS file chooser, the document type, a description, then
    'Upload document'; waits until the page lists it."""
    form = site.locator("#upload-form")
    attach_file(o, field(form, "File"), path)
    kind = field(form, "Document type")
    if kind.locator("option:checked").inner_text().strip() != document_type:
        choose(o, kind, document_type)
    if description:
        put(o, field(form, "Description (optional)"), description)
    name = path.rsplit("/", 1)[-1]
    tap(o, form.get_by_role("button", name="Upload document"))
    saved(o, site.locator("#attachments").get_by_role("link", name=name, exact=True))


def review_and_submit(o, site, button, reference):
    """From the documents step of an appeal or a DME order: 'Continue to review', tick the
    attestation, press ``button``; returns the reference the confirmation shows in the
    element ``reference`` (a CSS selector)."""
    tap(o, site.get_by_role("link", name="Continue to review"))
    attest = site.locator("#attest")
    page(o, attest)
    tap(o, attest)
    tap(o, site.get_by_role("button", name=button))
    shown = site.locator(reference)
    last_look(o, shown)
    return shown.inner_text().strip()


def submit_appeal(o, acme):
    """Step 3: 'Continue to review', tick the attestation, 'Submit appeal'; returns the
    appeal reference (AP26-...) the confirmation shows."""
    return review_and_submit(o, acme, "Submit appeal", "#appeal-reference")


# -- peer-to-peer ------------------------------------------------------------------------------
def open_p2p(o, acme, member):
    """Authorizations & Referrals > Peer-to-Peer Reviews, then 'Schedule' on the one denied
    request of ``member`` ('Patel, Ravi'): the offered times and the booking form."""
    menu_entry(o, acme, "Authorizations & Referrals", "Peer-to-Peer Reviews")
    row = acme.locator("#p2p-cases tbody tr").filter(has_text=member)
    page(o, row.first)
    if row.count() != 1:
        raise RuntimeError(f"{row.count()} denied requests of {member} offer peer-to-peer")
    tap(o, row.get_by_role("link", name="Schedule", exact=True))
    page(o, acme.locator("#p2p-slots"))


def offered_times(acme):
    """The offered times that can be booked, as ``[(start, end, radio)]`` (datetimes in
    Eastern time, the radio button's locator); booked and past times are left out."""
    found = []
    for row in acme.locator("#p2p-slots tbody tr").all():
        radio = row.locator("input[type=radio]")
        if not radio.count() or not radio.is_enabled():
            continue
        cells = [c.strip() for c in row.locator("td").all_inner_texts()]
        day = us_date(cells[1].split()[-1])
        start, end = (dt.datetime.combine(day, dt.datetime.strptime(t.strip(), "%I:%M %p")
                                          .time()) for t in re.split(r"[–-]", cells[2]))
        found.append((start, end, radio))
    return found


def book_p2p(o, acme, radio, *, physician, npi, phone, notes=""):
    """Choose the offered time ``radio``, fill in the physician who takes the call and
    'Request peer-to-peer'; returns the confirmation number (P2P-...)."""
    tap(o, radio)
    form = acme.locator("#p2p-form")
    put(o, field(form, "Physician name"), physician)
    put(o, field(form, "Physician NPI"), npi)
    put(o, field(form, "Callback number"), phone)
    if notes:
        put(o, field(form, "Notes for the medical director"), notes)
    tap(o, form.get_by_role("button", name="Request peer-to-peer"))
    number = acme.locator("#p2p-confirmation-number")
    saved(o, number)
    return number.inner_text().strip()
