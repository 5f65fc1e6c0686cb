"""Medication reconciliation page (admission in PowerChart, discharge in the navigator).

Click Continue / Do Not Continue / Stop in a row to choose it; click Modify / Change or Hold
to open its dialog (dose, route, frequency; or the hold reason). Sign is refused in place,
naming each medication still undecided or incomplete.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionButton,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from desktop_ehr.models.medrec import MedRecModel
from desktop_ehr.services.catalog import Reference
from desktop_ehr.services.medrec import (
    MedRecRefused,
    MedRecState,
    RecRow,
    load_med_rec,
    sign_med_rec,
)
from desktop_ehr.services.orders import draft_for
from desktop_ehr.services.parsing import (
    InputError,
    format_datetime,
    format_number,
    parse_positive_number,
)
from desktop_ehr.widgets.common import (
    button,
    combo,
    error_label,
    line_edit,
    named,
    select_data,
    show_error,
    table_view,
)
from desktop_ehr.widgets.order_search import OrderSearchDialog
from desktop_ehr.widgets.patient_chart import PatientChart


class ActionCellDelegate(QStyledItemDelegate):
    """Action cells draw a centred radio button (one action per row)."""

    def paint(self, painter, option, index) -> None:
        state = index.data(Qt.ItemDataRole.CheckStateRole)
        if state is None:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.features &= ~QStyleOptionViewItem.ViewItemFeature.HasCheckIndicator
        opt.text = ""
        widget = option.widget
        style = widget.style() if widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        radio = QStyleOptionButton()
        size = 14
        radio.rect = QRect(option.rect.center().x() - size // 2,
                           option.rect.center().y() - size // 2, size, size)
        checked = Qt.CheckState(state) == Qt.CheckState.Checked
        radio.state = QStyle.StateFlag.State_Enabled | (
            QStyle.StateFlag.State_On if checked else QStyle.StateFlag.State_Off)
        style.drawPrimitive(QStyle.PrimitiveElement.PE_IndicatorRadioButton, radio, painter,
                            widget)


class ModifyDialog(QDialog):
    """New dose (and route / frequency) of a medication being modified or changed."""

    def __init__(self, row: RecRow, ref: Reference, title: str, parent=None) -> None:
        super().__init__(parent)
        self.result: tuple[float, str | None, str | None, str | None] | None = None
        self.row = row
        named(self, "medrecModify", title)
        self.setWindowTitle(f"{title} - {row.medication}")
        self.resize(520, 230)
        self.dose = line_edit("medrecModify.dose", "New dose", "number",
                              format_number(row.new_dose if row.new_dose is not None
                                            else row.dose))
        self.unit = named(QLabel(row.new_dose_unit or row.dose_unit or ""),
                          "medrecModify.unit", "Dose unit")
        self.route = combo("medrecModify.route", "Route",
                           [(r.label, r.code) for r in ref.routes])
        select_data(self.route, row.new_route or row.route)
        self.frequency = combo("medrecModify.frequency", "Frequency",
                               [(f.label, f.code) for f in ref.frequencies])
        select_data(self.frequency, row.new_frequency or row.frequency)
        self.error = error_label("medrecModify.error")
        form = QFormLayout()
        dose_row = QHBoxLayout()
        dose_row.addWidget(self.dose)
        dose_row.addWidget(self.unit)
        dose_row.addStretch(1)
        form.addRow("Current:", QLabel(row.before_text))
        form.addRow("New dose:", dose_row)
        form.addRow("Route:", self.route)
        form.addRow("Frequency:", self.frequency)
        ok = button("✔ OK", "medrecModify.accept", "Accept", role="primary", slot=self.accept)
        ok.setDefault(True)
        cancel = button("✖ Cancel", "medrecModify.cancel", "Cancel", slot=self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(ok)
        buttons.addWidget(cancel)
        layout.addLayout(buttons)

    def accept(self) -> None:
        try:
            dose = parse_positive_number(self.dose.text(), "New dose", maximum=100000)
        except InputError as err:
            show_error(self.error, err.message)
            return
        self.result = (dose, self.row.new_dose_unit or self.row.dose_unit,
                       self.route.currentData(), self.frequency.currentData())
        super().accept()

    @classmethod
    def ask(cls, parent, row: RecRow, ref: Reference, title: str):
        dialog = cls(row, ref, title, parent)
        dialog.exec()
        result = dialog.result
        dialog.deleteLater()
        return result


class HoldDialog(QDialog):
    def __init__(self, row: RecRow, parent=None) -> None:
        super().__init__(parent)
        self.result: str | None = None
        named(self, "medrecHold", "Hold medication")
        self.setWindowTitle(f"Hold - {row.medication}")
        self.resize(480, 160)
        self.reason = line_edit("medrecHold.reason", "Hold reason", "e.g. until surgery",
                                row.hold_reason or "")
        self.error = error_label("medrecHold.error")
        ok = button("✔ OK", "medrecHold.accept", "Accept", role="primary", slot=self.accept)
        ok.setDefault(True)
        cancel = button("✖ Cancel", "medrecHold.cancel", "Cancel", slot=self.reject)
        layout = QVBoxLayout(self)
        form = QFormLayout()
        form.addRow("Hold reason:", self.reason)
        layout.addWidget(QLabel(row.medication))
        layout.addLayout(form)
        layout.addWidget(self.error)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(ok)
        buttons.addWidget(cancel)
        layout.addLayout(buttons)

    def accept(self) -> None:
        if not self.reason.text().strip():
            show_error(self.error, "A hold needs a reason (e.g. until surgery).")
            return
        self.result = self.reason.text().strip()
        super().accept()

    @classmethod
    def ask(cls, parent, row: RecRow) -> str | None:
        dialog = cls(row, parent)
        dialog.exec()
        result = dialog.result
        dialog.deleteLater()
        return result


class MedRecPage(QWidget):
    def __init__(self, chart: PatientChart, rec_type: str = "admission",
                 name: str = "medrec", parent=None) -> None:
        super().__init__(parent)
        self.setObjectName(f"page.{name}")
        self.chart = chart
        self.rec_type = rec_type
        self.name = name
        vocab = chart.vocab
        self.labels = vocab.med_rec_labels(rec_type)
        title = vocab.med_rec_title if rec_type == "admission" else \
            "Discharge Medication Reconciliation"
        head = QFrame()
        head.setProperty("role", "sectionHeader")
        hl = QHBoxLayout(head)
        hl.setContentsMargins(8, 3, 8, 3)
        self.title = named(QLabel(title), f"{name}.title", title)
        self.title.setProperty("role", "sectionTitle")
        self.status_label = named(QLabel(""), f"{name}.status", "Reconciliation status")
        self.status_label.setProperty("role", "caption")
        hl.addWidget(self.title)
        hl.addWidget(self.status_label)
        hl.addStretch(1)
        self.table = table_view(f"{name}.table", title)
        self.table.clicked.connect(self._clicked)
        self.table.setItemDelegate(ActionCellDelegate(self.table))
        self.error = error_label(f"{name}.error")
        self.add_button = button("+ Add New Medication", f"{name}.addNew",
                                 "Add new medication", slot=self._add_new)
        self.remove_button = button("Remove New", f"{name}.removeNew",
                                    "Remove new medication", slot=self._remove_new)
        self.sign_button = button(f"✔ {vocab.sign_rec}", f"{name}.sign",
                                  f"{vocab.sign_rec} reconciliation", role="sign",
                                  slot=self.sign)
        foot = QHBoxLayout()
        foot.setContentsMargins(8, 4, 8, 6)
        if rec_type == "discharge":
            foot.addWidget(self.add_button)
            foot.addWidget(self.remove_button)
        else:
            self.add_button.hide()
            self.remove_button.hide()
        self.legend = QLabel("")
        self.legend.setProperty("role", "caption")
        self.legend.setWordWrap(True)
        self.legend.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        foot.addWidget(self.legend, 1)
        foot.addWidget(self.sign_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(head)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.error)
        layout.addLayout(foot)
        self.state: MedRecState | None = None
        self.model: MedRecModel | None = None

    def load(self) -> None:
        self.state = load_med_rec(self.chart.ctx, self.chart.patient_id,
                                  self.chart.encounter_id, self.rec_type, self.chart.ref)
        self.model = MedRecModel(self.state, self.labels, self)
        self.table.setModel(self.model)
        widths = {"medication": 230, "before": 160, "last_dose": 120}
        action_width = 92 if self.rec_type == "admission" else 84
        for col in range(self.model.columnCount() - 1):
            self.table.setColumnWidth(col, widths.get(self.model.column_key(col), action_width))
        self.table.verticalHeader().setDefaultSectionSize(26)
        self.model.changed.connect(self._update)
        show_error(self.error, None)
        self._update()

    def _update(self) -> None:
        state = self.state
        if state.complete:
            self.status_label.setText(f"Complete — signed {format_datetime(state.signed_at)}")
        else:
            left = len(self.model.undecided())
            self.status_label.setText(
                f"{'In progress' if state.med_rec_id else 'Not started'} — {left} of "
                f"{len(state.rows)} still to reconcile")
        self.sign_button.setEnabled(not state.complete)
        self.add_button.setEnabled(not state.complete)
        self.legend.setText("Click an action in each row. " + (
            "Continue and Modify create inpatient orders; Do Not Continue and Hold do not."
            if self.rec_type == "admission" else
            "Home medications: Continue, Change Dose or Stop. Started in the hospital: New "
            "(prescribe) or Stop. New and changed medications become discharge "
            "prescriptions."))

    def _clicked(self, index) -> None:
        if self.model is None or self.model.read_only:
            return
        key = self.model.column_key(index.column())
        row = self.model.row(index.row())
        try:
            if self.model.choose(index.row(), key):
                show_error(self.error, None)
                return
        except ValueError as refused:
            show_error(self.error, str(refused))
            return
        if key in ("modify", "change"):
            if row.added:
                show_error(self.error, f"{row.medication} was added here; remove it and add "
                                       "it again to change its details.")
                return
            result = ModifyDialog.ask(self, row, self.chart.ref, self.labels.get(key, key))
            if result is not None:
                self.model.set_change(index.row(), *result)
                show_error(self.error, None)
        elif key == "hold":
            reason = HoldDialog.ask(self, row)
            if reason is not None:
                self.model.set_hold(index.row(), reason)

    def _add_new(self) -> None:
        chart = self.chart
        choice = OrderSearchDialog.search(self, chart.ref, lambda _t: [], chart.ctx.now(),
                                          chart.vocab)
        if choice is None or choice.kind != "orderable":
            return
        orderable = chart.ref.orderables[choice.id]
        draft = draft_for(orderable, chart.ctx.now(), chart.ref)
        draft.order_mode = "discharge"
        draft = chart.compose(draft)
        if draft is None:
            return
        self.model.add_new(RecRow(
            medication=orderable.name, orderable_id=orderable.id, new_dose=draft.dose,
            new_dose_unit=draft.dose_unit, new_route=draft.route,
            new_frequency=draft.frequency, prn=draft.prn, prn_reason=draft.prn_reason,
            comments=draft.comments))

    def _remove_new(self) -> None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() \
            else []
        if not rows or not self.model.row(rows[0].row()).added:
            show_error(self.error, "Select a medication added here (marked NEW) to remove it.")
            return
        self.model.remove_new(rows[0].row())

    def sign(self) -> bool:
        try:
            sign_med_rec(self.chart.ctx, self.state, self.chart.ref)
        except MedRecRefused as refused:
            show_error(self.error, "Cannot sign yet:\n" + "\n".join(refused.problems))
            return False
        self.chart.status.emit("Medication reconciliation signed.")
        self.chart.refresh()
        self.load()
        return True
