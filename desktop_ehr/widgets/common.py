"""Shared widget helpers: names for the oracle, prompts, field errors, date/time fields.

Every interactive widget gets an ``objectName`` (dotted, stable: ``composer.dose``) and an
accessible name (plain words: "Dose"); the inspector finds widgets by either, so both are
part of the client's contract (docs/desktop-ehr.md lists them).
"""

from __future__ import annotations

from datetime import datetime, time
from typing import TypeVar

from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableView,
    QWidget,
)

from desktop_ehr.services.parsing import (
    InputError,
    format_date,
    format_time,
    parse_datetime,
)

W = TypeVar("W", bound=QWidget)


def named(widget: W, object_name: str, accessible_name: str | None = None,
          tooltip: str | None = None) -> W:
    """Give a widget its objectName and accessible name (and optional tooltip)."""
    widget.setObjectName(object_name)
    widget.setAccessibleName(accessible_name or object_name)
    if tooltip:
        widget.setToolTip(tooltip)
    return widget


def button(text: str, object_name: str, accessible_name: str | None = None, *,
           role: str | None = None, slot=None, tooltip: str | None = None) -> QPushButton:
    btn = named(QPushButton(text), object_name,
                accessible_name or text.replace("&", "").strip(), tooltip)
    btn.setAutoDefault(False)
    if role:
        btn.setProperty("role", role)
    if slot is not None:
        btn.clicked.connect(slot)
    return btn


def line_edit(object_name: str, accessible_name: str, placeholder: str = "",
              text: str = "") -> QLineEdit:
    edit = named(QLineEdit(text), object_name, accessible_name)
    if placeholder:
        edit.setPlaceholderText(placeholder)
    return edit


def combo(object_name: str, accessible_name: str, items: list[tuple[str, object]] = (),
          editable: bool = False) -> QComboBox:
    box = named(QComboBox(), object_name, accessible_name)
    box.setEditable(editable)
    # typing never adds entries: Enter accepts the dialog, unknown text is refused in place
    box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
    for text, data in items:
        box.addItem(text, data)
    box.view().setObjectName(f"{object_name}.list")
    box.view().setAccessibleName(f"{accessible_name} choices")
    if editable and box.lineEdit() is not None:
        box.lineEdit().setObjectName(f"{object_name}.text")
        box.lineEdit().setAccessibleName(accessible_name)
    return box


def select_data(box: QComboBox, data) -> bool:
    """Select the entry carrying ``data``; False when there is none."""
    index = box.findData(data)
    if index >= 0:
        box.setCurrentIndex(index)
        return True
    return False


def caption(text: str, object_name: str | None = None, role: str = "caption") -> QLabel:
    label = QLabel(text)
    label.setProperty("role", role)
    if object_name:
        named(label, object_name, text)
    return label


def error_label(object_name: str) -> QLabel:
    """A red message line shown next to a field when its input is refused."""
    label = named(QLabel(""), object_name, "Error message")
    label.setProperty("role", "error")
    label.setWordWrap(True)
    label.setVisible(False)
    return label


def show_error(label: QLabel, message: str | None) -> None:
    label.setText(message or "")
    label.setVisible(bool(message))


def mark_invalid(widget: QWidget, invalid: bool) -> None:
    widget.setProperty("invalid", invalid)
    widget.style().unpolish(widget)
    widget.style().polish(widget)


def table_view(object_name: str, accessible_name: str, model=None, *,
               stretch_last: bool = True, select_rows: bool = True) -> QTableView:
    view = named(QTableView(), object_name, accessible_name)
    if model is not None:
        view.setModel(model)
    view.setAlternatingRowColors(True)
    view.verticalHeader().setVisible(False)
    view.verticalHeader().setDefaultSectionSize(22)
    view.horizontalHeader().setStretchLastSection(stretch_last)
    view.horizontalHeader().setHighlightSections(False)
    view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    view.setWordWrap(False)
    if select_rows:
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    return view


class Prompt:
    """Modal prompts with named buttons. Tests replace :meth:`ask` to answer them."""

    @classmethod
    def ask(cls, parent: QWidget | None, name: str, title: str, text: str,
            buttons: list[tuple[str, str]], *, icon: str = "warning",
            details: str | None = None, default: str | None = None) -> str | None:
        """Show a message box; returns the key of the button pressed (None if closed)."""
        box = QMessageBox(parent)
        box.setObjectName(f"prompt.{name}")
        box.setAccessibleName(title)
        box.setWindowTitle(title)
        box.setText(text)
        box.setIcon({"warning": QMessageBox.Icon.Warning, "info": QMessageBox.Icon.Information,
                     "error": QMessageBox.Icon.Critical,
                     "question": QMessageBox.Icon.Question}[icon])
        if details:
            box.setInformativeText(details)
        keys = {}
        for key, label in buttons:
            role = QMessageBox.ButtonRole.AcceptRole if key in ("ok", "yes", "continue",
                                                              "override", "sign", "print",
                                                              "discard") \
                else QMessageBox.ButtonRole.RejectRole
            btn = box.addButton(label, role)
            named(btn, f"prompt.{name}.{key}", label.replace("&", ""))
            keys[btn] = key
            if key == default:
                box.setDefaultButton(btn)
        box.exec()
        return keys.get(box.clickedButton())

    @classmethod
    def inform(cls, parent: QWidget | None, name: str, title: str, text: str,
               details: str | None = None, icon: str = "info") -> None:
        cls.ask(parent, name, title, text, [("ok", "OK")], icon=icon, details=details,
                default="ok")


class DateTimeField(QWidget):
    """A date box and a time box side by side (``<name>Date`` / ``<name>Time``).

    Typed text is checked when the box loses focus; bad text is refused in place (red border
    and the message in ``error``) and :meth:`value` raises :class:`InputError`.
    """

    def __init__(self, name: str, label: str, today_fn, error: QLabel | None = None,
                 default_time: time | None = None, parent=None) -> None:
        super().__init__(parent)
        self.label = label
        self._today = today_fn
        self._default_time = default_time
        self.error = error
        self.date_edit = line_edit(f"{name}Date", f"{label} date", "MM/DD/YYYY or t+N")
        self.time_edit = line_edit(f"{name}Time", f"{label} time", "HH:MM")
        self.date_edit.setMaximumWidth(110)
        self.time_edit.setMaximumWidth(70)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.date_edit)
        layout.addWidget(self.time_edit)
        layout.addStretch(1)
        self.date_edit.editingFinished.connect(self.check)
        self.time_edit.editingFinished.connect(self.check)

    def set_value(self, value: datetime | None) -> None:
        self.date_edit.setText(format_date(value) if value else "")
        self.time_edit.setText(format_time(value) if value else "")
        self._flag(None)

    def value(self) -> datetime | None:
        return parse_datetime(self.date_edit.text(), self.time_edit.text(), self._today(),
                              self.label, self._default_time)

    def check(self) -> bool:
        """Validate now; normalizes good text (t+3 → 10/22/2026)."""
        try:
            value = self.value()
        except InputError as err:
            self._flag(err.message)
            return False
        if value is not None:
            self.date_edit.setText(format_date(value))
            self.time_edit.setText(format_time(value))
        self._flag(None)
        return True

    def _flag(self, message: str | None) -> None:
        mark_invalid(self.date_edit, bool(message))
        mark_invalid(self.time_edit, bool(message))
        if self.error is not None:
            show_error(self.error, message)
