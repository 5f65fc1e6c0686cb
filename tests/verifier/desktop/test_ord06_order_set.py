"""ord-06 (Hyperspace CAP admission order set) graded on runs written like the client.

Split from the seed: 15% admission order (two equal parts); 45% antibiotic and VTE orders
(a third per order, four equal parts each); 25% labs (a third per lab, two equal parts
each); 15% no extra defaults.
"""

from __future__ import annotations

import pytest

from tests.verifier.desktop.runs import DesktopRun, flagged, seeded, sign_orders
from verifier import OTHER_PATIENT

WALTER, WALT = 1, 2  # patients (MRN E1006102 and the look-alike E1006120)
ADMISSION, DRUGS, LABS, NO_EXTRAS = 0.15, 0.45, 0.25, 0.15

ADMIT = {"orderable_id": 300, "order_name": "Admit to Inpatient", "order_type": "admit",
         "department_id": 2, "level_of_care": "Inpatient", "order_set_id": 1,
         "order_set_item_id": 1}
CEFTRIAXONE = {"orderable_id": 101, "order_name": "cefTRIAXone (ROCEPHIN) injection",
               "order_type": "medication", "dose": 1, "dose_unit": "g", "route": "IV",
               "frequency": "Q24H", "order_set_id": 1, "order_set_item_id": 11}
AZITHRO_IV = {"orderable_id": 102, "order_name": "azithromycin (ZITHROMAX) IV",
              "order_type": "medication", "dose": 500, "dose_unit": "mg", "route": "IV",
              "frequency": "Q24H", "order_set_id": 1, "order_set_item_id": 13}
AZITHRO_PO = {"orderable_id": 103, "order_name": "azithromycin (ZITHROMAX) tablet",
              "order_type": "medication", "dose": 500, "dose_unit": "mg", "route": "PO",
              "frequency": "Q24H", "order_set_id": 1, "order_set_item_id": 12}
ENOXAPARIN = {"orderable_id": 110, "order_name": "enoxaparin (LOVENOX) injection",
              "order_type": "medication", "dose": 40, "dose_unit": "mg", "route": "SC",
              "frequency": "DAILY", "order_set_id": 1, "order_set_item_id": 17}
HEPARIN = {"orderable_id": 111, "order_name": "heparin injection (subcutaneous)",
           "order_type": "medication", "dose": 5000, "dose_unit": "units", "route": "SC",
           "frequency": "Q8H", "order_set_id": 1, "order_set_item_id": 16}
CBC = {"orderable_id": 200, "order_name": "CBC with differential", "order_type": "lab",
       "specimen": "Blood", "order_set_id": 1, "order_set_item_id": 19}
BMP = {"orderable_id": 201, "order_name": "Basic metabolic panel", "order_type": "lab",
       "specimen": "Blood", "order_set_id": 1, "order_set_item_id": 20}
CULTURES = {"orderable_id": 203, "order_name": "Blood culture", "order_type": "lab",
            "specimen": "Blood", "priority": "stat", "occurrences": 2, "order_set_id": 1,
            "order_set_item_id": 21}


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    return seeded("ord-06", tmp_path_factory)


def gold(**replace) -> list[dict]:
    orders = {"admit": ADMIT, "ceftriaxone": CEFTRIAXONE, "azithromycin": AZITHRO_IV,
              "enoxaparin": ENOXAPARIN, "cbc": CBC, "bmp": BMP, "cultures": CULTURES}
    for key, value in replace.items():
        orders[key] = value
    return [o for o in orders.values() if o is not None]


def sign(run: DesktopRun, orders: list[dict], *, patient: int = WALTER, **write) -> None:
    with run.write(**write) as s:
        sign_orders(run, s, patient, patient, orders)  # encounter id = patient id here


def test_gold_order_set_scores_one(task):
    run = task.run()
    sign(run, gold())
    report = run.grade()
    assert report.score == pytest.approx(1.0)
    assert report.footprint["counts"] == {"insert": 7, "update": 0, "delete": 0, "stray": 0}


def test_blood_cultures_as_two_orders_score_one(task):
    run = task.run()
    one_set = {**CULTURES, "occurrences": 1}
    sign(run, gold(cultures=one_set) + [one_set])
    assert run.grade().score == pytest.approx(1.0)


def test_untouched_run_earns_only_no_extra_defaults(task):
    report = task.run().grade()
    assert report.score == pytest.approx(NO_EXTRAS)
    assert report.score < 0.5


@pytest.mark.parametrize("replace, lost", [
    ({"admit": {**ADMIT, "department_id": 4, "order_set_item_id": 3}}, ADMISSION / 2),
    ({"admit": {**ADMIT, "orderable_id": 301, "order_name": "Place in Observation",
                "level_of_care": "Observation", "order_set_item_id": 2}}, ADMISSION / 2),
    ({"ceftriaxone": {**CEFTRIAXONE, "dose": 2}}, DRUGS / 3 / 4),
    ({"enoxaparin": {**ENOXAPARIN, "route": "IV"}}, DRUGS / 3 / 4),
    ({"enoxaparin": {**ENOXAPARIN, "frequency": "Q12H"}}, DRUGS / 3 / 4),
    ({"azithromycin": None}, DRUGS / 3),
    ({"cultures": {**CULTURES, "occurrences": 1}}, LABS / 3 / 2),
    ({"bmp": None}, LABS / 3),
], ids=["admit-to-icu", "observation", "ceftriaxone-2g", "enoxaparin-iv", "enoxaparin-q12h",
        "no-azithromycin", "one-culture-set", "no-bmp"])
def test_each_wrong_value_costs_its_share(task, replace, lost):
    run = task.run()
    sign(run, gold(**replace))
    assert run.grade().score == pytest.approx(1.0 - lost)


def test_oral_azithromycin_default_loses_the_drug_and_the_extras_item(task):
    run = task.run()
    sign(run, gold(azithromycin=AZITHRO_PO))
    report = run.grade()
    assert [c.fraction for c in report.checks] == pytest.approx([1.0, 2 / 3, 1.0, 0.0])
    assert report.score == pytest.approx(1.0 - DRUGS / 3 - NO_EXTRAS)


@pytest.mark.parametrize("extra", [HEPARIN, {**CBC, "order_set_item_id": None}],
                         ids=["heparin-default-left-checked", "duplicate-cbc"])
def test_an_extra_order_loses_no_extra_defaults(task, extra):
    run = task.run()
    sign(run, gold() + [extra])
    assert run.grade().score == pytest.approx(1.0 - NO_EXTRAS)


def test_orders_signed_before_the_admission_are_not_linked(task):
    run = task.run()
    sign(run, [CBC, BMP, CULTURES])
    sign(run, [ADMIT, CEFTRIAXONE, AZITHRO_IV, ENOXAPARIN])
    assert run.grade().score == pytest.approx(1.0 - LABS / 2)


@pytest.mark.parametrize("write", [{"channel": "api"}, {"episode": "ep-other"}],
                         ids=["api", "other-episode"])
def test_gold_rows_from_another_channel_or_episode_do_not_count(task, write):
    run = task.run()
    sign(run, gold(), **write)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [0.0, 0.0, 0.0, 1.0]
    assert report.score == pytest.approx(NO_EXTRAS)
    assert [(e["table"], e["rows"]) for e in report.channel["exclusions"]] == [("orders", 7)]


def test_orders_on_the_look_alike_earn_nothing_and_are_flagged(task):
    run = task.run()
    sign(run, gold(), patient=WALT)
    report = run.grade()
    assert report.score == pytest.approx(0.0)
    other = flagged(report, OTHER_PATIENT)
    assert len(other) == 7 and all(r.startswith("hyperspace.orders#") for r in other)


def test_one_stray_order_on_the_look_alike_costs_no_extra_defaults(task):
    run = task.run()
    sign(run, gold())
    sign(run, [CBC], patient=WALT)
    report = run.grade()
    assert report.score == pytest.approx(1.0 - NO_EXTRAS)
    assert len(flagged(report, OTHER_PATIENT)) == 1


def test_the_clients_own_order_set_signing_scores_one(task):
    """Contract with desktop_ehr: its order-set drafts and Sign grade as the rows above."""
    run = task.run()
    with run.client() as (ctx, ref):
        from desktop_ehr.services import order_sets, orders, signing

        info = order_sets.load_order_set(ctx, 1)
        drafts = [orders.draft_from_set_item(info.item(i), ref.orderables[info.item(i)
                                                                            .orderable_id],
                                             1, ctx.now(), ref)
                  for i in (1, 11, 13, 17, 19, 20, 21)]
        signing.sign_orders(ctx, WALTER, WALTER, drafts, ref)
    assert run.grade().score == pytest.approx(1.0)


# -- issue 14: mistakes the order set and composer allow, which scored 1.0 -------------------
GOLD_LINES = (1, 11, 13, 17, 19, 20, 21)  # admit, ceftriaxone, azithromycin IV, enoxaparin,
                                          # CBC, BMP, blood cultures x2


def sign_through_the_client(run: DesktopRun, edit) -> None:  # noqa: ANN001 - a callable
    """The order set's gold lines as the client drafts them, edited as the composer would
    (``edit(line, draft)``), then the client's own Sign."""
    with run.client() as (ctx, ref):
        from desktop_ehr.services import order_sets, orders, signing

        info = order_sets.load_order_set(ctx, 1)
        drafts = []
        for line in GOLD_LINES:
            item = info.item(line)
            draft = orders.draft_from_set_item(item, ref.orderables[item.orderable_id], 1,
                                               ctx.now(), ref)
            edit(line, draft)
            drafts.append(draft)
        signing.sign_orders(ctx, WALTER, WALTER, drafts, ref)


@pytest.mark.parametrize("line, label", [(11, "ceftriaxone"), (13, "azithromycin"),
                                         (17, "enoxaparin")])
def test_a_drug_entered_as_prn_loses_its_frequency_part(task, line, label):
    """The composer's 'PRN (as needed)' box ticked on a scheduled drug: q24h/daily as needed
    is not q24h/daily."""
    run = task.run()

    def prn(item_line, draft):  # noqa: ANN001, ANN202
        if item_line == line:
            draft.prn, draft.prn_reason = True, "fever"

    sign_through_the_client(run, prn)
    report = run.grade()
    assert [c.fraction for c in report.checks] == pytest.approx([1.0, 11 / 12, 1.0, 1.0])
    assert report.score == pytest.approx(1.0 - DRUGS / 12)  # 0.9625
    drug = next(p for p in report.checks[1].evidence["parts"] if p["part"].startswith(label))
    assert [p["part"] for p in drug["parts"] if p["fraction"] == 0.0] == ["frequency"]


def test_all_three_drugs_as_prn_lose_a_quarter_of_the_drugs(task):
    run = task.run()

    def prn(line, draft):  # noqa: ANN001, ANN202
        if line in (11, 13, 17):
            draft.prn, draft.prn_reason = True, "fever"

    sign_through_the_client(run, prn)
    assert run.grade().score == pytest.approx(1.0 - DRUGS / 4)  # 0.8875


@pytest.mark.parametrize("line", [19, 20], ids=["CBC", "BMP"])
def test_a_lab_with_occurrences_2_is_an_extra_order(task, line):
    """Occurrences 2 on CBC or BMP orders it twice: not 'exactly the specified orders'."""
    run = task.run()

    def twice(item_line, draft):  # noqa: ANN001, ANN202
        if item_line == line:
            draft.occurrences = 2

    sign_through_the_client(run, twice)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [1.0, 1.0, 1.0, 0.0]
    assert report.score == pytest.approx(1.0 - NO_EXTRAS)  # 0.85
    assert any("occurrences included" in p for p in report.checks[3].evidence["problems"])


def test_admit_to_inpatient_with_level_of_care_observation(task):
    """'Admit to Inpatient' with the composer's Level of care set to Observation."""
    run = task.run()

    def observation(line, draft):  # noqa: ANN001, ANN202
        if line == 1:
            draft.level_of_care = "Observation"

    sign_through_the_client(run, observation)
    report = run.grade()
    assert [c.fraction for c in report.checks] == [0.5, 1.0, 1.0, 1.0]
    assert report.score == pytest.approx(1.0 - ADMISSION / 2)  # 0.925
