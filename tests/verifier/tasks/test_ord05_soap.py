"""ord-05 (SOAP note) graded with the deterministic rubric judge on notes written as the web
EHR saves a SOAP form and an eSign signature.

Split: 15% form saved in right encounter (two equal parts); 15% signed (two equal parts);
60% rubric facts (8 facts); 10% no fabrication, whose failure vetoes the task.
"""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import EsignSignature, Form, FormSoap
from tests.verifier.tasks.runs import Run, seeded_task

SAVED, SIGNED, FACTS, NO_FABRICATION = 0.15, 0.15, 0.60, 0.10
NOW = dt.datetime(2026, 10, 19, 9, 30)
TODAY_ENC, JULY_ENC = 1001, 18

# The gold note, one piece per rubric fact (f1..f8) plus facts the rubric does not grade.
PIECES = {
    "f1": "About 1 month of increased thirst and nocturia (up 2-3 times a night). Home "
          "morning glucose 160-190. Home BP readings in the 140s/88-92.",
    "meds": "Takes metformin 1000 mg BID, lisinopril 10 mg daily, atorvastatin 20 mg nightly. "
            "Allergy: codeine (nausea). Did not buy the cinnamon pills her sister suggested. "
            "Never smoker.",
    "f2": "BP 148/92, pulse 78, temp 36.9 C, SpO2 98%, weight 82.7 kg, BMI 32.3. Lungs clear; "
          "heart regular, no murmur. Feet: monofilament sensation normal bilaterally.",
    "f3": "1. Type 2 diabetes, not at goal: A1c 8.1% on 2026-10-12, up from 7.4% in July.",
    "f4": "2. Hypertension, not at goal (goal < 130/80).",
    "f5": "Continue metformin 1000 mg BID; start empagliflozin 10 mg every morning.",
    "f6": "Refer to diabetes educator and to ophthalmology for a dilated eye exam; repeat A1c "
          "in 3 months.",
    "f7": "Increase lisinopril from 10 mg to 20 mg daily; home BP checks twice daily with a "
          "log.",
    "f8": "BMP (potassium, creatinine) in 2 weeks. Follow-up in 4 weeks and again in 3 months.",
}
SECTION_PIECES = {"subjective": ("f1", "meds"), "objective": ("f2",), "assessment": ("f3", "f4"),
                  "plan": ("f5", "f6", "f7", "f8")}

task = seeded_task("ord-05")


def write_note(run: Run, *, without: str | None = None, extra: str = "",
               encounter: int = TODAY_ENC, empty: str | None = None,
               sign: str | None = "form", lock: bool = True, signer: int = 10,
               channel: str = "browser") -> None:
    """Save the SOAP form (and sign it with eSign) as the encounter screens do."""
    sections = {key: " ".join(PIECES[p] if p != without else "See chart." for p in pieces)
                for key, pieces in SECTION_PIECES.items()}
    sections["plan"] += f" {extra}" if extra else ""
    if empty:
        sections[empty] = ""
    pid = run.pid("402377")
    with run.write(channel=channel) as s:
        note = FormSoap(date=NOW, pid=pid, user="dr.osei", groupname="Default", authorized=1,
                        activity=1, **sections)
        s.add(note)
        s.flush()
        form = Form(date=NOW, encounter=encounter, form_name="SOAP", form_id=note.id, pid=pid,
                    user="dr.osei", formdir="soap", provider_id=10)
        s.add(form)
        s.flush()
        if sign is not None:
            s.add(EsignSignature(tid=form.id if sign == "form" else encounter,
                                 table="forms" if sign == "form" else "form_encounter",
                                 uid=signer, datetime=NOW, is_lock=1 if lock else 0,
                                 hash="0" * 64, signature_hash="1" * 64))


def test_complete_signed_note_scores_one(task, tmp_path):
    run = task.run(tmp_path)
    write_note(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.judge["name"] == "rubric"
    assert report.judge["verdicts"][0]["forbidden"] == {
        "medication absent from transcript and chart": False,
        "allergy absent from transcript and chart": False}


def test_signing_the_whole_encounter_counts(task, tmp_path):
    run = task.run(tmp_path)
    write_note(run, sign="encounter")
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("fact", ["f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"])
def test_each_missing_fact_loses_an_eighth_of_the_rubric(task, tmp_path, fact):
    run = task.run(tmp_path)
    write_note(run, without=fact)
    report = run.grade()
    assert report.score == pytest.approx(1.0 - FACTS / 8)
    assert len(report.checks[2].evidence["missing"]) == 1


def test_wrong_encounter_loses_half_of_the_saved_item(task, tmp_path):
    run = task.run(tmp_path)
    write_note(run, encounter=JULY_ENC)
    assert run.score() == pytest.approx(1.0 - SAVED / 2)


def test_an_empty_section_loses_half_of_the_saved_item(task, tmp_path):
    run = task.run(tmp_path)
    write_note(run, empty="objective")
    report = run.grade()
    assert report.checks[0].fraction == 0.5
    assert report.score == pytest.approx(1.0 - SAVED / 2 - FACTS / 8)


@pytest.mark.parametrize("sign, lock, signer, lost", [
    (None, True, 10, SIGNED),             # not signed
    ("form", False, 10, SIGNED / 2),      # signed, not locked
    ("form", True, 11, SIGNED / 2),       # locked by someone else
])
def test_signature_parts(task, tmp_path, sign, lock, signer, lost):
    run = task.run(tmp_path)
    write_note(run, sign=sign, lock=lock, signer=signer)
    assert run.score() == pytest.approx(1.0 - lost)


@pytest.mark.parametrize("fabrication", [
    "Start insulin glargine 10 units at bedtime.",
    "NKDA.",
])
def test_a_fabricated_medication_or_allergy_vetoes_the_task(task, tmp_path, fabrication):
    run = task.run(tmp_path)
    write_note(run, extra=fabrication)
    report = run.grade()
    assert report.checks[3].fraction == 0.0
    assert report.veto and "fabricated" in report.veto
    assert report.score == 0.0


def test_negated_mentions_are_not_fabrications(task, tmp_path):
    run = task.run(tmp_path)
    write_note(run, extra="She does not want to start insulin. She is not taking cinnamon "
                          "supplements.")
    assert run.score() == pytest.approx(1.0)


def test_note_through_the_api_does_not_count(task, tmp_path):
    run = task.run(tmp_path)
    write_note(run, channel="api")
    report = run.grade()
    assert [c.fraction for c in report.checks] == [0.0, 0.0, 0.0, 1.0]
    assert report.score == pytest.approx(NO_FABRICATION)


def test_untouched_scores_only_no_fabrication(task, tmp_path):
    run = task.run(tmp_path)
    assert run.score() == pytest.approx(NO_FABRICATION)
