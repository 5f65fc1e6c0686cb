"""ord-13 (Joint Injection Procedure layout form) on runs written as the LBF screen saves a
form: a forms row plus one lbf_data row per non-empty field.

Split: 90% fields (11 equal parts); 10% correct encounter.
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import func, select

from sandbox.stores.ehr import Form, LbfData
from tests.verifier.tasks.runs import Run, seeded_task

FIELDS, ENCOUNTER = 0.90, 0.10
NOW = dt.datetime(2026, 10, 19, 9, 40)
TODAY_ENC, SEPTEMBER_ENC = 1001, 24
GOLD = {
    "ji_joint": "knee", "ji_side": "left",
    "ji_indication": "Symptomatic primary osteoarthritis of the left knee with persistent pain "
                     "despite acetaminophen and a home exercise program.",
    "ji_consent": "written", "ji_prep": "chlorhexidine", "ji_medication": "triamcinolone",
    "ji_dose": "40 mg", "ji_lot": "TA4471K", "ji_ultrasound": "YES", "ji_complications": "None",
    "ji_post_instructions": "Apply ice for 15 minutes three times a day for 2 days, avoid "
                            "strenuous activity and prolonged standing for 48 hours, and call "
                            "the clinic for fever, redness, warmth, or increasing swelling of "
                            "the knee. Follow up in 6 weeks.",
}

task = seeded_task("ord-13")


def fill(run: Run, *, encounter: int = TODAY_ENC, channel: str = "browser", **changes) -> None:
    values = {**GOLD, **changes}
    pid = run.pid("402655")
    with run.write(channel=channel) as s:
        form_id = max(s.scalar(select(func.max(LbfData.form_id))) or 0,
                      s.scalar(select(func.max(Form.form_id)).where(
                          Form.formdir.like("LBF%"))) or 0) + 1
        s.add(Form(date=NOW, encounter=encounter, form_name="Joint Injection Procedure",
                   form_id=form_id, pid=pid, user="dr.osei", formdir="LBFjoint_inj",
                   provider_id=10))
        s.add_all([LbfData(form_id=form_id, field_id=k, field_value=v)
                   for k, v in values.items() if v])


def test_correct_form_scores_one(task, tmp_path):
    run = task.run(tmp_path)
    fill(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"]["stray"] == 0


def test_free_text_normalised(task, tmp_path):
    run = task.run(tmp_path)
    fill(run, ji_dose="40mg (1 mL)", ji_lot="ta4471k", ji_complications="none.",
         ji_indication=GOLD["ji_indication"].upper().rstrip("."),
         ji_post_instructions=GOLD["ji_post_instructions"].replace(",", ""))
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("field, wrong", [
    ("ji_joint", "hip"),
    ("ji_side", "right"),                          # the untreated knee
    ("ji_indication", "Left knee osteoarthritis"),
    ("ji_consent", "verbal"),
    ("ji_prep", "povidone_iodine"),                # she is allergic to it
    ("ji_medication", "lidocaine"),                # the skin wheal, not the injection
    ("ji_dose", "2 mL"),
    ("ji_lot", "2028-03"),                         # the expiry, not the lot
    ("ji_ultrasound", "NO"),
    ("ji_complications", "Minimal blood loss"),
    ("ji_post_instructions", "Ice and rest."),
])
def test_each_field_wrong_loses_an_eleventh_of_the_fields(task, tmp_path, field, wrong):
    run = task.run(tmp_path)
    fill(run, **{field: wrong})
    assert run.score() == pytest.approx(1.0 - FIELDS / 11)


def test_a_field_left_empty_loses_its_share(task, tmp_path):
    run = task.run(tmp_path)
    fill(run, ji_lot="")
    assert run.score() == pytest.approx(1.0 - FIELDS / 11)


def test_form_in_an_older_encounter_loses_the_encounter_part(task, tmp_path):
    run = task.run(tmp_path)
    fill(run, encounter=SEPTEMBER_ENC)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 0.0]
    assert report.score == pytest.approx(FIELDS)


def test_form_through_the_api_earns_nothing(task, tmp_path):
    run = task.run(tmp_path)
    fill(run, channel="api")
    assert run.score() == pytest.approx(0.0)


def test_untouched_scores_zero(task, tmp_path):
    run = task.run(tmp_path)
    assert run.score() == pytest.approx(0.0)
