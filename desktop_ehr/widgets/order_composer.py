"""The Order Composer (Hyperspace) / Order Details (PowerChart) dialog.

It edits one :class:`OrderDraft`. Enter accepts, Esc cancels. Bad input (a dose that is not
a number, an unknown frequency, an impossible date, a bad scale range) is refused in place:
the field turns red, its message shows under the form, and the dialog stays open. Required
details that are missing are named the same way. Cancel returns nothing and changes nothing.
"""

from __future__ import annotations

from datetime import date, time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop_ehr.personas.vocabulary import Vocabulary
from desktop_ehr.services.catalog import Orderable, Reference
from desktop_ehr.services.cds import weight_based_dose, weight_helper_text
from desktop_ehr.services.chart import PatientSummary
from desktop_ehr.services.orders import (
    LEVELS_OF_CARE,
    PRIORITY_LABELS,
    TIMEFRAME_UNITS,
    OrderDraft,
    apply_sentence,
    invalid_fields,
    is_medication_like,
    missing_fields,
)
from desktop_ehr.services.parsing import (
    InputError,
    format_number,
    parse_int,
    parse_positive_number,
)
from desktop_ehr.widgets.common import (
    DateTimeField,
    button,
    caption,
    combo,
    error_label,
    line_edit,
    mark_invalid,
    named,
    select_data,
    show_error,
)
from desktop_ehr.widgets.scale_editor import ScaleEditor

PRN_REASONS = ("pain", "mild pain", "moderate pain", "severe pain", "fever", "nausea",
               "nausea or vomiting", "wheezing or shortness of breath", "anxiety",
               "insomnia", "agitation", "blood glucose less than 70 mg/dL", "constipation")


class OrderComposer(QDialog):
    """Edits a draft; :attr:`result_draft` holds the accepted draft."""

    def __init__(self, orderable: Orderable, draft: OrderDraft, ref: Reference,
                 patient: PatientSummary | None, today_fn, vocab: Vocabulary,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.orderable = orderable
        self.draft = draft.copy()
        self.ref = ref
        self.patient = patient
        self.vocab = vocab
        self._today = today_fn
        self.result_draft: OrderDraft | None = None
        self._fields: dict[str, QWidget] = {}
        named(self, "composer", vocab.composer_title)
        self.setWindowTitle(f"{vocab.composer_title} - {orderable.name}")
        self.setModal(True)
        self._build()
        self._load(self.draft)
        wanted = sum(w.sizeHint().height() for w in (self._header, self._body, self._footer))
        self.resize(860, max(380, min(700, wanted + 24)))

    # -- construction --------------------------------------------------------------------
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        header = QFrame()
        header.setProperty("role", "dialogHeader")
        hl = QVBoxLayout(header)
        hl.setContentsMargins(12, 8, 12, 8)
        title = named(QLabel(self.orderable.name), "composer.orderName", "Order name")
        title.setProperty("role", "dialogTitle")
        hl.addWidget(title)
        sub = []
        if self.orderable.high_alert:
            sub.append("HIGH ALERT MEDICATION")
        if self.orderable.therapeutic_class:
            sub.append(self.orderable.therapeutic_class)
        if self.draft.order_set_id:
            sub.append(f"From {self.vocab.order_set.lower()}")
        if sub:
            hl.addWidget(caption(" · ".join(sub), role="alertCaption"
                                 if self.orderable.high_alert else "caption"))
        if self.orderable.description:
            desc = caption(self.orderable.description)
            desc.setWordWrap(True)
            hl.addWidget(desc)
        outer.addWidget(header)
        self._header = header

        body = QWidget()
        self._body = body
        self.form = QGridLayout(body)
        self.form.setContentsMargins(12, 8, 12, 8)
        self.form.setHorizontalSpacing(8)
        self.form.setVerticalSpacing(5)
        self.form.setColumnStretch(1, 1)
        self._row = 0
        self._build_sentences()
        kind = self.orderable.order_type
        if is_medication_like(self.orderable) or kind == "protocol":
            self._build_medication()
        if kind == "lab":
            self._build_lab()
        if kind == "admit":
            self._build_admit()
        if kind == "code_status":
            self._add("codeStatus", "Code status",
                      combo("composer.codeStatus", "Code status",
                            [("", None)] + [(c, c) for c in self.orderable.choices]))
        if kind == "appointment":
            self._build_appointment()
        if kind == "discharge":
            self._add("disposition", "Disposition",
                      combo("composer.disposition", "Disposition",
                            [("", None)] + [(c, c) for c in self.orderable.choices]))
        if kind not in ("lab", "appointment", "code_status", "discharge", "admit"):
            self._add("priority", "Priority", self._priority_combo())
        if kind != "appointment":
            start_label = "Expected discharge" if kind == "discharge" else "Start"
            self.start = DateTimeField("composer.start", start_label, self._today)
            self._add("start", start_label, self.start)
            if kind not in ("code_status", "discharge", "admit"):
                self.stop = DateTimeField("composer.stop", "Stop", self._today,
                                          default_time=time(23, 59))
                self._add("stop", "Stop", self.stop)
        self._add("comments", "Comments", line_edit("composer.comments", "Order comments"))
        if self.orderable.scale_allowed:
            self.scale = ScaleEditor(self.draft.scale)
            self._add("scale", "Sliding scale", self.scale, stretch=True)
        else:
            self.form.setRowStretch(self._row, 1)  # rows stay compact at the top
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)

        footer = QFrame()
        footer.setProperty("role", "dialogFooter")
        fl = QVBoxLayout(footer)
        fl.setContentsMargins(12, 6, 12, 8)
        self.message = error_label("composer.message")
        fl.addWidget(self.message)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.accept_button = button(f"✔ {self.vocab.accept}", "composer.accept",
                                    self.vocab.accept, role="primary", slot=self.accept,
                                    tooltip="Enter")
        self.accept_button.setDefault(True)
        self.cancel_button = button("✖ Cancel", "composer.cancel", "Cancel", slot=self.reject,
                                    tooltip="Esc")
        buttons.addWidget(self.accept_button)
        buttons.addWidget(self.cancel_button)
        fl.addLayout(buttons)
        outer.addWidget(footer)
        self._footer = footer

    def _add(self, key: str, label: str, widget: QWidget, *, stretch: bool = False,
             extra: QWidget | None = None) -> None:
        lab = QLabel(label + ":")
        lab.setProperty("role", "fieldLabel")
        lab.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop
                         if stretch else Qt.AlignmentFlag.AlignRight |
                         Qt.AlignmentFlag.AlignVCenter)
        self.form.addWidget(lab, self._row, 0)
        if extra is not None:
            box = QHBoxLayout()
            box.setSpacing(6)
            box.addWidget(widget)
            box.addWidget(extra)
            box.addStretch(1)
            self.form.addLayout(box, self._row, 1)
        else:
            self.form.addWidget(widget, self._row, 1)
        if stretch:
            self.form.setRowStretch(self._row, 1)
        self._fields[key] = widget
        self._row += 1

    def _build_sentences(self) -> None:
        if not self.orderable.sentences:
            return
        box = QWidget()
        layout = QGridLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        for i, sentence in enumerate(self.orderable.sentences, start=1):
            btn = button(sentence.display, f"composer.sentence.{i}", sentence.display,
                         role="quickPick")
            btn.clicked.connect(lambda _=False, s=sentence: self._use_sentence(s))
            btn.setStyleSheet("text-align: left; padding-left: 8px;")
            layout.addWidget(btn, i - 1, 0)
        layout.setColumnStretch(1, 1)
        self._add("sentences", "Order sentences", box)

    def _build_medication(self) -> None:
        orderable = self.orderable
        if is_medication_like(orderable):
            self.dose = line_edit("composer.dose", "Dose", "number")
            self.dose.setMaximumWidth(110)
            unit = named(QLabel(orderable.dose_unit or ""), "composer.doseUnit", "Dose unit")
            self._add("dose", "Dose", self.dose, extra=unit)
            if orderable.weight_based_dose is not None:
                self._build_weight_helper()
            self.route = combo("composer.route", "Route",
                               [("", None)] + [(r.label, r.code) for r in self.ref.routes])
            self._add("route", "Route", self.route)
        self.frequency = combo("composer.frequency", "Frequency",
                               [(f.label, f.code) for f in self.ref.frequencies], editable=True)
        self.frequency.setCurrentIndex(-1)
        self.frequency.setMinimumWidth(320)
        self.frequency.currentIndexChanged.connect(self._frequency_picked)
        self.frequency.lineEdit().editingFinished.connect(self._check_frequency)
        self._add("frequency", "Frequency", self.frequency)
        self.prn = named(QCheckBox("PRN (as needed)"), "composer.prn", "PRN")
        self.prn.toggled.connect(self._prn_toggled)
        self.prn_reason = combo("composer.prnReason", "PRN reason",
                                [(r, r) for r in PRN_REASONS], editable=True)
        self.prn_reason.setCurrentIndex(-1)
        self.prn_reason.setMinimumWidth(260)
        self._add("prn", "PRN", self.prn, extra=self._labelled("Reason:", self.prn_reason))
        if is_medication_like(orderable):
            self.hold = line_edit("composer.holdParameters", "Hold parameters",
                                  "e.g. hold if NPO and BG<150")
            self._add("hold", "Hold parameters", self.hold)
            if self.draft.order_mode == "discharge":
                self.dispense = line_edit("composer.dispense", "Dispense quantity", "e.g. 30 tablet")
                self.refills = line_edit("composer.refills", "Refills", "0")
                self.refills.setMaximumWidth(60)
                self._add("dispense", "Dispense", self.dispense,
                          extra=self._labelled("Refills:", self.refills))

    def _build_weight_helper(self) -> None:
        weight = self.patient.weight_kg if self.patient else None
        when = self.patient.weight_date if self.patient else None
        text = named(QLabel(weight_helper_text(self.orderable, weight, when)),
                     "composer.weightHelper", "Weight-based dose helper")
        text.setProperty("role", "helper")
        self.per_kg = line_edit("composer.dosePerKg", "Dose per kg",
                                self.orderable.weight_based_unit or "mg/kg")
        self.per_kg.setMaximumWidth(80)
        calc = button("Calculate", "composer.weightCalc", "Calculate weight-based dose",
                      slot=self._calculate_weight_dose)
        calc.setEnabled(weight is not None)
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.per_kg)
        layout.addWidget(QLabel(self.orderable.weight_based_unit or "mg/kg"))
        layout.addWidget(calc)
        layout.addWidget(text, 1)
        self._add("weight", "Weight-based", row)

    def _build_lab(self) -> None:
        self._add("priority", "Priority", self._priority_combo())
        spec = named(QLabel(self.orderable.specimen or ""), "composer.specimen", "Specimen")
        self._add("specimen", "Specimen", spec)
        self.occurrences = line_edit("composer.occurrences", "Occurrences", "1")
        self.occurrences.setMaximumWidth(60)
        self._add("occurrences", "Occurrences", self.occurrences,
                  extra=caption("times (e.g. 2 for blood cultures x2)"))

    def _build_admit(self) -> None:
        units = [d for d in self.ref.departments if d.kind in ("inpatient_unit",)]
        self._add("department", "Admit to", combo(
            "composer.department", "Admit to department",
            [("", None)] + [(d.name, d.id) for d in units]))
        self._add("levelOfCare", "Level of care", combo(
            "composer.levelOfCare", "Level of care", [(v, v) for v in LEVELS_OF_CARE]))
        self._add("attending", "Attending", combo(
            "composer.attending", "Attending provider",
            [("", None)] + [(p.name, p.id) for p in self.ref.providers]))

    def _build_appointment(self) -> None:
        clinics = [d for d in self.ref.departments if d.schedulable]
        self._add("department", "Department", combo(
            "composer.department", "Follow-up department",
            [("", None)] + [(d.name, d.id) for d in clinics]))
        self._add("provider", "Provider", combo(
            "composer.provider", "Follow-up provider",
            [("(any provider)", None)] + [(p.name, p.id) for p in self.ref.providers]))
        self.timeframe = line_edit("composer.timeframeValue", "Follow up in", "7")
        self.timeframe.setMaximumWidth(60)
        unit = combo("composer.timeframeUnit", "Timeframe unit",
                     [("", None)] + [(u, u) for u in TIMEFRAME_UNITS])
        self._fields["timeframeUnit"] = unit
        self._add("timeframe", "Follow up in", self.timeframe, extra=unit)

    def _priority_combo(self):
        return combo("composer.priority", "Priority",
                     [(label, key) for key, label in PRIORITY_LABELS.items()])

    @staticmethod
    def _labelled(text: str, widget: QWidget) -> QWidget:
        box = QWidget()
        layout = QHBoxLayout(box)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel(text))
        layout.addWidget(widget)
        return box

    # -- loading / reading ---------------------------------------------------------------
    def _load(self, d: OrderDraft) -> None:
        f = self._fields
        if hasattr(self, "dose"):
            self.dose.setText(format_number(d.dose) if d.dose is not None else "")
        if hasattr(self, "per_kg"):
            self.per_kg.setText(format_number(d.dose_per_kg) if d.dose_per_kg else "")
        if "route" in f:
            select_data(f["route"], d.route)
        if hasattr(self, "frequency"):
            if not select_data(self.frequency, d.frequency):
                self.frequency.setCurrentIndex(-1)
                self.frequency.setEditText("")
            self.prn.setChecked(bool(d.prn))
            self.prn_reason.setEditText(d.prn_reason or "")
        if hasattr(self, "hold"):
            self.hold.setText(d.hold_parameters or "")
        if hasattr(self, "dispense"):
            self.dispense.setText(d.dispense_quantity or "")
            self.refills.setText("" if d.refills is None else str(d.refills))
        if "priority" in f:
            select_data(f["priority"], d.priority)
        if hasattr(self, "occurrences"):
            self.occurrences.setText(str(d.occurrences or 1))
        for key, value in (("department", d.department_id), ("attending",
                           d.attending_provider_id), ("codeStatus", d.code_status),
                           ("levelOfCare", d.level_of_care), ("timeframeUnit",
                           d.timeframe_unit), ("disposition", d.details.get("Disposition"))):
            if key in f:
                select_data(f[key], value)
        if "provider" in f:
            select_data(f["provider"], _provider_id(self.ref, d.details.get("Provider")))
        if hasattr(self, "timeframe"):
            self.timeframe.setText(str(d.timeframe_value or ""))
        if hasattr(self, "start"):
            self.start.set_value(d.start_at)
        if hasattr(self, "stop"):
            self.stop.set_value(d.stop_at)
        f["comments"].setText(d.comments or "")
        self._prn_toggled(self.prn.isChecked() if hasattr(self, "prn") else False)

    def read_draft(self) -> tuple[OrderDraft, list[InputError]]:
        """The draft as the fields now say, and the typed values that were refused."""
        d = self.draft.copy()
        errors: list[InputError] = []

        def attempt(fn, widget=None):
            try:
                result = fn()
                if widget is not None:
                    mark_invalid(widget, False)
                return result
            except InputError as err:
                errors.append(err)
                if widget is not None:
                    mark_invalid(widget, True)
                return None

        f = self._fields
        if hasattr(self, "dose"):
            text = self.dose.text().strip()
            d.dose = attempt(lambda: parse_positive_number(text, "Dose", maximum=100000),
                             self.dose) if text else None
        if hasattr(self, "per_kg"):
            text = self.per_kg.text().strip()
            d.dose_per_kg = attempt(lambda: parse_positive_number(text, "Dose per kg",
                                                                  maximum=100),
                                    self.per_kg) if text else None
            if d.dose_per_kg and self.patient and self.patient.weight_kg:
                d.dosing_weight_kg = self.patient.weight_kg
                if d.dose is None and not self.dose.text().strip():
                    d.dose = weight_based_dose(d.dose_per_kg, self.patient.weight_kg)
            else:
                d.dosing_weight_kg = None
        if "route" in f:
            d.route = f["route"].currentData()
        if hasattr(self, "frequency"):
            d.frequency = attempt(self._frequency_code, self.frequency)
            d.prn = self.prn.isChecked()
            d.prn_reason = self.prn_reason.currentText().strip() or None if d.prn else None
        if hasattr(self, "hold"):
            d.hold_parameters = self.hold.text().strip() or None
        if hasattr(self, "dispense"):
            d.dispense_quantity = self.dispense.text().strip() or None
            text = self.refills.text().strip()
            d.refills = attempt(lambda: parse_int(text, "Refills", maximum=11),
                                self.refills) if text else None
        if "priority" in f:
            d.priority = f["priority"].currentData() or "routine"
        if hasattr(self, "occurrences"):
            text = self.occurrences.text().strip() or "1"
            d.occurrences = attempt(lambda: parse_int(text, "Occurrences", minimum=1,
                                                      maximum=10), self.occurrences) or 1
        if "department" in f:
            d.department_id = f["department"].currentData()
        if "attending" in f:
            d.attending_provider_id = f["attending"].currentData()
        if "levelOfCare" in f:
            d.level_of_care = f["levelOfCare"].currentData()
        if "codeStatus" in f:
            d.code_status = f["codeStatus"].currentData()
        if "disposition" in f:
            d.details = {**d.details, "Disposition": f["disposition"].currentData() or ""}
        if "provider" in f:
            provider = self.ref.provider(f["provider"].currentData())
            d.details = {**d.details, "Provider": provider.name if provider else ""}
        if hasattr(self, "timeframe"):
            text = self.timeframe.text().strip()
            d.timeframe_value = attempt(lambda: parse_int(text, "Follow up in", minimum=1,
                                                          maximum=365),
                                        self.timeframe) if text else None
            d.timeframe_unit = f["timeframeUnit"].currentData()
        if hasattr(self, "start"):
            d.start_at = attempt(self.start.value, self.start.date_edit)
        if hasattr(self, "stop"):
            d.stop_at = attempt(self.stop.value, self.stop.date_edit)
        d.comments = f["comments"].text().strip() or None
        if hasattr(self, "scale"):
            d.scale = self.scale.bands()
        return d, errors

    def _frequency_code(self) -> str | None:
        text = self.frequency.currentText().strip()
        if not text:
            return None
        freq = self.ref.find_frequency(text)
        if freq is None:
            examples = ", ".join(f.code for f in self.ref.frequencies[:6])
            raise InputError("Frequency", f"Frequency '{text}' is not in the list: choose one "
                                          f"from the list or type its code ({examples} …).")
        return freq.code

    # -- reactions -----------------------------------------------------------------------
    def _use_sentence(self, sentence) -> None:
        draft, _errors = self.read_draft()
        apply_sentence(draft, sentence, self.ref)
        if sentence.dose is None and self.orderable.weight_based_dose and \
                "kg" in sentence.display:
            draft.dose_per_kg = self.orderable.weight_based_dose
        self._load(draft)
        self.draft.details = draft.details

    def _calculate_weight_dose(self) -> None:
        try:
            per_kg = parse_positive_number(self.per_kg.text(), "Dose per kg", maximum=100)
        except InputError as err:
            mark_invalid(self.per_kg, True)
            show_error(self.message, err.message)
            return
        mark_invalid(self.per_kg, False)
        dose = weight_based_dose(per_kg, self.patient.weight_kg)
        self.dose.setText(format_number(dose))
        show_error(self.message, None)

    def _frequency_picked(self, _index: int) -> None:
        freq = self.ref.frequency(self.frequency.currentData())
        if freq is not None and freq.kind == "prn":
            self.prn.setChecked(True)

    def _check_frequency(self) -> None:
        try:
            self._frequency_code()
            mark_invalid(self.frequency, False)
        except InputError as err:
            mark_invalid(self.frequency, True)
            show_error(self.message, err.message)

    def _prn_toggled(self, checked: bool) -> None:
        if hasattr(self, "prn_reason"):
            self.prn_reason.setEnabled(checked)

    # -- accept --------------------------------------------------------------------------
    def problems(self) -> tuple[OrderDraft, list[str]]:
        draft, errors = self.read_draft()
        problems = [e.message for e in errors]
        if not errors:
            missing = missing_fields(draft, self.orderable, self.ref)
            if missing:
                problems.append(f"Required: {', '.join(missing)}.")
            problems += invalid_fields(draft, self.ref)
        return draft, problems

    def accept(self) -> None:
        draft, problems = self.problems()
        if problems:
            show_error(self.message, "\n".join(problems))
            return
        show_error(self.message, None)
        self.result_draft = draft
        super().accept()

    @classmethod
    def compose(cls, parent: QWidget | None, orderable: Orderable, draft: OrderDraft,
                ref: Reference, patient: PatientSummary | None, today_fn,
                vocab: Vocabulary) -> OrderDraft | None:
        """Run the composer modally; the accepted draft, or None when cancelled."""
        dialog = cls(orderable, draft, ref, patient, today_fn, vocab, parent)
        dialog.exec()
        result = dialog.result_draft
        dialog.deleteLater()
        return result


def _provider_id(ref: Reference, name: str | None) -> int | None:
    if not name:
        return None
    provider = next((p for p in ref.providers if p.name == name), None)
    return provider.id if provider else None


def today_from(ctx) -> date:
    return ctx.today()
