"""What a payer portal writes for its own bookkeeping, which no prior-auth check grades:
the sensitivity suite's ``UNGRADED`` entries that every task with uploads or the request
wizard would otherwise repeat (:mod:`verifier.declarations`)."""

from __future__ import annotations

from verifier.declarations import Ungraded

UPLOAD_LABELS = "document_type description filename content_type uploaded_at uploaded_by"


def stored_digest(table: str = "acme.attachments") -> Ungraded:
    """A stored file's sha256 and size, derived from its content when it is stored."""
    return Ungraded(table, "sha256 size_bytes", "derived from content when it is stored; "
                    "a document is recognised by this sha256 of its content, which is graded")


def upload_labels(table: str = "acme.attachments") -> Ungraded:
    """How an upload was labelled and when: documents are recognised by their bytes."""
    return Ungraded(table, UPLOAD_LABELS, "how the upload was labelled and when: a document "
                    "is recognised by its bytes, not by its name or type")


# The request wizard's autosave of a case: a draft is never graded, the case's status is.
WIZARD_AUTOSAVE = Ungraded(
    "acme.pa_drafts", "case_id portal_user_id wizard_step form_state saved_at session_expired",
    "the request wizard's autosave of the case: a draft is not graded, the case's status is")
