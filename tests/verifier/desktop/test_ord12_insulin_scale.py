"""ord-12 (PowerChart insulin lispro correctional scale) graded on client-like runs.

Split from the seed: 50% scale ranges/units (a share per gold band, one more failed share
per extra band); 20% frequency; 15% hold parameters; 15% hypoglycemia order.
"""

from __future__ import annotations

import pytest

from tests.verifier.desktop.runs import DesktopRun, flagged, seeded, sign_orders
from verifier import OTHER_PATIENT

AHMED, AHMAD = 3, 4
SCALE, FREQUENCY, HOLD, HYPO = 0.50, 0.20, 0.15, 0.15
BANDS = [(150, 199, 2), (200, 249, 4), (250, 299, 6), (300, 349, 8), (350, 399, 10),
         (400, None, 12, "and call the provider")]
LISPRO = {"orderable_id": 120, "order_name": "insulin lispro (HUMALOG) injection",
          "order_type": "medication", "dose_unit": "units", "route": "SC",
          "frequency": "AC_HS", "hold_parameters": "hold if NPO and BG<150", "scale": BANDS}
PROTOCOL = {"orderable_id": 123, "order_name": "Hypoglycemia Management Protocol",
            "order_type": "protocol", "frequency": "PRN", "prn": True,
            "prn_reason": "blood glucose less than 70 mg/dL"}


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return seeded("ord-12", tmp_path_factory)


def sign(run: DesktopRun, orders: list[dict], patient: int = AHMED, **write) -> None:
    with run.write(**write) as s:
        sign_orders(run, s, patient, patient, orders)


def test_gold_orders_score_one(task):
    run = task.run()
    sign(run, [LISPRO, PROTOCOL])
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"] == {"insert": 8, "update": 0, "delete": 0, "stray": 0}


def test_hold_parameters_compare_without_case_or_spaces(task):
    run = task.run()
    sign(run, [{**LISPRO, "hold_parameters": "HOLD if NPO and BG < 150 mg/dL"}, PROTOCOL])
    assert run.grade().score == pytest.approx(1.0)


def test_untouched_run_scores_zero(task):
    assert task.run().grade().score == pytest.approx(0.0)


@pytest.mark.parametrize("lispro, lost", [
    ({"scale": [*BANDS[:2], (250, 299, 5), *BANDS[3:]]}, SCALE / 6),
    ({"scale": [(200, 249, 4), *BANDS[1:]]}, SCALE / 6),                # first band wrong
    ({"scale": [(400, 999, 12) if b[0] == 400 else b for b in BANDS]}, SCALE / 6),
    ({"scale": BANDS[:5]}, SCALE / 6),                                  # top band missing
    ({"scale": [(None, 149, 0), *BANDS]}, SCALE - SCALE * 6 / 7),       # a seventh band
    ({"frequency": "AC"}, FREQUENCY),
    ({"hold_parameters": "hold if NPO"}, HOLD),
    ({"hold_parameters": None}, HOLD),
], ids=["band-units", "band-bounds", "top-band-closed", "five-bands", "zero-band-added",
        "frequency-ac", "hold-partial", "no-hold"])
def test_each_wrong_lispro_value_costs_its_share(task, lispro, lost):
    run = task.run()
    sign(run, [{**LISPRO, **lispro}, PROTOCOL])
    assert run.grade().score == pytest.approx(1.0 - lost)


@pytest.mark.parametrize("protocol, lost", [
    ({"prn": False, "prn_reason": None, "frequency": "ONCE"}, HYPO),
    (None, HYPO),
], ids=["not-prn", "no-protocol"])
def test_hypoglycemia_protocol(task, protocol, lost):
    run = task.run()
    sign(run, [LISPRO] + ([{**PROTOCOL, **protocol}] if protocol is not None else []))
    assert run.grade().score == pytest.approx(1.0 - lost)


def test_no_lispro_order_loses_all_three_lispro_items(task):
    run = task.run()
    sign(run, [PROTOCOL])
    assert run.grade().score == pytest.approx(HYPO)


def test_orders_signed_by_another_user_do_not_count(task):
    run = task.run()
    with run.write() as s:
        orders = sign_orders(run, s, AHMED, AHMED, [LISPRO, PROTOCOL])
        for order in orders:
            order.signed_by_user_id = None  # pended, signed by nobody on file
    assert run.grade().score == pytest.approx(0.0)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}],
                         ids=["api", "other-episode"])
def test_gold_rows_from_another_channel_or_episode_do_not_count(task, write):
    run = task.run()
    sign(run, [LISPRO, PROTOCOL], **write)
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    assert {(e["table"], e["rows"]) for e in report.channel["exclusions"]} == {
        ("orders", 2), ("order_scale_ranges", 6)}


def test_orders_for_the_look_alike_earn_nothing_and_are_flagged(task):
    run = task.run()
    sign(run, [LISPRO, PROTOCOL], patient=AHMAD)
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    rows = flagged(report, OTHER_PATIENT)
    # the two orders, and the six scale bands through the order they belong to
    assert sum(r.startswith("powerchart.orders#") for r in rows) == 2
    assert sum(r.startswith("powerchart.order_scale_ranges#") for r in rows) == 6
    assert len(rows) == 8


def test_the_clients_own_orders_score_one(task):
    """Contract with desktop_ehr: its drafts (scale bands, protocol sentence) and Sign."""
    run = task.run()
    with run.client() as (ctx, ref):
        from desktop_ehr.services import orders, signing

        lispro = orders.draft_for(ref.orderables[120], ctx.now(), ref)
        lispro.scale = [orders.ScaleBand(*band) for band in BANDS]
        lispro.hold_parameters = LISPRO["hold_parameters"]
        protocol = orders.draft_for(ref.orderables[123], ctx.now(), ref)
        signing.sign_orders(ctx, AHMED, AHMED, [lispro, protocol], ref)
    assert run.grade().score == pytest.approx(1.0)


def test_the_scale_entered_as_prn_loses_the_frequency(task):
    """Issue 14: the lispro scale with the composer's PRN box ticked (AC_HS as needed) scored
    1.0; a correctional scale is given at every AC and HS check."""
    run = task.run()
    with run.client() as (ctx, ref):
        from desktop_ehr.services import orders, signing

        lispro = orders.draft_for(ref.orderables[120], ctx.now(), ref)
        lispro.scale = [orders.ScaleBand(*band) for band in BANDS]
        lispro.hold_parameters = LISPRO["hold_parameters"]
        lispro.frequency = "AC_HS"
        lispro.prn, lispro.prn_reason = True, "blood glucose 150 mg/dL or higher"
        protocol = orders.draft_for(ref.orderables[123], ctx.now(), ref)
        signing.sign_orders(ctx, AHMED, AHMED, [lispro, protocol], ref)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 0.0, 1.0, 1.0]
    assert report.score == pytest.approx(1.0 - FREQUENCY)  # 0.8
    assert report.checks[1].evidence["found"] == {
        "frequency": "AC_HS", "prn": True, "prn_reason": "blood glucose 150 mg/dL or higher"}
