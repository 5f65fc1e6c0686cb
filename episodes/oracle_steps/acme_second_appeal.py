"""Acme Health portal steps for a second-level appeal (portal.acmehealth.test): find the
upheld level-1 appeal, read the decision it rests on, and file the level-2 appeal through its
three steps (details, documents through the OS file chooser, review and submit).

Elements are found by role and label; every click and key goes through the agent API (see
``web.py`` for the waiting rules). The portal's pages show dates as MM/DD/YYYY.
"""

from __future__ import annotations

import datetime as dt
import re

from episodes.oracle_steps.ehr_records import definitions
from episodes.oracle_steps.web import attach_file, choose, field, page, put, tap

DETAILS_STEP = "Appeal details"


def iso_date(shown):
    """A date the portal shows as MM/DD/YYYY, as YYYY-MM-DD."""
    return dt.datetime.strptime(shown.strip(), "%m/%d/%Y").date().isoformat()


def open_upheld_appeal(o, acme, member_name):
    """Appeals > Appeals Dashboard > File an appeal, then the one level-1 appeal of
    ``member_name`` ('Last, First') in 'Level-1 appeals upheld'. Returns its row as shown:
    ``{"Appeal", "Member", "Decided", "Level-2 deadline"}``."""
    menu = acme.get_by_role("navigation", name="Main menu")
    tap(o, menu.get_by_text("Appeals", exact=True))
    tap(o, menu.get_by_role("link", name="Appeals Dashboard", exact=True))
    tap(o, acme.get_by_role("link", name="File an appeal", exact=True))
    table = acme.locator("#upheld-appeals")
    page(o, table)
    rows = table.locator("tbody tr").filter(has_text=member_name)
    if rows.count() != 1:
        raise RuntimeError(f"'Level-1 appeals upheld' lists {rows.count()} for {member_name}")
    headers = [t.strip() for t in table.locator("thead th").all_inner_texts()]
    cells = [t.strip() for t in rows.locator("td").all_inner_texts()]
    shown = dict(zip(headers, cells, strict=False))
    tap(o, rows.get_by_role("link", name=shown["Appeal"], exact=True))
    page(o, acme.get_by_role("heading", name=f"Appeal {shown['Appeal']}", exact=True))
    return shown


def appeal_facts(acme):
    """On an appeal's page: its own details (Appeal reference, Level, Contact, Decision ...)
    and the decision it appeals ('Decision being appealed': Authorization, Service,
    Requesting provider ...), plus the member line (name, DOB, member ID, plan)."""
    own = definitions(acme.locator("section.card").filter(
        has=acme.locator("dt", has_text="Appeal reference")).locator("dl").first)
    subject = acme.locator("#appeal-subject")
    return {"appeal": own, "subject": definitions(subject.locator("dl")),
            "member": subject.locator(".subject-member").inner_text().strip()}


def start_second_level(o, acme, *, reason, outcome, letter, contact_name, contact_phone):
    """From the level-1 appeal's page: File level-2 appeal, then step 1 (reason as the list
    shows it, requested outcome, letter, contact), saved as a draft; ends on Documents."""
    tap(o, acme.get_by_role("link", name="File level-2 appeal"))
    form = acme.locator("#appeal-form")
    page(o, field(form, "Appeal letter"))
    choose(o, field(form, "Reason for the appeal"), reason)
    put(o, field(form, "Requested outcome"), outcome)
    put(o, field(form, "Appeal letter"), letter)
    put(o, field(form, "Contact name"), contact_name)
    put(o, field(form, "Contact phone"), contact_phone)
    tap(o, form.get_by_role("button", name="Save and continue"))
    page(o, acme.get_by_role("heading", name="Attach a document"))


def attach_appeal_document(o, acme, path, document_type, description=""):
    """Step 2: one document through the OS file chooser, its type as the list shows it
    ('Dosimetry plan', 'Medical literature' ...), Upload; waits until it is listed."""
    form = acme.locator("#upload-form")
    attach_file(o, field(form, "File"), path)
    choose(o, field(form, "Document type"), document_type)
    if description:
        put(o, field(form, "Description (optional)"), description)
    tap(o, form.get_by_role("button", name="Upload document"))
    name = path.rsplit("/", 1)[-1]
    page(o, acme.locator("#attachments").get_by_role("link", name=name, exact=True))


def submit_appeal(o, acme):
    """Step 3: Continue to review, attest, Submit appeal; returns the AP26- reference the
    confirmation shows."""
    tap(o, acme.get_by_role("link", name=re.compile(r"^Continue to review")))
    attest = acme.get_by_label(re.compile(r"^I attest"))
    page(o, attest)
    tap(o, attest)
    tap(o, acme.get_by_role("button", name="Submit appeal"))
    reference = acme.locator("#appeal-reference")
    page(o, reference)
    return reference.inner_text().strip()
