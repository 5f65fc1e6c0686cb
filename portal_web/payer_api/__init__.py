"""Acme Health's X12 278 API (``api.acmehealth.test``) and its Da Vinci PAS FHIR operation.

A provider's system sends an ASC X12 interchange (278 requests in 005010X217, 278
inquiries in 005010X215, attachments as 275 transactions in 005010X210) or a PAS Bundle to
``Claim/$submit``; the payer validates it, writes the acme store with channel ``api`` and
answers in kind: a TA1 or 999 acknowledgement for envelope and syntax problems, a 278
response (HCR decision, AAA rejects) for the business answer. Every request and response
is kept in ``x12_transactions``. The wire conventions are in ``docs/payer-api.md``.
"""
