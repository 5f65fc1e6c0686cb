"""ePA portal steps (epa.covermymeds.test, CoverMyMeds-style), for the pharmacy prior-auth
oracles: log in, open a request from the Dashboard, read its details, answer the plan's
questions (follow-ups appear as answers are saved), Send to Plan with the attestation.
Elements are found by role and label; every click and key goes through the agent API (see
``web.py`` for the waiting rules).
"""

from __future__ import annotations

import re

from episodes.oracle_steps.web import (
    arrive,
    choose,
    label_pattern,
    last_look,
    page,
    put,
    sign_in,
    tap,
)

TAB = "epa"


def log_in(o, epa):
    """Log in with the portal's user from input/creds.txt (the 'ePA portal' section)."""
    sign_in(o, epa, tab=TAB, system="ePA portal", button="Log In")


def open_request(o, epa, patient, drug):
    """Open ``patient``'s open request for ``drug`` from the Dashboard: the row whose patient
    link reads exactly ``patient`` (a look-alike's name only begins the same), not one with a
    determination already. Returns the request's Key."""
    rows = (epa.locator("#requests tbody tr")
            .filter(has=epa.get_by_role("link", name=patient, exact=True))
            .filter(has_text=drug).filter(has_not_text="Determination"))
    arrive(o, rows)
    if rows.count() != 1:
        raise RuntimeError(f"the Dashboard lists {rows.count()} open {drug} requests for "
                           f"{patient}")
    tap(o, rows.get_by_role("link", name=patient, exact=True))
    page(o, epa.get_by_role("heading", name="Plan Questions"))
    return epa.locator("#request-key").inner_text().strip()


def request_details(epa):
    """The Request Details panel as {label: value} ('Name', 'Date of birth', 'Member ID',
    'Drug', 'Diagnosis' ...; a label that repeats keeps its first value: the patient's)."""
    found = {}
    for block in epa.locator("section.details dl").all():
        labels = block.locator("dt:not(.group)").all_inner_texts()
        values = block.locator("dd").all_inner_texts()
        for label, value in zip(labels, values, strict=True):
            found.setdefault(label.strip(), value.strip())
    return found


def answer(o, epa, text, value):
    """Answer the plan's question that reads ``text``, once it shows (a follow-up shows when
    the answer before it has been saved): a Yes/No question takes 'Yes' or 'No', a drop-down
    the label of an option, any other question the text typed into it. Leaving a typed
    field (the next click) saves it."""
    form = epa.locator("#questions-form")
    choices = form.get_by_role("group", name=label_pattern(text))
    box = form.get_by_label(label_pattern(text))
    question = choices.or_(box)
    unlocked = not (question.count() and question.first.is_visible())
    arrive(o, question)
    if unlocked:  # it showed once the server had saved the answer before it: a replay
        o.wait(1.0)  # of the trace on a slower server needs the time to pass as well
    if choices.count():
        tap(o, choices.get_by_role("radio", name=value, exact=True))
    elif box.locator("option").count():
        choose(o, box, value)
    else:
        put(o, box, value)


def send_to_plan(o, epa, key):
    """Send to Plan from the question form of request ``key``, check that no hidden answer
    would go with it, sign the prescriber attestation and send; wait for 'Sent to ...'."""
    tap(o, epa.locator("#questions-form").get_by_role("button", name="Send to Plan"))
    attest = epa.get_by_role("checkbox", name=re.compile(r"^I agree"))
    page(o, attest)
    if epa.get_by_text(re.compile(r"hidden answers? (is|are) stored")).count():
        raise RuntimeError("answers to questions no longer asked would go to the plan")
    shown = epa.locator(".req-key b").inner_text().strip()
    if shown != key:
        raise RuntimeError(f"the Send to Plan page is request {shown}'s, not {key}'s")
    tap(o, attest)
    tap(o, epa.locator("#send-form").get_by_role("button", name="Send to Plan"))
    last_look(o, epa.get_by_role("status").filter(has_text="Waiting for the plan's reply"))
