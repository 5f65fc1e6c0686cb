"""Web plumbing shared by every sandbox site: the site base (clock, audited store access,
page frame), the app wiring, sessions, CSRF and one-time form tokens, log-in, templates,
form validation, documents sent back to the browser, and error pages.

A site module builds its Starlette app from these pieces; the payer portals reuse them so
every web system behaves the same way under double submits, expiry and bad input.
"""
