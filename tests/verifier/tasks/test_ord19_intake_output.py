"""ord-19 (I&O flowsheet) on runs written as the LBF screen saves the I&O Flowsheet: a forms
row plus one lbf_data row per non-empty cell.

Split: 60% hourly cells (30 legible cells); 20% totals and net (seven parts); 20% illegible
cells handled (four parts: two left blank, two flagged in the note).
"""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import func, select

from sandbox.stores.ehr import Form, LbfData
from tests.verifier.tasks.runs import Run, seeded_task

CELLS, TOTALS, ILLEGIBLE = 0.60, 0.20, 0.20
NOW = dt.datetime(2026, 10, 19, 15, 20)
SHEET = {"0800": (125, 120, 80, 35), "0900": (125, 0, 60, 30), "1000": (125, 240, 75, 25),
         "1100": (125, 60, None, 30), "1200": (100, 180, 90, 20), "1300": (100, 0, 70, None),
         "1400": (100, 150, 110, 15), "1500": (100, 90, 85, 20)}
NOTE = ("8-h I&O 08:00-15:00: intake 1740 mL (IV 900, PO 840); output 745 mL (urine 570, "
        "JP drain 175). Net +995 mL. Urine at 11:00 and drain at 13:00 were marked '?' on the "
        "paper sheet (illegible): left blank and not counted in the totals. - K. Ambrose RN")
GOLD = {**{f"io_{h}_{c}": (str(v) if v is not None else "")
           for h, row in SHEET.items() for c, v in zip(("iv", "po", "urine", "drain"), row, strict=True)},
        "io_total_iv": "900", "io_total_po": "840", "io_total_intake": "1740",
        "io_total_urine": "570", "io_total_drain": "175", "io_total_output": "745",
        "io_net_balance": "995", "io_nursing_note": NOTE}

task = seeded_task("ord-19")


def chart(run: Run, *, encounter: int = 1002, channel: str = "browser", **changes) -> None:
    values = {**GOLD, **changes}
    pid = run.pid("402844")
    with run.write("nurse.kelly", channel=channel) as s:
        form_id = max(s.scalar(select(func.max(LbfData.form_id))) or 0,
                      s.scalar(select(func.max(Form.form_id)).where(
                          Form.formdir.like("LBF%"))) or 0) + 1
        s.add(Form(date=NOW, encounter=encounter, form_name="I&O Flowsheet", form_id=form_id,
                   pid=pid, user="nurse.kelly", formdir="LBFio", provider_id=30))
        s.add_all([LbfData(form_id=form_id, field_id=k, field_value=v)
                   for k, v in values.items() if v])


def test_correct_flowsheet_scores_one(task, tmp_path):
    run = task.run(tmp_path)
    chart(run)
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"]["insert"] == 39   # form, 30 cells, 7 totals, the note
    assert report.footprint["outside_scope"] == report.footprint["other_patient"] == []


def test_filed_in_the_admission_encounter_of_the_stay(task, tmp_path):
    run = task.run(tmp_path)
    chart(run, encounter=1001, io_nursing_note="Illegible cells left blank: urine 1100, "
                                                "drain 1300.")
    assert run.score() == pytest.approx(1.0)


@pytest.mark.parametrize("cell, wrong", [
    ("io_0900_po", ""), ("io_1000_urine", "57"),
])
def test_each_wrong_cell_loses_a_thirtieth_of_the_cells(task, tmp_path, cell, wrong):
    run = task.run(tmp_path)
    chart(run, **{cell: wrong})
    assert run.score() == pytest.approx(1.0 - CELLS / 30)


@pytest.mark.parametrize("field, wrong", [
    ("io_total_iv", "1025"), ("io_total_output", "835"), ("io_net_balance", "-995"),
])
def test_each_wrong_total_loses_a_seventh_of_the_totals(task, tmp_path, field, wrong):
    run = task.run(tmp_path)
    chart(run, **{field: wrong})
    assert run.score() == pytest.approx(1.0 - TOTALS / 7)


@pytest.mark.parametrize("changes, lost", [
    ({"io_1100_urine": "90"}, ILLEGIBLE / 4),                  # a guess in a '?' cell
    ({"io_1300_drain": "20"}, ILLEGIBLE / 4),
    ({"io_nursing_note": "I&O charted, net +995 mL."}, ILLEGIBLE / 2),
    ({"io_nursing_note": "Urine at 11:00 illegible, left blank."}, ILLEGIBLE / 4),
])
def test_illegible_cell_parts(task, tmp_path, changes, lost):
    run = task.run(tmp_path)
    chart(run, **changes)
    assert run.score() == pytest.approx(1.0 - lost)


def test_flowsheet_through_the_api_earns_nothing(task, tmp_path):
    run = task.run(tmp_path)
    chart(run, channel="api")
    assert run.score() == pytest.approx(0.0)


def test_untouched_scores_zero(task, tmp_path):
    run = task.run(tmp_path)
    assert run.score() == pytest.approx(0.0)
