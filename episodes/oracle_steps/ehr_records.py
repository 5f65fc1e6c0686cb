"""Web EHR record steps (emr.clinic.test) for the prior-auth tasks' oracles: read what a
coordinator reads in a chart (insurance, visits, referrals, authorization records), the
address book and the practice's facilities; download a chart document into Downloads; and
write a payer's case number back into an authorization record or a referral.

Values are read from what the pages show, through read-only locators; every click and key
goes through the agent API (see ``web.py`` for the waiting rules).
"""

from __future__ import annotations

import re

# the address book's entry, as the other prior-auth oracles read it
from episodes.oracle_steps.ehr import directory_entry as directory_entry
from episodes.oracle_steps.ehr import download_shown_document
from episodes.oracle_steps.web import choose, menu_entry, page, put, table_rows, tap

RECORD_BAR = "Patient record"


# -- reading lists -----------------------------------------------------------------------------
def definitions(listing):
    """A definition list (``<dl>``) as ``{term: description}``."""
    terms = [t.strip() for t in listing.locator("dt").all_inner_texts()]
    descriptions = [t.strip() for t in listing.locator("dd").all_inner_texts()]
    return dict(zip(terms, descriptions, strict=False))


def labelled_lines(text):
    """'Label: value' lines (a referral's details) as ``{label: value}``."""
    found = {}
    for line in text.splitlines():
        label, sep, value = line.partition(":")
        if sep:
            found.setdefault(label.strip(), value.strip())
    return found


# -- moving around the chart -------------------------------------------------------------------
def chart_section(o, ehr, name):
    """Open a section of the selected patient's chart (Demographics, Visit History,
    Transactions, Documents, Authorizations ...): from the chart's own bar when it shows,
    else from the main menu's Patient drop-down (on the address book, say)."""
    record = ehr.get_by_role("navigation", name=RECORD_BAR)
    if record.count() and record.is_visible():
        tap(o, record.get_by_role("link", name=name, exact=True))
    else:
        menu_entry(o, ehr, "Patient", name)
    page(o, record.locator("a[aria-current=page]").filter(
        has_text=re.compile(rf"^{re.escape(name)}$")))


# -- what the chart says -----------------------------------------------------------------------
def member_id(o, ehr, payer):
    """The member ID of the selected patient's coverage with ``payer`` (Demographics >
    Insurance)."""
    chart_section(o, ehr, "Demographics")
    coverage = ehr.locator("dl.kv").filter(has_text=payer).filter(
        has=ehr.locator("dt", has_text="Member ID"))
    page(o, coverage.first)
    return definitions(coverage.first)["Member ID"]


def demographics_card(o, ehr):
    """The selected patient's Demographics card on the Dashboard: Name ('Last, First'), DOB
    ('YYYY-MM-DD (age)'), Sex, MRN, Provider ..."""
    chart_section(o, ehr, "Dashboard")
    card = ehr.locator("#card-demographics")
    page(o, card.locator("dl").first)
    facts = {}
    for listing in card.locator("dl").all():
        facts.update(definitions(listing))
    return facts


def problems(o, ehr):
    """The selected patient's medical problems (Issues): Title, Begin, End, Coding
    ('ICD10:R10.11'), Status ..."""
    chart_section(o, ehr, "Issues")
    table = ehr.locator("#issues-medical_problem table")
    page(o, table)
    return table_rows(table, complete=True)


def visits(o, ehr):
    """The selected patient's encounters (Visit History), newest first: Date, Encounter,
    Reason, Provider, Facility, Category ..."""
    chart_section(o, ehr, "Visit History")
    return table_rows(ehr.locator("#encounters-table"), complete=True)


def referral(o, ehr, to):
    """The details of the selected patient's referral to ``to`` (Transactions), as
    ``{label: value}``: Refer By, Refer To, Reason, Urgency, Referrer Diagnosis ..."""
    chart_section(o, ehr, "Transactions")
    row = ehr.locator("#transactions-table tbody tr").filter(has_text=to)
    page(o, row.first)
    return labelled_lines(row.first.locator("td").nth(3).inner_text())


def _practice_entry(o, ehr, column, name, what):
    """Admin > Practice: the one row named ``name`` of the table that has the column
    ``column`` (its ``what``, for the error), as ``{column header: cell text}``."""
    menu_entry(o, ehr, "Admin", "Practice (Pharmacies, Insurance)")
    table = ehr.locator("table").filter(has=ehr.locator("th", has_text=column))
    page(o, table.get_by_role("row").filter(has_text=name).first)
    rows = [r for r in table_rows(table, complete=True) if r["Name"] == name]
    if len(rows) != 1:
        raise RuntimeError(f"the practice lists {len(rows)} {what} named {name!r}")
    return rows[0]


def facility(o, ehr, name):
    """The practice's facility ``name`` (Admin > Practice): Name, Address, NPI, Tax ID ..."""
    return _practice_entry(o, ehr, "POS", name, "facilities")


def insurance_company(o, ehr, name):
    """The practice's insurance company ``name`` (Admin > Practice): Name, Payer ID,
    PA channel, PA fax, Portal."""
    return _practice_entry(o, ehr, "PA channel", name, "insurance companies")


def authorization_field(o, ehr, service, label):
    """What the selected patient's authorization record for ``service`` holds in the field
    ``label`` (Authorizations > Edit; left without saving)."""
    chart_section(o, ehr, "Authorizations")
    row = ehr.locator("#authorizations-table tbody tr").filter(has_text=service)
    tap(o, row.first.get_by_role("link", name="Edit"))
    value = ehr.locator("#authorization-form").get_by_label(label, exact=True)
    page(o, value)
    return value.input_value()


def authorization_record(o, ehr, service):
    """Every field of the selected patient's authorization record for ``service``
    (Authorizations > Edit; left without saving) as ``{label: value}``; a drop-down gives
    the entry it shows (Ordering Provider: 'Osei, Kwame')."""
    chart_section(o, ehr, "Authorizations")
    row = ehr.locator("#authorizations-table tbody tr").filter(has_text=service)
    tap(o, row.first.get_by_role("link", name="Edit"))
    form = ehr.locator("#authorization-form")
    page(o, form.get_by_label("Notes", exact=True))
    values = {}
    for label in form.locator("label[for]").all():
        name = re.sub(r"\s*\*$", "", label.inner_text().strip())
        control = form.locator(f"#{label.get_attribute('for')}")
        if control.count() != 1:
            continue
        chosen = control.locator("option:checked")
        values[name] = (chosen.inner_text() if chosen.count() else control.input_value()
                        ).strip()
    return values


# -- documents ---------------------------------------------------------------------------------
def documents_filed(o, ehr, category):
    """The selected patient's documents filed under ``category`` of the Documents tree
    (Clinical Notes, Imaging ...), newest first, as ``(name, date)``."""
    chart_section(o, ehr, "Documents")
    tree = ehr.locator("#document-tree")
    page(o, tree)
    folder = tree.locator("li").filter(has=ehr.locator(
        "xpath=./b", has_text=re.compile(rf"^{re.escape(category)}$")))
    if folder.count() != 1:
        raise RuntimeError(f"the Documents tree has {folder.count()} folders {category!r}")
    found = []
    for item in folder.locator("ul > li").all():
        name = item.get_by_role("link").inner_text().strip()
        found.append((name, item.locator("span").last.inner_text().strip()))
    return sorted(found, key=lambda entry: entry[1], reverse=True)


def download_document(o, ehr, name):
    """Open the chart document ``name`` (Documents) and download it; returns the name it
    has in Downloads (the EHR replaces spaces and the like with '_')."""
    chart_section(o, ehr, "Documents")
    tap(o, ehr.locator("#document-tree").get_by_role("link", name=name, exact=True))
    saved = re.sub(r"[^A-Za-z0-9._-]+", "_", name)
    if saved in o.downloads():
        raise RuntimeError(f"{saved!r} is in Downloads already (a second copy gets another name)")
    arrived = download_shown_document(o, ehr, name)
    if arrived != saved:
        raise RuntimeError(f"the download arrived as {arrived!r}, not {saved!r}")
    return saved


# -- writing the payer's number back -----------------------------------------------------------
def record_authorization(o, ehr, service, reference, submitted):
    """Edit the selected patient's authorization record for ``service`` (Authorizations):
    status Submitted, the payer's reference and the date it was submitted (YYYY-MM-DD)."""
    chart_section(o, ehr, "Authorizations")
    row = ehr.locator("#authorizations-table tbody tr").filter(has_text=service)
    tap(o, row.first.get_by_role("link", name="Edit"))
    form = ehr.locator("#authorization-form")
    page(o, form.get_by_label("Payer reference / case #"))
    choose(o, form.get_by_label("Status"), "Submitted")
    put(o, form.get_by_label("Payer reference / case #"), reference)
    put(o, form.get_by_label("Submitted"), submitted)
    tap(o, form.get_by_role("button", name="Save"))
    page(o, ehr.get_by_role("status").filter(has_text="Authorization saved (Submitted)"))


def record_referral_case(o, ehr, to, reference):
    """Write the payer's case ID into the referral to ``to`` (Transactions > Edit, field
    'Payer Case / Auth Reference')."""
    chart_section(o, ehr, "Transactions")
    row = ehr.locator("#transactions-table tbody tr").filter(has_text=to)
    tap(o, row.first.get_by_role("link", name="Edit"))
    form = ehr.locator("#transaction-form")
    case_field = form.get_by_label("Payer Case / Auth Reference")
    page(o, case_field)
    put(o, case_field, reference)
    tap(o, form.get_by_role("button", name="Save"))
    page(o, ehr.get_by_role("status").filter(has_text="saved"))
