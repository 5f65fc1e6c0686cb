"""Read-only chart pages: a titled table over one of the chart lists.

Results Review, MAR, Medication List, Allergies, Problems, Flowsheets / Interactive View,
encounters and filed documents are all a :class:`RecordPage` with different columns.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QFrame, QHBoxLayout, QHeaderView, QLabel, QVBoxLayout, QWidget

from desktop_ehr.models.records import RecordTableModel
from desktop_ehr.services import chart_lists
from desktop_ehr.services.chart import ChartRow
from desktop_ehr.widgets.common import named, table_view

Columns = list[tuple[str, str]]

RESULT_COLUMNS: Columns = [("collected", "Collected"), ("panel", "Panel"),
                           ("component", "Component"), ("value", "Value"), ("unit", "Units"),
                           ("range", "Ref Range"), ("flag", "Flag"), ("status", "Status"),
                           ("resulted", "Resulted")]
MAR_COLUMNS: Columns = [("medication", "Medication"), ("scheduled", "Scheduled"),
                        ("given", "Given"), ("status", "Action"), ("dose", "Dose"),
                        ("route", "Route"), ("site", "Site"), ("by", "By")]
HOME_MED_COLUMNS: Columns = [("medication", "Medication"), ("dose", "Dose"),
                             ("route", "Route"), ("frequency", "Frequency"), ("sig", "Sig"),
                             ("indication", "Indication"), ("last_dose", "Last Dose"),
                             ("status", "Status")]
ORDER_COLUMNS: Columns = [("order", "Order"), ("details", "Details"), ("status", "Status"),
                          ("start", "Start"), ("stop", "Stop"), ("mode", "Mode"),
                          ("signed", "Signed")]
ALLERGY_COLUMNS: Columns = [("allergen", "Allergen"), ("kind", "Type"),
                            ("reaction", "Reaction"), ("severity", "Severity"),
                            ("status", "Status"), ("noted", "Noted")]
PROBLEM_COLUMNS: Columns = [("problem", "Problem"), ("icd10", "ICD-10"),
                            ("principal", "Principal"), ("hospital", "Hospital Problem"),
                            ("status", "Status"), ("onset", "Onset"), ("noted", "Noted")]
VITAL_COLUMNS: Columns = [("taken", "Date/Time"), ("temp", "Temp (C)"), ("hr", "Pulse"),
                          ("rr", "Resp"), ("bp", "BP"), ("spo2", "SpO2 (%)"),
                          ("weight", "Weight (kg)"), ("height", "Height (cm)"),
                          ("by", "Recorded By")]
ENCOUNTER_COLUMNS: Columns = [("date", "Date"), ("type", "Type"),
                              ("department", "Department"), ("provider", "Provider"),
                              ("reason", "Reason for Visit"), ("status", "Status")]
DOCUMENT_COLUMNS: Columns = [("type", "Document Type"), ("description", "Description"),
                             ("received", "Received"), ("filed", "Filed"),
                             ("source", "Source")]


class RecordPage(QWidget):
    """A section title, an optional toolbar row and a table; ``load`` refills it."""

    def __init__(self, name: str, title: str, columns: Columns,
                 loader: Callable[[], list[ChartRow]], *, toolbar: list[QWidget] = (),
                 widths: dict[int, int] | None = None, stretch: str | None = None,
                 parent=None) -> None:
        super().__init__(parent)
        self.setObjectName(f"page.{name}")
        self._loader = loader
        self.model = RecordTableModel(columns)
        header = QFrame()
        header.setProperty("role", "sectionHeader")
        hl = QHBoxLayout(header)
        hl.setContentsMargins(8, 3, 8, 3)
        self.title = named(QLabel(title), f"{name}.title", title)
        self.title.setProperty("role", "sectionTitle")
        hl.addWidget(self.title)
        hl.addStretch(1)
        for widget in toolbar:
            hl.addWidget(widget)
        self.count = QLabel("")
        self.count.setProperty("role", "caption")
        hl.addWidget(self.count)
        self.table = table_view(f"{name}.table", title, self.model)
        for col, width in (widths or {}).items():
            self.table.setColumnWidth(col, width)
        if stretch is not None:
            columns_header = self.table.horizontalHeader()
            columns_header.setStretchLastSection(False)
            columns_header.setSectionResizeMode([k for k, _ in columns].index(stretch),
                                                QHeaderView.ResizeMode.Stretch)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(header)
        layout.addWidget(self.table, 1)

    def load(self) -> None:
        rows = self._loader()
        self.model.set_rows(rows)
        self.count.setText(f"{len(rows)} item{'s' if len(rows) != 1 else ''}")

    def selected_row(self) -> ChartRow | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() \
            else []
        return self.model.row_at(rows[0].row()) if rows else None


def results_page(chart, name: str = "results", title: str = "Results Review") -> RecordPage:
    return RecordPage(name, title, RESULT_COLUMNS,
                      lambda: chart_lists.results(chart.ctx, chart.patient_id),
                      widths={0: 120, 1: 150, 2: 190, 3: 90, 4: 70, 5: 90, 6: 40})


def mar_page(chart, name: str = "mar", title: str = "MAR") -> RecordPage:
    return RecordPage(name, title, MAR_COLUMNS,
                      lambda: chart_lists.mar(chart.ctx, chart.patient_id),
                      widths={0: 260, 1: 120, 2: 120, 3: 70})


def home_meds_page(chart, name: str = "homeMeds",
                   title: str = "Prior to Admission Medications") -> RecordPage:
    return RecordPage(name, title, HOME_MED_COLUMNS,
                      lambda: chart_lists.home_medications(chart.ctx, chart.patient_id),
                      widths={0: 250, 1: 80, 2: 60, 3: 90, 5: 120, 6: 120, 7: 70},
                      stretch="sig")


def allergies_page(chart, name: str = "allergies", title: str = "Allergies") -> RecordPage:
    return RecordPage(name, title, ALLERGY_COLUMNS,
                      lambda: chart_lists.allergies(chart.ctx, chart.patient_id),
                      widths={0: 220, 1: 90, 2: 180, 3: 90})


def problems_page(chart, name: str = "problems", title: str = "Problem List") -> RecordPage:
    return RecordPage(name, title, PROBLEM_COLUMNS,
                      lambda: chart_lists.problems(chart.ctx, chart.patient_id),
                      widths={1: 80, 2: 80, 3: 110, 4: 70, 5: 90, 6: 90}, stretch="problem")


def vitals_page(chart, name: str = "vitals", title: str = "Flowsheets") -> RecordPage:
    return RecordPage(name, title, VITAL_COLUMNS,
                      lambda: chart_lists.vitals(chart.ctx, chart.patient_id),
                      widths={0: 130})


def encounters_page(chart, name: str = "encounters", title: str = "Encounters") -> RecordPage:
    return RecordPage(name, title, ENCOUNTER_COLUMNS,
                      lambda: chart_lists.encounters(chart.ctx, chart.patient_id),
                      widths={0: 90, 1: 90, 2: 170, 3: 170, 5: 80}, stretch="reason")


def documents_list_page(chart, name: str = "media", title: str = "Media") -> RecordPage:
    return RecordPage(name, title, DOCUMENT_COLUMNS,
                      lambda: chart_lists.documents(chart.ctx, chart.patient_id),
                      widths={0: 160, 2: 120, 3: 120, 4: 80}, stretch="description")


def med_orders_page(chart, name: str = "medOrders",
                    title: str = "Active Medication Orders") -> RecordPage:
    return RecordPage(name, title, ORDER_COLUMNS,
                      lambda: chart_lists.orders(chart.ctx, chart.patient_id, active_only=True,
                                                 order_types=("medication", "iv_fluid")),
                      widths={0: 260, 2: 110, 3: 115, 4: 115, 5: 80, 6: 115},
                      stretch="details")
