"""Web plumbing shared by every sandbox site: sessions, CSRF and one-time form tokens,
log-in, audited store access, templates, form validation and error pages.

A site module builds its Starlette app from these pieces; the payer portals reuse them so
every web system behaves the same way under double submits, expiry and bad input.
"""
