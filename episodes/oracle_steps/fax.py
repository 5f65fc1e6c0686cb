"""Beta Care FaxLink steps (fax.betacare.test): log in, read Beta Care's bulletins and fax
numbers (Payer resources), compose a fax (a number from the fax directory, the cover sheet,
attachments through the OS file chooser), send it, and follow it in the sent log until it
is delivered.

A fax takes sandbox time to go through (dialling, then about 9 s a page), and only a
delivered fax reaches the payer, so a solution ends with ``wait_delivered``. Elements are
found by role and label; every click and key goes through the agent API (see ``web.py``
for the waiting rules).
"""

from __future__ import annotations

import datetime as dt
import re

from episodes.oracle_steps.web import (
    attach_file,
    field,
    last_look,
    page,
    put,
    put_long,
    sign_in,
    tap,
)

TAB = "fax"
MENU = "Fax menu"
DELIVERED = "Delivered"
FAILED = "Failed"


def log_in(o, fax):
    """Log in with the fax service's user from input/creds.txt (its 'Beta Care fax' section)."""
    sign_in(o, fax, tab=TAB, system="Beta Care fax", user_label="User name", button="Sign in",
            menu=MENU)


def menu(o, fax, entry):
    """Open ``entry`` of the side menu (New fax, Sent, Drafts, Fax directory, Payer
    resources)."""
    tap(o, fax.get_by_role("navigation", name=MENU).get_by_role(
        "link", name=re.compile(rf"{re.escape(entry)}$")))


# -- Payer resources ---------------------------------------------------------------------------
def bulletin_text(o, fax, key):
    """The text of Beta Care's bulletin ``key`` (e.g. 'beta-appeals-level-1') on the Payer
    resources page."""
    menu(o, fax, "Payer resources")
    bulletin = fax.locator(f"#bulletin-{key}")
    page(o, bulletin)
    return " ".join(bulletin.inner_text().split())


# -- composing and sending -----------------------------------------------------------------------
def new_fax_to(o, fax, number):
    """A new fax to ``number`` from the fax directory ('Fax this number' on its one row):
    the number, the recipient's name and the cover sheet's To come filled in."""
    menu(o, fax, "Fax directory")
    rows = fax.locator("#directory tbody tr").filter(
        has=fax.get_by_role("cell", name=number, exact=True))
    page(o, rows.first)
    if rows.count() != 1:
        raise RuntimeError(f"the fax directory has {rows.count()} entries for {number}")
    tap(o, rows.get_by_role("link", name=re.compile(r"^Fax ")))
    form = fax.locator("#compose-form")
    page(o, form)
    if field(form, "Fax number").input_value() != number:
        raise RuntimeError(f"the new fax is not to {number} (the field holds "
                           f"{field(form, 'Fax number').input_value()!r})")


def cover_sheet(o, fax, *, subject, message, to=None, sender=None):
    """Include a cover sheet with Re: ``subject`` and ``message`` (To and From only when
    given; the directory entry and the account fill them in otherwise)."""
    form = fax.locator("#compose-form")
    include = form.get_by_label("Include a cover sheet")
    if not include.is_checked():
        tap(o, include)
    if to is not None:
        put(o, field(form, "To"), to)
    if sender is not None:
        put(o, field(form, "From"), sender)
    put(o, field(form, "Re: (subject)"), subject)
    put_long(o, field(form, "Message"), message)


def attach(o, fax, path):
    """Attach one file (``~/Downloads/...``): the OS file chooser for 'Add files', then
    '+ Attach'; waits until the attachments list shows it."""
    form = fax.locator("#compose-form")
    attach_file(o, field(form, "Add files"), path)
    tap(o, form.get_by_role("button", name="Attach"))
    name = path.rsplit("/", 1)[-1]
    page(o, fax.locator("#attachments").get_by_role("link", name=name, exact=True))


def send(o, fax):
    """Send fax; returns the confirmation ID (FX-...) and the day it was sent, as the
    delivery report shows them."""
    tap(o, fax.locator("#compose-form").get_by_role("button", name="Send fax"))
    confirmation = fax.locator("#confirmation-id")
    page(o, confirmation)
    sent = fax.locator("#delivery tr").filter(has=fax.locator("th", has_text="Sent"))
    day = sent.locator("td").inner_text().split()[0]
    return confirmation.inner_text().strip(), dt.datetime.strptime(day, "%m/%d/%Y").date()


def wait_delivered(o, fax, confirmations, timeout=240.0, every=3.0):
    """Follow the sent log until every fax of ``confirmations`` shows Delivered: the page
    shows the status when it is loaded, so 'Sent' is clicked again every ``every`` seconds
    (the time in between is in the trace as waiting). A failed fax is an error."""
    o.show_tab(TAB)
    pending = set(confirmations)
    for _ in range(int(timeout / every)):
        menu(o, fax, "Sent")
        log = fax.locator("#sent-log")
        page(o, log)
        for confirmation in sorted(pending):
            status = sent_status(fax, confirmation)
            if status.startswith(FAILED):
                raise RuntimeError(f"fax {confirmation} failed: {status}")
            if status == DELIVERED:
                pending.discard(confirmation)
        if not pending:
            last_look(o, log)
            return
        for _ in range(int(every / 0.1)):
            o.wait(0.1)
    raise RuntimeError(f"faxes {sorted(pending)} were not delivered within {timeout:g} s")


def sent_status(fax, confirmation):
    """The status badge of fax ``confirmation`` in the sent log shown."""
    row = fax.locator("#sent-log tbody tr").filter(
        has=fax.get_by_role("link", name=confirmation, exact=True))
    if row.count() != 1:
        raise RuntimeError(f"the sent log shows {row.count()} rows for {confirmation}")
    return row.locator(".badge").inner_text().strip()
