"""The Qt models, tested as models (no views)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from desktop_ehr.models.medrec import MedRecModel
from desktop_ehr.models.order_set import OrderSetModel
from desktop_ehr.models.pending import PendingOrdersModel
from desktop_ehr.models.records import RecordTableModel
from desktop_ehr.models.scale import ScaleRangesModel
from desktop_ehr.personas.vocabulary import POWERCHART
from desktop_ehr.services.chart import ChartRow
from desktop_ehr.services.medrec import load_med_rec
from desktop_ehr.services.order_sets import load_order_set
from desktop_ehr.services.orders import ScaleBand, draft_for
from desktop_ehr.services.signing import OrderAction

CHECKED, UNCHECKED = Qt.CheckState.Checked, Qt.CheckState.Unchecked


def test_pending_model_shows_problems_and_actions(qapp, hs_ctx, hs_ref):
    model = PendingOrdersModel(hs_ref)
    changes = []
    model.changed.connect(lambda: changes.append(1))
    admit = draft_for(hs_ref.orderables[300], hs_ctx.now(), hs_ref)
    model.add(admit)
    model.add(OrderAction("hold", 5001, "warfarin (COUMADIN) tablet", reason="procedure"))
    assert model.rowCount() == 2 and len(changes) == 2
    assert model.index(0, 2).data() == "Missing: Admit to (department)"
    assert model.index(1, 0).data() == "Hold: warfarin (COUMADIN) tablet"
    admit.department_id = 2
    model.replace(0, admit)
    assert model.index(0, 2).data() == "Ready to sign"
    assert "Inpatient - Medicine" in model.index(0, 1).data()
    assert [type(e).__name__ for e in (model.drafts() + model.actions())] == \
        ["OrderDraft", "OrderAction"]
    assert model.has_action_for(5001)
    model.remove(1)
    model.clear()
    assert model.rowCount() == 0


def test_order_set_defaults_exclusivity_and_overrides(qapp, hs_ctx, hs_ref):
    info = load_order_set(hs_ctx, 1)
    model = OrderSetModel(info, hs_ref, hs_ctx.now())
    defaults = {1, 11, 12, 16, 19, 20, 22, 25, 26}
    assert set(model.checked_ids()) == defaults
    model.set_checked(17, True)  # enoxaparin in the choose-one VTE section
    assert 16 not in model.checked_ids() and 17 in model.checked_ids()
    model.toggle(12)  # oral azithromycin off
    model.toggle(13)  # IV azithromycin on (not a choose-one section: both allowed)
    assert 12 not in model.checked_ids() and 13 in model.checked_ids()
    draft = model.draft_for_item(21)
    draft.occurrences = 2
    model.set_override(21, draft)
    model.set_checked(21, True)
    drafts = {d.order_set_item_id: d for d in model.drafts()}
    assert drafts[21].occurrences == 2 and drafts[21].order_set_id == 1
    assert drafts[1].department_id == 2
    assert (drafts[17].dose, drafts[17].route, drafts[17].frequency) == (40, "SC", "DAILY")
    line = model.line_for(21)
    assert "x2" in line.parent().child(line.row(), 1).text()


def test_med_rec_model_actions(qapp, pc_ctx, pc_ref):
    state = load_med_rec(pc_ctx, 1, 1, "admission", pc_ref)
    model = MedRecModel(state, POWERCHART.med_rec_labels("admission"))
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in
               range(model.columnCount())]
    assert headers[3:] == ["Continue", "Do Not\nContinue", "Modify", "Hold",
                           "After: Inpatient\nOrders"]
    cont = model.column_of("continue")
    assert model.choose(0, "continue")
    assert model.index(0, cont).data(Qt.ItemDataRole.CheckStateRole) == CHECKED
    assert model.index(0, model.column_of("after")).data() == "5 mg, PO, DAILY"
    assert model.choose(0, "continue")  # a second click clears it
    assert state.rows[0].action is None
    assert not model.choose(0, "modify")  # modify needs its dialog
    model.set_change(5, 200, "mg", None, None)
    assert state.rows[5].action == "modify"
    assert model.index(5, model.column_of("after")).data() == "200 mg, PO, Q8H_PRN"
    model.set_hold(7, "until surgery")
    assert model.index(7, model.column_of("after")).data() == "Held: until surgery"
    assert model.undecided() == [r.medication for i, r in enumerate(state.rows)
                                 if i not in (5, 7)]
    assert model.setData(model.index(1, model.column_of("discontinue")), CHECKED,
                         Qt.ItemDataRole.CheckStateRole)
    assert state.rows[1].action == "discontinue"


def test_scale_model_refuses_bad_cells(qapp):
    model = ScaleRangesModel([ScaleBand(150, 199, 2)])
    refused = []
    model.refused.connect(refused.append)
    assert not model.setData(model.index(0, 2), "two")
    assert refused and "not a number" in refused[-1]
    assert not model.setData(model.index(0, 0), "1.5")
    assert model.setData(model.index(0, 2), "3")
    assert model.bands() == [ScaleBand(150, 199, 3)]
    model.add_band(ScaleBand(None, 149, 0))
    assert model.index(0, 0).data() == "(below)"
    assert model.bands()[0].high == 149
    assert model.problems() == []


def test_record_model_columns_and_flags(qapp):
    model = RecordTableModel([("component", "Component"), ("value", "Value")],
                             [ChartRow(1, {"component": "WBC", "value": "15.8"}, flag="H")])
    assert model.headerData(1, Qt.Orientation.Horizontal) == "Value"
    assert model.index(0, 1).data() == "15.8"
    assert model.index(0, 1).data(Qt.ItemDataRole.ForegroundRole).color().name() == "#b00020"
