"""Acme Health provider portal steps for first-level appeals of denied claims
(portal.acmehealth.test): the sandbox date the portal shows, the appeal window of its appeal
policy, the claim found by its number in Appeals > File an appeal, the appeal details, and
the review and submission.

Elements are found by role and label; every click and key goes through the agent API (see
``web.py`` for the waiting rules). The portal shows dates as MM/DD/YYYY.
"""

from __future__ import annotations

import re

# steps 2 and 3 (no documents here) are those of an authorization's appeal: submit_appeal
from episodes.oracle_steps.acme_appeals import submit_appeal as submit_appeal
from episodes.oracle_steps.acme_appeals import us_date
from episodes.oracle_steps.web import choose, field, menu_entry, page, put, put_long, tap

CLOCK = "Sandbox date and time"


def today(acme):
    """The sandbox date the portal's menu bar shows ('Mon 10/19/2026 09:00 AM')."""
    return us_date(acme.get_by_title(CLOCK).inner_text().split()[1])


def appeal_window(o, acme):
    """Appeals > Appeal Deadlines & Policy: the first-level appeal window, as
    ``(days, what it counts from)`` from the policy's time limit ('180 calendar days from
    the date of the denial notice (claim processed date or case decision date)')."""
    menu_entry(o, acme, "Appeals", "Appeal Deadlines & Policy")
    facts = acme.locator(".policy-facts")
    page(o, facts)
    limit = re.search(r"Time limit:\s*(\d+) calendar days from (.+?)\.?$",
                      " ".join(facts.inner_text().split()))
    if limit is None:
        raise RuntimeError(f"the policy gives no time limit in calendar days: "
                           f"{facts.inner_text()!r}")
    return int(limit[1]), limit[2]


# -- the appeal of one claim -------------------------------------------------------------------
def find_claim(o, acme, claim_number):
    """Appeals > Appeals Dashboard > File an appeal, the claim number typed and 'Find claim':
    step 1 of the claim's appeal. Returns the filing deadline the page shows."""
    menu_entry(o, acme, "Appeals", "Appeals Dashboard")
    tap(o, acme.get_by_role("link", name="File an appeal"))
    put(o, acme.get_by_label("Claim number (post-service appeal)"), claim_number)
    tap(o, acme.get_by_role("button", name="Find claim"))
    subject = acme.locator("#appeal-subject").filter(has_text=f"Claim {claim_number}")
    page(o, subject)
    page(o, acme.locator("#appeal-form"))
    return us_date(acme.locator("#filing-deadline .deadline-date b").inner_text())


def appeal_details(o, acme, *, reason, outcome, letter, contact_phone, contact_name=None):
    """Step 1: the reason (as the list shows it), requested outcome, contact and letter;
    'Save and continue' keeps it as a draft and opens the documents step. The contact name
    is the user's unless another is given.

    The letter goes in last and Tab leaves it: a long letter scrolls inside its box, and a
    mouse wheel over that box would scroll the letter, not the page."""
    form = acme.locator("#appeal-form")
    choose(o, field(form, "Reason for the appeal"), reason)
    put(o, field(form, "Requested outcome"), outcome)
    if contact_name and field(form, "Contact name").input_value() != contact_name:
        put(o, field(form, "Contact name"), contact_name)
    put(o, field(form, "Contact phone"), contact_phone)
    put_long(o, field(form, "Appeal letter"), letter)
    o.key("Tab")
    tap(o, form.get_by_role("button", name="Save and continue"))
    page(o, acme.get_by_role("link", name=re.compile("^Continue to review")))
