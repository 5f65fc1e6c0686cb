"""Acme Health provider portal steps (portal.acmehealth.test), for the prior-auth tasks'
oracles. Elements are found by role and label; every click and key goes through the agent
API (see ``web.py`` for the waiting rules)."""

from __future__ import annotations

from episodes.oracle_steps.web import credentials, page, put, tap

TAB = "acme"


def log_in(o, acme):
    """Log in to the portal with its user from input/creds.txt (the 'Acme Health' section)."""
    fields = credentials(o, "Acme Health")
    o.show_tab(TAB)
    put(o, acme.get_by_label("User ID"), fields["Username"])
    put(o, acme.get_by_label("Password"), fields["Password"])
    tap(o, acme.get_by_role("button", name="Log in"))
    page(o, acme.get_by_role("navigation", name="Main menu"))
