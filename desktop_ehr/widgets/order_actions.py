"""Hold / discontinue a signed order: when, until when, why (pended until Sign)."""

from __future__ import annotations

from datetime import time

from PySide6.QtWidgets import QDialog, QFormLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from desktop_ehr.services.parsing import InputError
from desktop_ehr.services.signing import OrderAction
from desktop_ehr.widgets.common import (
    DateTimeField,
    button,
    error_label,
    line_edit,
    named,
    show_error,
)

HOLD_REASONS_HINT = "e.g. procedure on 10/26 (peri-procedural hold)"


class OrderActionDialog(QDialog):
    def __init__(self, kind: str, order_id: int, order_name: str, details: str, today_fn,
                 now, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.order_id = order_id
        self.order_name = order_name
        self.result_action: OrderAction | None = None
        label = "Hold Order" if kind == "hold" else "Discontinue Order"
        named(self, f"orderAction.{kind}", label)
        self.setWindowTitle(label)
        self.resize(520, 260)
        title = QLabel(f"{order_name}\n{details}")
        title.setProperty("role", "dialogTitle")
        self.error = error_label("orderAction.error")
        self.start = DateTimeField("orderAction.from", "Hold from" if kind == "hold"
                                   else "Discontinue at", today_fn, self.error,
                                   default_time=time(0, 0))
        self.start.set_value(now)
        form = QFormLayout()
        form.addRow("Hold from:" if kind == "hold" else "Discontinue at:", self.start)
        if kind == "hold":
            self.until = DateTimeField("orderAction.until", "Resume on", today_fn, self.error,
                                       default_time=time(18, 0))
            form.addRow("Resume on (optional):", self.until)
        self.reason = line_edit("orderAction.reason", "Reason",
                                HOLD_REASONS_HINT if kind == "hold" else "Reason")
        form.addRow("Reason:", self.reason)
        ok = button("✔ Accept", "orderAction.accept", "Accept", role="primary",
                    slot=self.accept)
        ok.setDefault(True)
        cancel = button("✖ Cancel", "orderAction.cancel", "Cancel", slot=self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addLayout(form)
        layout.addWidget(self.error)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(ok)
        row.addWidget(cancel)
        layout.addLayout(row)

    def accept(self) -> None:
        try:
            start = self.start.value()
            until = self.until.value() if self.kind == "hold" else None
        except InputError as err:
            show_error(self.error, err.message)
            return
        if start is None:
            show_error(self.error, "Give the date and time the change starts.")
            return
        if until is not None and until <= start:
            show_error(self.error, "Resume must be after the hold starts.")
            return
        if not self.reason.text().strip():
            show_error(self.error, "A reason is required.")
            return
        self.result_action = OrderAction(self.kind, self.order_id, self.order_name,
                                         hold_from=start, hold_until=until,
                                         reason=self.reason.text().strip())
        super().accept()

    @classmethod
    def ask(cls, parent, kind: str, order_id: int, order_name: str, details: str, today_fn,
            now) -> OrderAction | None:
        dialog = cls(kind, order_id, order_name, details, today_fn, now, parent)
        dialog.exec()
        result = dialog.result_action
        dialog.deleteLater()
        return result
