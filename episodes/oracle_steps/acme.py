"""Acme Health provider portal steps (portal.acmehealth.test), for the prior-auth tasks'
oracles. Elements are found by role and label; every click and key goes through the agent
API (see ``web.py`` for the waiting rules).

A request goes through the wizard the way a coordinator drives it::

    log_in(o, acme)
    start_request(o, acme, "Outpatient service / procedure", "ACM402918331")
    fill_provider(o, acme, REQUESTING, "1546827399")
    fill_provider(o, acme, RENDERING, "1938475625")
    continue_to(o, acme, "Service")
    fill_service(o, acme, "72148", units="1", start="2026-10-19", end="2026-12-17",
                 place="11 - Office", diagnoses=["M51.16"])
    continue_to(o, acme, "Clinical questions")
    answer(o, acme, "Primary diagnosis (ICD-10-CM)", "M51.16")       # text
    answer(o, acme, "Has the patient ...?", "Yes")                   # one choice
    answer(o, acme, "Red-flag findings (select all that apply)", ["None"])
    continue_to(o, acme, "Attachments")
    attach_document(o, acme, "~/Downloads/note.pdf", "Clinical note")
    continue_to(o, acme, "Review & submit")
    reference = submit_request(o, acme)

``outpatient_service`` takes an outpatient request from ``start_request`` to the Clinical
questions in one call. Values are what the page shows (option labels such as 'Radiographs',
'Clinical note'), not the portal's stored codes.
"""

from __future__ import annotations

import re

from episodes.oracle_steps.web import (
    arrive,
    attach_file,
    choose,
    field,
    menu_entry,
    page,
    put,
    sign_in,
    tap,
    until,
)

TAB = "acme"
REQUESTING = "Requesting (ordering) provider"
RENDERING = "Rendering (servicing) provider"
FACILITY = "Facility (if any)"
PRESCRIBER = "Prescriber"  # a pharmacy request's requesting provider


def log_in(o, acme, system="Acme Health"):
    """Log in to the portal with a user from input/creds.txt: the 'Acme Health' section's,
    or the section ``system`` names (the billing office's, say)."""
    sign_in(o, acme, tab=TAB, system=system, user_label="User ID")


# -- the request wizard ------------------------------------------------------------------------
def current_step(acme, title):
    """The wizard's step bar with ``title`` ('Providers', 'Service', 'Clinical questions',
    'Attachments', 'Review & submit' ...) as the current step."""
    steps = acme.get_by_role("list", name="Request steps")
    return steps.locator("li.current").filter(has_text=re.compile(rf"{re.escape(title)}\s*$"))


def start_request(o, acme, request_type, member_id):
    """Authorizations & Referrals > Create Authorization Request: choose the request type
    (its label: 'Outpatient service / procedure', 'Pharmacy (drug)', 'Inpatient admission
    notification', 'Network gap exception (out-of-network provider)'), search the member by
    ID (never by name: look-alike members share names) and select them. Ends on Providers."""
    menu_entry(o, acme, "Authorizations & Referrals", "Create Authorization Request")
    kind = acme.get_by_role("radio", name=request_type, exact=True)
    page(o, kind)
    tap(o, kind)  # the page reloads with the type
    until(o, lambda: "type=" in acme.url, f"the page for a {request_type!r} request")
    search = acme.get_by_role("search", name="Member search")
    put(o, field(search, "Member ID"), member_id)
    tap(o, search.get_by_role("button", name="Search", exact=True))
    select = acme.get_by_role("button", name=re.compile(rf"member {re.escape(member_id)}$"))
    page(o, select)
    tap(o, select)
    page(o, current_step(acme, "Providers"))


def continue_to(o, acme, step):
    """Continue (saves the step) and wait for the wizard's step ``step``."""
    tap(o, acme.get_by_role("button", name=re.compile(r"^Continue( to review)?$")))
    page(o, current_step(acme, step))


def section(acme, title):
    """A card of the page by its heading ('Requesting (ordering) provider' ...)."""
    return acme.locator("section").filter(
        has=acme.get_by_role("heading", name=title, exact=True))


def fill_provider(o, acme, role, npi):
    """Type a provider's NPI into the card ``role`` (REQUESTING, RENDERING, FACILITY) and
    press its Find, which fills name, TIN and taxonomy from Acme's directory."""
    card = section(acme, role)
    put(o, field(card, "NPI"), npi)
    tap(o, card.get_by_role("button", name=f"Find {role} by NPI"))
    name = field(section(acme, role), "Name")
    until(o, lambda: name.count() == 1 and name.input_value().strip(),
          f"the {role}'s name from NPI {npi}")


def _dismiss_suggestions(o, acme, heading):
    """Click the card's heading: a field's suggestion list closes (left open, it covers
    the fields below it and takes their clicks)."""
    tap(o, acme.get_by_role("heading", name=heading, exact=True))


def enter_diagnoses(o, acme, codes):
    """The ordered ICD-10-CM list (primary first), one code a line."""
    box = field(acme, "Diagnosis codes")
    arrive(o, box)
    o.enter_text(box, codes[0], replace=bool(box.input_value()))
    for code in codes[1:]:
        o.key("Return")
        o.type(code)
    shown = [c.strip() for c in box.input_value().splitlines() if c.strip()]
    if shown != list(codes):
        raise RuntimeError(f"the diagnosis list shows {shown}, not {codes}")


def fill_service(o, acme, code, *, units, start, end, place, diagnoses, unit_type=None,
                 review_type=None, modifier=None, summary=None):
    """The Service step: procedure code (its suggestion list dismissed), units, dates
    (YYYY-MM-DD), place of service (the option as shown, e.g. '11 - Office'), optional unit
    type / review type / modifier, the diagnosis codes in order and a clinical summary."""
    put(o, field(acme, "Procedure code (CPT/HCPCS)"), code)
    _dismiss_suggestions(o, acme, "Service requested")
    if modifier:
        put(o, field(acme, "Modifier"), modifier)
    put(o, field(acme, "Units"), units)
    if unit_type:
        choose(o, field(acme, "Unit type"), unit_type)
    put(o, field(acme, "From date"), start)
    put(o, field(acme, "To date"), end)
    choose(o, field(acme, "Place of service"), place)
    if review_type:
        choose(o, field(acme, "Review type"), review_type)
    enter_diagnoses(o, acme, diagnoses)
    if summary:
        put(o, field(acme, "Clinical summary"), summary)


def fill_drug(o, acme, *, drug, strength, quantity, days_supply, directions, diagnoses,
              ndc=None, hcpcs=None, start=None, end=None, review_type=None):
    """The Medication step of a pharmacy request: drug name (its suggestion list
    dismissed), strength, quantity, days supply, directions, optional NDC / HCPCS / therapy
    dates / review type, and the diagnosis codes in order."""
    put(o, field(acme, "Drug name"), drug)
    _dismiss_suggestions(o, acme, "Medication requested")
    put(o, field(acme, "Strength"), strength)
    if ndc:
        put(o, field(acme, "NDC"), ndc)
    put(o, field(acme, "Quantity"), quantity)
    put(o, field(acme, "Days supply"), days_supply)
    if hcpcs:
        put(o, field(acme, "HCPCS code (medical benefit)"), hcpcs)
    if review_type:
        choose(o, field(acme, "Review type"), review_type)
    put(o, field(acme, "Directions (sig)"), directions)
    if start:
        put(o, field(acme, "Therapy start date"), start)
    if end:
        put(o, field(acme, "Therapy end date"), end)
    enter_diagnoses(o, acme, diagnoses)


def outpatient_service(o, acme, member_id, *, requesting, rendering, code, units, start, end,
                       place, diagnoses):
    """An outpatient service request from its start to the Clinical questions step: the
    member by ID, the requesting and rendering providers by NPI, then the Service step
    (see ``fill_service``)."""
    start_request(o, acme, "Outpatient service / procedure", member_id)
    fill_provider(o, acme, REQUESTING, requesting)
    fill_provider(o, acme, RENDERING, rendering)
    continue_to(o, acme, "Service")
    fill_service(o, acme, code, units=units, start=start, end=end, place=place,
                 diagnoses=diagnoses)
    continue_to(o, acme, "Clinical questions")


# -- the clinical questionnaire ----------------------------------------------------------------
def answer(o, acme, question, value):
    """Answer the questionnaire item whose question reads ``question`` (without the
    required mark). ``value``: the text for a text, number or date answer; the option's
    label for a single choice ('Yes', 'Radiographs'); a list of labels for a 'select all
    that apply' item (exactly these end up ticked). A follow-up question shows once the
    earlier answer that opens it is given, so answer in the page's order."""
    name = re.compile(rf"^{re.escape(question)}( \*)?$")
    group = acme.get_by_role("group", name=name)
    arrive(o, group.or_(acme.get_by_label(name)))
    if not group.count():
        put(o, acme.get_by_label(name), str(value))
        return
    wanted = [value] if isinstance(value, str) else list(value)
    keep = {group.get_by_label(label, exact=True).get_attribute("value") for label in wanted}
    for box in group.get_by_role("checkbox").all():  # untick what should not be ticked
        if box.is_checked() and box.get_attribute("value") not in keep:
            tap(o, box)
    for label in wanted:
        choice = group.get_by_label(label, exact=True)
        if not choice.is_checked():
            tap(o, choice)
        if not choice.is_checked():
            raise RuntimeError(f"{question!r}: {label!r} did not stay chosen")


# -- attachments -------------------------------------------------------------------------------
def upload_document(o, acme, path, document_type, description=""):
    """On the Attachments step: choose the file ``path`` (``~/Downloads/…``,
    ``~/Documents/…``) through the OS file chooser, its document type (as the list shows
    it, e.g. 'Clinical note') and description, and press Upload. Returns at once: the next
    page is the list of attached documents (see ``attach_document``) — or, where the portal
    ends the session at this step, its log-in page."""
    attach_file(o, acme.get_by_label(re.compile(r"^Document \(")), path)
    choose(o, field(acme, "Document type"), document_type)
    if description:
        put(o, field(acme, "Description"), description)
    tap(o, acme.get_by_role("button", name="Upload", exact=True))


def attached(acme, name):
    """The row of the attached-documents table for the file ``name``."""
    return acme.locator("#attached-documents").get_by_role("row").filter(
        has=acme.get_by_role("link", name=name, exact=True))


def attach_document(o, acme, path, document_type, description=""):
    """``upload_document``, then wait until the file is listed as attached."""
    upload_document(o, acme, path, document_type, description)
    page(o, attached(acme, path.rsplit("/", 1)[-1]))


# -- review, submission, drafts ----------------------------------------------------------------
def submit_request(o, acme, acknowledge_similar=False):
    """On Review & submit: tick the attestation and submit; returns the tracking reference
    the confirmation page shows (it cannot be shown again once left). A 'similar request
    exists' warning stops the oracle unless ``acknowledge_similar`` (then it is ticked)."""
    submit = acme.get_by_role("button", name="Submit request")
    page(o, submit)
    if acme.get_by_text("A similar request exists").count():
        if not acknowledge_similar:
            raise RuntimeError("the portal warns of a similar request: "
                               + acme.locator("#similar-requests").inner_text())
    # the review is long: bring its last card into view once and let the (smooth) scroll
    # end before clicking in it, so a replay on a busy machine clicks where this run did
    o.box(submit)
    o.wait(0.5)
    if acknowledge_similar:
        tap(o, acme.get_by_label(re.compile(r"^I checked the similar request")))
    attest = acme.get_by_label(re.compile(r"^I attest"))
    if not attest.is_checked():
        tap(o, attest)
    tap(o, submit)
    reference = acme.locator("#tracking-reference")
    page(o, reference)
    return reference.inner_text().strip()


def drafts(o, acme):
    """Authorizations & Referrals > My Drafts."""
    menu_entry(o, acme, "Authorizations & Referrals", "My Drafts")
    page(o, section(acme, "My drafts"))


def draft_row(acme, member_name):
    """The My drafts row of the member ``'Last, First'``."""
    return section(acme, "My drafts").get_by_role("row").filter(has_text=member_name)


def resume_draft(o, acme, member_name, step):
    """On My drafts: Resume the one draft of ``member_name`` ('Last, First') and wait for
    the wizard's step ``step`` (the step it was saved at)."""
    rows = draft_row(acme, member_name)
    if rows.count() != 1:
        raise RuntimeError(f"My drafts lists {rows.count()} drafts for {member_name}")
    tap(o, rows.get_by_role("link", name=f"Resume draft for {member_name}"))
    page(o, current_step(acme, step))


def submitted_requests(acme, member_name):
    """The 'Recently submitted' rows (My drafts page) for ``member_name``, as shown."""
    return [t.strip() for t in section(acme, "Recently submitted").get_by_role("row")
            .filter(has_text=member_name).all_inner_texts()]
