"""The fax and regulator parts of pa-07, pa-12, pa-14 and pa-17, done through the sites on
seeded runs and graded with each task's verify.py (extract, then grade): the right way
earns those parts in full, and each mistake the sites allow costs exactly its share."""

from __future__ import annotations

import re

import pytest

from sandbox.stores.regulator import FORM_FIELDS
from tests.portal_web.fax_regulator_support import (  # noqa: F401 - payer_seeds is a fixture
    EPISODE,
    ROSS_PA_FORM,
    deliver,
    ehr_client,
    fax_client,
    fractions,
    grade_run,
    payer_seeds,
    regulator_client,
    send_fax,
)
from tests.portal_web.support import form_tokens_for
from tests.verifier.tasks.pa_support import fill_pdf

PA_LINE, APPEALS_LINE, RX_LINE = "1-888-555-0142", "1-888-555-0177", "1-888-555-0143"


# -- helpers: the EHR side, done as a user would ---------------------------------------------
def ehr_document(ehr, pid: int, doc: int) -> tuple[str, bytes]:  # noqa: ANN001
    """Download a chart document (what the Workspace's Downloads then holds)."""
    response = ehr.client.get(f"/patient/{pid}/documents/{doc}/download")
    assert response.status_code == 200
    name = re.search(r'filename="([^"]+)"', response.headers["content-disposition"])[1]
    return name, response.content


def ehr_note(ehr, mrn: str, body: str) -> None:  # noqa: ANN001
    page = ehr.client.get("/messages/new").text
    response = ehr.client.post("/messages/new", data={
        **form_tokens_for(page, "/messages/new"), "title": "Prior Auth", "mrn": mrn,
        "assigned_to": "pa.coord", "message_status": "New", "body": body},
        follow_redirects=False)
    assert response.status_code == 303, response.text[-3000:]


def worklist_update(ehr, item: int, outcome: str, reference: str) -> None:  # noqa: ANN001
    ehr_page = ehr.client.get(f"/pa/worklist/{worklist_id(ehr)}").text
    action = f"/pa/worklist/item/{item}"
    form = ehr_page[ehr_page.find(f'action="{action}"'):]
    status = re.search(r'<option value="([^"]+)"[^>]*>(Done|Complete[d]?)<', form)
    response = ehr.client.post(action, data={
        **form_tokens_for(ehr_page, action), "status": status[1] if status else "Done",
        "outcome": outcome, "reference": reference}, follow_redirects=False)
    assert response.status_code == 303, re.findall(r'invalid-feedback[^>]*>([^<]+)',
                                                   response.text)


def worklist_id(ehr) -> int:  # noqa: ANN001
    return ehr.query("select id from pa_worklists where name = 'PA Today'")[0][0]


def confirmation(fax, n: int = -1) -> str:  # noqa: ANN001
    return fax.query("select confirmation_id from fax_jobs where confirmation_id is not null "
                     "order by id")[n][0]


# -- pa-07: the Beta Care PA form, filled and faxed -------------------------------------------
FORM, ATTACH, DEST, LOG = 0.50, 0.20, 0.15, 0.15


def pa07(payer_seeds, tmp_path, *, to: str = PA_LINE, cover: bool = True,  # noqa: F811
         note: bool = True, form: dict | None = None, times: int = 1,
         note_first: bool = False, queued_after: int = 0) -> dict:
    run = payer_seeds.run("pa-07")
    ehr, fax = ehr_client(run, EPISODE), fax_client(run, EPISODE)
    filled = fill_pdf((run / "input" / "beta_pa_form.pdf").read_bytes(), form or ROSS_PA_FORM)
    files = [("beta_pa_form_filled.pdf", filled)]
    if note:
        files.insert(0 if note_first else 1, ehr_document(ehr, 107, 1001))
    for _ in range(times):
        response = send_fax(fax, to=to, cover=cover, files=files,
                            subject="Prior authorization request: Ross, Hannah BTC55120987",
                            message="CT abdomen with contrast (74160) on 2026-10-27.")
        assert response.status_code == 303
    deliver(fax)
    for _ in range(queued_after):  # sent again just before the end: still on its way
        assert send_fax(fax, to=to, cover=cover, files=files,
                        subject="Prior authorization request: Ross, Hannah BTC55120987",
                        message="CT abdomen with contrast (74160).").status_code == 303
    ehr_note(ehr, "510288",
             f"Beta Care PA faxed, confirmation {confirmation(fax, -1 - queued_after)}")
    report = grade_run("pa-07", run, tmp_path / "extract")
    return {"score": report.score, **fractions(report)}


def test_pa07_done_through_the_sites_scores_full(payer_seeds, tmp_path):  # noqa: F811
    assert pa07(payer_seeds, tmp_path)["score"] == pytest.approx(1.0)


@pytest.mark.parametrize(("mistake", "expected"), [
    ({"to": RX_LINE}, FORM + ATTACH + LOG),               # the decoy pharmacy PA line
    ({"cover": False}, FORM + ATTACH / 2 + DEST + LOG),   # no cover sheet
    ({"note": False}, FORM + ATTACH / 2 + DEST + LOG),    # the clinical note not attached
    ({"note_first": True}, FORM + ATTACH / 2 + DEST + LOG),  # the note before the form
    ({"times": 2}, FORM + ATTACH + LOG),                  # sent twice: not exactly one fax
    ({"queued_after": 1}, FORM + ATTACH + LOG),           # the second still on its way
    ({"form": {**ROSS_PA_FORM, "icd10_code": "R10.11"}},     # the secondary diagnosis
     FORM * 13 / 14 + ATTACH + DEST + LOG),
])
def test_pa07_each_mistake_costs_its_share(payer_seeds, tmp_path, mistake,  # noqa: F811
                                           expected):
    assert pa07(payer_seeds, tmp_path, **mistake)["score"] == pytest.approx(expected)


# -- pa-12: the state external review request -------------------------------------------------
PA12 = {
    "enrollee_name": "Fischer, Anna", "enrollee_dob": "1961-01-29", "member_id": "ACM360118275",
    "insurer_name": "Acme Health", "plan_name": "Acme Gold PPO",
    "insurer_reference": "AP26-009815", "treating_provider_name": "Rafael Ortiz, MD",
    "treating_provider_npi": "1617283944", "service_requested": "Proton beam therapy",
    "service_code": "77525", "diagnosis_code": "C50.412", "final_denial_date": "2026-09-03",
    "applicant_type": "provider", "applicant_name": "Dana Whitfield",
    "applicant_relationship": "Treating physician's office", "applicant_phone": "217-555-0100",
    "patient_is_enrollee": "1", "plan_type": "group_insured", "denial_type": "medical_necessity",
    "reason_for_request": "Protons cut the mean heart dose from 5.1 Gy to 0.8 Gy.",
    "release_authorized": "1", "attest_true": "1", "signature_name": "Dana Whitfield"}
assert set(FORM_FIELDS) <= set(PA12)


def pa12(payer_seeds, tmp_path, *, via_pdf: bool = False, **change: str) -> dict:  # noqa: F811
    run = payer_seeds.run("pa-12")
    portal, ehr = regulator_client(run, EPISODE), ehr_client(run, EPISODE)
    values = {**PA12, **change}
    if via_pdf:  # download the fillable form, fill it, upload it, then submit the draft
        blank = portal.client.get("/forms/external-review-request-form.pdf").content
        filled = fill_pdf(blank, {k: values[k] for k in FORM_FIELDS})
        response = portal.post_form("/requests/import", "import-form", {}, files=[
            ("documents", ("er_request.pdf", filled, "application/pdf"))])
        page = response.headers["location"]
        values = {k: v for k, v in values.items() if k not in FORM_FIELDS}
        values.update({k: v for k, v in _draft_values(portal).items() if k in FORM_FIELDS})
    else:
        page = "/requests/new"
    response = portal.post_form(page, "request-form", {**values, "action": "submit"})
    assert response.status_code == 303, response.text[-2000:]
    reference = portal.query("select reference_number from external_reviews")[0][0]
    ehr_note(ehr, "510371", f"External review requested, state reference {reference}")
    report = grade_run("pa-12", run, tmp_path / "extract")
    return fractions(report)


def _draft_values(portal) -> dict[str, str]:  # noqa: ANN001
    row = portal.query(f"select {', '.join(FORM_FIELDS)} from external_reviews")[0]
    return {k: "" if v is None else str(v) for k, v in zip(FORM_FIELDS, row, strict=True)}


@pytest.mark.parametrize("via_pdf", [False, True], ids=["web form", "filled PDF upload"])
def test_pa12_external_review_parts_score_full(payer_seeds, tmp_path, via_pdf):  # noqa: F811
    parts = pa12(payer_seeds, tmp_path, via_pdf=via_pdf)
    assert parts["external review form fields"] == pytest.approx(1.0)
    assert parts["EHR log"] == pytest.approx(0.5)  # the Acme appeal's half is not ours


def test_pa12_a_request_for_another_member_is_never_graded(payer_seeds,  # noqa: F811
                                                            tmp_path):
    """Another person's request (name, date of birth and member ID all someone else's)
    earns nothing, though most of its fields are Fischer's appeal's."""
    parts = pa12(payer_seeds, tmp_path, enrollee_name="Fisher, Anne",
                 enrollee_dob="1958-05-02", member_id="ACM360118257")
    assert parts["external review form fields"] == 0.0


@pytest.mark.parametrize("change", [
    {"insurer_name": "Acme Health Insurance Company of Illinois"},   # the decoy insurer
    {"insurer_reference": "PA26-036402"},      # the case number, not the upheld appeal
    {"final_denial_date": "2026-08-10"},       # not the final (level-1) decision
    {"treating_provider_npi": "1234567893"},   # the PCP, not the radiation oncologist
])
def test_pa12_each_wrong_field_costs_a_twelfth(payer_seeds, tmp_path, change):  # noqa: F811
    parts = pa12(payer_seeds, tmp_path, **change)
    assert parts["external review form fields"] == pytest.approx(11 / 12)


# -- pa-14: the two Beta Care cases of the worklist, faxed ------------------------------------
BAXTER = {"patient_name": "Baxter, Noel", "patient_dob": "1962-07-04",
          "member_id": "BTC60220302", "ordering_provider": "Kwame Osei, MD",
          "ordering_npi": "1234567893", "provider_phone": "217-555-0100",
          "provider_fax": "217-555-0199", "cpt_code": "71250", "icd10_code": "R91.1",
          "service_date": "2026-10-26", "facility_name": "Springfield Imaging Center",
          "facility_npi": "1468205731", "symptom_onset": "2026-09-28",
          "prior_imaging_date": "2026-10-05"}
IVES = {"patient_name": "Ives, Clara", "patient_dob": "1982-04-14", "member_id": "BTC60220309",
        "ordering_provider": "Test Grant, MD", "ordering_npi": "1546827399",
        "provider_phone": "217-555-0100", "provider_fax": "217-555-0199", "cpt_code": "72148",
        "icd10_code": "M54.16", "service_date": "2026-10-29",
        "facility_name": "Springfield Imaging Center", "facility_npi": "1468205731",
        "symptom_onset": "2026-08-03", "prior_imaging_date": "2026-08-20"}
ELLERY = {"patient_name": "Ellery, June", "member_id": "BTC60220305", "cpt_code": "97161"}


def pa14(payer_seeds, tmp_path, *, baxter_to: str = PA_LINE,  # noqa: F811
         fax_ellery: bool = False, ellery_reference: str | None = None,
         ives: dict | None = None, ives_notes: tuple[int, ...] = (1009, 1010)) -> dict:
    run = payer_seeds.run("pa-14")
    ehr, fax = ehr_client(run, EPISODE), fax_client(run, EPISODE)
    blank = (run / "input" / "beta_pa_form.pdf").read_bytes()
    cases = [(1002, baxter_to, BAXTER, [(126, 1003)]),
             (1009, PA_LINE, {**IVES, **(ives or {})}, [(133, n) for n in ives_notes])]
    if fax_ellery:
        cases.append((None, PA_LINE, ELLERY, []))
    for item, to, form, docs in cases:
        files = [("beta_pa_form.pdf", fill_pdf(blank, form))]
        files += [ehr_document(ehr, pid, doc) for pid, doc in docs]
        assert send_fax(fax, to=to, files=files, subject=f"PA request {form['member_id']}"
                        ).status_code == 303
        if item is not None:
            worklist_update(ehr, item, "submitted", confirmation(fax))
    deliver(fax)
    if ellery_reference is not None:   # case 5: no PA, the Beta bulletin cited
        worklist_update(ehr, 1005, "no_pa_required", ellery_reference)
    return fractions(grade_run("pa-14", run, tmp_path / "extract"))


# untouched: the no-PA cases keep their "nothing submitted" half (3, 5 and 7)
UNTOUCHED_14 = {"cases 1-3": 0.5 / 3, "cases 4-6": 0.5 / 3,
                "cases 7-10 (equal share per case, worklist order)": 0.5 / 4}


def test_pa14_beta_cases_faxed_score_full(payer_seeds, tmp_path):  # noqa: F811
    parts = pa14(payer_seeds, tmp_path)
    assert parts["cases 1-3"] == pytest.approx(UNTOUCHED_14["cases 1-3"] + 1 / 3)
    assert parts["cases 4-6"] == pytest.approx(UNTOUCHED_14["cases 4-6"])
    assert parts["cases 7-10 (equal share per case, worklist order)"] == pytest.approx(
        UNTOUCHED_14["cases 7-10 (equal share per case, worklist order)"] + 1 / 4)


def test_pa14_a_decoy_number_loses_the_channel_third(payer_seeds, tmp_path):  # noqa: F811
    parts = pa14(payer_seeds, tmp_path, baxter_to=RX_LINE)
    assert parts["cases 1-3"] == pytest.approx(UNTOUCHED_14["cases 1-3"] + (2 / 3) / 3)


@pytest.mark.parametrize(("reference", "cited"), [
    ("beta-prior-authorization", True),
    # the full title (67 characters) does not fit the worklist's 60: its subject does
    ("Beta bulletin: services that need prior authorization", True),
    ("Beta Care bulletin", False),                      # which one?
    ("beta-appeals-level-1", False),                    # the other bulletin
])
def test_pa14_case5_cites_the_bulletin_by_key_or_title(payer_seeds, tmp_path,  # noqa: F811
                                                       reference, cited):
    parts = pa14(payer_seeds, tmp_path, ellery_reference=reference)
    # case 5: nothing submitted (1), worklist item (outcome 1, reference 1 or 0)
    case5 = (1 + (1 + cited) / 2) / 2
    assert parts["cases 4-6"] == pytest.approx(UNTOUCHED_14["cases 4-6"] - 0.5 / 3
                                               + case5 / 3)


def test_pa14_faxing_a_no_pa_case_loses_its_nothing_submitted_half(payer_seeds,  # noqa: F811
                                                                   tmp_path):
    parts = pa14(payer_seeds, tmp_path, fax_ellery=True)
    assert parts["cases 4-6"] == pytest.approx(0.0)


@pytest.mark.parametrize(("change", "details"), [
    ({"ives": {"prior_imaging_date": "2026-10-13"}}, (13 / 14 + 1) / 2),  # the visit's date
    ({"ives_notes": (1009,)}, (1 + 2 / 3) / 2),     # the PT discharge summary left out
])
def test_pa14_ives_form_field_or_note_costs_its_share(payer_seeds, tmp_path,  # noqa: F811
                                                      change, details):
    """Case 9's submission fields: the form's 14 values and the pages received (cover
    sheet, consultation, PT summary) are its two halves."""
    parts = pa14(payer_seeds, tmp_path, **change)
    case9 = (1 + details + 1) / 3
    assert parts["cases 7-10 (equal share per case, worklist order)"] == pytest.approx(
        UNTOUCHED_14["cases 7-10 (equal share per case, worklist order)"] + case9 / 4)


# -- pa-17: Beta Care appeals by fax -------------------------------------------------------------
def template_text(run) -> str:  # noqa: ANN001
    text = (run / "input" / "appeal_template.txt").read_text()
    return text.split("--- reason text ---")[1].split("--- end ---")[0].strip()


def pa17(payer_seeds, tmp_path, appeals: list[tuple[str, str]], *,  # noqa: F811
         subject: str = "First-level appeal - claim {claim}", message: str | None = None
         ) -> float:
    run = payer_seeds.run("pa-17")
    fax = fax_client(run, EPISODE)
    for claim, to in appeals:
        response = send_fax(fax, to=to, cover_to="Beta Care Provider Appeals",
                            subject=subject.format(claim=claim),
                            message=template_text(run) if message is None else message)
        assert response.status_code == 303
    deliver(fax)
    return fractions(grade_run("pa-17", run, tmp_path / "extract"))["correct appeal set"]


def test_pa17_the_beta_appeal_in_window_earns_its_ninth(payer_seeds, tmp_path):  # noqa: F811
    untouched = 4 / 9  # the four expired claims, not appealed
    assert pa17(payer_seeds, tmp_path, [("BC-26071583", APPEALS_LINE)]) == pytest.approx(
        untouched + 1 / 9)


def test_pa17_a_late_appeal_by_fax_is_sent_and_loses_its_ninth(payer_seeds,  # noqa: F811
                                                               tmp_path):
    assert pa17(payer_seeds, tmp_path, [("BC-26071583", APPEALS_LINE),
                                        ("BC-26064410", APPEALS_LINE)]) == pytest.approx(4 / 9)


def test_pa17_an_appeal_to_the_pa_line_is_not_filed(payer_seeds, tmp_path):  # noqa: F811
    assert pa17(payer_seeds, tmp_path, [("BC-26071583", PA_LINE)]) == pytest.approx(4 / 9)


def test_pa17_an_appeal_fax_that_does_not_name_the_claim_is_not_linked(payer_seeds,  # noqa: F811
                                                                      tmp_path):
    """The patient and member ID on the cover, but not the claim number: not linked to the
    claim, so not filed."""
    assert pa17(payer_seeds, tmp_path, [("BC-26071583", APPEALS_LINE)],
                subject="First-level appeal - Baxter, Noel, member BTC60220302"
                ) == pytest.approx(4 / 9)


def test_pa17_an_appeal_fax_without_the_template_text_is_half_filed(payer_seeds,  # noqa: F811
                                                                    tmp_path):
    assert pa17(payer_seeds, tmp_path, [("BC-26071583", APPEALS_LINE)],
                message="Please reconsider this denial.") == pytest.approx(4 / 9 + 0.5 / 9)


def test_pa17_an_expired_appeal_still_in_transmission_counts_as_filed(payer_seeds,  # noqa: F811
                                                                      tmp_path):
    run = payer_seeds.run("pa-17")
    fax = fax_client(run, EPISODE)
    for claim in ("BC-26071583", "BC-26064410"):  # in window; expired 2026-10-12
        response = send_fax(fax, to=APPEALS_LINE, cover_to="Beta Care Provider Appeals",
                            subject=f"First-level appeal - claim {claim}",
                            message=template_text(run))
        assert response.status_code == 303
        if claim == "BC-26071583":
            deliver(fax)
    assert fax.query("select status from fax_jobs order by id") == [("delivered",), ("queued",)]
    parts = fractions(grade_run("pa-17", run, tmp_path / "extract"))
    assert parts["correct appeal set"] == pytest.approx(4 / 9)
