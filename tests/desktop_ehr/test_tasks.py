"""The seven licensed-client tasks solved in the client (real widgets, real dialogs filled
as a user would), on each task's own seed, graded by its verify.py when it has one: the
client can do what every task asks, and doing nothing scores low.

These are not the pixel-stream gold runs (the task folders' gold.py); they prove the
client's writes are what the verifiers read.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication
from sqlalchemy import select

from desktop_ehr.widgets.documents_page import FileDocumentDialog
from desktop_ehr.widgets.medrec_page import HoldDialog, ModifyDialog
from desktop_ehr.widgets.notes_page import AddendumDialog
from desktop_ehr.widgets.order_actions import OrderActionDialog
from desktop_ehr.widgets.order_set_dialog import OrderSetDialog
from tests.desktop_ehr import taskdriver as td


def need(alias: str, system: str) -> None:
    assert td.has_seed(alias, system), f"{alias} has no {system} seed"


def maybe_grade(alias: str, run_dir, minimum: float = 1.0, maximum: float = 1.0) -> None:
    """Grade with the task's verify.py (every desktop task has one)."""
    assert td.has_verifier(alias), f"{alias} has no verify.py"
    score = td.grade(alias, run_dir)
    assert minimum <= score <= maximum, (score, str(run_dir))


# -- ord-06: CAP admission order set ------------------------------------------------------
def solve_ord06(qtbot, monkeypatch, run_dir, *, uncheck_defaults: bool = True):
    window = td.open_window(qtbot, "hyperspace", run_dir)
    td.answer_prompts(monkeypatch, {"duplicateOrder": "override"})
    pid = td.patient_id(window, "E1006102")
    chart = window.shell.open_patient(pid)
    workspace = window.shell.charts[pid][1]
    workspace.activities.select("Orders")

    def choose(cls, parent, model, edit_fn, vocab):
        dialog = OrderSetDialog(model, edit_fn, vocab, parent)
        dialog.show()
        toggles = [13, 17, 21] + ([12, 22, 25, 26] if uncheck_defaults else [])
        for item_id in toggles:  # a click on the line toggles it
            line = model.line_for(item_id)
            dialog.tree.scrollTo(line.index())
            rect = dialog.tree.visualRect(line.index())
            qtbot.mouseClick(dialog.tree.viewport(), Qt.MouseButton.LeftButton,
                             pos=rect.center())
        dialog._accept()
        result = dialog.result_drafts
        dialog.deleteLater()
        return result

    monkeypatch.setattr(OrderSetDialog, "choose", classmethod(choose))
    assert chart.open_order_set(1)
    qtbot.mouseClick(workspace.orders.pending_panel.sign_button, Qt.MouseButton.LeftButton)
    assert len(chart.pending) == 0
    return window


def test_ord06_gold(qtbot, monkeypatch, tmp_path, seeded_task):
    need("ord-06", "hyperspace")
    _spec, run_dir = seeded_task("ord-06", tmp_path / "run")
    window = solve_ord06(qtbot, monkeypatch, run_dir)
    window.ctx.close()
    maybe_grade("ord-06", run_dir)


def test_ord06_partial_keeps_the_defaults(qtbot, monkeypatch, tmp_path, seeded_task):
    need("ord-06", "hyperspace")
    _spec, run_dir = seeded_task("ord-06", tmp_path / "run")
    window = solve_ord06(qtbot, monkeypatch, run_dir, uncheck_defaults=False)
    window.ctx.close()
    maybe_grade("ord-06", run_dir, minimum=0.5, maximum=0.99)


def test_ord06_none(qtbot, tmp_path, seeded_task):
    need("ord-06", "hyperspace")
    _spec, run_dir = seeded_task("ord-06", tmp_path / "run")
    window = td.open_window(qtbot, "hyperspace", run_dir)
    window.ctx.close()
    maybe_grade("ord-06", run_dir, minimum=0.0, maximum=0.49)


# -- ord-07: admission med rec -------------------------------------------------------------
def test_ord07_gold(qtbot, monkeypatch, tmp_path, seeded_task):
    need("ord-07", "powerchart")
    _spec, run_dir = seeded_task("ord-07", tmp_path / "run")
    window = td.open_window(qtbot, "powerchart", run_dir)
    pid = td.patient_id(window, "7004417")
    window.shell.open_patient(pid)
    view = window.shell.charts[pid][1]
    view.select("Medication Reconciliation")
    page = view.pages.currentWidget()
    new_doses = {"lisinopril": "10", "metoprolol": "25"}

    def modify(cls, parent, row, ref, title):
        dialog = ModifyDialog(row, ref, title, parent)
        dialog.dose.setText(new_doses[row.medication.split()[0]])
        dialog.accept()
        return dialog.result

    def hold(cls, parent, row):
        dialog = HoldDialog(row, parent)
        dialog.reason.setText("Hold until surgery (bleeding risk)")
        dialog.accept()
        return dialog.result

    monkeypatch.setattr(ModifyDialog, "ask", classmethod(modify))
    monkeypatch.setattr(HoldDialog, "ask", classmethod(hold))
    plan = {"atorvastatin": "continue", "levothyroxine": "continue", "omeprazole": "continue",
            "lisinopril": "modify", "metoprolol": "modify", "ibuprofen": "discontinue",
            "zolpidem": "discontinue", "clopidogrel": "hold"}
    model = page.model
    for row, rec in enumerate(page.state.rows):
        index = model.index(row, model.column_of(plan[rec.medication.split()[0]]))
        qtbot.mouseClick(page.table.viewport(), Qt.MouseButton.LeftButton,
                         pos=page.table.visualRect(index).center())
    qtbot.mouseClick(page.sign_button, Qt.MouseButton.LeftButton)
    assert page.state.complete, page.error.text()
    window.ctx.close()
    maybe_grade("ord-07", run_dir)


def test_ord07_none(qtbot, tmp_path, seeded_task):
    need("ord-07", "powerchart")
    _spec, run_dir = seeded_task("ord-07", tmp_path / "run")
    maybe_grade("ord-07", run_dir, minimum=0.0, maximum=0.49)


# -- ord-10: discharge navigator ----------------------------------------------------------
def test_ord10_gold(qtbot, monkeypatch, tmp_path, seeded_task):
    need("ord-10", "hyperspace")
    _spec, run_dir = seeded_task("ord-10", tmp_path / "run")
    window = td.open_window(qtbot, "hyperspace", run_dir)
    shown = td.answer_prompts(monkeypatch, {})
    pid = td.patient_id(window, "E1006577")
    window.shell.open_patient(pid)
    workspace = window.shell.charts[pid][1]
    workspace.activities.select("Navigators")
    nav = workspace.activities.pages.currentWidget().widget(0)
    nav.sections.setCurrentRow(2)
    page = nav.medrec
    model = page.model
    monkeypatch.setattr(ModifyDialog, "ask", classmethod(
        lambda cls, parent, row, ref, title: (40.0, "mg", "PO", "DAILY")))
    plan = {"furosemide": "change", "dilTIAZem": "stop", "atorvastatin": "continue",
            "levothyroxine": "continue", "metoprolol": "continue",
            "spironolactone": "new", "empagliflozin": "new"}
    for row, rec in enumerate(page.state.rows):
        index = model.index(row, model.column_of(plan[rec.medication.split()[0]]))
        qtbot.mouseClick(page.table.viewport(), Qt.MouseButton.LeftButton,
                         pos=page.table.visualRect(index).center())
    assert page.sign(), page.error.text()
    composer = td.Composer(monkeypatch).queue(
        {"department": "Primary Care", "timeframe": "7", "timeframeUnit": "days"},
        {"department": "Cardiology", "timeframe": "4", "timeframeUnit": "weeks"},
        {"disposition": "Home or Self Care"})
    nav._add_follow_up()
    nav._add_follow_up()
    editor = nav.instructions
    editor.template.setCurrentIndex(editor.template.findText(
        "Heart Failure Discharge Instructions"))
    assert len(editor.boxes) == 5
    for heading, box in editor.boxes:
        box.setPlainText(f"{heading}: per the discharge plan.")
    editor._sign()
    assert editor.error.text() == "", editor.error.text()
    nav._add_discharge_order()
    assert composer.messages == ["", "", ""]
    qtbot.mouseClick(nav.pending.sign_button, Qt.MouseButton.LeftButton)
    assert "signRefused" not in shown and len(nav.chart.pending) == 0
    assert nav.state.discharge_order_id and nav.state.avs_prints == 0
    window.ctx.close()
    maybe_grade("ord-10", run_dir)


# -- ord-12: insulin correctional scale -----------------------------------------------------
def test_ord12_gold(qtbot, monkeypatch, tmp_path, seeded_task):
    need("ord-12", "powerchart")
    _spec, run_dir = seeded_task("ord-12", tmp_path / "run")
    window = td.open_window(qtbot, "powerchart", run_dir)
    td.answer_prompts(monkeypatch, {"duplicateOrder": "override"})
    pid = td.patient_id(window, "7004528")
    chart = window.shell.open_patient(pid)
    td.Composer(monkeypatch).queue(
        {"frequency": "AC_HS", "hold": "hold if NPO and BG<150",
         "scale": [("150", "199", "2"), ("200", "249", "4"), ("250", "299", "6"),
                   ("300", "349", "8"), ("350", "399", "10"), ("400", "", "12")]},
        {})
    assert chart.new_order(120)
    assert chart.new_order(123)
    assert chart.sign()
    window.ctx.close()
    maybe_grade("ord-12", run_dir)


# -- ord-15: addendum ----------------------------------------------------------------------
def test_ord15_gold(qtbot, monkeypatch, tmp_path, seeded_task):
    need("ord-15", "hyperspace")
    _spec, run_dir = seeded_task("ord-15", tmp_path / "run")
    window = td.open_window(qtbot, "hyperspace", run_dir)
    pid = td.patient_id(window, "E1006820")
    window.shell.open_patient(pid)
    workspace = window.shell.charts[pid][1]
    workspace.activities.select("Notes")
    page = workspace.activities.pages.currentWidget()
    row = next(r for r, note in enumerate(page.model.rows())
               if note.cells["date"] == "10/10/2026" and note.cells["type"] == "Progress Notes")
    page.table.selectRow(row)

    def write(cls, parent, ctx, note_id, title, text, label="Addendum"):
        dialog = AddendumDialog(ctx, note_id, title, text, label, parent)
        dialog.reason.setText("Laterality documented in error")
        dialog.text.setPlainText("Correction: the injection was into the RIGHT knee, not the "
                                 "left knee as written above.")
        dialog._sign()
        return dialog.result_id

    monkeypatch.setattr(AddendumDialog, "write", classmethod(write))
    qtbot.mouseClick(page.addendum_button, Qt.MouseButton.LeftButton)
    assert "Addendum" in page.viewer.toPlainText()
    window.ctx.close()
    maybe_grade("ord-15", run_dir)


# -- ord-17: code status, proxy, scanned advance directive ----------------------------------
def _drag(viewport, start: QPoint, target: QPoint) -> None:
    def send(kind, pos, buttons):
        local = viewport.mapFromGlobal(pos)
        QApplication.sendEvent(viewport, QMouseEvent(kind, QPointF(local), QPointF(pos),
                                                     Qt.MouseButton.LeftButton, buttons,
                                                     Qt.KeyboardModifier.NoModifier))

    send(QEvent.Type.MouseButtonPress, start, Qt.MouseButton.LeftButton)
    for step in range(1, 6):
        send(QEvent.Type.MouseMove, start + (target - start) * step / 5,
             Qt.MouseButton.LeftButton)
    send(QEvent.Type.MouseButtonRelease, target, Qt.MouseButton.NoButton)


def test_ord17_gold(qtbot, monkeypatch, tmp_path, seeded_task):
    need("ord-17", "powerchart")
    _spec, run_dir = seeded_task("ord-17", tmp_path / "run")
    window = td.open_window(qtbot, "powerchart", run_dir)
    td.answer_prompts(monkeypatch, {})
    pid = td.patient_id(window, "7004639")
    chart = window.shell.open_patient(pid)
    view = window.shell.charts[pid][1]
    td.Composer(monkeypatch).queue(
        {"codeStatus": "DNR/DNI, full medical treatment otherwise"})
    assert chart.new_order(302)
    assert chart.sign()
    assert view.banner.fields["code"].text() == \
        "Code Status: DNR/DNI, full medical treatment otherwise"
    view.select("Patient Information")
    info = view.pages.currentWidget()
    info.name.setText("Margaret Lowell")
    info.relationship.setEditText("Daughter")
    info.phone.setText("217-555-0147")
    info._save()
    assert info.error.text() == "" and info.model.rowCount() >= 1

    def file(cls, parent, chart, document_id):
        dialog = FileDocumentDialog(chart, document_id, parent)
        dialog.type.setCurrentIndex(dialog.type.findData("Advance Directive"))
        dialog.accept()
        return dialog.filed

    monkeypatch.setattr(FileDocumentDialog, "file", classmethod(file))
    view.select("Documentation")
    page = view.documents
    m = chart.ctx.models
    with chart.ctx.reader() as s:
        wanted = s.get(m.Document, 1001).id if s.get(m.Document, 1001) else None
    row = next(r for r, doc in enumerate(page.inbox_model.rows()) if doc.id == wanted)
    viewport = page.inbox.viewport()
    _drag(viewport, viewport.mapToGlobal(page.inbox.visualRect(
        page.inbox_model.index(row, 0)).center()),
        page.drop_zone.mapToGlobal(page.drop_zone.rect().center()))
    with chart.ctx.reader() as s:
        doc = s.get(m.Document, 1001)
        assert (doc.patient_id, doc.document_type, doc.status) == \
            (pid, "Advance Directive", "filed")
    window.ctx.close()
    maybe_grade("ord-17", run_dir)


# -- ord-20: warfarin / enoxaparin bridging ---------------------------------------------------
def test_ord20_gold(qtbot, monkeypatch, tmp_path, seeded_task):
    need("ord-20", "hyperspace")
    _spec, run_dir = seeded_task("ord-20", tmp_path / "run")
    window = td.open_window(qtbot, "hyperspace", run_dir)
    shown = td.answer_prompts(monkeypatch, {"duplicateOrder": "override"})
    pid = td.patient_id(window, "E1006930")
    chart = window.shell.open_patient(pid)

    def hold(cls, parent, kind, order_id, order_name, details, today_fn, now):
        dialog = OrderActionDialog(kind, order_id, order_name, details, today_fn, now, parent)
        dialog.start.date_edit.setText("10/21/2026")
        dialog.start.time_edit.setText("")
        dialog.until.date_edit.setText("10/26/2026")
        dialog.until.time_edit.setText("18:00")
        dialog.reason.setText("Peri-procedural hold: colonoscopy 10/26")
        dialog.accept()
        return dialog.result_action

    monkeypatch.setattr(OrderActionDialog, "ask", classmethod(hold))
    m = chart.ctx.models
    with chart.ctx.reader() as s:
        warfarin = s.scalars(select(m.Order).where(m.Order.patient_id == pid,
                                                   m.Order.orderable_id == 112)).one().id
    assert chart.act_on_order("hold", warfarin)
    composer = td.Composer(monkeypatch).queue(
        {"sentence": 3, "per_kg": "1", "start": ("10/23/2026", "08:00"),
         "stop": ("10/25/2026", "08:00")},
        {"start": ("10/25/2026", "08:00")},
        {"start": ("10/30/2026", "08:00")},
        {"sentence": 3, "per_kg": "1", "start": ("10/28/2026", "20:00"),
         "stop": ("11/02/2026", "08:00")})
    # the hold resumes warfarin on the evening of the procedure: no second warfarin order
    for orderable in (110, 206, 206, 110):
        assert chart.new_order(orderable), composer.messages
    assert chart.sign()
    assert "signRefused" not in shown
    with chart.ctx.reader() as s:
        enox = s.scalars(select(m.Order).where(m.Order.patient_id == pid,
                                               m.Order.orderable_id == 110)
                         .order_by(m.Order.start_at)).all()
        assert [(o.dose, o.dose_per_kg, o.dosing_weight_kg, o.frequency) for o in enox] == \
            [(92, 1, 92, "Q12H")] * 2
        held = s.get(m.Order, warfarin)
        assert (held.status, str(held.hold_start_at), str(held.hold_end_at)) == \
            ("held", "2026-10-21 00:00:00", "2026-10-26 18:00:00")
    window.ctx.close()
    maybe_grade("ord-20", run_dir)
