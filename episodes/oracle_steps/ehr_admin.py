"""Web EHR steps (emr.clinic.test) for the front-office side of the prior-auth oracles: an
event on a provider's calendar, a provider task, and a provider's entry in the address book.

The forms are reached from the main menu (Calendar's 'Add Event'; Worklists > Provider
Tasks > New Task) and saved with their Save button; the step waits for the EHR's
confirmation. Every click and key goes through the agent API (see ``web.py`` for the
waiting rules).
"""

from __future__ import annotations

from episodes.oracle_steps.ehr import directory_entry as address_book_entry
from episodes.oracle_steps.ehr import open_tasks
from episodes.oracle_steps.web import choose, field, page, put, tap

MAIN_MENU = "Main menu"


def _saved(o, ehr, text):
    """Wait for the EHR's confirmation banner that contains ``text``."""
    page(o, ehr.get_by_role("status").filter(has_text=text))


def option_named(select, name):
    """The one entry of a drop-down whose text contains ``name`` ('Test Grant' finds
    'Dr. Test Grant, MD'); more or fewer is an error, so a look-alike is never taken."""
    found = [t.strip() for t in select.locator("option").all_inner_texts() if name in t]
    if len(found) != 1:
        raise RuntimeError(f"{len(found)} entries of the list read {name!r}: {found}")
    return found[0]


# -- the calendar ------------------------------------------------------------------------------
def add_calendar_event(o, ehr, *, category, provider, mrn, title, date, time, minutes,
                       comments=""):
    """Calendar > Add Event: an event of ``category`` on ``provider``'s calendar (a name as
    the Provider list shows it, or part of it) for the patient ``mrn`` on ``date``
    (YYYY-MM-DD) at ``time`` (HH:MM), ``minutes`` long. An overlap with the provider's
    other events is refused by the EHR (the box 'Save anyway' stays clear)."""
    tap(o, ehr.get_by_role("navigation", name=MAIN_MENU).get_by_role(
        "link", name="Calendar", exact=True))
    tap(o, ehr.get_by_role("link", name="Add Event"))
    form = ehr.locator("#event-form")
    page(o, field(form, "Title"))
    choose(o, field(form, "Category"), category)
    put(o, field(form, "Title"), title)
    put(o, field(form, "Patient (MRN)"), mrn)
    choose(o, field(form, "Provider"), option_named(field(form, "Provider"), provider))
    put(o, field(form, "Date"), date)
    put(o, field(form, "Time"), time)
    put(o, field(form, "Duration (minutes)"), str(minutes))
    if comments:
        put(o, field(form, "Comments"), comments)
    tap(o, form.get_by_role("button", name="Save"))
    _saved(o, ehr, f"saved for {date} {time}")


# -- provider tasks ----------------------------------------------------------------------------
def new_task(o, ehr, *, assignee, mrn, subject, details, priority="Normal", due=""):
    """Provider Tasks > New Task: a task for the patient ``mrn`` assigned to ``assignee``
    (part of the name the 'Assigned to' list shows), status Open; ``due`` is YYYY-MM-DD."""
    open_tasks(o, ehr)
    tap(o, ehr.get_by_role("link", name="New Task"))
    form = ehr.locator("#task-form")
    page(o, field(form, "Subject"))
    put(o, field(form, "Subject"), subject)
    choose(o, field(form, "Assigned to"), option_named(field(form, "Assigned to"), assignee))
    put(o, field(form, "Patient (MRN)"), mrn)
    if field(form, "Priority").input_value() != priority:
        choose(o, field(form, "Priority"), priority)
    if due:
        put(o, field(form, "Due date"), due)
    put(o, field(form, "Details"), details)
    tap(o, form.get_by_role("button", name="Save"))
    _saved(o, ehr, f"Task '{subject}' saved")


# -- the address book --------------------------------------------------------------------------
def directory_entry(o, ehr, last, first=""):
    """Admin > Address Book / Provider Directory, searched for ``last``: the one entry whose
    name reads 'last, first...' (any first name when ``first`` is empty) as ``{column:
    text}`` (Name, Specialty, Organization, NPI, Taxonomy, TIN, Network, Phone, Fax,
    Type)."""
    return address_book_entry(o, ehr, last, f"{last}, {first}")
