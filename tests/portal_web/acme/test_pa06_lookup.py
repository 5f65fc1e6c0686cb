"""pa-06 through the portal's lookup form and the Workspace editor: which of eight
procedures need prior authorization (80% yes/no per code, 20% rule IDs)."""

from __future__ import annotations

import csv
import io
import re

import pytest

from tests.portal_web.acme.tasks import TaskRun

RESULT = re.compile(r'<div class="det-title">([^<]+)</div>.*?id="rule-id">([^<]+)<', re.S)


def look_up(run: TaskRun, code: str, place: str, units: str = "1") -> tuple[str, str]:
    """One lookup through the form; returns (answer shown, rule ID shown)."""
    response = run.portal.submit("/auth/lookup", {"plan_id": "1", "code": code,
                                                  "place_of_service": place, "units": units},
                                 follow=True)
    assert response.status_code == 200
    match = RESULT.search(response.text)
    assert match, response.text[:2000]
    return match[1], match[2]


def answer_csv(run: TaskRun, ignore_place_for: str = "") -> str:
    rows = list(csv.DictReader(io.StringIO(run.input_file("scheduled_procedures.csv")
                                           .decode())))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["code", "place_of_service", "pa_required", "rule_id"])
    for row in rows:
        place = "22" if row["code"] == ignore_place_for else row["place_of_service"]
        shown, rule_id = look_up(run, row["code"], place)
        required = "yes" if shown == "Prior authorization required" else "no"
        writer.writerow([row["code"], row["place_of_service"], required, rule_id])
    return out.getvalue()


@pytest.fixture
def run(task_seeds) -> TaskRun:
    return task_seeds.logged_in("pa-06", ehr=False)


def test_gold_path_scores_one(run):
    mark = run.portal.audit_mark()
    run.write_output("pa_required.csv", answer_csv(run))
    assert run.fractions() == [1.0, 1.0]
    lookups = run.portal.audit_since(mark)
    assert len(lookups) == 8
    assert {(e["table"], e["channel"], e["actor"]) for e in lookups} == {
        ("rule_lookups", "browser", "riverside.pa")}


def test_place_of_service_ignored_for_29881(run):
    run.write_output("pa_required.csv", answer_csv(run, ignore_place_for="29881"))
    assert run.score() == pytest.approx(0.80 * 7 / 8 + 0.20 * 7 / 8)


def test_refreshing_the_answer_does_not_look_up_again(run):
    response = run.portal.submit("/auth/lookup", {"plan_id": "1", "code": "J1745",
                                                  "place_of_service": "11", "units": "1"})
    assert response.status_code == 303
    before = run.portal.count("rule_lookups")
    page = run.portal.client.get(response.headers["location"])
    again = run.portal.client.get(response.headers["location"])
    assert page.text.count("R-GP-4002") >= 1 and again.status_code == 200
    assert run.portal.count("rule_lookups") == before == 1


def test_answers_other_than_yes_and_no(run):
    assert look_up(run, "59400", "11")[0] == "Notification only"
    assert look_up(run, "15788", "11")[0] == "Not a covered benefit"
    response = run.portal.submit("/auth/lookup", {"plan_id": "2", "code": "95810",
                                                  "place_of_service": "11", "units": "1"},
                                 follow=True)
    assert "Delegated to a vendor" in response.text and "SleepWell" in response.text
    few = run.portal.submit("/auth/lookup", {"plan_id": "2", "code": "97140",
                                             "place_of_service": "11", "units": "6"},
                            follow=True)
    many = run.portal.submit("/auth/lookup", {"plan_id": "2", "code": "97140",
                                              "place_of_service": "11", "units": "20"},
                             follow=True)
    assert "No prior authorization required" in few.text.split('id="recent-lookups"')[0]
    assert "Prior authorization required" in many.text.split('id="recent-lookups"')[0]


def test_bad_code_is_refused_and_writes_nothing(run):
    response = run.portal.submit("/auth/lookup", {"plan_id": "1", "code": "7214",
                                                  "place_of_service": "11", "units": "1"})
    assert response.status_code == 200
    assert "is not a CPT or HCPCS code" in response.text
    assert run.portal.count("rule_lookups") == 0


GOLD_CSV = ("code,place_of_service,pa_required,rule_id\n72148,22,yes,R-GP-1001\n"
            "70450,22,no,R-GP-1010\n29881,24,no,R-GP-3002\n95810,11,yes,R-GP-2001\n"
            "45378,24,no,R-GP-3006\nJ1745,22,yes,R-GP-4001\nE0601,12,yes,R-GP-6001\n"
            "97161,11,no,R-GP-5002\n")
def test_answers_written_without_any_lookup_earn_nothing(run):
    run.write_output("pa_required.csv", GOLD_CSV)
    assert run.fractions() == [0.0, 0.0]


def test_a_code_not_looked_up_at_its_place_is_not_credited(run):
    for row in csv.DictReader(io.StringIO(GOLD_CSV)):
        place = "22" if row["code"] == "29881" else row["place_of_service"]
        look_up(run, row["code"], place)  # 29881 looked up at 22 shows R-GP-3001
    run.write_output("pa_required.csv", GOLD_CSV)
    assert run.score() == pytest.approx(0.80 * 7 / 8 + 0.20 * 7 / 8)
