"""ord-02 (referral) graded on seeded runs written as the web EHR writes a referral.

Split: 25% referral created (half when more than one referral was created); 25% recipient;
30% reason; 20% urgency and link (two equal parts).
"""

from __future__ import annotations

import datetime as dt

import pytest

from sandbox.stores.ehr import LbtData, Transaction
from tests.verifier.tasks.runs import Run, seeded_task

CREATED, RECIPIENT, REASON, URGENCY_LINK = 0.25, 0.25, 0.30, 0.20
GOLD = {"refer_date": "2026-10-19", "refer_from": "10", "refer_to": "40",
        "body": "Exertional chest pressure, abnormal stress ECG 2026-10-08",
        "refer_urgency": "urgent", "refer_document": "1001"}

task = seeded_task("ord-02")


def refer(run: Run, *, mrn: str = "402108", channel: str = "browser", **changes: str) -> None:
    """Save a referral the way Transactions > Referral does: one lbt_data row per field."""
    fields = {**GOLD, **changes}
    pid = run.pid(mrn)
    with run.write(channel=channel) as s:
        row = Transaction(date=dt.datetime(2026, 10, 19, 9, 12), title="LBTref", pid=pid,
                          user="dr.osei", groupname="Default", authorized=1)
        s.add(row)
        s.flush()
        s.add_all([LbtData(form_id=row.id, field_id=k, field_value=v)
                   for k, v in fields.items() if v])


def test_correct_referral_scores_one(task, tmp_path):
    run = task.run(tmp_path)
    refer(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"]["stray"] == 0


def test_reason_compared_without_case_spacing_or_final_stop(task, tmp_path):
    run = task.run(tmp_path)
    refer(run, body="exertional chest pressure,  abnormal stress ECG 2026-10-08.")
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("field, wrong, lost", [
    ("refer_to", "41", RECIPIENT),                       # out-of-network look-alike
    ("body", "Exertional chest pressure, abnormal stress ECG 2026-10-02", REASON),
    ("refer_urgency", "routine", URGENCY_LINK / 2),
    ("refer_document", "1002", URGENCY_LINK / 2),        # the resting ECG
])
def test_each_wrong_value_loses_its_share(task, tmp_path, field, wrong, lost):
    run = task.run(tmp_path)
    refer(run, **{field: wrong})
    assert run.score() == pytest.approx(1.0 - lost)


def test_two_referrals_halve_the_created_item(task, tmp_path):
    run = task.run(tmp_path)
    refer(run, refer_urgency="routine")
    refer(run)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [0.5, 1.0, 1.0, 1.0]
    assert report.score == pytest.approx(1.0 - CREATED / 2)


def test_referral_for_the_lookalike_counts_for_nothing(task, tmp_path):
    run = task.run(tmp_path)
    refer(run, mrn="402109")
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert report.footprint["counts"]["stray"] >= 1


def test_referral_through_the_api_does_not_count(task, tmp_path):
    run = task.run(tmp_path)
    refer(run, channel="api")
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert {e["table"] for e in report.channel["exclusions"]} == {"transactions", "lbt_data"}


def test_untouched_scores_zero(task, tmp_path):
    run = task.run(tmp_path)
    assert run.score() == pytest.approx(0.0)
