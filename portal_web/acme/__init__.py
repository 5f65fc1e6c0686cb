"""Acme Health's provider portal (``portal.acmehealth.test``): eligibility, the PA
requirement lookup, the request wizard with drafts, questionnaires and attachments, the
authorization status pages, and the frame the post-decision pages (appeals, peer-to-peer,
claims) plug into. How to add pages, the layout blocks and the form/write helpers:
``portal_web/acme/README.md``."""
