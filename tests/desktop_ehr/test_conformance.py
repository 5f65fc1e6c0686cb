"""Every interactive widget of every page and dialog has an objectName and an accessible
name (the oracle finds widgets by them), and the window fits 1280x800."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

from desktop_ehr.models.order_set import OrderSetModel
from desktop_ehr.services.chart import patient_summary
from desktop_ehr.services.medrec import RecRow
from desktop_ehr.services.order_sets import load_order_set
from desktop_ehr.services.orders import draft_for
from desktop_ehr.widgets.documents_page import FileDocumentDialog
from desktop_ehr.widgets.medrec_page import HoldDialog, ModifyDialog
from desktop_ehr.widgets.notes_page import AddendumDialog, NewNoteDialog
from desktop_ehr.widgets.order_actions import OrderActionDialog
from desktop_ehr.widgets.order_composer import OrderComposer
from desktop_ehr.widgets.order_search import OrderSearchDialog
from desktop_ehr.widgets.order_set_dialog import OrderSetDialog
from desktop_ehr.widgets.patient_lists import PatientLookupDialog

INTERACTIVE = (QAbstractButton, QLineEdit, QComboBox, QAbstractItemView, QPlainTextEdit,
               QTextEdit, QTabBar, QAbstractSpinBox)


def _part_of_named_compound(widget: QWidget) -> bool:
    """Internal children Qt makes for a compound widget (corner buttons, tab scrollers…)."""
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, (QAbstractItemView, QTabBar, QAbstractSpinBox)) and \
                not isinstance(widget, QLineEdit):
            return True
        if isinstance(parent, QComboBox):
            return True
        parent = parent.parentWidget()
    return False


def unnamed(root: QWidget) -> list[str]:
    missing = []
    for widget in [root] + root.findChildren(QWidget):
        if not isinstance(widget, INTERACTIVE) or isinstance(widget, QHeaderView):
            continue
        if _part_of_named_compound(widget) or widget.objectName().startswith("qt_"):
            continue  # Qt's own internals (menu-bar extension button, …)
        if not widget.objectName() or not widget.accessibleName():
            label = getattr(widget, "text", lambda: "")()
            missing.append(f"{type(widget).__name__} '{label}' under "
                           f"{widget.parentWidget().objectName() or type(widget.parentWidget())}")
    return missing


def visit_pages(window, patient_id: int) -> list[str]:
    shell = window.shell
    shell.open_patient(patient_id)
    workspace = shell.charts[patient_id][1]
    missing = unnamed(window)
    if hasattr(workspace, "activities"):
        bar = workspace.activities.bar
        for i in range(bar.count()):
            bar.setCurrentIndex(i)
            missing += unnamed(window)
    else:
        for row in range(workspace.menu.count()):
            workspace.menu.setCurrentRow(row)
            missing += unnamed(window)
    return sorted(set(missing))


def test_hyperspace_pages_are_named(hs_window):
    assert visit_pages(hs_window, 3) == []


def test_powerchart_pages_are_named(pc_window):
    assert visit_pages(pc_window, 1) == []


def test_login_is_named(hs_window):
    hs_window.logout(ask=False)
    assert unnamed(hs_window) == []


@pytest.mark.parametrize("orderable_id", [110, 120, 200, 300, 302, 303, 304, 123, 270])
def test_composer_is_named(qtbot, pc_ctx, pc_ref, orderable_id):
    orderable = pc_ref.orderables[orderable_id]
    draft = draft_for(orderable, pc_ctx.now(), pc_ref)
    draft.order_mode = "discharge"
    from desktop_ehr.personas.vocabulary import POWERCHART

    dialog = OrderComposer(orderable, draft, pc_ref, patient_summary(pc_ctx, 3),
                           pc_ctx.today, POWERCHART)
    qtbot.addWidget(dialog)
    assert unnamed(dialog) == []
    assert dialog.objectName() == "composer"


def test_other_dialogs_are_named(qtbot, pc_window):
    chart = pc_window.shell.open_patient(5)
    ctx, ref, vocab = chart.ctx, chart.ref, chart.vocab
    row = RecRow(medication="amLODIPine 5 mg tablet", dose=5, dose_unit="mg", route="PO",
                 frequency="DAILY")
    dialogs = [
        OrderSearchDialog(ref, lambda t: [], ctx.now(), vocab, "enox"),
        OrderSetDialog(OrderSetModel(load_order_set(ctx, 1), ref, ctx.now()),
                       lambda d: None, vocab),
        ModifyDialog(row, ref, "Modify"), HoldDialog(row),
        AddendumDialog(ctx, 1, "Note", "text", "Addendum"), NewNoteDialog(chart),
        FileDocumentDialog(chart, 5001),
        OrderActionDialog("hold", 1, "warfarin", "5 mg", ctx.today, ctx.now()),
        PatientLookupDialog(ctx, "Patient Search", "zztest")]
    for dialog in dialogs:
        qtbot.addWidget(dialog)
        assert unnamed(dialog) == [], dialog.objectName()
        assert dialog.objectName()


def _fits(window) -> list[str]:
    hint = window.minimumSizeHint()
    return [] if hint.width() <= 1280 and hint.height() <= 800 else \
        [f"{hint.width()}x{hint.height()}"]


@pytest.mark.parametrize("fixture", ["hs_window", "pc_window"])
def test_every_page_fits_the_published_display(request, fixture):
    window = request.getfixturevalue(fixture)
    patient = 3 if fixture == "hs_window" else 1
    window.shell.open_patient(patient)
    workspace = window.shell.charts[patient][1]
    too_big = []
    if hasattr(workspace, "activities"):
        for i in range(workspace.activities.bar.count()):
            workspace.activities.bar.setCurrentIndex(i)
            page = workspace.activities.pages.currentWidget()
            subpages = range(page.count()) if hasattr(page, "setCurrentIndex") and \
                hasattr(page, "count") else [None]
            for j in subpages:
                if j is not None:
                    page.setCurrentIndex(j)
                too_big += [f"{workspace.activities.bar.tabText(i)}/{j}: {s}"
                            for s in _fits(window)]
    else:
        for row in range(workspace.menu.count()):
            workspace.menu.setCurrentRow(row)
            too_big += [f"{workspace.menu.item(row).text()}: {s}" for s in _fits(window)]
    assert too_big == []
    window.resize(1280, 800)
    assert (window.width(), window.height()) == (1280, 800)
