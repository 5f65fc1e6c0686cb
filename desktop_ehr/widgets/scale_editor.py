"""The sliding-scale ranges editor (glucose bands → insulin units), used in the composer.

Bands are typed into the entry row (From, To, Units, Instruction) and added with Add or
Enter; a band that overlaps another, is upside down or has impossible values is refused in
place with a message. Gaps are allowed while building and refused when the order is
accepted (the composer asks :meth:`ScaleEditor.problems`).
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QGridLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from desktop_ehr.models.scale import ScaleRangesModel, parse_band_value
from desktop_ehr.services.orders import ScaleBand, scale_problems
from desktop_ehr.services.parsing import InputError
from desktop_ehr.widgets.common import button, error_label, named, show_error, table_view


class EnterLineEdit(QLineEdit):
    """A line edit that keeps Enter for itself (emits ``entered``) instead of the dialog."""

    entered = Signal()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt API
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.entered.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class ScaleEditor(QWidget):
    changed = Signal()

    def __init__(self, bands: list[ScaleBand] | None = None, prefix: str = "composer.scale",
                 parent=None) -> None:
        super().__init__(parent)
        self.model = ScaleRangesModel(bands)
        self.view = table_view(f"{prefix}.table", "Sliding scale ranges", self.model)
        self.view.setEditTriggers(self.view.EditTrigger.DoubleClicked |
                                  self.view.EditTrigger.EditKeyPressed)
        self.view.setMinimumHeight(120)
        for col, width in enumerate((130, 130, 110)):
            self.view.setColumnWidth(col, width)
        self.low = self._entry(f"{prefix}.from", "Glucose from", "e.g. 150 (blank = below)")
        self.high = self._entry(f"{prefix}.to", "Glucose to", "e.g. 199 (blank = above)")
        self.units = self._entry(f"{prefix}.units", "Insulin units", "units")
        self.instruction = self._entry(f"{prefix}.instruction", "Range instruction",
                                       "optional, e.g. and call provider")
        self.add_button = button("Add Range", f"{prefix}.add", "Add range", slot=self.add_from_entry)
        self.remove_button = button("Remove Range", f"{prefix}.remove", "Remove range",
                                    slot=self.remove_selected)
        self.error = error_label(f"{prefix}.error")
        self.summary = named(QLabel(""), f"{prefix}.summary", "Scale summary")
        self.summary.setProperty("role", "caption")
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(4)
        for col, (text, edit) in enumerate((("From", self.low), ("To", self.high),
                                            ("Units", self.units),
                                            ("Instruction", self.instruction))):
            grid.addWidget(QLabel(text), 0, col)
            grid.addWidget(edit, 1, col)
        grid.addWidget(self.add_button, 1, 4)
        grid.addWidget(self.remove_button, 1, 5)
        grid.setColumnStretch(3, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        layout.addWidget(self.view, 1)
        layout.addLayout(grid)
        layout.addWidget(self.error)
        layout.addWidget(self.summary)
        self.model.refused.connect(lambda msg: show_error(self.error, msg))
        self.model.dataChanged.connect(self._update_summary)
        self.model.modelReset.connect(self._update_summary)
        self.model.rowsRemoved.connect(self._update_summary)
        self._update_summary()

    def _entry(self, name: str, label: str, placeholder: str) -> EnterLineEdit:
        edit = named(EnterLineEdit(), name, label)
        edit.setPlaceholderText(placeholder)
        edit.entered.connect(self.add_from_entry)
        return edit

    def bands(self) -> list[ScaleBand]:
        return self.model.bands()

    def problems(self) -> list[str]:
        return scale_problems(self.model.bands())

    def add_from_entry(self) -> bool:
        """Add the typed band; refuse (with the message in place) when it is not valid."""
        try:
            low = parse_band_value("low", self.low.text().strip())
            high = parse_band_value("high", self.high.text().strip())
            units = parse_band_value("units", self.units.text().strip())
        except InputError as err:
            show_error(self.error, err.message)
            return False
        band = ScaleBand(low, high, units, self.instruction.text().strip())
        candidate = sorted(self.model.bands() + [band],
                           key=lambda b: -1 if b.low is None else b.low)
        refused = [p for p in scale_problems(candidate)
                   if "gap" not in p and "needs at least" not in p]
        if refused:
            show_error(self.error, f"Range not added: {refused[0]}")
            return False
        self.model.add_band(band)
        for edit in (self.low, self.high, self.units, self.instruction):
            edit.clear()
        show_error(self.error, None)
        self.low.setFocus()
        return True

    def remove_selected(self) -> None:
        rows = sorted({i.row() for i in self.view.selectionModel().selectedIndexes()},
                      reverse=True)
        if not rows:
            show_error(self.error, "Select a range to remove first.")
            return
        for row in rows:
            self.model.remove_band(row)
        show_error(self.error, None)

    def _update_summary(self, *_args) -> None:
        bands = self.model.bands()
        if not bands:
            self.summary.setText("No ranges yet: type From / To / Units and press Add Range.")
        else:
            self.summary.setText("; ".join(f"{b.range_text}: {b.units:g} units"
                                           for b in bands))
        self.changed.emit()
