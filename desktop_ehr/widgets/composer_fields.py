"""The Order Composer's fields: which ones an order type shows, loading a draft into them
and reading them back (refusing what was typed wrong). Mixed into :class:`OrderComposer`."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QGridLayout, QHBoxLayout, QLabel, QWidget

from desktop_ehr.services.catalog import Reference
from desktop_ehr.services.cds import weight_based_dose, weight_helper_text
from desktop_ehr.services.orders import (
    LEVELS_OF_CARE,
    PRIORITY_LABELS,
    TIMEFRAME_UNITS,
    OrderDraft,
    is_medication_like,
)
from desktop_ehr.services.parsing import (
    InputError,
    format_number,
    parse_int,
    parse_positive_number,
)
from desktop_ehr.widgets.common import (
    button,
    caption,
    combo,
    line_edit,
    mark_invalid,
    named,
    select_data,
)

PRN_REASONS = ("pain", "mild pain", "moderate pain", "severe pain", "fever", "nausea",
               "nausea or vomiting", "wheezing or shortness of breath", "anxiety",
               "insomnia", "agitation", "blood glucose less than 70 mg/dL", "constipation")


class ComposerFields:
    """Field building and reading; the host dialog provides ``form``, ``orderable``,
    ``draft``, ``ref``, ``patient``, ``_fields``, ``_row`` and the reaction slots."""

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


def _provider_id(ref: Reference, name: str | None) -> int | None:
    if not name:
        return None
    provider = next((p for p in ref.providers if p.name == name), None)
    return provider.id if provider else None
