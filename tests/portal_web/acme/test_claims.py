"""Claim status and corrected claims through the portal's forms, graded with pa-11's
verifier: the gold inquiry and replacement score 1.0; a void, the look-alike's claim, or a
correction while the original is in process cost exactly what the seed says."""

from __future__ import annotations

import html
import re

import pytest

from tests.portal_web.acme.post_tasks import TaskRun, location_id, post_form, task_run
from tests.portal_web.acme.support import feedback
from tests.portal_web.support import form_tokens_for

STATUS, REFERENCED, UNITS, NO_OTHER = 0.20, 0.30, 0.40, 0.10
CLAIM_ID, CLAIM = 1000, "26249001873"
IN_PROCESS = """
claims:
  - {id: 1900, claim_number: "26288004410", member_id: 10, billing_npi: "1497758544", billing_tin: "36-4829175", rendering_npi: "1234567893", place_of_service: "11", icd10_codes: M81.0, dos_from: 2026-10-12, dos_to: 2026-10-12, total_charge_cents: 13500, status: in_process, received_date: 2026-10-14}
claim_lines:
  - {id: 1900, claim_id: 1900, line_no: 1, dos: 2026-10-12, procedure_code: "99213", units: 1, charge_cents: 13500, line_status: pending}
"""


@pytest.fixture
def pa11(seeds) -> TaskRun:
    return task_run(seeds, "pa-11")


def inquire(portal, **fields: str):  # noqa: ANN001, ANN201
    by = fields.pop("by", "patient")
    response = post_form(portal.client, f"/claims/status?by={by}", "/claims/status",
                         {"search_by": by, **fields})
    inquiry_id = location_id(response, r"/claims/status/results/(\d+)")
    return inquiry_id, portal.client.get(response.headers["location"]).text


def correction_form(portal, claim_id: int = CLAIM_ID) -> dict[str, str]:  # noqa: ANN001
    """The form's prefilled values, as the browser would post them back."""
    page = portal.client.get(f"/claims/{claim_id}/correct").text
    values = dict(re.findall(r'name="(line-\d+-\w+|original_claim_number)" value="([^"]*)"',
                             page))
    return values


def submit_correction(portal, claim_id: int = CLAIM_ID, **changes: str):  # noqa: ANN001, ANN201
    data = {**correction_form(portal, claim_id), "frequency_code": "7",
            "correction_reason": "J0897 was billed as 6 units; 60 mg were given (1 mg per "
                                 "unit), so 60 units.", **changes}
    return post_form(portal.client, f"/claims/{claim_id}/correct",
                     f"/claims/{claim_id}/correct", data)


def test_gold_inquiry_and_replacement_score_one(pa11):
    portal = pa11.portal("riverside.billing")
    _, results = inquire(portal, patient_last_name="Diaz", patient_dob="05/17/1954",
                         dos_from="09/03/2026", dos_to="09/03/2026")
    assert CLAIM in results and "26249002610" in results  # the look-alike shows too
    claim_page = portal.client.get(f"/claims/{CLAIM_ID}").text
    assert "J0897" in claim_page and "CO-45" in claim_page and "EFT0091634" in claim_page
    response = submit_correction(portal, **{"line-3-units": "60", "line-3-charge": "1860.00"})
    correction_id = location_id(response, r"/claims/corrections/(\d+)")
    page = portal.client.get(response.headers["location"]).text
    assert re.search(r'id="correction-reference">CC26-\d{6}<', page)
    assert portal.query("select original_claim_id, original_claim_number, frequency_code, "
                        "status from claim_corrections where id = ?", correction_id) == [
        (CLAIM_ID, CLAIM, "7", "submitted")]
    assert portal.query("select line_no, procedure_code, modifiers, ndc, units, charge_cents "
                        "from claim_correction_lines where correction_id = ? order by line_no",
                        correction_id) == [(1, "99214", "25", None, 1, 18500),
                                           (2, "96372", "", None, 1, 4500),
                                           (3, "J0897", "JZ", "55513071001", 60, 186000)]
    assert pa11.fractions() == [1.0, 1.0, 1.0, 1.0]


def test_inquiry_is_recorded_once_and_refresh_does_not_search_again(pa11):
    portal = pa11.portal("riverside.billing")
    inquiry_id, _ = inquire(portal, by="claim", claim_number=CLAIM)
    assert portal.query("select claim_number, result_claim_numbers, portal_user_id from "
                        "claim_inquiries where id = ?", inquiry_id) == [(CLAIM, CLAIM, 2)]
    mark = portal.audit_mark()
    assert CLAIM in portal.client.get(f"/claims/status/results/{inquiry_id}").text
    assert portal.audit_since(mark) == []


def test_search_by_member_id_finds_only_that_member(pa11):
    portal = pa11.portal("riverside.billing")
    _, results = inquire(portal, member_number="ACM892003461")
    assert "26249002610" in results and CLAIM not in results


def test_void_instead_of_replacement_loses_half_the_reference(pa11):
    portal = pa11.portal("riverside.billing")
    inquire(portal, by="claim", claim_number=CLAIM)
    response = submit_correction(portal, frequency_code="8", **{"line-3-units": "60"})
    assert response.status_code == 303
    assert pa11.score() == pytest.approx(STATUS + REFERENCED / 2 + UNITS + NO_OTHER)


def test_correcting_the_look_alikes_claim_earns_only_the_inquiry(pa11):
    portal = pa11.portal("riverside.billing")
    inquire(portal, patient_last_name="Diaz", patient_dob="05/17/1954")
    assert submit_correction(portal, 1002, **{"line-1-units": "2"}).status_code == 303
    assert pa11.score() == pytest.approx(STATUS)


def test_correction_while_the_original_is_in_process_is_refused(pa11):
    pa11.add_seed_rows("acme", IN_PROCESS)
    portal = pa11.portal("riverside.billing")
    inquire(portal, by="claim", claim_number="26288004410")
    page = portal.client.get("/claims/1900/correct").text
    assert 'id="correction-refused"' in page and "still in process" in page
    assert 'id="correction-form"' not in page
    mark = portal.audit_mark()
    # typing the in-process claim's number into another claim's form is refused as well
    response = submit_correction(portal, original_claim_number="26288004410")
    assert response.status_code == 200
    assert any("still in process" in m for m in feedback(response.text))
    # and so is a post to the in-process claim's own form
    tokens = form_tokens_for(portal.client.get(f"/claims/{CLAIM_ID}/correct").text,
                             f"/claims/{CLAIM_ID}/correct")
    direct = portal.client.post("/claims/1900/correct", data={
        **tokens, "frequency_code": "7", "original_claim_number": "26288004410",
        "correction_reason": "Wrong code", "line-1-dos": "10/12/2026", "line-1-code": "99214",
        "line-1-units": "1", "line-1-charge": "185.00"}, follow_redirects=False)
    assert direct.status_code == 200
    assert portal.audit_since(mark) == []
    assert pa11.score() == pytest.approx(NO_OTHER)  # the inquiry did not find 26249001873


def test_refused_correction_names_each_bad_field_and_writes_nothing(pa11):
    portal = pa11.portal("riverside.billing")
    mark = portal.audit_mark()
    response = submit_correction(portal, frequency_code="", correction_reason="",
                                 **{"line-3-units": "six", "line-3-ndc": "5551307",
                                    "line-2-code": "963", "line-1-charge": "-5",
                                    "line-1-dos": "13/45/2026"})
    assert response.status_code == 200
    messages = [html.unescape(m) for m in feedback(response.text)]
    for expected in ("Choose a claim frequency.", "Reason for the correction is required.",
                     "Line 3 units must be a whole number", "Line 3 NDC: enter the 11-digit",
                     "Line 2 procedure code: '963' is not", "Line 1 charge must be between",
                     "Line 1 service date must be a date written MM/DD/YYYY"):
        assert any(m.startswith(expected) for m in messages), (expected, messages)
    assert portal.audit_since(mark) == []


def test_double_submit_writes_one_correction_and_a_second_needs_acknowledging(pa11):
    portal = pa11.portal("riverside.billing")
    page = portal.client.get(f"/claims/{CLAIM_ID}/correct").text
    body = {**form_tokens_for(page, f"/claims/{CLAIM_ID}/correct"),
            **correction_form(portal), "frequency_code": "7", "line-3-units": "60",
            "correction_reason": "Units of J0897 corrected to 60."}
    first = portal.client.post(f"/claims/{CLAIM_ID}/correct", data=body,
                               follow_redirects=False)
    again = portal.client.post(f"/claims/{CLAIM_ID}/correct", data=body,
                               follow_redirects=False)
    assert first.headers["location"] == again.headers["location"]
    assert portal.count("claim_corrections") == 1
    second = submit_correction(portal, **{"line-3-units": "60"})
    assert second.status_code == 200 and 'id="duplicate-warning"' in second.text
    assert submit_correction(portal, acknowledge_duplicate="1",
                             **{"line-3-units": "60"}).status_code == 303
    assert portal.count("claim_corrections") == 2


def test_claims_need_the_billing_role(pa11):
    portal = pa11.portal("riverside.pa")
    assert portal.client.get(f"/claims/{CLAIM_ID}").status_code == 403


def test_another_line_changed_loses_only_no_other_changes(pa11):
    """The replacement must repeat the other lines as billed: a changed E/M line costs the
    'no other changes' item and nothing else."""
    portal = pa11.portal("riverside.billing")
    inquire(portal, by="claim", claim_number=CLAIM)
    response = submit_correction(portal, **{"line-3-units": "60", "line-1-units": "2"})
    assert response.status_code == 303
    assert pa11.fractions() == [1.0, 1.0, 1.0, 0.0]
    assert pa11.score() == pytest.approx(STATUS + REFERENCED + UNITS)


def test_units_not_from_the_mar_lose_the_units(pa11):
    """6 mg read as 6 units again (or any number but the MAR's 60) loses 'corrected units'."""
    portal = pa11.portal("riverside.billing")
    inquire(portal, by="claim", claim_number=CLAIM)
    assert submit_correction(portal, **{"line-3-units": "600"}).status_code == 303
    assert pa11.fractions() == [1.0, 1.0, 0.0, 1.0]


def test_a_correction_without_the_status_inquiry_loses_the_status_item(pa11):
    portal = pa11.portal("riverside.billing")
    assert submit_correction(portal, **{"line-3-units": "60"}).status_code == 303
    assert pa11.score() == pytest.approx(REFERENCED + UNITS + NO_OTHER)


def test_a_requirement_lookup_is_a_read_record(pa11):
    lookup = pa11.portal("riverside.pa")
    response = post_form(lookup.client, "/auth/lookup", "/auth/lookup", {
        "plan_id": "1", "code": "J0897", "place_of_service": "11", "units": "60"})
    assert response.status_code == 303
    portal = pa11.portal("riverside.billing")
    inquire(portal, by="claim", claim_number=CLAIM)
    assert submit_correction(portal, **{"line-3-units": "60"}).status_code == 303
    assert pa11.score() == pytest.approx(1.0)
