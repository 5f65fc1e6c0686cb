"""What a user does on the post-decision pages, as HTTP form posts: file an appeal through
its three steps, book a peer-to-peer slot, look up a claim, submit a corrected claim."""

from __future__ import annotations

import re

from tests.portal_web.acme.post_tasks import location_id, post_form
from tests.portal_web.acme.support import Portal

CONTACT = {"contact_name": "Dana Whitfield", "contact_phone": "217-555-0100"}


def appeal_details(letter: str, outcome: str, reason: str = "medical_necessity",
                   **extra: str) -> dict[str, str]:
    return {"reason_category": reason, "letter_text": letter, "requested_outcome": outcome,
            **CONTACT, **extra}


def start_appeal(portal: Portal, start_url: str, details: dict[str, str]) -> int:
    """Step 1: the appeal details, saved as a draft; returns the draft's id."""
    response = post_form(portal.client, start_url, start_url, details)
    return location_id(response, r"/appeals/(\d+)/documents")


def attach(portal: Portal, appeal_id: int, filename: str, content: bytes,
           document_type: str = "clinical_note", description: str = ""):  # noqa: ANN201
    """Step 2: one document through the file input."""
    url = f"/appeals/{appeal_id}/documents"
    return post_form(portal.client, url, url,
                     {"document_type": document_type, "description": description},
                     files={"file": (filename, content, "application/pdf")})


def submit_appeal(portal: Portal, appeal_id: int, acknowledge: bool = False):  # noqa: ANN201
    """Step 3: attest (and acknowledge an earlier appeal) and submit."""
    data = {"attest": "1"}
    if acknowledge:
        data["acknowledge_duplicate"] = "1"
    return post_form(portal.client, f"/appeals/{appeal_id}/review",
                     f"/appeals/{appeal_id}/submit", data)


def file_appeal(portal: Portal, start_url: str, details: dict[str, str],
                documents: list[tuple[str, bytes, str]] = (),
                acknowledge: bool = False) -> tuple[int, str]:
    """All three steps; returns the appeal's id and its AP26- reference."""
    appeal_id = start_appeal(portal, start_url, details)
    for name, content, kind in documents:
        response = attach(portal, appeal_id, name, content, kind)
        assert response.status_code == 303, response.text[:1500]
    response = submit_appeal(portal, appeal_id, acknowledge)
    assert response.status_code == 303, response.text[:2000]
    page = portal.client.get(response.headers["location"])
    reference = re.search(r'id="appeal-reference">(AP26-\d{6})<', page.text)
    assert reference, page.text[:2000]
    return appeal_id, reference[1]
