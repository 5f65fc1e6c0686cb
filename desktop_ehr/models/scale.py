"""The sliding-scale ranges editor's model: glucose bands → insulin units.

Cells refuse bad input in place: a typed value that is not a whole number (glucose) or a
number (units) is not stored, and :attr:`refused` carries the message to show.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QAbstractTableModel, QModelIndex, Qt, Signal

from desktop_ehr.services.orders import ScaleBand, scale_problems
from desktop_ehr.services.parsing import InputError, format_number, parse_int, parse_positive_number

COLUMNS = ("Glucose from (mg/dL)", "Glucose to (mg/dL)", "Insulin (units)", "Instruction")
FIELDS = ("low", "high", "units", "instruction")


class ScaleRangesModel(QAbstractTableModel):
    refused = Signal(str)

    def __init__(self, bands: list[ScaleBand] | None = None, parent=None) -> None:
        super().__init__(parent)
        self._bands: list[ScaleBand] = list(bands or [])

    def bands(self) -> list[ScaleBand]:
        return list(self._bands)

    def problems(self) -> list[str]:
        return scale_problems(self._bands)

    def add_band(self, band: ScaleBand) -> int:
        """Append a band, keeping the list sorted by its low value."""
        self.beginResetModel()
        self._bands.append(band)
        self._bands.sort(key=lambda b: -1 if b.low is None else b.low)
        self.endResetModel()
        return self._bands.index(band)

    def remove_band(self, row: int) -> None:
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._bands[row]
        self.endRemoveRows()

    def set_bands(self, bands: list[ScaleBand]) -> None:
        self.beginResetModel()
        self._bands = list(bands)
        self.endResetModel()

    # -- Qt ------------------------------------------------------------------------------
    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self._bands)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return str(section + 1)

    def flags(self, index: QModelIndex):
        return super().flags(index) | Qt.ItemFlag.ItemIsEditable

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or role not in (Qt.ItemDataRole.DisplayRole,
                                               Qt.ItemDataRole.EditRole):
            return None
        band = self._bands[index.row()]
        value = getattr(band, FIELDS[index.column()])
        if value is None:
            return "" if role == Qt.ItemDataRole.EditRole else \
                ("(below)" if index.column() == 0 else "(and above)")
        return format_number(value) if index.column() == 2 else str(value)

    def setData(self, index: QModelIndex, value, role=Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        if not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        band = self._bands[index.row()]
        field = FIELDS[index.column()]
        text = "" if value is None else str(value).strip()
        try:
            parsed = parse_band_value(field, text)
        except InputError as err:
            self.refused.emit(err.message)
            return False
        self._bands[index.row()] = replace(band, **{field: parsed})
        self.dataChanged.emit(index, index)
        return True


def parse_band_value(field: str, text: str):
    """One cell's typed value: glucose bounds may be blank (open-ended); units may be 0."""
    if field in ("low", "high"):
        if not text or text.lower() in ("(below)", "(and above)"):
            return None
        label = "Glucose from" if field == "low" else "Glucose to"
        return parse_int(text, label, minimum=0, maximum=1000)
    if field == "units":
        return parse_positive_number(text, "Insulin units", maximum=50, allow_zero=True)
    return text[:120]
