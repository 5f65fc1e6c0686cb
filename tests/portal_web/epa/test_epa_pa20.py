"""pa-20 through the ePA portal's HTTP forms on the seeded run, graded by its verify.py.

Credit: 70% answers on the gold path (14 answers, 1/14 each), 15% no contradictions (no
stored answer on a hidden or off-path question), 15% sent. The gold path is entered the
way a person does it on the page: log in, Enter Key, answers saved one by one as they are
entered (the page script's autosave) and the rest with the question form, Send to Plan with
the attestation. Each mistake test shows the exact partial score the verifier gives.
"""

from __future__ import annotations

import pytest

from tests.portal_web.epa.support import (
    EPISODE,
    GOLD_ANSWERS,
    JOY,
    JOYCE,
    feedback,
)

ANSWERS, CONSISTENT, SENT = 0.70, 0.15, 0.15
AUTOSAVED = ("diagnosis", "metformin_trial")  # answered first, one by one, as on the page


def open_by_key(epa, key: str = JOY, last: str = "Turner", dob: str = "02/22/1977") -> str:  # noqa: ANN001
    response = epa.post_form("/dashboard", "/key", {"key": key, "last_name": last, "dob": dob})
    assert response.status_code == 303, feedback(response.text)
    return response.headers["location"]


def solve(epa, answers: dict[str, str], key: str = JOY, send: bool = True) -> None:  # noqa: ANN001
    """Answer ``answers`` on request ``key`` as the page does, then (optionally) send."""
    assert open_by_key(epa, key, "Turner", "02/22/1977") == f"/request/{key}"
    for question in AUTOSAVED:
        if question in answers:
            reply = epa.autosave(key, question, answers[question])
            assert reply.status_code == 200 and reply.json()["ok"], reply.text
    rest = {k: v for k, v in answers.items() if k not in AUTOSAVED}
    response = epa.save_answers(key, rest, action="send" if send else "save")
    assert response.status_code == 303, feedback(response.text)
    if send:
        assert response.headers["location"] == f"/request/{key}/send"
        response = epa.send(key)
        assert response.status_code == 303, feedback(response.text)


def test_gold_path_through_the_forms_scores_full_credit(epa_for):
    epa = epa_for(login=False)
    assert epa.client.get("/", follow_redirects=True).url.path == "/login"
    epa.login()
    dashboard = epa.page("/dashboard")
    assert "Turner, Joy" in dashboard and "Turner, Joyce" in dashboard
    mark = epa.audit_mark()
    solve(epa, GOLD_ANSWERS)
    page = epa.page(f"/request/{JOY}")
    assert "Sent to Plan" in page and 'id="questions-form"' not in page  # answers locked
    report = epa.grade()
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 1.0]
    assert report.score == pytest.approx(1.0)
    assert not report.channel["exclusions"]
    assert report.footprint["counts"]["stray"] == 0
    entries = epa.audit_since(mark)
    assert {e["channel"] for e in entries} == {"browser"}
    assert {e["episode_id"] for e in entries} == {EPISODE}
    assert {e["table"] for e in entries} == {"epa_answers", "epa_requests"}


def test_untouched_run_earns_only_no_contradictions(epa_for):
    epa = epa_for()
    epa.page("/dashboard")
    epa.page(f"/request/{JOY}")
    assert epa.fractions() == [0.0, 1.0, 0.0]
    assert epa.grade().score == pytest.approx(CONSISTENT)


def test_lookalike_patients_request_earns_nothing_beyond_untouched(epa_for):
    epa = epa_for()
    solve(epa, GOLD_ANSWERS, key=JOYCE)
    assert epa.request_row(JOYCE)["status"] == "sent_to_plan"
    assert epa.fractions() == [0.0, 1.0, 0.0]
    assert epa.grade().score == pytest.approx(CONSISTENT)


@pytest.mark.parametrize(("key", "wrong"), [
    ("a1c_recent", "8.1"),               # the middle A1c, not the latest
    ("a1c_recent_date", "03/10/2026"),
    ("metformin_dose", "500 mg twice daily"),
    ("bmi", "35.1"),                     # last year's BMI
])
def test_one_wrong_value_costs_one_fourteenth_of_the_answers(epa_for, key, wrong):
    epa = epa_for()
    solve(epa, {**GOLD_ANSWERS, key: wrong})
    report = epa.grade()
    assert [c.fraction for c in report.checks] == [pytest.approx(13 / 14), 1.0, 1.0]
    assert report.score == pytest.approx(ANSWERS * 13 / 14 + CONSISTENT + SENT)


def test_mtc_answered_yes_with_the_lookalikes_history_is_wrong_and_contradictory(epa_for):
    """Joyce's father had MTC; Joy's mother had papillary cancer: 'yes' is wrong, and the
    details it unlocks are off the gold path."""
    epa = epa_for()
    solve(epa, {**GOLD_ANSWERS, "mtc_men2": "yes",
                "mtc_men2_details": "father, medullary thyroid carcinoma at 61"})
    report = epa.grade()
    assert [c.fraction for c in report.checks] == [pytest.approx(13 / 14), 0.0, 1.0]
    assert report.checks[1].evidence["off_gold_path"] == ["mtc_men2_details"]
    assert report.score == pytest.approx(ANSWERS * 13 / 14 + SENT)


def test_answer_hidden_by_a_later_change_stays_and_contradicts(epa_for):
    """metformin 'no' + a reason, then 'yes': the reason is kept (shown as hidden), and the
    verifier finds the contradiction."""
    epa = epa_for()
    open_by_key(epa)
    assert epa.autosave(JOY, "diagnosis", "t2dm").json()["ok"]
    assert epa.autosave(JOY, "metformin_trial", "no").json()["ok"]
    assert epa.autosave(JOY, "metformin_contraindication", "intolerance").json()["ok"]
    reply = epa.autosave(JOY, "metformin_trial", "yes").json()
    assert "metformin_contraindication" not in reply["shown"]
    assert "metformin_dose" in reply["shown"]
    assert "Why has metformin not been tried?" in reply["hidden_html"]
    assert epa.answers()["metformin_contraindication"] == "intolerance"
    solve(epa, GOLD_ANSWERS)
    assert epa.answers()["metformin_contraindication"] == "intolerance"
    report = epa.grade()
    assert [c.fraction for c in report.checks] == [1.0, 0.0, 1.0]
    assert report.checks[1].evidence["hidden_under_final_answers"] == [
        "metformin_contraindication"]
    assert report.score == pytest.approx(ANSWERS + SENT)


def test_clearing_the_hidden_answer_before_sending_earns_full_credit(epa_for):
    epa = epa_for()
    open_by_key(epa)
    for key, value in (("diagnosis", "t2dm"), ("metformin_trial", "no"),
                       ("metformin_contraindication", "intolerance"),
                       ("metformin_trial", "yes")):
        assert epa.autosave(JOY, key, value).json()["ok"]
    response = epa.save_answers(JOY, {k: v for k, v in GOLD_ANSWERS.items()
                                      if k not in AUTOSAVED}, action="send")
    send_page = epa.client.get(response.headers["location"]).text
    assert "1 hidden answer is stored with this request" in send_page
    assert "Why has metformin not been tried?" in send_page
    request_page = epa.page(f"/request/{JOY}")
    assert 'id="hidden-metformin_contraindication"' in request_page
    cleared = epa.post_form(f"/request/{JOY}",
                            f"/request/{JOY}/answers/metformin_contraindication/clear", {})
    assert cleared.status_code == 303
    assert "metformin_contraindication" not in epa.answers()
    assert epa.send(JOY).status_code == 303
    assert epa.fractions() == [1.0, 1.0, 1.0]


def test_wrong_diagnosis_after_the_gold_answers_hides_them_all(epa_for):
    """Switching the diagnosis to weight management keeps the diabetes answers (hidden):
    one wrong answer, and every kept diabetes follow-up contradicts it."""
    epa = epa_for()
    solve(epa, GOLD_ANSWERS, send=False)
    assert epa.autosave(JOY, "diagnosis", "weight").json()["ok"]
    page = epa.page(f"/request/{JOY}")
    assert "Hidden answers (8)" in page
    assert epa.answers()["a1c_recent"] == "8.4"
    assert "Answer the required question" in epa.send(JOY).text  # its new follow-up
    assert epa.autosave(JOY, "weight_comorbidity", ["hypertension"]).json()["ok"]
    assert epa.send(JOY).status_code == 303
    report = epa.grade()
    assert [c.fraction for c in report.checks] == [pytest.approx(13 / 14), 0.0, 1.0]
    assert len(report.checks[1].evidence["hidden_under_final_answers"]) == 8
    assert report.checks[1].evidence["off_gold_path"] == ["weight_comorbidity"]
    assert report.score == pytest.approx(ANSWERS * 13 / 14 + SENT)


def test_answered_but_never_sent_earns_nothing_for_the_answers(epa_for):
    """The one rule for drafts: answers saved but never sent to the plan earn nothing for
    their content; only "no contradictions", as untouched, is kept."""
    epa = epa_for()
    solve(epa, GOLD_ANSWERS, send=False)
    assert epa.request_row(JOY)["status"] == "in_progress"
    assert epa.fractions() == [0.0, 1.0, 0.0]
    assert epa.grade().score == pytest.approx(CONSISTENT)


def test_send_without_attestation_or_with_a_missing_answer_writes_nothing(epa_for):
    epa = epa_for()
    partial = {k: v for k, v in GOLD_ANSWERS.items() if k != "bmi"}
    solve(epa, partial, send=False)
    mark = epa.audit_mark()
    refused = epa.send(JOY)
    assert refused.status_code == 200
    assert "Answer the required question 11 before sending" in refused.text
    assert "Current body mass index" in refused.text
    assert epa.audit_since(mark) == []
    epa.save_answers(JOY, {"bmi": "34.2"})
    mark = epa.audit_mark()
    refused = epa.send(JOY, attest=False)
    assert "Tick the prescriber attestation" in " ".join(feedback(refused.text))
    assert epa.audit_since(mark) == []
    assert epa.send(JOY).status_code == 303
    assert epa.fractions() == [1.0, 1.0, 1.0]
