"""report.html of a bench of model episodes: what the page carries (no browser)."""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

from episodes.result_files import write_tables
from tests.episodes.synthetic_bench import make_bench, model_run

SCORES = {"ord-01": 0.8, "pa-01": 1.0, "pa-02": 0.5}


def episodes_of(html: str) -> list[dict]:
    match = re.search(r'<script type="application/json" id="episodes-data">(.*?)</script>',
                      html, re.S)
    assert match, "the page carries no episode data"
    return json.loads(match.group(1))


def test_report_references_step_images_and_carries_the_evidence(tmp_path: Path):
    out = make_bench(tmp_path / "bench", "anthropic:fake-model", SCORES, missing_step=3)
    (out / "runs" / "pa-01__default" / "trace").mkdir()
    (out / "runs" / "pa-01__default" / "trace" / "trace.jsonl").write_text(
        '{"kind": "header", "width": 1920, "height": 1080}\n')
    write_tables(out)
    html = (out / "report.html").read_text()
    episodes = {e["alias"]: e for e in episodes_of(html)}
    ord01, pa02 = episodes["ord-01"], episodes["pa-02"]
    # actions are drawn in the screen's pixels: its size from the trace, else 1280×800
    assert episodes["pa-01"]["screen"] == [1920, 1080] and ord01["screen"] == [1280, 800]
    assert [s["image"].get("src") for s in ord01["steps"]] == [
        "runs/ord-01__default/steps/0001.png", "runs/ord-01__default/steps/0002.png", None,
        "runs/ord-01__default/steps/0004.png"]
    assert ord01["steps"][2]["image"]["missing"].endswith("steps/0003.png")
    assert ord01["steps"][1]["actions"][0]["label"] == 'type "Hernandez"'
    assert ord01["steps"][3]["error"] == "could not parse the reply"
    assert ord01["final"]["src"] == "runs/ord-01__default/final.png"
    # only the final screens are inside the page, as small JPEGs; no step image is
    assert html.count("data:image/jpeg;base64,") == 3 and "data:image/png" not in html
    check = ord01["checks"][0]
    assert check["evidence"]["expected"] == "correct encounter as ordered"
    assert check["line"].startswith('expected "correct encounter as ordered"')
    # an episode without steps.jsonl: its trace's inputs (pointer motion left out)
    assert pa02["steps"] is None and pa02["inputs_total"] == 3
    assert [i["what"] for i in pa02["inputs"]] == [
        "left_click (940, 292)", 'type "riverside.pa"', "press Enter"]
    # groups from the catalog, with intervals; cost and time totals
    assert "prior-auth" in html and "orders" in html and "difficulty" in html
    assert "0.767</span> <small>[0.500, 1.000]</small>" in html  # mean score of all episodes
    assert "12,030" in html and "0.0438" in html  # tokens in, cost of the three rows
    assert "observe <b>screenshot</b>" in html
    table = list(csv.DictReader((out / "results.csv").open()))
    assert {(r["alias"], r["tokens_in"], r["cost_usd"], r["ended_by"]) for r in table} == {
        (alias, "4010", "0.0146", "done") for alias in SCORES}


def test_step_images_of_runs_elsewhere_and_of_a_moved_bench(tmp_path: Path):
    out = make_bench(tmp_path / "bench", "anthropic:fake-model", {"ord-01": 0.8})
    elsewhere = tmp_path / "kept" / "ord-01"
    shutil.move(str(out / "runs" / "ord-01__default"), elsewhere)
    row = json.loads((out / "results.jsonl").read_text())
    row["run_dir"] = str(elsewhere)
    (out / "results.jsonl").write_text(json.dumps(row) + "\n")
    write_tables(out)
    (step, *_), final = (lambda e: (e["steps"], e["final"]))(
        episodes_of((out / "report.html").read_text())[0])
    assert step["image"]["src"] == (elsewhere / "steps" / "0001.png").as_uri()
    assert final["src"].startswith("data:image/jpeg;base64,")  # kept inside the page

    moved = tmp_path / "moved"  # a bench folder moved whole: runs/ found next to results
    other = make_bench(tmp_path / "orig", "anthropic:fake-model", {"pa-01": 1.0})
    shutil.move(str(other), moved)
    write_tables(moved)
    (episode,) = episodes_of((moved / "report.html").read_text())
    assert episode["steps"][0]["image"]["src"] == "runs/pa-01__default/steps/0001.png"


def test_many_steps_do_not_grow_the_page_by_their_images(tmp_path: Path):
    out = make_bench(tmp_path / "bench", "anthropic:fake-model", {"ord-01": 0.8})
    write_tables(out)
    small = (out / "report.html").stat().st_size
    run_dir = out / "runs" / "ord-01__default"
    model_run(run_dir, "ord-01")
    lines = (run_dir / "steps.jsonl").read_text().splitlines() * 10
    (run_dir / "steps.jsonl").write_text("\n".join(lines) + "\n")
    write_tables(out)
    html = (out / "report.html").read_text()
    assert len(episodes_of(html)[0]["steps"]) == 40
    assert (out / "report.html").stat().st_size - small < 36 * 700  # text, not pixels


def test_a_final_screen_written_again_gets_its_own_thumbnail(tmp_path: Path):
    # the report is written after every job and keeps each run's thumbnail: a final
    # screen replaced (the job run again) must not show the earlier one
    from PIL import Image

    from episodes.trajectory import thumbnail

    final = tmp_path / "final.png"
    Image.new("RGB", (1280, 800), (200, 30, 30)).save(final)
    first = thumbnail(final)
    assert first is not None and first.startswith("data:image/jpeg;base64,")
    assert thumbnail(final) == first
    Image.new("RGB", (1280, 720), (30, 30, 200)).save(final)  # another size on disk too
    second = thumbnail(final)
    assert second is not None and second != first
    final.unlink()
    assert thumbnail(final) is None
