"""The bench's command line (no display: the run itself is ``make bench``)."""

from __future__ import annotations

import pytest

from pixel_stream.bench import BenchConfig, CpuMeter, parse_args


def test_only_typing_keeps_the_quick_config_and_the_peer():
    _args, cfg = parse_args(["--quick", "--only", "typing"])
    assert cfg.only == "typing"
    assert cfg.quick and cfg.novnc
    assert cfg.typing_window_s == BenchConfig.quick_config().typing_window_s


def test_default_runs_everything():
    _args, cfg = parse_args([])
    assert cfg.only is None and not cfg.quick


def test_unknown_only_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        parse_args(["--only", "everything"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err


def test_cpu_meter_keeps_the_cpu_seconds(monkeypatch):
    import pixel_stream.bench as bench

    readings = iter([1.0, 1.25])
    monkeypatch.setattr(bench, "group_cpu_seconds", lambda pgids: next(readings))
    meter = CpuMeter([1])
    meter.start()
    meter.stop()
    assert meter.cpu_s == pytest.approx(0.25)


def test_typing_that_did_not_arrive_says_what_the_app_has():
    from pixel_stream.bench import _delivered

    class Bed:
        def __init__(self, text):
            self.text = text

        def board(self):
            return {"text": self.text}

    assert _delivered(Bed("abc"), "abc", "novnc_") == {"novnc_typing_delivered": True}
    assert _delivered(Bed("abbc"), "abc", "novnc_", timeout=0.1) == {
        "novnc_typing_delivered": False, "novnc_typing_text_seen": "abbc"}


def _round(keys, seconds, cpu_s, nbytes, delivered=True, prefix="", **extra):
    done = {"keys": keys, "seconds": seconds, "cpu_s": cpu_s, "bytes": nbytes,
            f"{prefix}typing_delivered": delivered, **extra}
    if not delivered:
        done[f"{prefix}typing_text_seen"] = "the quick"
    return done


def test_typing_figures_are_totals_over_the_rounds():
    from pixel_stream.bench import summarize_typing

    rounds = [_round(90, 6.0, 0.18, 60_000, counts={"tiles": 90, "video_frames": 2}),
              _round(90, 3.0, 0.12, 30_000, counts={"tiles": 89, "video_frames": 1})]
    out = summarize_typing(rounds, "")
    # 0.30 CPU-s over 180 keys and 9 s (the rounds' own percentages are 3 and 4)
    assert out["typing_cpu_ms_per_key"] == pytest.approx(1.667, abs=0.001)
    assert out["typing_cpu_pct"] == pytest.approx(3.33, abs=0.01)
    assert out["typing_rounds_ms_per_key"] == [2.0, 1.333]
    assert out["typing_bytes_per_s"] == 10_000
    assert out["typing_tiles"] == 179 and out["typing_video_frames"] == 3
    assert out["typing_delivered"] is True and "typing_text_seen" not in out


def test_a_round_whose_text_did_not_arrive_makes_the_side_not_delivered():
    from pixel_stream.bench import summarize_typing

    rounds = [_round(90, 6.0, 0.1, 0, prefix="novnc_"),
              _round(90, 6.0, 0.1, 0, delivered=False, prefix="novnc_")]
    out = summarize_typing(rounds, "novnc_")
    assert out["novnc_typing_delivered"] is False
    assert out["novnc_typing_text_seen"] == "the quick"


def test_typing_rounds_alternate_which_side_goes_first(monkeypatch):
    import pixel_stream.bench as bench

    order = []

    def ours(bed, browser, cfg):
        order.append("ours")
        return _round(90, 6.0, 0.2, 0)

    def peer(bed, browser, cfg):
        order.append("peer")
        return _round(90, 6.0, 0.1, 0, prefix="novnc_")

    monkeypatch.setattr(bench, "ours_typing_round", ours)
    monkeypatch.setattr(bench, "novnc_typing_round", peer)
    monkeypatch.setattr(bench, "_clear_entry", lambda bed: None)
    cfg = BenchConfig(typing_rounds=4)
    results = {"typing_rounds": [_round(90, 6.0, 0.2, 0)],
               "novnc_typing_rounds": [_round(90, 6.0, 0.1, 0, prefix="novnc_")]}
    bench._typing_rounds(None, None, cfg, results, progress=lambda message: None)
    # the first round (ours, then the peer's) was measured before; then reversed each time
    assert order == ["peer", "ours", "ours", "peer", "peer", "ours"]
    assert len(results["typing_rounds_ms_per_key"]) == 4
    assert len(results["novnc_typing_rounds_ms_per_key"]) == 4
    assert results["typing_cpu_ms_per_key"] == pytest.approx(2.222, abs=0.001)
    assert "typing_rounds" not in results and "novnc_typing_rounds" not in results


def test_without_the_peer_only_our_rounds_run(monkeypatch):
    import pixel_stream.bench as bench

    monkeypatch.setattr(bench, "ours_typing_round", lambda *a: _round(90, 6.0, 0.2, 0))
    monkeypatch.setattr(bench, "novnc_typing_round",
                        lambda *a: pytest.fail("the peer was not asked for"))
    monkeypatch.setattr(bench, "_clear_entry", lambda bed: None)
    results = {"typing_rounds": [_round(90, 6.0, 0.2, 0)]}
    bench._typing_rounds(None, None, BenchConfig(novnc=False, typing_rounds=2), results,
                         progress=lambda message: None)
    assert len(results["typing_rounds_ms_per_key"]) == 2
    assert "novnc_typing_cpu_pct" not in results
