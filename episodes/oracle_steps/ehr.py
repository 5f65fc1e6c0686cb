"""Web EHR steps (emr.clinic.test) that the prior-auth oracles share: read a chart's facts
from the dashboard, look a provider up in the address book, download a patient document
into Downloads (the file a portal upload then takes), and record a payer's reference on a
provider task.

Log-in and opening a chart are in ``web.py``; the waiting rules too. Every click and key
goes through the agent API; facts are read from the page text through locators.
"""

from __future__ import annotations

import re

from episodes.oracle_steps.web import (
    arrive,
    field,
    menu_entry,
    page,
    put,
    table_rows,
    tap,
    until,
)

TAB = "ehr"
WHEN = r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}"  # how the EHR shows a date and time


# -- the chart ---------------------------------------------------------------------------------
def _card(ehr, heading):
    """A dashboard card (section) by the text of its heading."""
    return ehr.locator("section").filter(
        has=ehr.get_by_role("heading", name=heading, exact=True))


def _lines(card):
    """The card's entries (one ``issue-line`` each), as shown."""
    return [t.strip() for t in card.locator(".issue-line").all_inner_texts()]


def active_problems(ehr):
    """The open chart's active medical problems (dashboard) as ``[(title, ICD-10 code)]``;
    resolved ones (a 'Resolved' badge) are left out."""
    found = []
    for text in _lines(_card(ehr, "Medical Problems")):
        if "Resolved" in text:
            continue
        match = re.search(r"ICD10:(\S+)", text)
        found.append((text[:match.start()].strip() if match else text,
                      match.group(1) if match else ""))
    return found


def active_medications(ehr):
    """The open chart's medication list entries without a 'Stopped' badge (dashboard). The
    list can be stale (a drug stopped in the notes may still show): check the notes."""
    return [t for t in _lines(_card(ehr, "Medications")) if "Stopped" not in t]


def stopped_medications(ehr):
    """The open chart's medication list entries marked stopped (dashboard):
    ``[(entry, 'YYYY-MM-DD' it stopped)]``."""
    found = []
    for text in _lines(_card(ehr, "Medications")):
        match = re.search(r"\s*Stopped (\d{4}-\d{2}-\d{2})$", text)
        if match:
            found.append((text[:match.start()], match.group(1)))
    return found


def member_id(ehr, payer="Acme Health"):
    """The member ID on the open chart's insurance card for ``payer`` (dashboard)."""
    for text in _lines(_card(ehr, "Insurance")):
        if payer in text:
            return re.search(r"Member ID\s+(\S+)", text).group(1)
    raise RuntimeError(f"the chart shows no {payer} insurance")


def chart_documents(ehr):
    """The open chart's documents as the dashboard lists them: ``[(name, category, date)]``
    (date as shown, YYYY-MM-DD)."""
    found = []
    for text in _lines(_card(ehr, "Documents")):
        match = re.match(r"^(.*?\.\w{3,4})\s+(.*?)\s+·\s+(\d{4}-\d{2}-\d{2})$", text)
        if match:
            found.append(match.groups())
    return found


def chart_encounters(ehr):
    """The open chart's encounters (dashboard): ``[(date 'YYYY-MM-DD HH:MM', reason)]``."""
    rows = _card(ehr, "Encounters").get_by_role("row").all_inner_texts()
    return [tuple(c.strip() for c in text.split("\t")[:2]) for text in rows if "\t" in text]


def lab_results(ehr, test):
    """The open chart's results of ``test`` (the start of its name on the dashboard's Labs
    card, e.g. 'eGFR'), newest first: ``[(value, 'YYYY-MM-DD HH:MM')]``."""
    found = []
    for text in _lines(_card(ehr, "Labs")):
        match = re.match(rf"^{re.escape(test)}.*?:\s+(\S+).*?({WHEN})$", text)
        if match:
            found.append((match.group(1), match.group(2)))
    return sorted(found, key=lambda r: r[1], reverse=True)


def problem_onset(o, ehr, code):
    """The begin date (YYYY-MM-DD) of the open chart's medical problem coded ``code``
    (ICD-10), from the Issues page."""
    tap(o, ehr.get_by_role("navigation", name="Patient record").get_by_role(
        "link", name="Issues"))
    problems = ehr.locator("#issues-medical_problem")
    page(o, problems)
    row = problems.get_by_role("row").filter(has_text=f"ICD10:{code}")
    if row.count() != 1:
        raise RuntimeError(f"the problem list has {row.count()} rows coded {code}")
    return [c.strip() for c in row.get_by_role("cell").all_inner_texts()][1]


def search_directory(o, ehr, query, *, wait_for_answer=False):
    """Admin > Address Book / Provider Directory: ``query`` typed into its search box and
    Search pressed. The result table shows before the answer as well: ``wait_for_answer``
    waits until the page's address carries the query (for a caller that reads the whole
    table rather than waiting for the row it wants)."""
    menu_entry(o, ehr, "Admin", "Address Book / Provider Directory")
    search = ehr.get_by_role("searchbox", name="Search directory")
    page(o, search)
    put(o, search, query)
    before = ehr.url
    tap(o, ehr.get_by_role("search").get_by_role("button", name="Search"))
    if wait_for_answer:
        until(o, lambda: ehr.url != before and "q=" in ehr.url, "the directory's answer")


def directory_entry(o, ehr, query, name):
    """The address book's one entry whose name contains ``name`` ('Haddad, Omar'; 'Haddad, '
    for any first name), found by searching ``query``, as ``{column: text}``: Name,
    Specialty, Organization, NPI, Taxonomy, TIN, Network, Phone, Fax, Type."""
    search_directory(o, ehr, query)
    table = ehr.locator("#directory-table")
    page(o, table.locator("tbody tr").filter(has_text=name).first)
    rows = [r for r in table_rows(table, complete=True) if name in r["Name"]]
    if len(rows) != 1:
        raise RuntimeError(f"the address book lists {len(rows)} entries for {name!r}")
    return rows[0]


def provider_npi(o, ehr, last_name, first_name):
    """The NPI of a provider in the address book (Admin > Address Book / Provider
    Directory), searched by last name; the row must also carry the first name."""
    search_directory(o, ehr, last_name)
    row = ehr.locator("#directory-table tbody tr").filter(
        has=ehr.get_by_role("link", name=re.compile(
            rf"^{re.escape(last_name)}, {re.escape(first_name)}\b")))
    page(o, row)
    if row.count() != 1:
        raise RuntimeError(f"the directory lists {row.count()} {first_name} {last_name}")
    cells = [c.strip() for c in row.get_by_role("cell").all_inner_texts()]
    return next(c for c in cells if re.fullmatch(r"\d{10}", c))


def rows_of(table):
    """A table's body rows as ``{column header: cell text}``."""
    headers = [h.strip() for h in table.get_by_role("columnheader").all_inner_texts()]
    return [dict(zip(headers, (c.strip() for c in row.get_by_role("cell").all_inner_texts()),
                     strict=False))
            for row in table.locator("tbody tr").all()]


def prescriptions(o, ehr):
    """The open chart's Prescriptions page (active and inactive), one ``{column: text}``
    a prescription: Drug, Directions, Dose, Qty, Refills, Pharmacy, Start, Status, eRx."""
    tap(o, ehr.get_by_role("navigation", name="Patient record").get_by_role(
        "link", name="Prescriptions"))
    table = ehr.locator("#rx-table")
    page(o, table)
    return rows_of(table)


# -- documents ---------------------------------------------------------------------------------
def open_documents(o, ehr):
    """The open chart's Documents page (its category tree)."""
    tap(o, ehr.get_by_role("navigation", name="Patient record").get_by_role(
        "link", name="Documents"))
    page(o, ehr.locator("#document-tree"))


def download_document(o, ehr, name, timeout=15.0):
    """Download the open chart's document ``name`` (as the tree lists it) into Downloads
    and return the name of the file that arrived there (the EHR names it after the
    document, spaces made '_'). Documents must be open (``open_documents``)."""
    link = ehr.locator("#document-tree").get_by_role("link", name=name, exact=True)
    arrive(o, link)
    box = o.box(link)  # a long name wraps: its box's centre can fall between the lines
    o.click((int(box.x + min(box.width, 40) / 2), int(box.y + min(box.height, 16) / 2)))
    return download_shown_document(o, ehr, name, timeout)


def download_shown_document(o, ehr, name, timeout=15.0):
    """Download the document ``name`` on show (its toolbar's Download) into Downloads and
    return the name of the file that arrived there."""
    button = ehr.get_by_role("link", name="Download", exact=True)
    page(o, ehr.locator(".toolbar").filter(has_text=name).filter(has=button))
    before = set(o.downloads())
    tap(o, button)
    for _ in range(int(timeout / 0.1)):  # a download shows nothing on the page: glance
        arrived = sorted(set(o.downloads()) - before)
        if arrived:
            return arrived[0]
        o.wait(0.1)
    raise RuntimeError(f"{name!r} did not arrive in Downloads (there: {o.downloads()})")


# -- provider tasks ----------------------------------------------------------------------------
def open_tasks(o, ehr):
    """Worklists > Provider Tasks (every task)."""
    menu_entry(o, ehr, "Worklists", "Provider Tasks")
    page(o, ehr.locator("#tasks-table"))


def open_task(o, ehr, subject):
    """Worklists > Provider Tasks, then the task whose subject contains ``subject``."""
    open_tasks(o, ehr)
    link = ehr.locator("#tasks-table").get_by_role("link").filter(has_text=subject)
    if link.count() != 1:
        raise RuntimeError(f"{link.count()} tasks read {subject!r}")
    tap(o, link)
    page(o, ehr.locator("#task-form"))


def record_reference(o, ehr, subject, reference):
    """Put a payer's reference number on the provider task whose subject contains
    ``subject`` (its Reference field) and save; nothing else of the task changes."""
    open_task(o, ehr, subject)
    form = ehr.locator("#task-form")
    put(o, field(form, "Reference"), reference)
    tap(o, form.get_by_role("button", name="Save"))
    page(o, ehr.get_by_role("status").filter(has_text="saved"))
    if field(ehr.locator("#task-form"), "Reference").input_value() != reference:
        raise RuntimeError("the task did not keep the reference")
