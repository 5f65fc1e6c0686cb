"""The Discharge Navigator: sections down the left, worked top to bottom.

Problem List (review), Order Cleanup, Discharge Med Rec, Follow-up (appointment orders with department and
timeframe), Patient Instructions (from a template, every section filled in), Discharge Order,
After Visit Summary. Orders placed here wait in the navigator's pending list until Sign;
printing the AVS is a separate, confirmed action.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_ehr.models.records import RecordTableModel
from desktop_ehr.services import chart_lists
from desktop_ehr.services.discharge import (
    NAVIGATOR_SECTIONS,
    DischargeRefused,
    InstructionTemplate,
    instruction_templates,
    load_navigator,
    mark_reviewed,
    print_avs,
    sign_instructions,
)
from desktop_ehr.widgets.chart_pages import ORDER_COLUMNS, PROBLEM_COLUMNS
from desktop_ehr.widgets.common import (
    Prompt,
    button,
    caption,
    combo,
    error_label,
    named,
    show_error,
    table_view,
)
from desktop_ehr.widgets.medrec_page import MedRecPage
from desktop_ehr.widgets.orders_page import PendingPanel
from desktop_ehr.widgets.patient_chart import PatientChart

FOLLOW_UP_ORDERABLE = "appointment"
DISCHARGE_ORDERABLE = "discharge"
PRINTERS = ("4W-NURSE-STATION-01", "4W-NURSE-STATION-02")


def _section_frame(title: str, name: str) -> tuple[QFrame, QVBoxLayout]:
    frame = QFrame()
    frame.setObjectName(f"navigator.{name}")
    layout = QVBoxLayout(frame)
    layout.setContentsMargins(8, 6, 8, 6)
    head = QLabel(title)
    head.setProperty("role", "navSectionTitle")
    layout.addWidget(head)
    return frame, layout


class InstructionsEditor(QWidget):
    """Template choice, one text box per template section, Sign."""

    def __init__(self, navigator: DischargeNavigator) -> None:
        super().__init__()
        self.nav = navigator
        self.templates: list[InstructionTemplate] = []
        self.template = combo("navigator.instructions.template", "Instruction template")
        self.template.currentIndexChanged.connect(self._template_chosen)
        self.boxes: list[tuple[str, QPlainTextEdit]] = []
        self.sections = QWidget()
        self.sections_layout = QVBoxLayout(self.sections)
        self.sections_layout.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.sections)
        self.error = error_label("navigator.instructions.error")
        self.status = named(QLabel(""), "navigator.instructions.status", "Instructions status")
        self.status.setProperty("role", "caption")
        self.sign = button("✔ Sign Instructions", "navigator.instructions.sign",
                           "Sign patient instructions", role="sign", slot=self._sign)
        top = QHBoxLayout()
        top.addWidget(QLabel("Template:"))
        top.addWidget(self.template, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.sign)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.error)
        layout.addLayout(bottom)

    def load(self) -> None:
        self.templates = instruction_templates(self.nav.chart.ctx)
        self.template.blockSignals(True)
        self.template.clear()
        self.template.addItem("(choose a template)", None)
        for t in self.templates:
            self.template.addItem(t.name, t.id)
        self.template.setCurrentIndex(0)
        self.template.blockSignals(False)
        self._set_boxes([])
        state = self.nav.state
        if state.instructions_status == "signed":
            self._set_boxes(state.instruction_texts, read_only=True)
            self.status.setText("Signed patient instructions are on file.")
        else:
            self.status.setText("Choose a template, replace every *** with the patient's "
                                "instructions, then sign.")

    def _template_chosen(self, _index: int) -> None:
        template = next((t for t in self.templates if t.id == self.template.currentData()),
                        None)
        self._set_boxes([(s.heading, s.prompt) for s in template.sections] if template
                        else [])

    def _set_boxes(self, texts: list[tuple[str, str]], read_only: bool = False) -> None:
        while self.sections_layout.count():
            item = self.sections_layout.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        self.boxes = []
        for n, (heading, text) in enumerate(texts, start=1):
            label = QLabel(heading)
            label.setProperty("role", "fieldLabel")
            box = named(QPlainTextEdit(text), f"navigator.instructions.section{n}", heading)
            box.setReadOnly(read_only)
            box.setMinimumHeight(64)
            self.sections_layout.addWidget(label)
            self.sections_layout.addWidget(box)
            self.boxes.append((heading, box))
        self.sections_layout.addStretch(1)
        self.sign.setEnabled(bool(texts) and not read_only)

    def texts(self) -> list[tuple[str, str]]:
        return [(heading, box.toPlainText()) for heading, box in self.boxes]

    def _sign(self) -> None:
        chart = self.nav.chart
        try:
            sign_instructions(chart.ctx, chart.patient_id, chart.encounter_id,
                              self.template.currentData(), self.texts())
        except DischargeRefused as refused:
            show_error(self.error, "Cannot sign: " + " ".join(refused.problems))
            return
        show_error(self.error, None)
        chart.status.emit("Patient instructions signed.")
        self.nav.reload()


class DischargeNavigator(QWidget):
    def __init__(self, chart: PatientChart, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("page.dischargeNavigator")
        self.chart = chart
        self.state = load_navigator(chart.ctx, chart.patient_id, chart.encounter_id)
        self.sections = named(QListWidget(), "navigator.sections", "Discharge navigator sections")
        self.sections.setProperty("role", "navigatorSections")
        self.sections.setFixedWidth(200)
        self.stack = QStackedWidget()
        self._build_pages()
        for title in NAVIGATOR_SECTIONS:
            self.sections.addItem(QListWidgetItem(title))
        self.sections.currentRowChanged.connect(self._go)
        self.pending = PendingPanel(chart, prefix="navigator.pending")
        right = QSplitter(Qt.Orientation.Vertical)
        right.addWidget(self.stack)
        right.addWidget(self.pending)
        right.setSizes([470, 170])
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.sections)
        layout.addWidget(right, 1)
        chart.signed.connect(lambda _ids: self.reload())
        self.sections.setCurrentRow(0)

    def _build_pages(self) -> None:
        chart = self.chart
        frame, lay = _section_frame("Problem List", "problemList")
        self.problem_model = RecordTableModel(PROBLEM_COLUMNS)
        lay.addWidget(table_view("navigator.problems.table", "Hospital problems",
                                 self.problem_model), 1)
        self.problems_status = caption("")
        row = QHBoxLayout()
        row.addWidget(self.problems_status, 1)
        row.addWidget(button("Mark as Reviewed", "navigator.problems.reviewed",
                             "Mark problem list reviewed",
                             slot=lambda: self._review("Problem List")))
        lay.addLayout(row)
        self.stack.addWidget(frame)

        frame, lay = _section_frame("Order Cleanup", "orderCleanup")
        lay.addWidget(caption("Active orders of this admission. Discontinue what should not "
                              "continue; changes are signed with the pending orders below."))
        self.cleanup_model = RecordTableModel(ORDER_COLUMNS)
        self.cleanup = table_view("navigator.cleanup.table", "Active orders", self.cleanup_model)
        self.cleanup.setColumnWidth(0, 240)
        self.cleanup.setColumnWidth(1, 250)
        lay.addWidget(self.cleanup, 1)
        self.cleanup_status = caption("")
        row = QHBoxLayout()
        row.addWidget(self.cleanup_status, 1)
        row.addWidget(button("Discontinue Selected", "navigator.cleanup.discontinue",
                             "Discontinue selected order", slot=self._discontinue_selected))
        row.addWidget(button("Mark as Reviewed", "navigator.cleanup.reviewed",
                             "Mark order cleanup reviewed",
                             slot=lambda: self._review("Order Cleanup")))
        lay.addLayout(row)
        self.stack.addWidget(frame)

        self.medrec = MedRecPage(chart, "discharge", name="navigator.medrec")
        self.stack.addWidget(self.medrec)

        frame, lay = _section_frame("Follow-up", "followUp")
        lay.addWidget(caption("Order follow-up appointments: department and timeframe "
                              "(e.g. PCP in 7 days). They are signed with the pending "
                              "orders below."))
        self.follow_model = RecordTableModel(ORDER_COLUMNS)
        lay.addWidget(table_view("navigator.followUp.table", "Follow-up orders",
                                 self.follow_model), 1)
        lay.addWidget(button("+ Add Follow-up", "navigator.followUp.add",
                             "Add follow-up appointment", slot=self._add_follow_up),
                      0, Qt.AlignmentFlag.AlignLeft)
        self.stack.addWidget(frame)

        frame, lay = _section_frame("Patient Instructions", "instructions")
        self.instructions = InstructionsEditor(self)
        lay.addWidget(self.instructions, 1)
        self.stack.addWidget(frame)

        frame, lay = _section_frame("Discharge Order", "dischargeOrder")
        self.discharge_status = named(QLabel(""), "navigator.dischargeOrder.status",
                                      "Discharge order status")
        self.discharge_status.setWordWrap(True)
        lay.addWidget(self.discharge_status)
        lay.addWidget(button("Place Discharge Order", "navigator.dischargeOrder.add",
                             "Place discharge order", slot=self._add_discharge_order),
                      0, Qt.AlignmentFlag.AlignLeft)
        lay.addStretch(1)
        self.stack.addWidget(frame)

        frame, lay = _section_frame("After Visit Summary", "avs")
        self.avs_preview = named(QPlainTextEdit(), "navigator.avs.preview", "AVS preview")
        self.avs_preview.setReadOnly(True)
        lay.addWidget(self.avs_preview, 1)
        self.avs_status = named(QLabel(""), "navigator.avs.status", "AVS status")
        row = QHBoxLayout()
        row.addWidget(self.avs_status, 1)
        row.addWidget(button("Print AVS", "navigator.avs.print", "Print After Visit Summary",
                             slot=self._print_avs))
        lay.addLayout(row)
        self.stack.addWidget(frame)

    # -- loading -------------------------------------------------------------------------
    def load(self) -> None:
        self.reload()

    def reload(self) -> None:
        chart = self.chart
        self.state = load_navigator(chart.ctx, chart.patient_id, chart.encounter_id)
        self.problem_model.set_rows(chart_lists.problems(chart.ctx, chart.patient_id))
        self.problems_status.setText(
            "Reviewed." if self.state.section_status("Problem List") == "complete"
            else "Review the hospital problems, then mark them reviewed.")
        self.cleanup_model.set_rows(chart_lists.orders(chart.ctx, chart.patient_id,
                                                       active_only=True))
        self.cleanup_status.setText(
            "Reviewed." if self.state.section_status("Order Cleanup") == "complete"
            else "Review the active orders, then mark them reviewed.")
        self.medrec.load()
        follow = [r for r in chart_lists.orders(chart.ctx, chart.patient_id, active_only=True,
                                                order_types=("appointment",))]
        self.follow_model.set_rows(follow)
        self.instructions.load()
        if self.state.discharge_order_id:
            self.discharge_status.setText(
                f"Discharge order signed (disposition: {self.state.disposition or '—'}).")
        else:
            self.discharge_status.setText("No discharge order yet. Place it, then Sign "
                                          "(pending orders below).")
        self.avs_preview.setPlainText(self._avs_text())
        self.avs_status.setText(f"Printed {self.state.avs_prints} time(s)."
                                if self.state.avs_prints else "Not printed.")
        for row, title in enumerate(NAVIGATOR_SECTIONS):
            done = self.state.section_status(title) == "complete"
            item = self.sections.item(row)
            item.setText(("✔ " if done else "    ") + title)

    def _go(self, row: int) -> None:
        self.stack.setCurrentIndex(max(0, row))

    def _avs_text(self) -> str:
        s = self.chart.summary
        lines = [f"AFTER VISIT SUMMARY — {s.name} (MRN {s.mrn})",
                 f"Admitted {s.admit_at:%m/%d/%Y} for: {s.reason or ''}" if s.admit_at else "",
                 ""]
        for heading, text in self.state.instruction_texts:
            lines += [heading.upper(), text, ""]
        if not self.state.instruction_texts:
            lines.append("(Patient instructions not yet signed.)")
        return "\n".join(lines)

    # -- actions -------------------------------------------------------------------------
    def _review(self, section: str) -> None:
        chart = self.chart
        mark_reviewed(chart.ctx, chart.patient_id, chart.encounter_id, section)
        self.reload()

    def _discontinue_selected(self) -> None:
        rows = self.cleanup.selectionModel().selectedRows()
        if not rows:
            self.cleanup_status.setText("Select an order to discontinue first.")
            return
        self.chart.act_on_order("discontinue", self.cleanup_model.row_at(rows[0].row()).id)

    def _orderable_of_type(self, order_type: str) -> int:
        return next(o.id for o in self.chart.ref.orderables.values()
                    if o.order_type == order_type)

    def _add_follow_up(self) -> None:
        self.chart.new_order(self._orderable_of_type(FOLLOW_UP_ORDERABLE), order_mode="discharge")

    def _add_discharge_order(self) -> None:
        self.chart.new_order(self._orderable_of_type(DISCHARGE_ORDERABLE),
                             order_mode="discharge")

    def _print_avs(self) -> None:
        answer = Prompt.ask(self, "printAvs", "Print After Visit Summary",
                            f"Print the After Visit Summary for {self.chart.summary.name} to "
                            f"{PRINTERS[0]}?", [("print", "Print"), ("cancel", "Cancel")],
                            icon="question", default="cancel")
        if answer != "print":
            return
        print_avs(self.chart.ctx, self.chart.patient_id, self.chart.encounter_id, PRINTERS[0])
        self.chart.status.emit("After Visit Summary printed.")
        self.reload()
