"""Patient Information: demographics, contacts and the health-care proxy."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from desktop_ehr.models.records import RecordTableModel
from desktop_ehr.services import chart_lists
from desktop_ehr.services.charting import (
    PROXY_RELATIONSHIPS,
    PROXY_TYPES,
    ChartingRefused,
    save_proxy,
)
from desktop_ehr.services.parsing import InputError, parse_phone
from desktop_ehr.widgets.common import (
    button,
    combo,
    error_label,
    line_edit,
    mark_invalid,
    named,
    show_error,
    table_view,
)
from desktop_ehr.widgets.patient_chart import PatientChart

PROXY_COLUMNS = [("name", "Name"), ("relationship", "Relationship"), ("phone", "Phone"),
                 ("alternate", "Alternate Phone"), ("type", "Type"), ("primary", "Primary"),
                 ("documented", "Documented")]


class PatientInfoPage(QWidget):
    def __init__(self, chart: PatientChart, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("page.patientInfo")
        self.chart = chart
        vocab = chart.vocab
        self.demo = QGridLayout()
        demo_box = QFrame()
        demo_box.setProperty("role", "panel")
        dl = QVBoxLayout(demo_box)
        head = QLabel("Demographics")
        head.setProperty("role", "sectionTitle")
        dl.addWidget(head)
        dl.addLayout(self.demo)

        self.model = RecordTableModel(PROXY_COLUMNS)
        self.table = table_view("proxy.table", f"{vocab.proxy} list", self.model)
        for col, width in enumerate((180, 100, 110, 110, 170, 70)):
            self.table.setColumnWidth(col, width)
        self.name = line_edit("proxy.name", f"{vocab.proxy} name", "Last, First or First Last")
        self.relationship = combo("proxy.relationship", "Relationship",
                                  [(r, r) for r in PROXY_RELATIONSHIPS], editable=True)
        self.relationship.setCurrentIndex(-1)
        self.phone = line_edit("proxy.phone", "Proxy phone", "217-555-0123")
        self.alt_phone = line_edit("proxy.alternatePhone", "Alternate phone", "optional")
        self.type = combo("proxy.type", "Proxy type", [(t, t) for t in PROXY_TYPES])
        self.error = error_label("proxy.error")
        for edit in (self.phone, self.alt_phone):
            edit.editingFinished.connect(lambda e=edit: self._check_phone(e))
        save = button(f"✔ Save {vocab.proxy}", "proxy.save", f"Save {vocab.proxy}",
                      role="primary", slot=self._save)
        clear = button("Clear", "proxy.clear", "Clear proxy form", slot=self._clear)
        form = QFormLayout()
        form.addRow("Name:", self.name)
        form.addRow("Relationship:", self.relationship)
        form.addRow("Phone:", self.phone)
        form.addRow("Alternate phone:", self.alt_phone)
        form.addRow("Type:", self.type)
        proxy_box = QFrame()
        proxy_box.setProperty("role", "panel")
        pl = QVBoxLayout(proxy_box)
        title = named(QLabel(f"{vocab.proxy} / Advance Care Planning"), "proxy.title",
                      vocab.proxy)
        title.setProperty("role", "sectionTitle")
        pl.addWidget(title)
        pl.addWidget(self.table, 1)
        add_title = QLabel(f"Add {vocab.proxy}")
        add_title.setProperty("role", "fieldLabel")
        pl.addWidget(add_title)
        pl.addLayout(form)
        pl.addWidget(self.error)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(save)
        buttons.addWidget(clear)
        pl.addLayout(buttons)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(demo_box, 2)
        layout.addWidget(proxy_box, 3)
        chart.changed.connect(self.load)

    def load(self) -> None:
        s = self.chart.summary
        while self.demo.count():
            item = self.demo.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        rows = [("Name", s.name), ("DOB", f"{s.dob:%m/%d/%Y} ({s.age} years)"),
                ("Sex", s.sex), ("MRN", s.mrn), ("FIN", s.fin or ""),
                ("Language", s.language), ("Coverage", s.coverage or ""),
                ("PCP", s.pcp or ""), ("Attending", s.attending or ""),
                ("Location", s.location), ("Code status", s.code_status),
                ("Primary proxy", s.proxy or "None on file")]
        for r, (label, value) in enumerate(rows):
            key = QLabel(label + ":")
            key.setProperty("role", "fieldLabel")
            self.demo.addWidget(key, r, 0)
            self.demo.addWidget(QLabel(value), r, 1)
        self.demo.setRowStretch(len(rows), 1)
        self.model.set_rows(chart_lists.proxies(self.chart.ctx, self.chart.patient_id))

    def _check_phone(self, edit) -> None:
        text = edit.text().strip()
        if not text:
            mark_invalid(edit, False)
            return
        try:
            edit.setText(parse_phone(text, edit.accessibleName()))
            mark_invalid(edit, False)
            show_error(self.error, None)
        except InputError as err:
            mark_invalid(edit, True)
            show_error(self.error, err.message)

    def _save(self) -> None:
        try:
            save_proxy(self.chart.ctx, self.chart.patient_id, self.name.text(),
                       self.relationship.currentText(), self.phone.text(),
                       self.alt_phone.text(), self.type.currentData())
        except ChartingRefused as refused:
            show_error(self.error, " ".join(refused.problems))
            return
        show_error(self.error, None)
        self._clear()
        self.chart.status.emit(f"{self.chart.vocab.proxy} saved.")
        self.chart.refresh()

    def _clear(self) -> None:
        for edit in (self.name, self.phone, self.alt_phone):
            edit.clear()
            mark_invalid(edit, False)
        self.relationship.setCurrentIndex(-1)
        self.relationship.setEditText("")
