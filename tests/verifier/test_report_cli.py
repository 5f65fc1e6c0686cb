"""The report (JSON and table) and ``ehr-sandbox verify``'s output and exit status."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.verifier.builders import RunBuilder, make_task, seed_patients
from tests.verifier.test_ord01_vitals import record_vitals, seeded
from verifier import ERROR, grade
from verifier.cli import verify_main

SPARE = {"id": "R09.03.01.02-T91", "alias": "ord-91"}  # an id no real task uses


def spare_task(tmp_path, src, credit):
    return make_task(tmp_path / "tasks", src, credit=credit, **SPARE)


def spare_extract(tmp_path, spec):
    run = RunBuilder(tmp_path / "run", spec)
    seed_patients(run)
    return run.snapshot().close()


def test_json_report_of_a_complete_grade(tmp_path, capsys):
    run = seeded(tmp_path)
    record_vitals(run, pulse=67.0)
    status = verify_main(["ord-01", str(run.close()), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert report["task"] == "R09.03.01.02-T01" and report["variant"] == "default"
    assert report["score"] == pytest.approx(0.15 + 0.7 * 6 / 7 + 0.15)
    assert [(c["name"], c["weight"], c["status"]) for c in report["checks"]] == [
        ("correct encounter", 0.15, "graded"), ("six values (proportional)", 0.7, "graded"),
        ("no stray writes", 0.15, "graded")]
    pulse = report["checks"][1]["evidence"]["parts"][1]
    assert (pulse["part"], pulse["expected"], pulse["found"]) == ("pulse 76", 76, 67.0)
    assert report["channel"]["rule"] == {"accepted": ["browser", "desktop", "fax"],
                                         "episode_id": "ep-0001"}
    assert set(report["timings"]) >= {"open_s", "footprint_s", "checks_s", "total_s"}
    assert report["engine_version"] and report["judge"]["name"] == "rubric"
    assert re.search(r"R09\.03\.01\.02-T01/verify\.py:\d+$", report["checks"][0]["check"])


def test_text_report_is_a_table(tmp_path, capsys):
    run = seeded(tmp_path)
    record_vitals(run)
    assert verify_main(["ord-01", str(run.close())]) == 0
    out = capsys.readouterr().out
    for text in ("correct encounter", "six values (proportional)", "no stray writes", "70%",
                 "score 1.000", "channel rule: accepts browser, desktop, fax",
                 "footprint: 2 inserted, 0 updated, 0 deleted; 0 stray"):
        assert text in out


def test_a_failing_check_is_an_error_outcome_and_exit_1(tmp_path, capsys):
    src = '''
    from verifier import check

    @check("works")
    def works(ex):
        return True

    @check("breaks")
    def breaks(ex):
        return {}["missing"]
    '''
    spec = spare_task(tmp_path, src, [("works", 60), ("breaks", 40)])
    path = spare_extract(tmp_path, spec)
    report = grade(spec, path)
    assert report.checks[1].status == ERROR
    assert "KeyError" in report.checks[1].evidence["reason"]
    assert report.checks[1].evidence["at"].endswith("verify.py:9")
    assert report.score is None and report.graded_score == pytest.approx(0.6)
    status = verify_main(["ord-91", str(path), "--tasks-dir", str(tmp_path / "tasks")])
    out = capsys.readouterr().out
    assert status == 1 and "score incomplete: 0.600 graded" in out


def test_a_veto_zeroes_the_task(tmp_path):
    src = '''
    from verifier import Result, check

    @check("facts")
    def facts(ex):
        return True

    @check("no fabrication")
    def no_fabrication(ex):
        return Result(0.0, {"fabrications": ["penicillin allergy"]}).with_veto(
            "fabricated allergy")
    '''
    spec = spare_task(tmp_path, src, [("facts", 90), ("no fabrication", 10)])
    report = grade(spec, spare_extract(tmp_path, spec))
    assert report.graded_score == pytest.approx(0.9)
    assert report.score == 0.0 and report.veto == "no fabrication: fabricated allergy"


def test_the_verifier_never_imports_an_app():
    code = ("import sys, verifier, verifier.cli, verifier.bench; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'portal_web', 'desktop_ehr', 'pixel_stream'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
