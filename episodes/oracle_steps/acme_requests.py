"""Acme Health request wizard steps (portal.acmehealth.test) for an inpatient admission
notification and a network gap exception: start the request for a member, the providers
(filled from Acme's directory by NPI), the admission, the service, the network gap, and the
submission with its tracking reference. The Attachments step is ``acme.attach_document``'s.

Elements are found by role and label; every click and key goes through the agent API (see
``web.py`` for the waiting rules).
"""

from __future__ import annotations

import re

from episodes.oracle_steps import acme as wizard
from episodes.oracle_steps.web import (
    choose,
    enter_suggested,
    field,
    menu_entry,
    page,
    put,
    tap,
    until,
)


def current_step(o, acme, title):
    """Wait for the wizard page whose current step (the step bar) is ``title``."""
    page(o, wizard.current_step(acme, title))


# -- the request and its member ----------------------------------------------------------------
def start_request(o, acme, request_type, member_number):
    """Authorizations & Referrals > Create Authorization Request: choose ``request_type``
    (its label), find the member by ID (look-alikes share names, never IDs) and select them;
    the wizard then shows its Providers step."""
    menu_entry(o, acme, "Authorizations & Referrals", "Create Authorization Request")
    tap(o, acme.get_by_role("radio", name=request_type, exact=True))
    # choosing a type reloads the page with it marked
    page(o, acme.locator("label.type-option.selected").filter(has_text=request_type))
    search = acme.get_by_role("search", name="Member search")
    put(o, search.get_by_label("Member ID"), member_number)
    tap(o, search.get_by_role("button", name="Search"))
    select = acme.locator("#member-results").get_by_role(
        "button", name=re.compile(rf"member {re.escape(member_number)}$"))
    page(o, select)
    if select.count() != 1:
        raise RuntimeError(f"{select.count()} members {member_number} to select")
    tap(o, select)
    current_step(o, acme, "Providers")


def provider(o, acme, role, npi, tin=None):
    """One provider block of the Providers step (its heading is ``role``): the NPI typed,
    'Find' fills the name, TIN and taxonomy from Acme's directory; a ``tin`` given (the
    referral's) replaces the directory's when they differ."""
    block = acme.locator("section.provider-block").filter(
        has=acme.get_by_role("heading", name=role, exact=True))
    put(o, field(block, "NPI"), npi)
    tap(o, block.get_by_role("button", name=re.compile("^Find")))
    name = field(block, "Name")
    until(o, lambda: name.input_value().strip(), f"the directory's name for NPI {npi}")
    found = field(block, "Tax ID (TIN)")
    if tin and re.sub(r"\D", "", found.input_value()) != re.sub(r"\D", "", tin):
        put(o, found, tin)


def next_step(o, acme, title, button="Continue"):
    """Save the step with its Continue button and wait for the step ``title``."""
    tap(o, acme.get_by_role("button", name=button, exact=True))
    current_step(o, acme, title)


# -- the data steps ----------------------------------------------------------------------------
def diagnoses(o, acme, codes):
    """The ordered ICD-10-CM list, one code a line, the primary first."""
    put(o, acme.get_by_role("textbox", name=re.compile(r"^(Admitting diagnoses|Diagnosis "
                                                       r"codes)")), "\n".join(codes))


def admission(o, acme, admitted, admission_type, source, codes):
    """The Admission step: admission date and time (``admitted``: 'YYYY-MM-DD HH:MM', the
    inpatient order's), type, source and the admitting diagnoses."""
    day, time = admitted.split()
    put(o, field(acme, "Admission date"), day)
    put(o, field(acme, "Admission time (24-hour)"), time)
    choose(o, field(acme, "Admission type"), admission_type)
    choose(o, field(acme, "Admission source"), source)
    diagnoses(o, acme, codes)


def service(o, acme, code, units, dates, place, review, codes):
    """The Service step: CPT/HCPCS code, units, the dates (from, to), place of service and
    review type (option labels), and the diagnoses."""
    form = acme.locator("form.step-form")
    enter_suggested(o, form, field(acme, "Procedure code (CPT/HCPCS)"), code)
    put(o, field(acme, "Units"), units)
    put(o, field(acme, "From date"), dates[0])
    put(o, field(acme, "To date"), dates[1])
    choose(o, field(acme, "Place of service"), place)
    choose(o, field(acme, "Review type"), review)
    diagnoses(o, acme, codes)


def network_gap(o, acme, specialty, nearest_miles, nearest_provider, requested_miles,
                urgency, reason):
    """The Network gap step: the specialty, the nearest in-network provider's distance and
    name, the requested provider's distance, the clinical urgency (its option label) and
    why."""
    put(o, field(acme, "Specialty needed"), specialty)
    put(o, field(acme, "Nearest in-network provider (miles)"), nearest_miles)
    put(o, field(acme, "Requested provider (miles)"), requested_miles)
    put(o, field(acme, "Nearest in-network provider (name, location)"), nearest_provider)
    choose(o, field(acme, "Clinical urgency"), urgency)
    put(o, field(acme, "Reason for the urgency"), reason)


# -- submission -------------------------------------------------------------------------------
def submit(o, acme):
    """From the Attachments step: review, attest, submit. Returns (tracking reference,
    submitted date 'YYYY-MM-DD') as the confirmation page shows them — it cannot be
    opened again."""
    next_step(o, acme, "Review & submit", button="Continue to review")
    tap(o, acme.get_by_role("checkbox", name=re.compile("^I attest")))
    tap(o, acme.get_by_role("button", name="Submit request", exact=True))
    reference = acme.locator("#tracking-reference")
    page(o, reference)
    facts = acme.locator("section.confirmation dl")
    terms = [t.strip() for t in facts.locator("dt").all_inner_texts()]
    values = [t.strip() for t in facts.locator("dd").all_inner_texts()]
    month, day, year = re.match(r"(\d\d)/(\d\d)/(\d{4})",
                                values[terms.index("Submitted")]).groups()
    return reference.inner_text().strip(), f"{year}-{month}-{day}"
