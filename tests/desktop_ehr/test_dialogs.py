"""The main dialogs driven like a user would (offscreen): composer validation, order sets,
sign, med rec actions, addendum, drag-to-file; cancel writes nothing."""

from __future__ import annotations

from datetime import datetime

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication
from sqlalchemy import select

from desktop_ehr.models.order_set import OrderSetModel
from desktop_ehr.personas.vocabulary import HYPERSPACE, POWERCHART
from desktop_ehr.services.chart import patient_summary
from desktop_ehr.services.order_sets import load_order_set
from desktop_ehr.services.orders import draft_for
from desktop_ehr.widgets.common import Prompt
from desktop_ehr.widgets.documents_page import FileDocumentDialog
from desktop_ehr.widgets.medrec_page import HoldDialog, ModifyDialog
from desktop_ehr.widgets.notes_page import AddendumDialog
from desktop_ehr.widgets.order_composer import OrderComposer
from desktop_ehr.widgets.order_set_dialog import OrderSetDialog
from tests.desktop_ehr.conftest import audit_rows, table_counts

FRANK = 7


@pytest.fixture
def prompts(monkeypatch):
    """Answer prompts by name; records every prompt shown."""
    shown: list[tuple[str, str]] = []
    answers: dict[str, str] = {}

    def ask(cls, parent, name, title, text, buttons, **kwargs):
        shown.append((name, kwargs.get("details") or text))
        return answers.get(name, "ok")

    monkeypatch.setattr(Prompt, "ask", classmethod(ask))
    return shown, answers


def composer(qtbot, ctx, ref, orderable_id, patient_id=FRANK, vocab=HYPERSPACE):
    dialog = OrderComposer(ref.orderables[orderable_id],
                           draft_for(ref.orderables[orderable_id], ctx.now(), ref), ref,
                           patient_summary(ctx, patient_id), ctx.today, vocab)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_composer_refuses_bad_dose_in_place(qtbot, hs_ctx, hs_ref):
    dialog = composer(qtbot, hs_ctx, hs_ref, 110)
    dialog.dose.setText("forty")
    dialog.accept()
    assert dialog.result_draft is None and dialog.isVisible()
    assert "'forty' is not a number" in dialog.message.text()
    assert dialog.message.isVisibleTo(dialog)
    assert dialog.dose.property("invalid") is True
    dialog.dose.setText("40")
    dialog.frequency.setEditText("Q13H")
    dialog.accept()
    assert "Frequency 'Q13H' is not in the list" in dialog.message.text()
    dialog.frequency.setEditText("q12h")
    dialog.start.date_edit.setText("10/32/2026")
    dialog.accept()
    assert "not a calendar date" in dialog.message.text()
    dialog.start.date_edit.setText("t+4")
    dialog.start.time_edit.setText("0900")
    dialog.stop.date_edit.setText("10/22/2026")
    dialog.stop.time_edit.setText("21:00")
    dialog.accept()
    assert "Stop (10/22/2026 21:00) must be after start" in dialog.message.text()
    dialog.stop.date_edit.setText("10/25/2026")
    dialog.accept()
    assert not dialog.isVisible()
    draft = dialog.result_draft
    assert (draft.dose, draft.frequency, draft.start_at, draft.stop_at) == (
        40, "Q12H", datetime(2026, 10, 23, 9, 0), datetime(2026, 10, 25, 21, 0))


def test_weight_helper_uses_the_charted_weight(qtbot, hs_ctx, hs_ref):
    dialog = composer(qtbot, hs_ctx, hs_ref, 110)
    assert dialog.findChild(type(dialog.message), "composer.weightHelper").text() == \
        "Dosing weight 92 kg (10/14/2026) · 1 mg/kg = 92 mg"
    qtbot.mouseClick(dialog.findChild(type(dialog.accept_button), "composer.sentence.3"),
                     Qt.MouseButton.LeftButton)  # '1 mg/kg, subcutaneous, every 12 hours'
    assert dialog.per_kg.text() == "1" and dialog.dose.text() == ""
    qtbot.mouseClick(dialog.findChild(type(dialog.accept_button), "composer.weightCalc"),
                     Qt.MouseButton.LeftButton)
    assert dialog.dose.text() == "92"
    qtbot.keyClick(dialog.dose, Qt.Key.Key_Return)  # Enter accepts
    draft = dialog.result_draft
    assert (draft.dose, draft.dose_per_kg, draft.dosing_weight_kg, draft.frequency) == \
        (92, 1, 92, "Q12H")


def test_prn_orders_require_a_reason_and_esc_cancels(qtbot, hs_ctx, hs_ref):
    dialog = composer(qtbot, hs_ctx, hs_ref, 146)  # ibuprofen q8h PRN
    assert dialog.prn.isChecked()
    dialog.accept()
    assert "Required: PRN reason." in dialog.message.text()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.result_draft is None and not dialog.isVisible()


def test_scale_editor_refuses_overlaps_in_place(qtbot, pc_ctx, pc_ref):
    dialog = composer(qtbot, pc_ctx, pc_ref, 120, patient_id=3, vocab=POWERCHART)
    scale = dialog.scale
    for low, high, units in (("150", "199", "2"), ("200", "249", "4")):
        scale.low.setText(low)
        scale.high.setText(high)
        scale.units.setText(units)
        qtbot.keyClick(scale.units, Qt.Key.Key_Return)  # Enter adds the range
    assert dialog.isVisible() and len(scale.bands()) == 2
    scale.low.setText("240")
    scale.high.setText("299")
    scale.units.setText("6")
    assert not scale.add_from_entry()
    assert "overlap" in scale.error.text() and len(scale.bands()) == 2
    scale.low.setText("260")
    scale.add_from_entry()
    dialog.hold.setText("hold if NPO and BG<150")
    dialog.accept()
    assert "gap: 250-259" in dialog.message.text()
    scale.view.selectRow(2)
    scale.remove_selected()
    dialog.accept()
    assert dialog.result_draft is not None
    assert [b.range_text for b in dialog.result_draft.scale] == ["150-199", "200-249"]
    assert dialog.result_draft.frequency == "AC_HS"


def test_order_set_dialog_click_toggles_and_cancel_keeps_nothing(qtbot, hs_ctx, hs_ref):
    model = OrderSetModel(load_order_set(hs_ctx, 1), hs_ref, hs_ctx.now())
    dialog = OrderSetDialog(model, lambda d: None, HYPERSPACE)
    qtbot.addWidget(dialog)
    dialog.show()
    line = model.line_for(25)  # sputum culture, pre-checked
    rect = dialog.tree.visualRect(line.index())
    qtbot.mouseClick(dialog.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert 25 not in model.checked_ids()
    qtbot.keyClick(dialog.tree, Qt.Key.Key_Space)
    assert 25 in model.checked_ids()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.result_drafts is None


def test_order_set_to_sign_writes_only_selected_orders(qtbot, hs_window, prompts,
                                                       monkeypatch):
    """ord-06 in miniature: uncheck wrong defaults, check the right lines, sign."""
    shell = hs_window.shell
    chart = shell.open_patient(1)

    def choose(cls, parent, model, edit_fn, vocab):
        for item_id in (12, 22, 25, 26):
            model.set_checked(item_id, False)
        for item_id in (13, 17, 21):
            model.set_checked(item_id, True)
        cultures = model.draft_for_item(21)
        assert cultures.occurrences == 2
        return model.drafts()

    monkeypatch.setattr(OrderSetDialog, "choose", classmethod(choose))
    assert chart.open_order_set(1)
    assert len(chart.pending) == 7
    assert chart.sign()
    m = chart.ctx.models
    with chart.ctx.reader() as s:
        new = s.scalars(select(m.Order).where(m.Order.patient_id == 1,
                                              m.Order.id > 1021)).all()
    assert sorted(o.orderable_id for o in new) == [101, 102, 110, 200, 201, 203, 300]
    admit = next(o for o in new if o.orderable_id == 300)
    assert all(o.admission_order_id == admit.id for o in new if o is not admit)
    assert all(o.order_set_id == 1 for o in new)
    assert [n for n, _ in prompts[0]] == []
    assert table_counts(audit_rows(hs_window.ctx.run_dir, "hyperspace")) == \
        {("insert", "orders"): 7}


def test_sign_with_missing_fields_is_refused_naming_them(qtbot, hs_window, prompts,
                                                         monkeypatch):
    shown, _answers = prompts
    chart = hs_window.shell.open_patient(1)
    admit = draft_for(chart.ref.orderables[300], chart.ctx.now(), chart.ref)
    chart.pending.add(admit)
    assert not chart.sign()
    assert shown == [("signRefused", "Admit to Inpatient: missing Admit to (department)")]
    assert len(chart.pending) == 1
    assert audit_rows(hs_window.ctx.run_dir, "hyperspace", channel=None) == []


def test_duplicate_warning_can_cancel_the_order(qtbot, hs_window, prompts, monkeypatch):
    shown, answers = prompts
    chart = hs_window.shell.open_patient(FRANK)
    monkeypatch.setattr(OrderComposer, "compose",
                        classmethod(lambda cls, parent, orderable, draft, *a: draft))
    answers["duplicateOrder"] = "cancel"
    assert not chart.new_order(112)  # warfarin: already active
    assert shown[0][0] == "duplicateOrder" and "same order" in shown[0][1]
    assert len(chart.pending) == 0
    answers["duplicateOrder"] = "override"
    assert chart.new_order(112)
    assert len(chart.pending) == 1


def test_composer_cancel_adds_nothing(qtbot, hs_window, monkeypatch):
    chart = hs_window.shell.open_patient(1)
    monkeypatch.setattr(OrderComposer, "compose", classmethod(lambda cls, *a: None))
    assert not chart.new_order(101)
    assert len(chart.pending) == 0


def test_med_rec_page_clicks_and_dialogs(qtbot, pc_window, monkeypatch):
    shell = pc_window.shell
    shell.open_patient(1)
    view = shell.charts[1][1]
    view.select("Medication Reconciliation")
    page = view.pages.currentWidget()
    model = page.model
    monkeypatch.setattr(ModifyDialog, "ask", classmethod(
        lambda cls, parent, row, ref, title: (row.dose / 2, row.dose_unit, None, None)))
    monkeypatch.setattr(HoldDialog, "ask", classmethod(lambda cls, parent, row:
                                                       "until surgery"))
    plan = ["continue", "continue", "continue", "discontinue", "discontinue", "modify",
            "modify", "hold"]
    for row, action in enumerate(plan):
        rect = page.table.visualRect(model.index(row, model.column_of(action)))
        qtbot.mouseClick(page.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert [r.action for r in page.state.rows] == plan
    assert page.sign()
    assert page.state.complete and not page.sign_button.isEnabled()
    counts = table_counts(audit_rows(pc_window.ctx.run_dir, "powerchart"))
    assert counts[("insert", "orders")] == 5 and counts[("insert", "med_rec_items")] == 8


def test_med_rec_sign_refused_in_place(qtbot, pc_window):
    shell = pc_window.shell
    shell.open_patient(1)
    view = shell.charts[1][1]
    view.select("Medication Reconciliation")
    page = view.pages.currentWidget()
    page.model.choose(0, "continue")
    assert not page.sign()
    assert "Choose an action for 7 medications" in page.error.text()
    assert audit_rows(pc_window.ctx.run_dir, "powerchart", channel=None) == []


def test_addendum_dialog(qtbot, hs_ctx, hs_run):
    dialog = AddendumDialog(hs_ctx, 5001, "Orthopedics Follow-up", "text", "Addendum")
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.text.setPlainText("Correction: RIGHT knee.")
    dialog._sign()
    assert "Reason for addendum is required." in dialog.error.text()
    assert audit_rows(hs_run, "hyperspace", channel=None) == []
    dialog.reason.setText("Laterality documented in error")
    dialog._sign()
    assert dialog.result_id is not None and not dialog.isVisible()
    assert table_counts(audit_rows(hs_run, "hyperspace")) == {("insert", "note_addenda"): 1}


def test_signed_note_edit_is_refused(qtbot, hs_window, prompts):
    shown, _ = prompts
    hs_window.shell.open_patient(5)
    workspace = hs_window.shell.charts[5][1]
    workspace.activities.select("Notes")
    page = workspace.activities.pages.currentWidget()
    page.table.selectRow(0)
    assert page.addendum_button.isEnabled()
    page._edit()
    assert shown[0][0] == "signedNoteLocked"


def _mouse(widget, kind, global_pos: QPoint, buttons):
    local = widget.mapFromGlobal(global_pos)
    event = QMouseEvent(kind, QPointF(local), QPointF(global_pos), Qt.MouseButton.LeftButton,
                        buttons, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)


def test_drag_a_scan_onto_the_chart_files_it(qtbot, pc_window, monkeypatch):
    shell = pc_window.shell
    shell.open_patient(5)
    view = shell.charts[5][1]
    view.select("Documentation")
    page = view.documents
    qtbot.waitUntil(lambda: page.inbox_model.rowCount() == 1)
    chosen = {}

    def file(cls, parent, chart, document_id):
        dialog = FileDocumentDialog(chart, document_id, parent)
        dialog.type.setCurrentIndex(dialog.type.findData("Advance Directive"))
        chosen["patient"] = dialog.findChild(type(dialog.error), "fileDocument.patient").text()
        chosen["ghosts shown"] = [g for g in parent.window().findChildren(
            type(dialog.error), "documents.dragGhost") if g.isVisible()]
        dialog.accept()
        return dialog.filed

    monkeypatch.setattr(FileDocumentDialog, "file", classmethod(file))
    viewport = page.inbox.viewport()
    start = viewport.mapToGlobal(page.inbox.visualRect(page.inbox_model.index(0, 0)).center())
    target = page.drop_zone.mapToGlobal(page.drop_zone.rect().center())
    pressed = Qt.MouseButton.LeftButton
    _mouse(viewport, QEvent.Type.MouseButtonPress, start, pressed)
    for step in range(1, 6):
        _mouse(viewport, QEvent.Type.MouseMove, start + (target - start) * step / 5, pressed)
    assert page.inbox._ghost is not None and page.inbox._ghost.isVisible()
    _mouse(viewport, QEvent.Type.MouseButtonRelease, target, Qt.MouseButton.NoButton)
    assert chosen["patient"].startswith("Zztest, Helen   MRN 7004639")
    assert chosen["ghosts shown"] == []  # the dragged row's label is gone once it is dropped
    qtbot.waitUntil(lambda: page.filed_model.rowCount() == 1)
    assert page.inbox_model.rowCount() == 0
    assert table_counts(audit_rows(pc_window.ctx.run_dir, "powerchart")) == \
        {("update", "documents"): 1}


def test_dropping_outside_the_chart_does_nothing(qtbot, pc_window, monkeypatch):
    shell = pc_window.shell
    shell.open_patient(5)
    view = shell.charts[5][1]
    view.select("Documentation")
    page = view.documents
    calls = []
    monkeypatch.setattr(FileDocumentDialog, "file",
                        classmethod(lambda cls, *a: calls.append(a) or False))
    viewport = page.inbox.viewport()
    start = viewport.mapToGlobal(page.inbox.visualRect(page.inbox_model.index(0, 0)).center())
    outside = page.viewer.mapToGlobal(page.viewer.rect().center())
    _mouse(viewport, QEvent.Type.MouseButtonPress, start, Qt.MouseButton.LeftButton)
    _mouse(viewport, QEvent.Type.MouseMove, outside, Qt.MouseButton.LeftButton)
    _mouse(viewport, QEvent.Type.MouseButtonRelease, outside, Qt.MouseButton.NoButton)
    assert calls == []
    assert audit_rows(pc_window.ctx.run_dir, "powerchart", channel=None) == []


def test_file_dialog_cancel_writes_nothing(qtbot, pc_window):
    shell = pc_window.shell
    chart = shell.open_patient(5)
    dialog = FileDocumentDialog(chart, 5001)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.accept()  # no type chosen: refused in place
    assert "Choose a document type." in dialog.error.text()
    dialog.reject()
    assert audit_rows(pc_window.ctx.run_dir, "powerchart", channel=None) == []


def test_reset_cancels_an_open_dialog_and_returns_to_login(qtbot, hs_window):
    chart = hs_window.shell.open_patient(1)
    chart.pending.add(draft_for(chart.ref.orderables[101], chart.ctx.now(), chart.ref))
    done = []
    QTimer.singleShot(50, lambda: hs_window.reset_when_idle(lambda: done.append(True)))
    assert not chart.new_order(200)  # the composer is open until the reset cancels it
    qtbot.waitUntil(lambda: bool(done))
    assert hs_window.screen_name == "login" and hs_window.ctx.user is None
    assert QApplication.activeModalWidget() is None
    assert audit_rows(hs_window.ctx.run_dir, "hyperspace", channel=None) == []


def test_f9_signs_the_pending_orders_on_screen(qtbot, hs_window, prompts):
    chart = hs_window.shell.open_patient(1)
    workspace = hs_window.shell.charts[1][1]
    workspace.activities.select("Orders")
    chart.pending.add(draft_for(chart.ref.orderables[101], chart.ctx.now(), chart.ref))
    hs_window.activateWindow()
    workspace.orders.table.setFocus()
    qtbot.keyClick(workspace.orders.table, Qt.Key.Key_F9)
    qtbot.waitUntil(lambda: len(chart.pending) == 0)
    assert table_counts(audit_rows(hs_window.ctx.run_dir, "hyperspace")) == \
        {("insert", "orders"): 1}


def test_enter_in_the_frequency_box_accepts_without_adding_entries(qtbot, hs_ctx, hs_ref):
    dialog = composer(qtbot, hs_ctx, hs_ref, 101)
    count = dialog.frequency.count()
    dialog.frequency.setEditText("Q24H")
    dialog.frequency.lineEdit().setFocus()
    qtbot.keyClick(dialog.frequency.lineEdit(), Qt.Key.Key_Return)
    assert dialog.frequency.count() == count
    assert dialog.result_draft is not None and dialog.result_draft.frequency == "Q24H"


def test_order_search_by_keyboard(qtbot, hs_ctx, hs_ref):
    from desktop_ehr.services.order_sets import search_order_sets
    from desktop_ehr.widgets.order_search import OrderSearchDialog

    dialog = OrderSearchDialog(hs_ref, lambda t: search_order_sets(hs_ctx, t), hs_ctx.now(),
                               HYPERSPACE)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClicks(dialog.query, "rocephin")
    assert [r[1][0] for r in dialog.orders_model.rows] == ["cefTRIAXone (ROCEPHIN) injection"]
    qtbot.keyClick(dialog.query, Qt.Key.Key_Return)  # to the first result
    assert dialog.orders.hasFocus() or dialog.orders.currentIndex().row() == 0
    qtbot.keyClick(dialog.orders, Qt.Key.Key_Return)  # choose it
    assert dialog.choice is not None and (dialog.choice.kind, dialog.choice.id) == \
        ("orderable", 101)


def test_order_search_lists_order_sets(qtbot, hs_ctx, hs_ref):
    from desktop_ehr.services.order_sets import search_order_sets
    from desktop_ehr.widgets.order_search import OrderSearchDialog

    dialog = OrderSearchDialog(hs_ref, lambda t: search_order_sets(hs_ctx, t), hs_ctx.now(),
                               HYPERSPACE, "pneumonia")
    qtbot.addWidget(dialog)
    assert [r[1][0] for r in dialog.sets_model.rows] == \
        ["Community-Acquired Pneumonia Admission"]
    dialog.sets.selectRow(0)
    dialog._choose_selected()
    assert (dialog.choice.kind, dialog.choice.id) == ("order_set", 1)


def test_place_new_order_box_opens_the_search(qtbot, hs_window, monkeypatch):
    from desktop_ehr.widgets.order_search import OrderSearchDialog

    seen = []
    monkeypatch.setattr(OrderSearchDialog, "search", classmethod(
        lambda cls, parent, ref, sets_fn, now, vocab, initial="": seen.append(initial)))
    hs_window.shell.open_patient(1)
    workspace = hs_window.shell.charts[1][1]
    workspace.activities.select("Orders")
    qtbot.keyClicks(workspace.orders.search, "cbc")
    qtbot.keyClick(workspace.orders.search, Qt.Key.Key_Return)
    assert seen == ["cbc"]


def test_closing_a_chart_with_unsigned_orders_asks(qtbot, hs_window, prompts):
    shown, answers = prompts
    shell = hs_window.shell
    chart = shell.open_patient(1)
    chart.pending.add(draft_for(chart.ref.orderables[101], chart.ctx.now(), chart.ref))
    answers["unsignedOrders"] = "cancel"
    assert not shell.close_patient(1)
    assert 1 in shell.charts
    answers["unsignedOrders"] = "discard"
    assert shell.close_patient(1)
    assert 1 not in shell.charts
    assert [n for n, _ in shown] == ["unsignedOrders", "unsignedOrders"]
    assert audit_rows(hs_window.ctx.run_dir, "hyperspace", channel=None) == []


def test_reset_reads_a_store_restored_in_place(qtbot, hs_window):
    from desktop_ehr.services import chart_lists
    from sandbox.seeding import restore
    from tests.desktop_ehr.conftest import login

    chart = hs_window.shell.open_patient(1)
    chart.pending.add(draft_for(chart.ref.orderables[101], chart.ctx.now(), chart.ref))
    assert chart.sign()
    before = len(chart_lists.orders(hs_window.ctx, 1))
    restore(hs_window.ctx.run_dir)
    hs_window.reset()
    login(hs_window, "hyperspace")
    assert len(chart_lists.orders(hs_window.ctx, 1)) == before - 1
    assert hs_window.ctx.store.verify_audit().ok
