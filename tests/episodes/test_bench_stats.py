"""Bootstrap intervals, the paired sign-flip test and group statistics, with known answers."""

from __future__ import annotations

import pytest

from episodes.bench_stats import bootstrap_ci, group_stats, paired_test


def test_bootstrap_interval_of_a_mean():
    assert bootstrap_ci([]) is None
    one = bootstrap_ci([0.7])
    assert (one.mean, one.low, one.high, one.n) == (0.7, 0.7, 0.7, 1)
    same = bootstrap_ci([0.5] * 8)
    assert (same.low, same.high) == (0.5, 0.5)
    # 50 successes in 100: the normal approximation gives 0.5 ± 1.96 × 0.05
    half = bootstrap_ci([1.0] * 50 + [0.0] * 50, seed=7)
    assert half.mean == 0.5
    assert half.low == pytest.approx(0.402, abs=0.011)
    assert half.high == pytest.approx(0.598, abs=0.011)
    # fixed seed: the same numbers every time; another seed: (slightly) other numbers
    values = [0.1, 0.9, 0.4, 0.75, 1.0, 0.0, 0.33]
    assert bootstrap_ci(values, seed=3) == bootstrap_ci(values, seed=3)
    assert bootstrap_ci(values, seed=3).to_json() != bootstrap_ci(values, seed=4).to_json()
    low, high = bootstrap_ci(values).low, bootstrap_ci(values).high
    assert 0.0 <= low < sum(values) / len(values) < high <= 1.0


def test_paired_test_exact_sign_flips():
    # every task gains 1.0: only the all-plus and all-minus flips are as extreme
    five = paired_test([0.0] * 5, [1.0] * 5)
    assert five.exact and five.p_value == pytest.approx(2 / 32) and not five.significant
    six = paired_test([0.0] * 6, [1.0] * 6)
    assert six.p_value == pytest.approx(2 / 64) and six.significant
    assert (six.mean_diff, six.low, six.high, six.n) == (1.0, 1.0, 1.0, 6)
    # differences 1, 1, 1, -1: |mean| >= 0.5 for 10 of the 16 sign patterns
    mixed = paired_test([0, 0, 0, 1], [1, 1, 1, 0])
    assert mixed.mean_diff == 0.5 and mixed.p_value == pytest.approx(10 / 16)
    nothing = paired_test([0.2, 0.4], [0.2, 0.4])
    assert nothing.p_value == 1.0 and not nothing.significant
    assert paired_test([], []) is None
    with pytest.raises(ValueError, match="differ in length"):
        paired_test([1.0], [1.0, 0.0])


def test_paired_test_sampled_sign_flips_for_many_tasks():
    a = [0.0] * 20
    sure = paired_test(a, [1.0] * 20, seed=1)
    assert not sure.exact
    assert sure.p_value == pytest.approx(1 / 10_001)  # no flip but the observed one
    assert sure.to_json()["significant"] is True
    noisy = paired_test(a, [0.1, -0.1] * 10, seed=1)
    assert noisy.mean_diff == pytest.approx(0.0) and noisy.p_value == 1.0
    assert paired_test(a, [0.3] * 10 + [0.0] * 10, seed=5) == \
        paired_test(a, [0.3] * 10 + [0.0] * 10, seed=5)


def test_group_stats_count_a_row_in_each_of_its_groups():
    rows = [{"task": "a", "score": 1.0, "systems": ["ehr", "acme"]},
            {"task": "b", "score": 0.5, "systems": ["ehr"]},
            {"task": "c", "score": None, "systems": ["acme"]}]
    stats = {s.group: s for s in group_stats(rows, "system", lambda r: r["systems"])}
    assert list(stats) == ["acme", "ehr"]
    acme, ehr = stats["acme"], stats["ehr"]
    assert (acme.episodes, acme.graded, acme.ungraded) == (2, 1, 1)
    assert acme.success.mean == 0.5 and acme.score.mean == 1.0  # the failed one is no success
    assert ehr.score.mean == 0.75 and ehr.success.mean == 0.5
    assert [s.group for s in group_stats([{"d": 10}, {"d": 2}, {"d": 1}], "difficulty",
                                         lambda r: [r["d"]])] == ["1", "2", "10"]
    assert group_stats(rows, "x", lambda r: [])[:1] == []
