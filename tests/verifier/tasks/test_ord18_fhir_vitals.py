"""ord-18 (FHIR control pair of ord-01) on runs written as the FHIR API files posted
Observations: a form_vitals set per encounter and effective time, on the api channel.

Split: 15% encounter link (one part per sign); 70% six Observations (proportional: the six
values and the BMI computed from weight and height, 10% each); 15% LOINC codes (one part per
sign: the value filed in its code's column).
"""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import Form, FormVitals
from tests.verifier.tasks.runs import Run, seeded_task

LINK, VALUES, LOINC = 0.15, 0.70, 0.15
CLIENT = "ord18-vitals-client-7d3f"
NOW = dt.datetime(2026, 10, 19, 9, 20)
TODAY_ENC, APRIL_ENC = 1001, 11
GOLD = {"bps": "128", "bpd": "82", "pulse": 76.0, "temperature": 98.78,
        "oxygen_saturation": 97.0, "weight": 179.46, "height": 69.29}

task = seeded_task("ord-18")


def post(run: Run, values: dict, *, encounter: int = TODAY_ENC, effective: dt.datetime = NOW,
         channel: str = "api") -> None:
    """One vitals set as the API files Observations of one effective time."""
    pid = run.pid("402015")
    with run.write(CLIENT, channel=channel) as s:
        vitals = FormVitals(date=effective, pid=pid, user=CLIENT, groupname="Default",
                            authorized=1, activity=1)
        s.add(vitals)
        s.flush()
        s.add(Form(date=NOW, encounter=encounter, form_name="Vitals", form_id=vitals.id,
                   pid=pid, user=CLIENT, formdir="vitals", provider_id=10))
        for column, value in values.items():
            setattr(vitals, column, value)
        if vitals.weight and vitals.height:
            vitals.BMI = round(vitals.weight * 703 / vitals.height ** 2, 1)


def test_six_observations_score_one(task, tmp_path):
    run = task.run(tmp_path)
    post(run, GOLD)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.checks[2].evidence["note"].startswith("the store keeps no LOINC code")


def test_observations_filed_in_two_sets_are_graded_together(task, tmp_path):
    run = task.run(tmp_path)
    first = {k: v for k, v in GOLD.items() if k in ("bps", "bpd", "pulse")}
    post(run, first)
    post(run, {k: v for k, v in GOLD.items() if k not in first},
         effective=NOW + dt.timedelta(hours=2))
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("column, wrong", [
    ("bpd", "28"), ("pulse", 67.0), ("temperature", 98.6), ("oxygen_saturation", 79.0),
    ("weight", 179.23), ("height", 68.9),
])
def test_each_value_wrong_loses_a_seventh_of_the_values(task, tmp_path, column, wrong):
    run = task.run(tmp_path)
    post(run, {**GOLD, column: wrong})  # the API's BMI follows a wrong weight or height
    assert run.score() == pytest.approx(1.0 - VALUES / 7)


def test_a_sign_never_posted_loses_its_share_of_each_item(task, tmp_path):
    run = task.run(tmp_path)
    post(run, {k: v for k, v in GOLD.items() if k != "height"})  # no height: no BMI either
    assert run.score() == pytest.approx(LINK * 5 / 6 + VALUES * 6 / 7 + LOINC * 5 / 6)


@pytest.mark.parametrize("bmi, lost", [(29.6, VALUES / 7), (26.3, 0.0)],
                         ids=["wrong", "the sheet's"])
def test_a_bmi_observation_filed_in_a_set_of_its_own_is_graded(task, tmp_path, bmi, lost):
    """Issue 14: a BMI Observation (39156-5) lands in a set of its own, which nobody read."""
    run = task.run(tmp_path)
    post(run, GOLD)
    post(run, {"BMI": bmi}, effective=NOW + dt.timedelta(minutes=30))
    report = run.grade()
    assert report.score == pytest.approx(1.0 - lost)


def test_weight_posted_under_the_height_code(task, tmp_path):
    """81.4 'cm' under 8302-2 lands in height (32.05 in); weight stays empty."""
    run = task.run(tmp_path)
    post(run, {**{k: v for k, v in GOLD.items() if k != "weight"}, "height": 32.05})
    assert run.score() == pytest.approx(LINK * 5 / 6 + VALUES * 5 / 7 + LOINC * 5 / 6)


def test_observations_in_another_encounter_lose_the_link(task, tmp_path):
    run = task.run(tmp_path)
    post(run, GOLD, encounter=APRIL_ENC)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [0.0, 1.0, 1.0]
    assert report.score == pytest.approx(VALUES + LOINC)


def test_vitals_saved_in_the_browser_do_not_count(task, tmp_path):
    run = task.run(tmp_path)
    post(run, GOLD, channel="browser")
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert all("written through browser" in e["reason"] for e in report.channel["exclusions"])


def test_untouched_scores_zero(task, tmp_path):
    run = task.run(tmp_path)
    assert run.score() == pytest.approx(0.0)
