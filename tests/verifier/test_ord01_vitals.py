"""Worked example: ord-01 (vitals) graded on extracts built by writing rows directly.

Split from the seed: 15% correct encounter; 70% six values (proportional: the six values
and the BMI computed from weight and height, 10% each); 15% no stray writes. Each expected
score below is that arithmetic, not a recorded number. Rows carry the BMI the form computes
from their weight and height, unless a test writes another one.
"""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import Form, FormEncounter, FormVitals, PatientData
from tests.verifier.builders import RunBuilder, task_spec
from verifier import grade

SPEC = task_spec("R09.03.01.02-T01")
NOW = dt.datetime(2026, 10, 19, 9, 20)
PID, LOOKALIKE = 1001, 1002
TODAY_ENC, OLD_ENC = 5002, 5001

GOLD = {"bps": "128", "bpd": "82", "pulse": 76.0, "temperature": 98.78,
        "oxygen_saturation": 97.0, "weight": 179.46, "height": 69.29, "BMI": 26.3}
ENCOUNTER, VALUES, STRAY = 0.15, 0.70, 0.15


def seeded(tmp_path) -> RunBuilder:
    run = RunBuilder(tmp_path / "run", SPEC)
    with run.seed() as s:
        s.add_all([
            PatientData(id=1, pid=PID, pubpid="402015", fname="Harold", lname="Whitaker",
                        DOB=dt.date(1961, 3, 14), sex="Male"),
            PatientData(id=2, pid=LOOKALIKE, pubpid="402051", fname="Harold", lname="Whitacre",
                        DOB=dt.date(1961, 3, 14), sex="Male"),
        ])
        s.flush()
        s.add_all([
            FormEncounter(id=1, encounter=OLD_ENC, pid=PID, date=dt.datetime(2026, 6, 2, 10),
                          reason="Annual physical"),
            FormEncounter(id=2, encounter=TODAY_ENC, pid=PID, date=dt.datetime(2026, 10, 19, 8, 45),
                          reason="Follow-up, hypertension"),
            FormEncounter(id=3, encounter=5003, pid=LOOKALIKE,
                          date=dt.datetime(2026, 10, 19, 8, 30), reason="Cough"),
        ])
        s.flush()
        s.add(FormVitals(id=1001, date=dt.datetime(2026, 6, 2, 10, 5), pid=PID, bps="134",
                         bpd="86", pulse=80, temperature=98.4, oxygen_saturation=98,
                         weight=183.2, height=69.3, BMI=26.8))
        s.add(Form(id=1001, date=dt.datetime(2026, 6, 2, 10, 5), encounter=OLD_ENC,
                   form_name="Vitals", form_id=1001, pid=PID, formdir="vitals"))
    return run.snapshot()


def form_bmi(weight: float, height: float) -> float:
    """The Vitals form's BMI (OpenEMR: lb x 703 / in squared, one decimal)."""
    return round(weight * 703 / (height * height), 1) if weight and height else 0.0


def record_vitals(run: RunBuilder, *, channel: str = "browser", episode: str | None = None,
                  encounter: int = TODAY_ENC, pid: int = PID, **changes) -> None:
    values = {**GOLD, **changes}
    if "BMI" not in changes:
        values["BMI"] = form_bmi(values["weight"], values["height"])
    with run.agent(channel=channel, episode=episode) as s:
        vitals = FormVitals(date=NOW, pid=pid, user="nurse.kelly", **values)
        s.add(vitals)
        s.flush()
        s.add(Form(date=NOW, encounter=encounter, form_name="Vitals", form_id=vitals.id,
                   pid=pid, user="nurse.kelly", formdir="vitals"))


def score(run: RunBuilder) -> float:
    report = grade(SPEC, run.close())
    assert report.complete, report.to_json()["checks"]
    return report.score


def test_correct_vitals_score_one(tmp_path):
    run = seeded(tmp_path)
    record_vitals(run)
    report = grade(SPEC, run.close())
    assert report.score == pytest.approx(1.0)
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 1.0]
    assert report.footprint["counts"] == {"insert": 2, "update": 0, "delete": 0, "stray": 0}


def test_unit_conversions_rounded_to_one_decimal_pass(tmp_path):
    run = seeded(tmp_path)
    record_vitals(run, temperature=98.8, weight=179.5, height=69.3)
    assert score(run) == pytest.approx(1.0)


@pytest.mark.parametrize("field, wrong", [
    ("bps", "182"),                # BP counts as one value: systolic wrong
    ("bpd", "28"),                 # ... or diastolic wrong
    ("pulse", 67.0),
    ("temperature", 98.6),         # 37.0 C, one step off the sheet
    ("oxygen_saturation", 79.0),
    ("weight", 179.23),            # 81.3 kg
    ("height", 68.9),              # 175 cm
])
def test_each_value_wrong_loses_one_seventh_of_the_values(tmp_path, field, wrong):
    run = seeded(tmp_path)
    record_vitals(run, **{field: wrong})  # the form's BMI follows a wrong weight or height
    assert score(run) == pytest.approx(ENCOUNTER + VALUES * 6 / 7 + STRAY)


def test_metric_values_stored_unconverted_fail(tmp_path):
    run = seeded(tmp_path)
    record_vitals(run, temperature=37.1, weight=81.4, height=176.0)
    assert score(run) == pytest.approx(ENCOUNTER + VALUES * 4 / 7 + STRAY)


@pytest.mark.parametrize("bmi", [29.6, 0.0], ids=["not its weight and height", "none"])
def test_a_bmi_that_is_not_computed_from_the_set_loses_one_seventh(tmp_path, bmi):
    """Issue 14: BMI 26.3 -> 29.6 with the sheet's weight and height scored 1.0. The form
    computes it, so this is written through the audited writer, as a wrong run would."""
    run = seeded(tmp_path)
    record_vitals(run, BMI=bmi)
    report = grade(SPEC, run.close())
    assert [c.fraction for c in report.checks] == pytest.approx([1.0, 6 / 7, 1.0])
    assert report.score == pytest.approx(ENCOUNTER + VALUES * 6 / 7 + STRAY)
    assert report.score == pytest.approx(0.9)
    bmi_part = next(p for p in report.checks[1].evidence["parts"]
                    if p["part"] == "BMI computed")
    assert bmi_part["found"] == bmi and bmi_part["gold"] == 26.3


def test_wrong_encounter_loses_encounter_and_stray_parts(tmp_path):
    run = seeded(tmp_path)
    record_vitals(run, encounter=OLD_ENC)
    report = grade(SPEC, run.close())
    assert [c.fraction for c in report.checks] == [0.0, 1.0, 0.0]
    assert report.score == pytest.approx(VALUES)


def test_right_rows_through_the_api_count_for_nothing_gated(tmp_path):
    run = seeded(tmp_path)
    record_vitals(run, channel="api")
    report = grade(SPEC, run.close())
    assert [c.fraction for c in report.checks] == [0.0, 0.0, 1.0]
    assert report.score == pytest.approx(STRAY)
    exclusions = report.channel["exclusions"]
    assert {(e["table"], e["rows"]) for e in exclusions} == {("form_vitals", 1), ("forms", 1)}
    assert all("written through api" in e["reason"] for e in exclusions)
    assert report.checks[0].excluded, "the check names the rows it could not count"


def test_rows_of_another_episode_do_not_count(tmp_path):
    run = seeded(tmp_path)
    record_vitals(run, episode="ep-other")
    report = grade(SPEC, run.close())
    assert report.score == pytest.approx(STRAY)
    assert "episode ep-other" in report.channel["exclusions"][0]["reason"]


@pytest.mark.parametrize("collateral", ["encounter edited", "lookalike charted", "saved twice"])
def test_collateral_write_loses_the_stray_writes_part(tmp_path, collateral):
    run = seeded(tmp_path)
    record_vitals(run)
    if collateral == "encounter edited":
        with run.agent() as s:
            s.get(FormEncounter, 1).reason = "Annual physical (edited)"
    elif collateral == "lookalike charted":
        record_vitals(run, pid=LOOKALIKE, encounter=5003)
    else:
        record_vitals(run)
    report = grade(SPEC, run.close())
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 0.0]
    assert report.score == pytest.approx(ENCOUNTER + VALUES)
    assert report.checks[2].evidence["problems"]


def test_untouched_extract_scores_below_half(tmp_path):
    run = seeded(tmp_path)
    report = grade(SPEC, run.close())
    assert report.score == pytest.approx(STRAY)
    assert report.score < 0.5
    assert report.footprint["changes"] == []
