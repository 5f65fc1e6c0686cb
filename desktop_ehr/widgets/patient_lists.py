"""Patient lists and lookup: find a patient by name, MRN or FIN and open the chart.

Look-alike patients (same name, same birth date, neighbouring MRNs) appear side by side, so
the list always shows MRN, DOB, age/sex and location.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QDialog, QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from desktop_ehr.models.records import RecordTableModel
from desktop_ehr.services.chart import ChartRow, search_patients
from desktop_ehr.widgets.common import button, line_edit, named, table_view


def patient_rows(ctx, text: str) -> list[ChartRow]:
    return [ChartRow(p.id, {"name": p.name, "mrn": p.mrn, "fin": p.fin or "",
                            "dob": f"{p.dob:%m/%d/%Y}", "agesex": f"{p.age} y.o. {p.sex}",
                            "location": p.location, "reason": p.reason})
            for p in search_patients(ctx, text)]


class PatientListPage(QWidget):
    """Search box + results; Enter or double-click opens the chart (``open_patient``)."""

    open_patient = Signal(int)

    def __init__(self, ctx, name: str, title: str, show_fin: bool = False,
                 placeholder: str = "Name, MRN", parent=None) -> None:
        super().__init__(parent)
        self.setObjectName(f"page.{name}")
        self.ctx = ctx
        columns = [("name", "Patient Name"), ("mrn", "MRN")]
        if show_fin:
            columns.append(("fin", "FIN"))
        columns += [("dob", "DOB"), ("agesex", "Age/Sex"), ("location", "Location"),
                    ("reason", "Reason for Visit")]
        self.model = RecordTableModel(columns)
        self.query = line_edit(f"{name}.query", f"{title} search", placeholder)
        self.query.returnPressed.connect(self.search)
        self.search_button = button("Search", f"{name}.search", "Search patients",
                                    slot=self.search)
        self.open_button = button("Open Chart", f"{name}.open", "Open chart", role="primary",
                                  slot=self._open_selected)
        self.table = table_view(f"{name}.results", f"{title} results", self.model)
        for col, width in enumerate([160, 85] + ([85] if show_fin else []) + [90, 110, 90]):
            self.table.setColumnWidth(col, width)
        self.table.activated.connect(lambda i: self._open_row(i.row()))
        self.table.doubleClicked.connect(lambda i: self._open_row(i.row()))
        heading = named(QLabel(title), f"{name}.title", title)
        heading.setProperty("role", "sectionTitle")
        bar = QFrame()
        bar.setProperty("role", "pageToolbar")
        bl = QHBoxLayout(bar)
        bl.setContentsMargins(6, 4, 6, 4)
        bl.addWidget(heading)
        bl.addSpacing(12)
        bl.addWidget(self.query, 1)
        bl.addWidget(self.search_button)
        bl.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(bar)
        layout.addWidget(self.table, 1)

    def load(self) -> None:
        self.search()

    def search(self) -> None:
        self.model.set_rows(patient_rows(self.ctx, self.query.text()))
        if self.model.rowCount() and self.query.hasFocus() and self.query.text().strip():
            self.table.setFocus()
            self.table.selectRow(0)

    def _open_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows:
            self._open_row(rows[0].row())

    def _open_row(self, row: int) -> None:
        self.open_patient.emit(self.model.row_at(row).id)


class PatientLookupDialog(QDialog):
    """Patient Lookup / Patient Search as a modal dialog (Enter opens the chosen chart)."""

    def __init__(self, ctx, title: str, initial: str = "", parent=None) -> None:
        super().__init__(parent)
        self.chosen: int | None = None
        named(self, "patientLookup", title)
        self.setWindowTitle(title)
        self.resize(860, 420)
        self.page = PatientListPage(ctx, "patientLookup", title, show_fin=hasattr(
            ctx.models.Patient, "fin"), placeholder="Last, First  or  MRN")
        self.page.query.setText(initial)
        self.page.open_patient.connect(self._chosen)
        cancel = button("✖ Cancel", "patientLookup.cancel", "Cancel", slot=self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.page, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(cancel)
        layout.addLayout(row)
        self.page.search()
        self.page.query.setFocus()

    def _chosen(self, patient_id: int) -> None:
        self.chosen = patient_id
        self.accept()

    @classmethod
    def lookup(cls, parent, ctx, title: str, initial: str = "") -> int | None:
        dialog = cls(ctx, title, initial, parent)
        dialog.exec()
        chosen = dialog.chosen
        dialog.deleteLater()
        return chosen
