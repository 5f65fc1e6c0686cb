"""The ePA portal (``epa.covermymeds.test``): pharmacy prior authorization as prescriber
offices know CoverMyMeds.

A dashboard of requests grouped New / Follow Up / Sent to Plan / Determination (plus the
Archived filter); a request opened by its Key, pre-filled from the e-prescription; the
plan's question set answered question by question, follow-ups appearing as answers unlock
them (``epa_enable_when``) and every answer saved as it is entered; attachments through the
browser's file chooser; Send to Plan with the prescriber attestation. The plan's replies
(a determination or a further question set) are data read against the sandbox clock
(:func:`sandbox.stores.epa.plan_state`).
"""
