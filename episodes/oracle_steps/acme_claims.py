"""Acme Health provider portal steps of the billing office (portal.acmehealth.test, Claims &
Payments): log in with the billing user, a claim status inquiry, a claim's service lines,
and a corrected claim (frequency 7 replacement) of a processed claim.

Elements are found by role and label; every click and key goes through the agent API (see
``web.py`` for the waiting rules). The portal shows dates as MM/DD/YYYY.
"""

from __future__ import annotations

from episodes.oracle_steps.acme import log_in
from episodes.oracle_steps.acme_appeals import saved
from episodes.oracle_steps.web import field, last_look, menu_entry, page, put, table_rows, tap

BILLING = "billing office"  # the creds.txt section of the claims user


def log_in_billing(o, acme):
    """Log in with the billing office's user from input/creds.txt (claims are theirs)."""
    log_in(o, acme, BILLING)


def claims_of_patient(o, acme, *, last_name, dob, dos_from, dos_to):
    """Claims & Payments > Claim Status Inquiry by patient (last name and date of birth,
    service dates; all MM/DD/YYYY); returns the result rows (Claim number, Patient,
    Member ID, DOB, Service dates, Billed, Paid, Status, Processed)."""
    menu_entry(o, acme, "Claims & Payments", "Claim Status Inquiry")
    form = acme.locator("#claim-search")
    page(o, field(form, "Patient last name"))
    put(o, field(form, "Patient last name"), last_name)
    put(o, field(form, "Patient date of birth"), dob)
    put(o, field(form, "Service date from"), dos_from)
    put(o, field(form, "Service date to"), dos_to)
    tap(o, form.get_by_role("button", name="Search"))
    results = acme.locator("#claim-results")
    saved(o, results)
    return table_rows(results, complete=True)


def open_claim(o, acme, number):
    """The claim ``number`` from the inquiry's results: its page (status, lines)."""
    tap(o, acme.locator("#claim-results").get_by_role("link", name=number, exact=True))
    page(o, acme.get_by_role("heading", name=f"Claim {number}"))


def service_lines(acme):
    """The open claim's service lines (Line, Service date, Procedure, Modifiers, ...,
    Units, Billed, Allowed, Paid, Adjustments, Line status)."""
    table = acme.locator("table").filter(has=acme.locator("th", has_text="Procedure"))
    return table_rows(table.first, complete=True)


def correct_claim(o, acme, *, changes, reason):
    """'Corrected claim / void' on the open claim: frequency 7 (replacement), the original
    claim number as the form fills it in, the lines as prefilled except ``changes``
    (``{line number: {"units": ..., "charge": ...}}``), the reason; returns the
    correction's reference (CC26-...)."""
    tap(o, acme.get_by_role("link", name="Corrected claim / void"))
    form = acme.locator("#correction-form")
    page(o, form)
    tap(o, form.locator("#frequency-7"))
    for line, values in changes.items():
        for name, value in values.items():
            put(o, form.locator(f"#line-{line}-{name}"), value)
    put(o, field(form, "Reason for the correction"), reason)
    tap(o, form.get_by_role("button", name="Submit corrected claim"))
    reference = acme.locator("#correction-reference")
    last_look(o, reference)
    return reference.inner_text().strip()
