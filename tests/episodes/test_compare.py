"""``ehr-sandbox compare``: two synthetic bench folders, table and JSON, bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from episodes.cli import main
from episodes.compare import CompareError, compare
from tests.episodes.synthetic_bench import make_bench


@pytest.fixture
def benches(tmp_path: Path) -> tuple[Path, Path]:
    a = make_bench(tmp_path / "a", "gold", {"ord-01": 1.0, "pa-01": 0.5, "pa-02": 0.25})
    b = make_bench(tmp_path / "b", "anthropic:fake-model", {"ord-01": 0.6, "pa-01": 1.0})
    return a, b


def test_compare_pairs_tasks_and_tests_the_mean_difference(benches, capsys):
    a, b = benches
    result = compare(a, b)
    assert [(p["alias"], p["diff"]) for p in result.pairs] == [("ord-01", -0.4),
                                                               ("pa-01", 0.5)]
    assert result.only_a == [("R09.03.01.04-T02", "default")] and result.only_b == []
    test = result.test
    assert test.n == 2 and test.mean_diff == pytest.approx(0.05)
    assert test.exact and test.p_value == pytest.approx(1.0)  # 4 flips, each as extreme
    assert not test.significant

    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "ord-01" in out and "-0.400" in out and "+0.500" in out
    assert "mean B − A +0.050" in out and "not significant at 0.05" in out
    assert "only in A (1): R09.03.01.04-T02 default" in out

    assert main(["compare", str(a), str(b), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["test"]["significant"] is False and data["test"]["n"] == 2
    assert data["only_a"] == [{"task": "R09.03.01.04-T02", "variant": "default"}]
    assert data["a"]["agents"] == ["gold"] and data["b"]["mean_paired"] == 0.8


def test_a_failed_episode_is_listed_not_paired(tmp_path, capsys):
    a = make_bench(tmp_path / "a", "gold", {"ord-01": 0.0, "pa-01": 0.0, "pa-02": 0.0})
    b = make_bench(tmp_path / "b", "gold", {"ord-01": 1.0, "pa-01": 1.0, "pa-02": None})
    result = compare(a, b)
    assert [p["alias"] for p in result.ungraded] == ["pa-02"]
    assert result.ungraded[0]["status_b"] == "failed" and result.test.n == 2
    assert main(["compare", str(a), str(b)]) == 0
    assert "not paired" in capsys.readouterr().out


def test_a_clear_gain_over_many_tasks_is_significant(tmp_path):
    rows_a, rows_b = [], []
    for i in range(16):
        task = f"R09.03.01.02-T{i + 1:02d}"
        rows_a.append({"task": task, "alias": f"ord-{i + 1:02d}", "variant": "default",
                       "agent": "none", "score": 0.1, "status": "graded"})
        rows_b.append({**rows_a[-1], "agent": "gold", "score": 0.9 if i != 3 else 0.0})
    for name, rows in (("a", rows_a), ("b", rows_b)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.jsonl").write_text(
            "".join(json.dumps(r) + "\n" for r in rows))
    result = compare(tmp_path / "a", tmp_path / "b", seed=11)
    assert not result.test.exact and result.test.significant
    assert result.test.p_value < 0.001
    assert result.to_json() == compare(tmp_path / "a", tmp_path / "b", seed=11).to_json()


def test_bad_input_is_one_line_and_exit_2(benches, tmp_path, capsys):
    a, _b = benches
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "blank").mkdir()
    (tmp_path / "blank" / "results.jsonl").write_text("\n")
    mixed = tmp_path / "mixed"
    shutil.copytree(a, mixed)
    with open(mixed / "results.jsonl", "a") as fh:
        row = json.loads((a / "results.jsonl").read_text().splitlines()[0])
        fh.write(json.dumps({**row, "agent": "none"}) + "\n")
    other = make_bench(tmp_path / "other", "gold", {"pa-02": None})
    for argv, message in [([str(tmp_path / "nope"), str(a)], "is not a folder"),
                          ([str(empty), str(a)], "has no results.jsonl"),
                          ([str(tmp_path / "blank"), str(a)], "holds no results"),
                          ([str(mixed), str(a)], "for several agents"),
                          ([str(a), str(other)], "no task scored in both")]:
        assert main(["compare", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1 and "Traceback" not in err
    with pytest.raises(CompareError):
        compare(a, tmp_path / "nope")
