"""Web EHR steps for the prior-auth desk (emr.clinic.test): the PA worklists, their items and
the authorization records they point to, and the provider directory.

Elements are found by role and label; every click and key goes through the agent API (see
``web.py`` for the waiting rules).
"""

from __future__ import annotations

from episodes.oracle_steps.ehr import download_shown_document, open_documents, search_directory
from episodes.oracle_steps.web import (
    choose,
    choose_focused,
    field,
    last_look,
    menu_entry,
    page,
    put,
    table_rows,
    tap,
    until,
)

AUTH_COLUMN = 6  # the worklist's 'Auth' column (0-based): a link to the record


def open_worklist(o, ehr, name):
    """Worklists > Prior Authorization Worklists > the worklist ``name``."""
    menu_entry(o, ehr, "Worklists", "Prior Authorization Worklists")
    page(o, ehr.get_by_role("heading", name="Prior Authorization Worklists"))
    tap(o, ehr.get_by_role("link", name=name, exact=True))
    page(o, ehr.get_by_role("heading", name=f"Worklist: {name}"))


def worklist_items(ehr):
    """The rows of the open worklist, in its order (locators)."""
    return ehr.locator("#worklist-table tbody tr").all()


def open_item_authorization(o, ehr, item):
    """Follow a worklist item's 'Auth' link to its authorization record."""
    tap(o, item.locator("td").nth(AUTH_COLUMN).get_by_role("link"))
    page(o, ehr.locator("#authorization-form"))


def set_text(o, target, text):
    """Make a text field hold ``text``: typed over what it holds, or emptied for ''."""
    if target.input_value() == text:
        return
    if text:
        put(o, target, text)
        return
    tap(o, target)
    o.key("ctrl+a")
    o.key("Delete")


def record_decision(o, ehr, status, fields):
    """On an open authorization record: choose ``status`` and set the 'Payer decision'
    fields named in ``fields`` (label -> text; '' empties a field), then Save."""
    form = ehr.locator("#authorization-form")
    choose(o, field(form, "Status"), status)
    for label, text in fields.items():
        set_text(o, field(form, label), text)
    tap(o, form.get_by_role("button", name="Save"))
    last_look(o, ehr.get_by_text(f"Authorization saved ({status})."))


# -- the provider directory ----------------------------------------------------------------------
def directory_entries(o, ehr, query):
    """Admin > Address Book / Provider Directory, searched for ``query``: the rows shown
    (dicts of column -> text: Name, Specialty, NPI, Taxonomy …)."""
    search_directory(o, ehr, query, wait_for_answer=True)
    table = ehr.locator("#directory-table")
    page(o, table)
    return table_rows(table)


# -- a chart's documents ------------------------------------------------------------------------
def find_patient(o, ehr, name, dob):
    """Finder by name ('Last, First'); opens the one row with birth date ``dob``
    (YYYY-MM-DD): look-alike patients share names."""
    tap(o, ehr.get_by_role("navigation", name="Main menu").get_by_role("link", name="Finder"))
    search = ehr.get_by_role("searchbox", name="Search patients")
    page(o, search)
    put(o, search, name)
    before = ehr.url
    tap(o, ehr.get_by_role("search").get_by_role("button", name="Search"))
    until(o, lambda: ehr.url != before, f"the finder's answer to {name!r}")
    rows = ehr.locator("#finder-results tbody tr").filter(has_text=dob).filter(
        has=ehr.get_by_role("link", name=name))
    page(o, ehr.locator("#finder-results"))
    if rows.count() != 1:
        raise RuntimeError(f"the finder shows {rows.count()} patients {name} born {dob}")
    tap(o, rows.get_by_role("link", name=name))
    page(o, ehr.get_by_role("region", name="Selected patient"))


def chart_documents(o, ehr):
    """The open chart's Documents: ``{name: date}`` of every document in the tree."""
    open_documents(o, ehr)
    tree = ehr.locator("#document-tree")
    found = {}
    for item in tree.locator("li").filter(has=ehr.locator("a")).all():
        if item.locator("ul").count():
            continue  # a category
        name = item.get_by_role("link").inner_text().strip()
        found[name] = item.locator("span").last.inner_text().strip()
    return found


def download_document(o, ehr, name):
    """Show document ``name`` of the open chart's Documents and download it; returns the
    name it got in Downloads."""
    tap(o, ehr.locator("#document-tree").get_by_role("link", name=name, exact=True))
    return download_shown_document(o, ehr, name)


# -- a worklist item's outcome -------------------------------------------------------------------
def update_item(o, ehr, seq, *, status, outcome, reference, note=""):
    """On the open worklist: the row ``seq`` gets ``status`` and ``outcome`` (as the lists
    show them: 'Done', 'No PA required' ...), ``reference`` and ``note``, then Save. The
    row's lists have no caption to click: they are reached with Shift+Tab from its
    Reference field and chosen by typing (a list opened with a click may close again at
    the foot of the page)."""
    update = ehr.get_by_role("form", name=f"Update item {seq}", exact=True)
    page(o, update)
    tap(o, update.get_by_label("Reference"))
    o.key("shift+Tab")
    choose_focused(o, update.get_by_label("Outcome"), outcome)
    o.key("shift+Tab")
    choose_focused(o, update.get_by_label("Status"), status)
    put(o, update.get_by_label("Reference"), reference)
    if note:
        put(o, update.get_by_label("Note"), note)
    tap(o, update.get_by_role("button", name="Save"))
    last_look(o, ehr.get_by_text(f"Worklist item {seq} updated ({status})."))
