"""Web EHR chart steps (emr.clinic.test) for the prior-auth oracles that read a chart before
they act in a payer portal: find a patient by name, read the dashboard (insurance, latest
vitals, medical problems, documents), the medication administration record, and open or
download a chart document.

Facts are read from the page text through read-only locators; every click and key goes
through the agent API (see ``web.py`` for the waiting rules). A chart document is shown as
pictures of its pages, which locators cannot read: what only a document says is the
oracle's reading of that page, stated in the gold solution.
"""

from __future__ import annotations

import re

# the dashboard's cards and the Documents page, as the other prior-auth oracles read them
from episodes.oracle_steps.ehr import active_problems as active_problems
from episodes.oracle_steps.ehr import chart_documents as chart_documents
from episodes.oracle_steps.ehr import download_shown_document
from episodes.oracle_steps.ehr import member_id as member_id
from episodes.oracle_steps.ehr import open_documents as open_documents
from episodes.oracle_steps.web import arrive, page, put, table_rows, tap

RECORD_BAR = "Patient record"
VIEW_SLACK_S = 0.7


# -- finding the patient -----------------------------------------------------------------------
def find_patient(o, ehr, last, first):
    """Finder by last name, then the chart of the row named exactly 'last, first' (a
    look-alike 'Diaz, Marcos' is not 'Diaz, Marco'); returns the chart's MRN."""
    tap(o, ehr.get_by_role("navigation", name="Main menu").get_by_role("link", name="Finder"))
    search = ehr.get_by_role("searchbox", name="Search patients")
    page(o, search)
    put(o, search, last)
    tap(o, ehr.get_by_role("search").get_by_role("button", name="Search"))
    name = f"{last}, {first}"
    row = ehr.get_by_role("row").filter(
        has=ehr.get_by_role("link", name=name, exact=True))
    page(o, row.first)
    if row.count() != 1:
        raise RuntimeError(f"Finder lists {row.count()} patients named {name!r}")
    mrn = next(c.strip() for c in row.get_by_role("cell").all_inner_texts()
               if re.fullmatch(r"\d{6}", c.strip()))
    tap(o, row.get_by_role("link", name=name, exact=True))
    page(o, ehr.get_by_role("region", name="Selected patient").filter(has_text=mrn))
    return mrn


def patient_dob(ehr):
    """The selected patient's date of birth (YYYY-MM-DD) as the patient banner shows it."""
    banner = ehr.get_by_role("region", name="Selected patient").inner_text()
    return re.search(r"DOB:\s*(\d{4}-\d{2}-\d{2})", banner).group(1)


# -- the dashboard -----------------------------------------------------------------------------
def _card(ehr, card_id):
    return ehr.locator(f"#card-{card_id}")


def show_dashboard(o, ehr):
    """The open chart's dashboard (the chart's first page)."""
    tap(o, ehr.get_by_role("navigation", name=RECORD_BAR).get_by_role(
        "link", name="Dashboard", exact=True))
    page(o, _card(ehr, "problems"))


def latest_vitals(ehr):
    """The dashboard's most recent vitals as ``{column: value}`` (BP, Pulse, ..., BMI) plus
    ``date`` (YYYY-MM-DD HH:MM)."""
    card = _card(ehr, "vitals")
    heads = [t.strip() for t in card.locator("th").all_inner_texts()]
    cells = [t.strip() for t in card.locator("td").all_inner_texts()]
    shown = dict(zip(heads, cells, strict=True))
    shown["date"] = card.get_by_text("Most recent:").inner_text().split(":", 1)[1].strip()
    return shown


# -- documents ---------------------------------------------------------------------------------
def view_document(o, ehr, name):
    """Open the document ``name`` from the tree (the EHR's access log records the view) and
    return its description line. Documents must be open (``open_documents``)."""
    link = ehr.locator("#document-tree").get_by_role("link", name=name, exact=True)
    arrive(o, link)
    box = o.box(link)  # a long name wraps: its box's middle may fall between the lines
    o.click((int(box.x + 8), int(box.y + 6)))
    toolbar = ehr.locator(".toolbar").filter(has_text=name)
    page(o, toolbar)
    page(o, ehr.locator(".doc-viewer img").first)  # the first page has arrived
    o.wait(VIEW_SLACK_S)  # the server draws the pages: slack for a slower replay
    description = toolbar.locator("xpath=following-sibling::p[1]")
    return description.inner_text().strip() if description.count() else ""


def download_document(o, ehr, name, timeout=15.0):
    """Download the document on show (``view_document``) into Downloads and return the
    name it got there (the EHR writes '_' for spaces)."""
    return download_shown_document(o, ehr, name, timeout)


# -- the medication administration record ------------------------------------------------------
def administrations(o, ehr):
    """The open chart's MAR as ``[{column: value}]`` (Administered, Drug, NDC, HCPCS, Dose,
    Billing units ...), newest first."""
    tap(o, ehr.get_by_role("navigation", name=RECORD_BAR).get_by_role(
        "link", name="MAR", exact=True))
    table = ehr.locator("#mar-table")
    page(o, table)
    return table_rows(table, complete=True)
