"""Web EHR steps for the prior-auth desk (emr.clinic.test): the PA worklists, their items and
the authorization records they point to, and the provider directory.

Elements are found by role and label; every click and key goes through the agent API (see
``web.py`` for the waiting rules).
"""

from __future__ import annotations

from episodes.oracle_steps.web import (
    choose,
    field,
    last_look,
    page,
    put,
    table_rows,
    tap,
    until,
)

AUTH_COLUMN = 6  # the worklist's 'Auth' column (0-based): a link to the record


def open_worklist(o, ehr, name):
    """Worklists > Prior Authorization Worklists > the worklist ``name``."""
    menu = ehr.get_by_role("navigation", name="Main menu")
    tap(o, menu.get_by_text("Worklists", exact=True))
    tap(o, menu.get_by_role("link", name="Prior Authorization Worklists"))
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
    menu = ehr.get_by_role("navigation", name="Main menu")
    tap(o, menu.get_by_text("Admin", exact=True))
    tap(o, menu.get_by_role("link", name="Address Book / Provider Directory"))
    search = ehr.get_by_role("searchbox", name="Search directory")
    page(o, search)
    put(o, search, query)
    before = ehr.url
    tap(o, ehr.get_by_role("search").get_by_role("button", name="Search"))
    until(o, lambda: ehr.url != before and "q=" in ehr.url, "the directory's answer")
    table = ehr.locator("#directory-table")
    page(o, table)
    return table_rows(table)
