"""The Acme parts of pa-12 (second-level appeal) and pa-17 (claim appeals inside their
filing window), played through the portal's appeal forms and graded with their verifiers.

Not graded here: pa-12's external review (the regulator portal) and its reference in the
EHR, and pa-17's Beta Care appeal (the fax service); the items that need them are left at
what the missing half costs, and the assertions say so.
"""

from __future__ import annotations

import pytest

from tests.portal_web.acme.post_tasks import TaskRun, post_form, task_run
from tests.portal_web.acme.steps import appeal_details, file_appeal, start_appeal, submit_appeal

# -- pa-12 ----------------------------------------------------------------------------------
L2, FORM, ATTACH, EHR_LOG = 0.35, 0.35, 0.15, 0.15
L2_LETTER = """Re: Anna Fischer, member ACM360118275, level-1 appeal AP26-009815 (authorization
PA26-036402, proton beam therapy, CPT 77525).
We request a second-level review. The enclosed comparative dosimetry plan of 2026-10-12 shows
a mean heart dose of 0.8 Gy(RBE) with protons against 5.1 Gy with IMRT, and the enclosed
literature summary (Darby et al., NEJM 2013) relates each gray of mean heart dose to a 7.4%
higher rate of major coronary events. Please approve proton therapy.
Rafael Ortiz, MD, Radiation Oncology"""
FISCHER_MRN = "510371"


@pytest.fixture
def pa12(seeds) -> TaskRun:
    return task_run(seeds, "pa-12")


def input_documents(run: TaskRun) -> list[tuple[str, bytes, str]]:
    return [("dosimetry_plan.pdf", (run.path / "input" / "dosimetry_plan.pdf").read_bytes(),
             "dosimetry_plan"),
            ("proton_literature.pdf", (run.path / "input" / "proton_literature.pdf")
             .read_bytes(), "medical_literature")]


def log_in_ehr(run: TaskRun, text: str) -> None:
    """A patient note in the EHR carrying the reference (pa-12's 'EHR log')."""
    ehr = run.ehr()
    response = post_form(ehr.client, "/messages/new", "/messages/new", {
        "assigned_to": "pa.coord", "message_status": "Done", "title": "Prior Auth",
        "mrn": FISCHER_MRN, "body": text})
    assert response.status_code == 303, response.text[:1000]


def test_pa12_level2_appeal_linked_and_attached_scores_its_acme_parts(pa12):
    portal = pa12.portal()
    level1 = portal.client.get("/appeals/1000").text
    assert 'id="file-level2"' in level1
    form = portal.client.get("/appeals/1000/level2").text
    assert "11/02/2026" in form  # 60 days from the 09/03/2026 level-1 decision
    appeal_id, reference = file_appeal(
        portal, "/appeals/1000/level2",
        appeal_details(L2_LETTER, "Approve proton beam therapy (CPT 77525)."),
        input_documents(pa12))
    assert portal.query("select level, parent_appeal_id, case_id, appeal_type, "
                        "filing_deadline from appeals where id = ?", appeal_id) == [
        (2, 1000, 1000, "pre_service", "2026-11-02")]
    log_in_ehr(pa12, f"Second-level appeal filed with Acme: {reference}.")
    report = pa12.grade()
    fractions = {c.name: c.fraction for c in report.checks}
    assert fractions["second-level appeal"] == 1.0
    assert fractions["attachments"] == 1.0
    assert fractions["external review form fields"] == 0.0  # the regulator portal's part
    assert fractions["EHR log"] == 0.5  # the appeal's reference; the review's needs the regulator
    assert report.score == pytest.approx(L2 + ATTACH + EHR_LOG / 2, abs=1e-6)


def test_pa12_the_literature_left_out_costs_half_the_attachments(pa12):
    """Only the dosimetry plan attached: the level-2 appeal is complete otherwise."""
    portal = pa12.portal()
    file_appeal(portal, "/appeals/1000/level2",
                appeal_details(L2_LETTER, "Approve proton beam therapy (CPT 77525)."),
                input_documents(pa12)[:1])
    fractions = {c.name: c.fraction for c in pa12.grade().checks}
    assert fractions["second-level appeal"] == 1.0
    assert fractions["attachments"] == pytest.approx(0.5)


def test_pa12_a_new_level1_appeal_instead_of_level2_loses_the_level(pa12):
    """Filing another level-1 appeal of the denied case (acknowledging the warning) is
    possible; it is not level 2, and naming the same case is no link to the level-1
    appeal: only "submitted by the deadline" is left."""
    portal = pa12.portal()
    appeal_id = start_appeal(portal, "/appeals/new/case/1000", appeal_details(
        L2_LETTER, "Approve proton beam therapy (CPT 77525)."))
    review = portal.client.get(f"/appeals/{appeal_id}/review").text
    assert 'id="duplicate-warning"' in review and "level-2 appeal" in review
    assert submit_appeal(portal, appeal_id, acknowledge=True).status_code == 303
    report = pa12.grade()
    assert report.checks[0].fraction == pytest.approx(1 / 3)
    assert report.score == pytest.approx(L2 / 3, abs=1e-6)


def test_pa12_link_needs_the_level1_appeal(pa12):
    """"Linked to the first level" needs the appeal's link to AP26-009815, which only the
    level-2 form (opened from the upheld level-1 appeal) writes."""
    portal = pa12.portal()
    appeal_id = start_appeal(portal, "/appeals/new/case/1000", appeal_details(
        L2_LETTER, "Approve proton beam therapy (CPT 77525)."))
    assert submit_appeal(portal, appeal_id, acknowledge=True).status_code == 303
    assert portal.query("select case_id, parent_appeal_id from appeals where id = ?",
                        appeal_id) == [(1000, None)]
    link = parts_of(pa12.grade(), "second-level appeal")["linked to the first level"]
    assert link == 0.0


def parts_of(report, name: str) -> dict[str, float]:  # noqa: ANN001
    check = next(c for c in report.checks if c.name == name)
    return {p["part"]: p["fraction"] for p in check.evidence["parts"]}


def test_pa12_late_level2_is_accepted_with_a_warning(pa12):
    """After 11/02/2026 the level-2 window has closed: the portal still files the appeal,
    warning first, and the grade loses 'submitted by the deadline'."""
    from sandbox.clock import SharedClock

    SharedClock(pa12.path / "clock.json").advance(16 * 24 * 3600)  # to 11/04/2026
    portal = pa12.portal()
    appeal_id = start_appeal(portal, "/appeals/1000/level2", appeal_details(
        L2_LETTER, "Approve proton beam therapy (CPT 77525)."))
    assert 'id="late-warning"' in portal.client.get(f"/appeals/{appeal_id}/review").text
    assert submit_appeal(portal, appeal_id).status_code == 303
    assert pa12.grade().checks[0].fraction == pytest.approx(2 / 3)


# -- pa-17 ----------------------------------------------------------------------------------
DEADLINES, APPEAL_SET, LOG = 0.30, 0.50, 0.20
OPEN_ACME = {1000: "26196004102", 1001: "26120003377", 1002: "26105002254",
             1005: "26230005519"}
EXPIRED_ACME = {1003: "26097001981", 1004: "26060000845"}


@pytest.fixture
def pa17(seeds) -> TaskRun:
    return task_run(seeds, "pa-17")


def template_text(run: TaskRun) -> str:
    text = (run.path / "input" / "appeal_template.txt").read_text()
    return text.split("--- reason text ---")[1].split("--- end ---")[0].strip()


def appeal_claim(run: TaskRun, portal, claim_number: str):  # noqa: ANN001, ANN201
    """Find the claim by number in Appeals, then file its post-service appeal."""
    found = portal.client.get(f"/appeals/new?claim_number={claim_number}",
                              follow_redirects=False)
    assert found.status_code == 303, found.text[:500]
    start = found.headers["location"]
    return file_appeal(portal, start, appeal_details(
        template_text(run), "Reprocess the claim for payment.", reason="other"))


def test_pa17_the_four_open_acme_claims_appealed_score_their_parts(pa17):
    portal = pa17.portal()
    page = portal.client.get("/appeals/new/claim/1002").text
    assert "10/19/2026" in page and "Today is the last day." in page
    for claim_id, number in OPEN_ACME.items():
        appeal_id, _ = appeal_claim(pa17, portal, number)
        assert portal.query("select claim_id, level, appeal_type, status from appeals where "
                            "id = ?", appeal_id) == [(claim_id, 1, "post_service", "submitted")]
    report = pa17.grade()
    got = parts_of(report, "correct appeal set")
    assert all(got[n] == 1.0 for n in [*OPEN_ACME.values(), *EXPIRED_ACME.values()])
    assert got["BC-26071583"] == 0.0  # Beta Care's appeal goes by fax (not built here)
    assert report.checks[1].fraction == pytest.approx(8 / 9)


def test_pa17_a_late_appeal_is_accepted_with_a_warning_and_costs_its_claim(pa17):
    portal = pa17.portal()
    form = portal.client.get("/appeals/new/claim/1003").text  # denied 04/21: due 10/18
    assert "10/18/2026" in form and "The deadline has passed (1 day ago)" in form
    appeal_id = start_appeal(portal, "/appeals/new/claim/1003", appeal_details(
        template_text(pa17), "Reprocess the claim for payment.", reason="other"))
    assert 'id="late-warning"' in portal.client.get(f"/appeals/{appeal_id}/review").text
    assert submit_appeal(portal, appeal_id).status_code == 303
    report = pa17.grade()
    assert parts_of(report, "correct appeal set")["26097001981"] == 0.0
    # the untouched grade keeps all four expired parts; this appeal loses one of them
    assert report.checks[1].fraction == pytest.approx(3 / 9)


def test_pa17_a_paid_claim_cannot_be_appealed(seeds):
    run = task_run(seeds, "pa-11")
    portal = run.portal()
    page = portal.client.get("/appeals/new/claim/1000").text
    assert 'id="not-appealable"' in page and "Paid" in page
