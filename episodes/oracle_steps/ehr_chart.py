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

from episodes.oracle_steps.web import arrive, page, put, tap

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


def _lines(ehr, card_id):
    return [t.strip() for t in _card(ehr, card_id).locator(".issue-line").all_inner_texts()]


def show_dashboard(o, ehr):
    """The open chart's dashboard (the chart's first page)."""
    tap(o, ehr.get_by_role("navigation", name=RECORD_BAR).get_by_role(
        "link", name="Dashboard", exact=True))
    page(o, _card(ehr, "problems"))


def member_id(ehr, payer="Acme Health"):
    """The member ID on the dashboard's insurance line of ``payer``."""
    for text in _lines(ehr, "insurance"):
        if payer in text:
            return re.search(r"Member ID\s+(\S+)", text).group(1)
    raise RuntimeError(f"the chart shows no {payer} coverage")


def latest_vitals(ehr):
    """The dashboard's most recent vitals as ``{column: value}`` (BP, Pulse, ..., BMI) plus
    ``date`` (YYYY-MM-DD HH:MM)."""
    card = _card(ehr, "vitals")
    heads = [t.strip() for t in card.locator("th").all_inner_texts()]
    cells = [t.strip() for t in card.locator("td").all_inner_texts()]
    shown = dict(zip(heads, cells, strict=True))
    shown["date"] = card.get_by_text("Most recent:").inner_text().split(":", 1)[1].strip()
    return shown


def active_problems(ehr):
    """The dashboard's medical problems that are not resolved: ``[(title, ICD-10 code)]``."""
    found = []
    for text in _lines(ehr, "problems"):
        if "Resolved" in text:
            continue
        match = re.search(r"ICD10:(\S+)", text)
        found.append((text[:match.start()].strip() if match else text,
                      match.group(1) if match else ""))
    return found


def chart_documents(ehr):
    """The dashboard's documents: ``[(name, category, date YYYY-MM-DD)]``."""
    found = []
    for text in _lines(ehr, "documents"):
        match = re.match(r"^(.*?\.\w{3,4})\s+(.*?)\s+·\s+(\d{4}-\d{2}-\d{2})$", text)
        if match:
            found.append(match.groups())
    return found


# -- documents ---------------------------------------------------------------------------------
def open_documents(o, ehr):
    """The open chart's Documents page (the category tree)."""
    tap(o, ehr.get_by_role("navigation", name=RECORD_BAR).get_by_role(
        "link", name="Documents", exact=True))
    page(o, ehr.locator("#document-tree"))


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
    button = ehr.get_by_role("link", name="Download", exact=True)
    page(o, ehr.locator(".toolbar").filter(has_text=name).filter(has=button))
    before = set(o.downloads())
    tap(o, button)
    for _ in range(int(timeout / 0.1)):  # a download changes nothing on the page: glance
        arrived = sorted(set(o.downloads()) - before)
        if arrived:
            return arrived[0]
        o.wait(0.1)
    raise RuntimeError(f"{name!r} did not arrive in Downloads (there: {o.downloads()})")


# -- the medication administration record ------------------------------------------------------
def administrations(o, ehr):
    """The open chart's MAR as ``[{column: value}]`` (Administered, Drug, NDC, HCPCS, Dose,
    Billing units ...), newest first."""
    tap(o, ehr.get_by_role("navigation", name=RECORD_BAR).get_by_role(
        "link", name="MAR", exact=True))
    table = ehr.locator("#mar-table")
    page(o, table)
    heads = [t.strip() for t in table.locator("thead th").all_inner_texts()]
    rows = []
    for row in table.locator("tbody tr").all():
        cells = [t.strip() for t in row.locator("td").all_inner_texts()]
        if len(cells) == len(heads):
            rows.append(dict(zip(heads, cells, strict=True)))
    return rows
