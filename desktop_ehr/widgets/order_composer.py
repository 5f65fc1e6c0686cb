"""The Order Composer (Hyperspace) / Order Details (PowerChart) dialog.

It edits one :class:`OrderDraft`. Enter accepts, Esc cancels. Bad input (a dose that is not
a number, an unknown frequency, an impossible date, a bad scale range) is refused in place:
the field turns red, its message shows under the form, and the dialog stays open. Required
details that are missing are named the same way. Cancel returns nothing and changes nothing.
"""

from __future__ import annotations

from datetime import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
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
from desktop_ehr.services.cds import weight_based_dose
from desktop_ehr.services.chart import PatientSummary
from desktop_ehr.services.orders import (
    OrderDraft,
    apply_sentence,
    invalid_fields,
    is_medication_like,
    missing_fields,
)
from desktop_ehr.services.parsing import (
    InputError,
    format_number,
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
    show_error,
)
from desktop_ehr.widgets.composer_fields import ComposerFields
from desktop_ehr.widgets.scale_editor import ScaleEditor


class OrderComposer(ComposerFields, QDialog):
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
