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
